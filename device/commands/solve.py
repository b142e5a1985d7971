"""`dicetable solve A B C`: every positive whole number three dice make (Pyramid Dice).

Each die is used exactly once with + − × ÷, in any order and with any bracketing, computed
exactly. Values above 6 are allowed (a god card's +1/+2 can push a die past 6).

    dicetable solve 2 3 4            one "value = expression" per line
    dicetable solve 2 3 4 --json     {"dice": [2, 3, 4], "reachable": [{"value": 1, ...}]}
    dicetable solve 3 4 6 --whole-steps   every intermediate result must be whole
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from device.errors import UserError
from engine.games.pyramid_dice.solver import reachable


def register(sub: Any) -> None:
    p = sub.add_parser(
        "solve", help="numbers three dice make with + − × ÷ (Pyramid Dice)",
        description="List every positive whole number the three dice make, using each die "
                    "exactly once with + − × ÷ in any order and any bracketing (Pyramid "
                    "Dice). Die values are positive whole numbers; above 6 is allowed (after "
                    "a +1/+2 god ability).")
    p.add_argument("dice", nargs="*", metavar="DIE", help="three die values, e.g. 2 3 4")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--whole-steps", action="store_true",
                   help="require every intermediate result to be a whole number")
    p.set_defaults(func=run)


def _dice(words: list[str]) -> list[int]:
    if len(words) != 3:
        raise UserError(f"give exactly three dice values, e.g. 'dicetable solve 2 3 4' "
                        f"(got {len(words)})")
    values = []
    for word in words:
        try:
            value = int(word, 10)
        except ValueError:
            raise UserError(f"a die value is a whole number, not {word!r}") from None
        if value < 1:
            raise UserError(f"a die value is 1 or more, not {value}")
        if value > 1000:
            raise UserError(f"a die value above 1000 ({value}) is not a die")
        values.append(value)
    return values


def run(args: argparse.Namespace) -> int:
    dice = _dice(list(args.dice))
    found = reachable(dice, whole_steps=args.whole_steps)
    if args.json:
        print(json.dumps({"dice": dice, "whole_steps": args.whole_steps,
                          "reachable": [{"value": v, "expression": e}
                                        for v, e in found.items()]}, ensure_ascii=False))
    else:
        for value, expression in found.items():
            print(f"{value} = {expression}")
    return 0
