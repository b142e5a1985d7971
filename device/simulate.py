"""End-to-end runs on the simulated table, with the players answering the phone.

For each match: the simulated table plays, the live runtime (settle → observe → reconcile
→ record) follows it, and simulated players answer every question and fix every flagged
mistake the way people at the table would: they tell the phone what really happened, and
put back a piece moved against the rules. A wrong acceptance is corrected too (undo, then
the true moves), but the match no longer counts as exact.
"""

from __future__ import annotations

from device.runtime import Runtime
from device.simtable import SimFigures, SimParams, SimulatedTable
from device.store import SQLiteStore
from device.web.service import MatchService
from engine import Accepted, Violation


def simulate_match(game: str, players: int, seed: int, params: SimParams,
                   figures: SimFigures, max_frames: int = 200_000) -> None:
    table = SimulatedTable(game, players, seed, params)
    service = MatchService(SQLiteStore(":memory:"))
    mid = service.create(game, players, {}, None, seed, f"sim {seed}")
    runtime = Runtime(table, table.observer(), service, mid, live_view=False)
    wrong = False
    flagged: set[int] = set()
    for _ in range(max_frames):
        step = runtime.step()
        if runtime.status == "source ended":
            break
        if step is None:
            continue
        figures.processing_ms.append(step.processing_ms)
        figures.latency_frames.append(step.frame - table.still_from[step.frame])
        scene = table.scenes_at[step.frame]
        if scene.illegal:
            injected = max(i for i, (f, _) in enumerate(table.injected) if f <= step.frame)
            if isinstance(step.resolution, Violation):
                flagged.add(injected)
            elif isinstance(step.resolution, Accepted):
                figures.silent_illegal += 1
        match = service.match(mid)
        truth = table.truth.actions
        if match.actions != truth[: len(match.actions)]:
            wrong = True  # accepted something that did not happen: the players undo it
            while match.actions != truth[: len(match.actions)]:
                service.undo(mid, None)
        pending = service.view(mid)["pending"]
        if pending and not scene.illegal:
            missing = truth[len(match.actions):]
            for i, text in enumerate(missing):
                service.act(mid, text, None, answer_to=pending["seq"] if i == 0 else None)
    match = service.match(mid)
    figures.matches += 1
    figures.moves += len(table.truth.actions)
    figures.violations_injected += len(table.injected)
    figures.violations_flagged += len(flagged)
    figures.accepted_without_question += sum(
        1 for entry in match.live_entries if entry.source == "camera")
    if not wrong and match.state == table.truth.state:
        figures.exact += 1


def simulate(game: str, matches: int, seed: int, params: SimParams,
             players: int = 2) -> SimFigures:
    figures = SimFigures()
    for i in range(matches):
        simulate_match(game, players, seed + i, params, figures)
    return figures
