"""`dicetable export MATCH --format jsonl|bgstats`: a recorded match, for other tools."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from device.errors import UserError


def register(sub: Any) -> None:
    p = sub.add_parser("export", help="export a recorded match (JSON Lines or BG Stats)",
                       description="Export a match from the database (by id) or from a record "
                                   "file, as JSON Lines or as a BG Stats play file (.bgsplay).")
    p.add_argument("match", metavar="MATCH", help="match id in the database, or a record file")
    p.add_argument("--format", choices=("jsonl", "bgstats"), default="jsonl")
    p.add_argument("--db", type=Path, default=None, help="match database (see 'serve')")
    p.add_argument("--names", default=None, help="player names, comma-separated")
    p.add_argument("--out", type=Path, default=None, help="write here instead of stdout")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from device.commands.replay import load_match
    from device.export import bgstats, jsonl_lines

    if Path(args.match).suffix == ".json" or Path(args.match).is_file():
        match, match_id, played = load_match(args.match), Path(args.match).stem, None
    else:
        from device.settings import default_db_path
        from device.store import StoreError, load_checked, open_store

        db = args.db or default_db_path()
        if not Path(db).exists():
            raise UserError(f"no match database at {db} (give --db, or a record file)")
        try:
            store = open_store(db)
            match = load_checked(store, args.match)
            played = next((m.created for m in store.matches() if m.id == args.match), None)
        except StoreError as exc:
            raise UserError(str(exc)) from None
        match_id = args.match
    names = [n.strip() for n in args.names.split(",")] if args.names else None
    if names is not None and len(names) != match.initial.players:
        raise UserError(f"--names gives {len(names)} names for {match.initial.players} players")
    if args.format == "jsonl":
        text = "\n".join(jsonl_lines(match, match_id)) + "\n"
    else:
        text = json.dumps(bgstats(match, match_id, played_at=played, names=names),
                          ensure_ascii=False, indent=1) + "\n"
    if args.out is None:
        sys.stdout.write(text)
        return 0
    from calibration.atomicfile import write_atomic

    try:
        write_atomic(args.out, text)
    except OSError as exc:
        raise UserError(f"cannot write {args.out}: {exc}") from None
    return 0
