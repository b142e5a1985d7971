"""End-to-end runs on the simulated table, with the players answering the phone.

For each match: the simulated table plays, the live runtime (settle → observe → reconcile
→ record) follows it, and simulated players answer every question and fix every flagged
mistake the way people at the table would: they tell the phone what really happened, and
put back a piece moved against the rules. A wrong acceptance is corrected too (undo, then
the true moves), but the match no longer counts as exact.

With ``SimParams.wrong_answers`` the players answer some questions with the wrong move
(device.sim_players) and do not notice: the record is then the camera's to repair
(device.matches.recovery), and the players only take or decline its proposals. Such a
match is exact when the repairs bring the record back to the table; if nothing right is
proposed for several readings the players fix it by hand and it is not.

The players sit at the table's edges (engine.thrower.default_seats, given to the match at
setup) and each arm is drawn from its player's edge; the observer finds the edge from the
pixels (device.observer_hands). A match the players end by the stall rule (Pyramid Dice's
'end') is ended on the phone, through the service's ``end`` as the phone's "End match"
does: such a move is the players' own initiative, not a question, so ``auto_accepted``
counts it as not asked and ``phone_moves`` says how many there were.

Matches are independent: ``workers`` > 1 plays them in separate processes (each reading is
still timed on the one core its process runs on), and the figures are merged in seed order.
With a ``report`` file each reading is one JSON line (see :func:`reading_record`): what the
runtime decided, what really happened, what the observer saw that the truth does not hold
and the reverse, and the per-stage timings.
"""

from __future__ import annotations

import json
import multiprocessing
import random
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from typing import IO, Any

from device.matches.recovery import REPAIR_TYPES
from device.matches.service import MatchService, ServiceError
from device.runtime import Runtime, Step
from device.sim_players import SimPlayers, Truth
from device.simtable import Scene, SimFigures, SimParams, SimulatedTable
from device.store import SQLiteStore
from engine import Accepted, Ambiguous, Match, Violation
from engine.observation import Observation, Observed, View


def _one_thread() -> None:
    """One core per match process (the Raspberry Pi's budget), as the figures promise."""
    import cv2

    cv2.setNumThreads(1)


def _seen_text(o: Observed, names: Iterable[str]) -> str:
    attrs = " ".join(f"{n}={o.top(n)}" for n in names if o.dist(n))
    where = f"{o.zone}/{o.slot}" if o.slot else f"{o.zone}"
    return f"{o.kind}@{where} {attrs} p={o.confidence:.2f}".replace("  ", " ")


def object_diff(observation: Observation, truth: View) -> dict[str, list[str]]:
    """What the observer read (each object at its top values) that the true table does not
    hold ("extra"), and what the table holds that no reading matched ("missing"), over the
    zones the camera saw."""
    seen = observation.zones_seen
    expected = [e for e in truth if not seen or e.zone in seen]
    names = sorted({n for e in expected for n, _ in e.attrs})
    want = Counter((e.kind, e.zone, e.slot, tuple((n, v) for n, v in e.attrs))
                   for e in expected)
    extra = []
    for o in observation.objects:
        if seen and o.zone not in seen:
            continue
        attrs = tuple((n, o.top(n)) for n in names if o.dist(n) is not None)
        # the truth's own attribute names for this kind decide which readings count
        keys = [k for k in want if k[:3] == (o.kind, o.zone, o.slot) and want[k] > 0
                and all(dict(attrs).get(n, v) == v for n, v in k[3])]
        if keys:
            want[keys[0]] -= 1
        else:
            extra.append(_seen_text(o, names))
    missing = [f"{k}@{z}{'/' + s if s else ''} " + " ".join(f"{n}={v}" for n, v in a)
               for (k, z, s, a), c in want.items() for _ in range(c)]
    return {"extra": extra, "missing": missing}


def reading_record(seed: int, step: Step, scene: Scene, truth_done: int) -> dict[str, Any]:
    """One line of the report: a reading, what it led to, and what was really there."""
    res = step.resolution
    rec: dict[str, Any] = {"seed": seed, "frame": step.frame,
                           "latency": step.frame - step.still_since,
                           "kind": type(res).__name__, "truth_moves": truth_done,
                           "truth_last": list(scene.actions), "illegal": scene.illegal,
                           "ms": round(step.processing_ms, 1), "timings": step.timings}
    if isinstance(res, Accepted):
        rec["actions"] = [a.to_str() for a in res.actions]
        rec["confidence"] = round(res.confidence, 4)
    elif isinstance(res, Ambiguous):
        rec["candidates"] = [(c.text(), round(c.posterior, 4), c.legal)
                             for c in res.candidates]
    elif isinstance(res, Violation):
        rec["rule"] = res.rule.id
        rec["actions"] = [a.to_str() for a in res.actions]
    if step.observation is not None:
        rec["dice_moved"] = step.observation.dice_moved
        if step.observation.changed:  # the watched zones' looks (Observation.changed)
            rec["changed"] = [list(c) for c in step.observation.changed]
        rec["hand_edge"] = [step.observation.hand_edge, step.observation.hand_edge_confidence,
                            scene.seat]  # seen, how sure, the truth
        rec.update(object_diff(step.observation, scene.view))
    return rec


def dice_right(observation: Observation, truth: View) -> tuple[int, int]:
    """(dice read at their true face, dice on the table) of a reading: per zone, the
    observed dice's top faces matched to the true ones as multisets."""
    want: dict[str | None, Counter[str]] = {}
    for e in truth:
        if e.kind == "die" and e.attr("face") is not None:
            want.setdefault(e.zone, Counter())[str(e.attr("face"))] += 1
    got: dict[str | None, Counter[str]] = {}
    for o in observation.objects:
        if o.kind == "die" and o.top("face") is not None:
            got.setdefault(o.zone, Counter())[str(o.top("face"))] += 1
    right = sum(sum((c & got.get(z, Counter())).values()) for z, c in want.items())
    return right, sum(sum(c.values()) for c in want.values())


def question_kind(scene: Scene, pending: dict[str, Any]) -> str:
    """What a question was about, by the verb of the true move it asked (a draw and its
    rolls: 'draw'), or the repair it proposed ('repair'), or 'none' when nothing happened."""
    if (pending.get("data") or {}).get("type") in REPAIR_TYPES:
        return "repair"
    return scene.actions[0].split()[0] if scene.actions else "none"


def simulate_match(game: str, players: int, seed: int, params: SimParams,
                   figures: SimFigures, max_frames: int = 200_000,
                   report: list[dict[str, Any]] | None = None) -> None:
    table = SimulatedTable(game, players, seed, params)
    service = MatchService(SQLiteStore(":memory:"))
    mid = service.create(game, players, {}, None, seed, f"sim {seed}", seats=table.seats)
    reader = table.observer()
    runtime = Runtime(table, reader, service, mid, live_view=False)

    def on_phone(text: str) -> None:
        """The players end the match on the phone (after telling it anything it lacks)."""
        if people.lost_by_answer:  # they see the record is wrong when they come to end it
            people.fix_by_hand()
        match = service.match(mid)
        missing = table.truth.actions[len(match.actions):]
        try:
            if missing != [text] or text != "end":
                raise ServiceError(409, "sim/off_track", "the match is not where the table is")
            service.end(mid, match.version, source="players")
            figures.phone_moves += 1
        except ServiceError:
            for move in missing:  # told as answers would be: not counted as the players'
                service.act(mid, move, None)

    table.on_phone = on_phone
    wrong = False
    flagged: set[int] = set()
    reads: list[tuple[int, int]] = []  # dice right, dice on the table, per reading
    truth = Truth(table.truth)
    people = SimPlayers(service, mid, truth, table.params.wrong_answers,
                         random.Random(f"answers {seed}"))

    for _ in range(max_frames):
        step = runtime.step()
        if runtime.status == "source ended":
            break
        if step is None:
            continue
        figures.readings += 1
        figures.processing_ms.append(step.processing_ms)
        for stage, ms in step.timings.items():
            figures.stage_ms.setdefault(stage, []).append(ms)
        figures.latency_frames.append(step.frame - table.still_from[step.frame])
        scene = table.scenes_at[step.frame]
        if step.observation is not None:
            right, total = dice_right(step.observation, scene.view)
            if total:
                reads.append((right, total))
        rec = (reading_record(seed, step, scene, len(table.truth.actions))
               if report is not None else None)
        if scene.illegal:
            injected = max(i for i, (f, _) in enumerate(table.injected) if f <= step.frame)
            if isinstance(step.resolution, Violation):
                flagged.add(injected)
            elif isinstance(step.resolution, Accepted):
                figures.silent_illegal += 1
                if rec is not None:
                    rec["silent_illegal"] = True
        match = service.match(mid)
        truth_moves = table.truth.actions
        if people.reading():
            # the record is off the table by the players' wrong answer: it is the camera's
            # to repair (device.matches.recovery), the players only answer its proposals
            if rec is not None:
                rec["lost"] = people.lost_for
        elif not truth.on_track(match) and match.state == table.truth.state \
                and scene.actions and not scene.illegal:
            # the record leads to the table as it is by other moves than the table played
            # (Quarriors: an Assistant's re-roll of itself and a Basic Quiddity that landed
            # on its face again is, to the camera and to the rules, the re-roll of the
            # Assistant alone): the same story told another way. The table's own record is
            # taken to be the camera's, so that the moves still to come line up.
            retold = Match(table.game, players, None, seed=seed)
            for text in match.actions:
                retold.push(table.game.parse_action(str(text)), source="sim")
            table.truth = truth.match = retold
            truth.states.clear()
            figures.retold += 1
            if rec is not None:
                rec["retold"] = True
        elif not truth.on_track(match):
            # accepted something that did not happen: the players undo it and enter what
            # they really did (else the camera, seeing the same table, proposes it again)
            wrong = True
            undone = []
            while not truth.on_track(match):
                undone.append(str(match.actions[-1]))
                service.undo(mid, None)
                match = service.match(mid)
            if not scene.illegal:
                for text in truth_moves[len(match.actions):]:
                    service.act(mid, text, None)
            if rec is not None:
                rec["wrong_undone"] = undone
        pending = service.view(mid)["pending"]
        if pending and not scene.illegal:
            if pending.get("kind") == "question":
                kind = question_kind(scene, pending)
                figures.questions[kind] = figures.questions.get(kind, 0) + 1
            answered = people.answer(pending)
            if rec is not None:
                rec["answered"] = answered if answered is not None else pending["text"]
        if report is not None and rec is not None:
            report.append(rec)
    match = service.match(mid)
    figures.dice_reads += [(i, len(reads), r, t) for i, (r, t) in enumerate(reads)]
    if table.params.observer == "real":
        from calibration.table.reader import TableReader

        assert isinstance(reader, TableReader)
        learner = reader.dice.learner
        figures.table_fits += learner.fits if learner is not None else 0
    figures.add_players(people.counts, lost=people.lost_by_answer)
    figures.matches += 1
    figures.moves += len(table.truth.actions)
    figures.violations_injected += len(table.injected)
    figures.violations_flagged += len(flagged)
    figures.accepted_without_question += sum(
        1 for entry in match.live_entries if entry.source == "camera")
    exact = not wrong and not people.counts["fixed_by_hand"] and \
        match.state == table.truth.state
    if exact:
        figures.exact += 1
    if report is not None:
        report.append({"seed": seed, "match_end": True, "exact": exact, "wrong": wrong,
                       "moves": len(table.truth.actions),
                       "camera": sum(1 for e in match.live_entries if e.source == "camera")})


def _play(job: tuple[str, int, int, SimParams, bool]) -> tuple[SimFigures, list[dict]]:
    game, players, seed, params, with_report = job
    _one_thread()
    figures = SimFigures()
    report: list[dict[str, Any]] | None = [] if with_report else None
    simulate_match(game, players, seed, params, figures, report=report)
    return figures, report or []


def simulate(game: str, matches: int, seed: int, params: SimParams,
             players: int = 2, workers: int = 1, report: IO[str] | None = None,
             on_match: Callable[[SimFigures], None] | None = None) -> SimFigures:
    """Play the matches; ``on_match`` is called with the figures so far after each one
    (the command's progress bar)."""
    jobs = [(game, players, seed + i, params, report is not None) for i in range(matches)]
    results: Iterable[tuple[SimFigures, list[dict]]]
    if workers > 1 and matches > 1:
        # spawned, not forked: a forked worker hung for ever in cv2.setNumThreads (OpenCV
        # 5.1: the parent's thread pool's lock copied held)
        pool = ProcessPoolExecutor(max_workers=min(workers, matches),
                                   mp_context=multiprocessing.get_context("spawn"))
        results = pool.map(_play, jobs)
    else:
        pool = None
        results = map(_play, jobs)
    figures = SimFigures()
    try:
        for one, lines in results:
            figures.merge(one)
            if on_match is not None:
                on_match(figures)
            if report is not None:
                for line in lines:
                    report.write(json.dumps(line) + "\n")
                report.flush()
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    return figures
