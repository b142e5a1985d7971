"""`dicetable simulate`: rendered matches through the whole pipeline, with figures."""

from __future__ import annotations

import argparse
import json
from typing import Any

from device.errors import UserError


def require_mat(game: str, players: int, observer: str) -> None:
    """The rendered table (observer ``real``) films a shipped printed mat: UserError when
    there is none for this many players (IceDice has no player limit, its mats stop at 6)."""
    if observer != "real":
        return
    from calibration.layouts import LayoutError, load_layout

    try:
        load_layout(game, players)
    except LayoutError as exc:
        raise UserError(f"{exc}: the rendered camera films a printed mat; use --observer "
                        "noise for this many players") from None


def require_table(game: str) -> None:
    """UserError for a game the camera does not follow yet: one whose perception spec has no
    drawn table (its engine plays, `dicetable playout`; its camera and phone parts are still
    to come), which the simulated table would otherwise play on for minutes, following
    nothing it can show."""
    from calibration.perception import perception

    if perception(game).table_script is None:
        raise UserError(f"{game} is not followed by the camera yet (no table to draw or read "
                        f"for it); 'dicetable playout --game {game}' plays it by its rules")


def register(sub: Any) -> None:
    p = sub.add_parser(
        "simulate", help="simulated matches through the live pipeline, with figures",
        description="Play seeded matches on the simulated table and follow them with the "
                    "live runtime (settle, observe, reconcile, record). Keys: matches, moves, "
                    "state_exact (matches recorded exactly, with no wrong acceptance and no record "
                    "the players had to fix by hand), "
                    "auto_accepted (moves recorded with no question: by the camera, or entered "
                    "on the phone by the players' own initiative, as ending a stalled Pyramid "
                    "Dice match), phone_moves (those entered on the phone), "
                    "violations_injected, "
                    "violations_flagged, silent_illegal (illegal moves accepted without an "
                    "alert), latency_frames_p50/p95 (frames from the table going still to the "
                    "event), processing_ms_p50/p95 (per reading: observation + reconcile + "
                    "record, one core, wall clock), processing_cpu_ms_p50/p95 (the same in CPU "
                    "time of the process: what one core spends, whatever else runs on the "
                    "machine), stage_ms (p50/p95 per stage of a reading; 'cpu' is the CPU "
                    "time), dice_read_first / dice_read_last (dice read at their true face in "
                    "the first / last 5 readings with dice of each match: the last show what "
                    "the table learnt of its dice from confirmed moves), table_fits (how often "
                    "it refitted what it learnt), observer (which observer ran); with "
                    "--wrong-answers: readings, wrong_answers (answers given wrong), "
                    "readings_lost (readings taken while a wrong answer kept the record off "
                    "the table), lost_longest "
                    "(the longest such spell, in readings), repairs_proposed / _taken / "
                    "_declined (the camera's proposals to repair the record, and the "
                    "players' answers), tables_taken ('take the table as the camera sees "
                    "it' taken), fixed_by_hand (records the players had to put right "
                    "themselves: those matches are not exact), ended_lost (matches that ended with "
                    "the record still off the table), questions (the questions asked, by the "
                    "verb of the true move each was about: 'draw' for a draw and its rolls; "
                    "'repair' for a "
                    "proposed repair, 'none' when nothing had happened). By default "
                    "every frame is a rendered table (mat, dice, pyramids, cards, an arm, light "
                    "changes, camera bumps) read by the real pipeline: settler, dice reader, "
                    "face reader, pieces readers, calibration made from a photo of the mat "
                    "with the dice on it, die tracker. "
                    "--observer noise replaces the pixels by a noise model on the true table "
                    "(fast; for tests of the reconcile loop only).")
    p.add_argument("--game", required=True, help="game name")
    p.add_argument("--matches", type=int, default=10, help="matches (10)")
    p.add_argument("--players", type=int, default=2, help="players (2)")
    p.add_argument("--seed", type=int, default=0, help="first seed (0)")
    p.add_argument("--inject-violations", type=float, default=0.0, metavar="P",
                   help="chance that a move is an illegal one (0)")
    p.add_argument("--wrong-answers", type=float, default=0.0, metavar="P",
                   help="chance that the simulated players answer a 'which was it?' "
                        "question with a legal move that did not happen (0): the camera "
                        "must then repair the record (see readings_lost, repairs_*)")
    p.add_argument("--observer", choices=("real", "noise"), default="real",
                   help="real: rendered frames through the real pipeline (default); noise: "
                        "the noise model on the true table, no pixels read")
    p.add_argument("--misread", type=float, default=0.03,
                   help="--observer noise: chance that a reading's top value is wrong (0.03)")
    p.add_argument("--dice", default="plain", metavar="STYLE",
                   help="how the plain d6 look: plain, skull (a skull on the 1) or "
                        "purple-skull (purple with gold pips and a skull on the 1, a style the "
                        "reader was never trained on); dice_read_first / dice_read_last show "
                        "what the table learnt of them during each match")
    p.add_argument("--no-learn", action="store_true",
                   help="the real observer does not learn the table's dice from confirmed "
                        "moves (device.table_learning)")
    p.add_argument("--workers", type=int, default=1,
                   help="matches played at once, each in its own process on one core (1)")
    p.add_argument("--report", metavar="FILE",
                   help="write one JSON line per reading: the decision, the true moves, what "
                        "the observer read that the table does not hold (extra) and the "
                        "reverse (missing), per-stage timings; and one line per match end")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from device.simtable import OBSERVER_TEXT, SimParams
    from device.simulate import simulate
    from engine import EngineError, get_game
    from vision.onnx_models import ModelNotFoundError

    if args.matches < 1:
        raise UserError("--matches must be at least 1")
    if not 0 <= args.inject_violations <= 0.5:
        raise UserError("--inject-violations must be between 0 and 0.5")
    if not 0 <= args.wrong_answers <= 1:
        raise UserError("--wrong-answers must be between 0 and 1")
    if args.workers < 1:
        raise UserError("--workers must be at least 1")
    if not 0 <= args.misread < 0.5:
        raise UserError("--misread must be between 0 and 0.5")
    try:
        game = get_game(args.game)
    except EngineError as exc:
        raise UserError(str(exc)) from None
    if not game.info.seats(args.players):
        raise UserError(f"{game.info.name} is for {game.info.players_text()} players, not "
                        f"{args.players}")
    require_table(game.info.name)
    require_mat(game.info.name, args.players, args.observer)
    from device.simtable import DICE_STYLES

    if args.dice not in DICE_STYLES:
        raise UserError(f"--dice must be one of {', '.join(DICE_STYLES)}, not {args.dice!r}")
    params = SimParams(inject_violations=args.inject_violations, misread=args.misread,
                       observer=args.observer, dice=args.dice, learn=not args.no_learn,
                       wrong_answers=args.wrong_answers)
    try:
        report = open(args.report, "w", encoding="utf-8") if args.report else None
    except OSError as exc:
        raise UserError(f"cannot write the report {args.report}: {exc.strerror}") from None
    from device.progress import bar

    progress = bar(args.matches, "simulate", "match", quiet=args.quiet)

    def on_match(so_far: Any) -> None:
        progress.set_postfix(exact=f"{so_far.exact}/{so_far.matches}", refresh=False)
        progress.update(1)

    try:
        figures = simulate(game.info.name, args.matches, args.seed, params, args.players,
                           workers=args.workers, report=report, on_match=on_match)
    except ModelNotFoundError as exc:
        raise UserError(f"{exc} (or use --observer noise)", exit_status=1) from None
    finally:
        progress.close()
        if report is not None:
            report.close()
    result = {"game": game.info.name, "observer": args.observer,
              "observation": OBSERVER_TEXT[args.observer], **figures.to_dict()}
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        for key, value in result.items():
            print(f"{key:>22}: {value}")
    return 0
