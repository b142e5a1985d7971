"""`dicetable games`: the games this version knows, with their options."""

from __future__ import annotations

import argparse
import json
from typing import Any, cast

from engine import all_games


def register(sub: Any) -> None:
    p = sub.add_parser("games", help="list the games and their options",
                       description="List the games, their player counts and named options "
                                   "(with default and provenance).")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    listing = [{
        "name": g.info.name, "title": g.info.title, "aliases": list(g.info.aliases),
        "players": [g.info.min_players, g.info.max_players],
        "rules_source": g.info.rules_source,
        "rules": len(g.rules),
        "options": [{"name": o.name, "default": o.default,
                     "choices": list(o.choices) if o.choices else None,
                     "provenance": o.provenance, "doc": o.doc} for o in g.info.options],
    } for g in all_games()]
    if args.json:
        print(json.dumps(listing, ensure_ascii=False, indent=1))
        return 0
    for g in listing:
        lo, hi = cast(list[int | None], g["players"])
        counts = f"{lo}-{hi}" if hi is not None else f"{lo} or more"
        print(f"{g['name']:<14} {g['title']} ({counts} players, {g['rules']} rules)")
        for o in cast(list[dict[str, Any]], g["options"]):
            setting = f"{o['name']}={o['default']}"
            print(f"  {setting:<32} {provenance_words(o['provenance'])}")
            print(f"  {'':<32} {o['doc']}")
    return 0


#: What the provenance marks of the game data (shared/data/games/README.md) tell a player
#: choosing an option: a bare "UNKNOWN" beside a setting said nothing.
MARKS = {
    "UNKNOWN": "not in the rules: a guess, set it as your table plays",
    "INFERRED": "inferred from the rules, not stated",
    "VERIFIED": "verified",
    "CONFLICT": "the sources disagree",
    "UNCERTAIN": "uncertain",
}


def provenance_words(provenance: str) -> str:
    """An option's provenance said for a player: its mark in words, the rest kept."""
    mark, _, rest = provenance.partition(" ")
    if mark not in MARKS:
        return f"[{provenance}]"
    return f"[{MARKS[mark]}{' ' + rest if rest else ''}]"
