"""`dicetable playout`: seeded random matches through the rules, checking every invariant."""

from __future__ import annotations

import argparse
import json
from typing import Any

from device.errors import UserError
from engine import EngineError, all_games, get_game
from engine.playout import PlayoutError, run_playouts


def register(sub: Any) -> None:
    p = sub.add_parser(
        "playout", help="random matches through the rules (invariant check)",
        description="Play seeded random legal matches of a game (or all games) and check "
                    "that legal actions never raise, states round-trip through JSON and "
                    "records replay to the same state.")
    p.add_argument("--game", default="all", help="game name, or 'all' (default)")
    p.add_argument("--matches", type=int, default=1000, help="matches per game (1000)")
    p.add_argument("--seed", type=int, default=0, help="first seed (0)")
    p.add_argument("--players", type=int, default=None,
                   help="player count (default: cycle over the game's range, up to 5)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.matches < 1:
        raise UserError("--matches must be at least 1")
    try:
        chosen = all_games() if args.game == "all" else [get_game(args.game)]
    except EngineError as exc:
        raise UserError(str(exc)) from None
    results = []
    for game in chosen:
        if args.players is not None and not game.info.seats(args.players):
            raise UserError(f"{game.info.name} is for {game.info.players_text()} players, "
                            f"not {args.players}")
        try:
            stats = run_playouts(game, args.matches, args.seed, players=args.players,
                                 check_candidates=True)
        except PlayoutError as exc:
            raise UserError(f"invariant broken: {exc}", exit_status=1) from None
        results.append(stats.to_dict())
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        for r in results:
            print(f"{r['game']}: {r['matches']} matches, {r['finished']} finished, "
                  f"{r['actions']} actions in {r['seconds']} s ({r['ms_per_match']} ms/match)")
    return 0
