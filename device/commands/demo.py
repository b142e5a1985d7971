"""`dicetable demo`: a simulated table plays; the companion follows it on the phone page.

The simulated table is filmed frame by frame and fed to the live runtime as a camera would
be (see device/simtable.py for what is simulated). By default the phone page is served at
http://127.0.0.1:8000 and matches follow one another; ``--terminal`` plays one match as
fast as it can and prints what the companion records.
"""

from __future__ import annotations

import argparse
import json
import threading
from typing import Any

from device.commands.serve import access_from, add_access_options, announce
from device.errors import UserError


def register(sub: Any) -> None:
    p = sub.add_parser("demo", help="a simulated table, followed live on the phone page",
                       description="Play seeded matches on a simulated table; the companion "
                                   "reads each move, checks it, keeps the score and shows it "
                                   "all on the phone page (or in the terminal).")
    p.add_argument("--game", default="icedice", help="game (default icedice)")
    p.add_argument("--players", type=int, default=2, help="players (default 2)")
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p.add_argument("--host", default="127.0.0.1", help="address to serve on (127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (8000)")
    add_access_options(p)
    p.add_argument("--observer", choices=("noise", "real"), default="noise",
                   help="noise (default): abstract frames and a noise model on the true "
                        "table, light enough for real time; real: rendered frames read by the "
                        "real pipeline (see `dicetable simulate --help`)")
    p.add_argument("--speed", type=float, default=1.0,
                   help="1 = real time at 30 frames/s; 4 = four times faster")
    p.add_argument("--terminal", action="store_true",
                   help="no page: play one match at full speed and print it")
    p.add_argument("--record", metavar="FILE", help="(--terminal) write the match record here")
    p.add_argument("--json", action="store_true", help="(--terminal) print a JSON summary only")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from device.demo import DemoTable
    from device.matches.service import MatchService
    from device.simtable import OBSERVER_TEXT, SimParams
    from device.store import SQLiteStore
    from engine import EngineError, get_game

    try:
        game = get_game(args.game)
        game.new_state(args.players)
    except EngineError as exc:
        raise UserError(str(exc)) from None
    if not args.speed > 0:
        raise UserError("--speed must be more than 0")
    from device.commands.simulate import require_mat, require_table

    require_table(game.info.name)
    require_mat(game.info.name, args.players, args.observer)
    service = MatchService(SQLiteStore(":memory:"))
    params = SimParams(observer=args.observer)
    if args.terminal:
        return _terminal(args, service, DemoTable(service, game.info.name, args.players,
                                                  args.seed, speed=1e9, answer_after=0.0,
                                                  params=params, picture=False))
    if not 0 < args.port < 65536:
        raise UserError(f"--port must be 1..65535, not {args.port}")
    from device.listen import bind, serve
    from device.web import create_app

    access = access_from(args)
    sock = bind(args.host, args.port)  # a port in use: one line, nothing started
    demo = DemoTable(service, game.info.name, args.players, args.seed, speed=args.speed,
                     params=params)
    stop = threading.Event()
    thread = threading.Thread(target=demo.run, args=(stop,), name="demo-table", daemon=True)
    app = create_app(service.store, service=service, access=access, game=game.info.name,
                     status=lambda: {"camera": "simulated table",
                                     "model": OBSERVER_TEXT[args.observer],
                                     "match": demo.match_id})
    thread.start()
    announce("dicetable demo", args.host, args.port, access)
    try:
        serve(app, sock, args.host, args.port)
    finally:
        stop.set()
        thread.join(timeout=5)
        sock.close()
    return 0


def _terminal(args: argparse.Namespace, service: Any, demo: Any) -> int:
    say = (lambda *_: None) if args.json else print

    def show(match_id: str, view: dict[str, Any]) -> None:
        entry = view["entries"][-1] if view["entries"] else None
        if entry and entry["seq"] not in shown:
            shown.add(entry["seq"])
            who = {"camera": "camera", "players": "players"}.get(entry["source"], entry["source"])
            say(f"{entry['seq']:>4} {entry['kind']:<9} {entry['text']}  [{who}]")

    shown: set[int] = set()
    service.listeners.append(show)
    demo.play_match(args.seed, threading.Event())
    match = service.match(demo.match_id)
    game = match.game
    kinds = [e.kind for e in match.entries]
    outcome = game.outcome(match.state)
    summary = {
        "game": game.info.name, "seed": args.seed,
        "moves": len(demo.table.truth.actions),
        "accepted": sum(1 for e in match.live_entries if e.source == "camera"),
        "questions": kinds.count("question"), "violations": kinds.count("violation"),
        "state_exact": match.state == demo.table.truth.state,
        "scores": [s.to_dict() for s in game.score(match.state)],
        "outcome": outcome.to_dict() if outcome else None,
    }
    if args.record:
        from calibration.atomicfile import write_atomic

        try:
            write_atomic(args.record, match.to_json())
        except OSError as exc:
            raise UserError(f"cannot write {args.record}: {exc}") from None
    if args.json:
        print(json.dumps(summary, indent=1))
        return 0
    print(f"\n{game.info.title}: {summary['moves']} moves, {summary['accepted']} read by the "
          f"camera and accepted, {summary['questions']} questions asked.")
    for s in game.score(match.state):
        parts = ", ".join(f"{r} {p}" for r, p in s.breakdown if p)
        print(f"  P{s.player + 1}: {s.total}  ({parts})")
    if outcome:
        print(f"  winner: {', '.join(f'P{w + 1}' for w in outcome.winners)} ({outcome.reason})")
    return 0
