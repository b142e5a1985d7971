"""`dicetable replay LOG`: re-validate a recorded match through the rules."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from device.errors import UserError
from engine import EngineError, Match


def register(sub: Any) -> None:
    p = sub.add_parser("replay", help="re-validate a recorded match",
                       description="Replay a match record (JSON) through the rules; every "
                                   "action must be legal and the final state must match.")
    p.add_argument("log", metavar="LOG", help="a match record (.json)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def load_match(path: str) -> Match:
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: cannot read it: {exc}") from None
    try:
        return Match.from_json(text)
    except EngineError as exc:
        raise UserError(f"{path}: {exc}") from None


def run(args: argparse.Namespace) -> int:
    match = load_match(args.log)
    game = match.game
    outcome = game.outcome(match.state)
    summary = {
        "log": args.log, "valid": True, "game": game.info.name,
        "players": match.initial.players, "entries": len(match.entries),
        "actions": len(match.actions),
        "scores": [s.to_dict() for s in game.score(match.state)],
        "outcome": outcome.to_dict() if outcome else None,
    }
    if args.json:
        print(json.dumps(summary, ensure_ascii=False, indent=1))
        return 0
    print(f"{args.log}: valid {game.info.title} record, {summary['actions']} actions "
          f"in {summary['entries']} entries")
    for s in game.score(match.state):
        print(f"  P{s.player + 1}: {s.total}")
    if outcome:
        print(f"  winner(s): {', '.join(f'P{w + 1}' for w in outcome.winners)}")
    else:
        print("  match not finished")
    return 0
