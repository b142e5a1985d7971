"""`dicetable demo`: a simulated table plays a match; the companion follows it.

Each move of a seeded random match is shown to the companion only as a noisy observation
of the table (no camera needed); the companion explains it with the rules, asks when it
is unsure (the simulated players answer), and keeps the score.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from typing import Any

from device.errors import UserError
from device.observer_sim import NoisyObserver, attribute_domains
from engine import (
    Accepted,
    Ambiguous,
    EngineError,
    Match,
    NoChange,
    get_game,
    reconcile,
)


def register(sub: Any) -> None:
    p = sub.add_parser("demo", help="watch a simulated table play a match",
                       description="Play a seeded simulated match; the companion reads each "
                                   "move from noisy observations, checks it and keeps score.")
    p.add_argument("--game", default="icedice", help="game (default icedice)")
    p.add_argument("--players", type=int, default=2, help="players (default 2)")
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p.add_argument("--misread", type=float, default=0.03,
                   help="probability that the simulated reader misreads an attribute")
    p.add_argument("--record", metavar="FILE", help="write the match record (JSON) here")
    p.add_argument("--delay", type=float, default=0.0, help="seconds between moves")
    p.add_argument("--json", action="store_true", help="print a JSON summary only")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        game = get_game(args.game)
        truth = Match(game, args.players, seed=args.seed)
        seen = Match(game, args.players, seed=args.seed)
    except EngineError as exc:
        raise UserError(str(exc)) from None
    if not 0 <= args.misread < 0.5:
        raise UserError("--misread must be between 0 and 0.5")
    rng = random.Random(args.seed)
    say = (lambda *_: None) if args.json else print
    views = [game.expected_view(truth.state)]
    stats = {"moves": 0, "accepted": 0, "questions": 0, "violations": 0}
    while game.outcome(truth.state) is None:
        action = game.random_action(truth.state, rng)
        mover = (game.to_move(truth.state) or 0) + 1
        truth.push(action, source="sim")
        view = game.expected_view(truth.state)
        views.append(view)
        observer = NoisyObserver(attribute_domains(views[-50:]), rng, args.misread)
        obs = observer.observe(view, frame=stats["moves"])
        stats["moves"] += 1
        res = reconcile(game, seen.state, obs)
        if isinstance(res, Accepted):
            for a in res.actions:
                for event in seen.push(a, source="camera", confidence=res.confidence):
                    say(f"    {event.text}")
            stats["accepted"] += 1
            say(f"P{mover}: {'; '.join(a.to_str() for a in res.actions):<28} "
                f"(read with confidence {res.confidence:.2f})")
        elif isinstance(res, NoChange):
            say("  (the table looks unchanged)")
        else:
            kind = "question" if isinstance(res, Ambiguous) else "violation"
            stats["questions" if kind == "question" else "violations"] += 1
            text = (" or ".join(c.text() for c in res.candidates) if isinstance(res, Ambiguous)
                    else f"{res.rule.id}: {res.explanation}")
            seen.note(kind, text, source="camera", data=res.to_dict())
            say(f"  ? {kind}: {text}")
            say(f"  > the players answer: {action.to_str()}")
            seen.note("answer", action.to_str(), source="phone")
            for event in seen.push(action, source="phone"):
                say(f"    {event.text}")
        if seen.state != truth.state:  # a wrong acceptance: the players correct it
            seen.note("correction", "state corrected by the players", source="phone")
            seen = _resync(seen, truth)
        if args.delay:
            sys.stdout.flush()
            time.sleep(args.delay)
    outcome = game.outcome(seen.state)
    scores = game.score(seen.state)
    summary = {"game": game.info.name, "seed": args.seed, **stats,
               "state_exact": seen.state == truth.state,
               "scores": [s.to_dict() for s in scores],
               "outcome": outcome.to_dict() if outcome else None}
    if args.record:
        try:
            with open(args.record, "w", encoding="utf-8") as fh:
                fh.write(seen.to_json())
        except OSError as exc:
            raise UserError(f"cannot write {args.record}: {exc}") from None
    if args.json:
        print(json.dumps(summary, indent=1))
        return 0
    print(f"\n{game.info.title} over after {stats['moves']} moves: "
          f"{stats['accepted']} read and accepted, {stats['questions']} questions asked.")
    for s in scores:
        parts = ", ".join(f"{r} {p}" for r, p in s.breakdown if p)
        print(f"  P{s.player + 1}: {s.total}  ({parts})")
    if outcome:
        print(f"  winner: {', '.join(f'P{w + 1}' for w in outcome.winners)} ({outcome.reason})")
    return 0


def _resync(seen: Match, truth: Match) -> Match:
    """Undo the companion's wrong moves and push the true ones (the players' correction)."""
    while seen.actions and seen.actions != truth.actions[: len(seen.actions)]:
        seen.undo(source="phone", reason="correction")
    for text in truth.actions[len(seen.actions):]:
        seen.push_text(text, source="phone")
    return seen
