"""`dicetable matches [--db FILE] [--json]`: the matches recorded in a database, newest
first, with the id that `export` and `replay` take (it was only in the page's address)."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from device.errors import UserError


def register(sub: Any) -> None:
    p = sub.add_parser("matches", help="list the recorded matches (their ids for export)",
                       description="List the matches in the database, newest first: id, "
                                   "game, players, when started and last changed (local "
                                   "time), log entries, finished or open, title. The id is "
                                   "what 'dicetable export MATCH' takes. --json: a list of "
                                   "objects (times in seconds since 1970, UTC).")
    p.add_argument("--db", type=Path, default=None,
                   help="match database (default $DICETABLE_DB or "
                        "~/.local/share/dicetable/matches.sqlite, as 'serve')")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def _when(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(t))


def run(args: argparse.Namespace) -> int:
    from device.settings import default_db_path
    from device.store import StoreError, open_store

    db = Path(args.db or default_db_path()).expanduser()
    if not db.is_file():  # never create a database only to say it is empty
        raise UserError(f"no match database at {db} (give --db FILE; 'dicetable serve' "
                        "and the page's New match record there)")
    try:
        store = open_store(db)
        try:
            found = sorted(store.matches(), key=lambda m: m.created, reverse=True)
        finally:
            store.close()
    except StoreError as exc:
        raise UserError(str(exc)) from None
    if args.json:
        print(json.dumps([m.to_dict() for m in found], indent=1, ensure_ascii=False))
        return 0
    if not found:
        print(f"no matches recorded in {db}")
        return 0
    rows = [("ID", "GAME", "PLAYERS", "STARTED", "CHANGED", "ENTRIES", "STATE", "TITLE")]
    rows += [(m.id, m.game, str(m.players), _when(m.created), _when(m.updated),
              str(m.entries), "finished" if m.finished else "open", m.title) for m in found]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)) + "  " + r[-1])
    return 0
