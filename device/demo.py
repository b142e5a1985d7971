"""The demo table: a simulated match played in real time behind the phone page.

A background thread films the simulated table at the camera's frame rate and feeds it to the
live runtime, exactly as a camera would. The simulated players answer the phone's questions
and fix flagged mistakes themselves after ``answer_after`` seconds, unless someone on the
page answers first; when a match ends, the next one starts.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from device.demo_picture import PicturedTable
from device.matches.recovery import REPAIR_TYPES
from device.matches.service import MatchService, ServiceError
from device.runtime import Runtime
from device.sim_players import SimPlayers, Truth
from device.simtable import SimParams, SimulatedTable

logger = logging.getLogger(__name__)


@dataclass
class DemoTable:
    service: MatchService
    game: str
    players: int
    seed: int
    speed: float = 1.0
    """1.0 = real time at the camera's frame rate; higher plays faster"""
    answer_after: float = 8.0
    """seconds the simulated players wait for a human to answer before answering"""
    pause_between: float = 10.0
    params: SimParams = field(default_factory=lambda: SimParams(observer="noise"))
    """the simulated table; the noise observer by default (real time on one core)"""
    picture: bool = True
    """film the noise observer's table as it looks, for the phone (about 0.1 s a move);
    off where nobody sees it (``demo --terminal``)"""
    match_id: str | None = None
    table: SimulatedTable | None = None
    runtime: Runtime | None = None
    """the runtime following the current match (its steps are the readings)"""
    matches_played: int = 0

    def run(self, stop: threading.Event) -> None:
        seed = self.seed
        while not stop.is_set():
            self.play_match(seed, stop)
            if stop.is_set():
                return
            self.matches_played += 1
            seed += 1
            if self._keep_finished(stop, self.pause_between / self.speed):
                return

    def _keep_finished(self, stop: threading.Event, pause: float) -> bool:
        """Wait ``pause`` seconds before the next match; True when stopped. Someone may undo
        the finished match's last move on the phone meanwhile: the table still shows it, so
        the simulated players enter it again (else that match stayed open for good, with no
        table behind it)."""
        end = time.monotonic() + pause
        while True:
            self._reenter_truth()
            left = end - time.monotonic()
            if left <= 0:
                self._reenter_truth()
                return stop.is_set()
            if stop.wait(min(left, 0.5)):
                return True

    def _reenter_truth(self) -> None:
        mid, table = self.match_id, self.table
        if mid is None or table is None or table.game.outcome(table.truth.state) is None:
            return  # only a match the table finished is finished again
        try:
            match = self.service.match(mid)
            if match.game.outcome(match.state) is not None:
                return
            truth = table.truth.actions
            if not Truth(table.truth).on_track(match):
                return  # another story than the table's: the players' own to sort out
            for text in truth[len(match.actions):]:
                self.service.act(mid, text, None, source="players")
        except ServiceError as exc:
            logger.warning("the simulated players could not finish the match again: %s",
                           exc.message)

    def play_match(self, seed: int, stop: threading.Event) -> None:
        """One match from its first frame to its end (or until ``stop``)."""
        table = self.table = SimulatedTable(self.game, self.players, seed, self.params)
        mid = self.service.create(self.game, self.players, {}, None, seed,
                                  f"Demo table, match {self.matches_played + 1}",
                                  seats=table.seats)
        # the simulated players end a stalled match on the phone, as people would
        table.on_phone = lambda text: self._players_end(mid, table)
        source: Any = table
        if self.params.observer == "noise" and self.picture:
            # the noise model reads no pixels: film the table as it looks for the phone
            # (the real observer's frames are rendered already)
            source = PicturedTable(table, self.players, seed)
            self.service.croppers[mid] = source.crop
        self.match_id = mid
        runtime = self.runtime = Runtime(source, table.observer(), self.service, mid)
        try:
            self._follow(mid, table, runtime, stop)
        finally:
            self.service.croppers.pop(mid, None)  # its picture is gone with its table

    def _follow(self, mid: str, table: SimulatedTable, runtime: Runtime,
                stop: threading.Event) -> None:
        period = 1.0 / (table.fps * self.speed)
        pending_since: float | None = None
        while not stop.is_set():
            t0 = time.monotonic()
            runtime.step()
            if runtime.status == "source ended":
                return
            pending = self.service.view(mid)["pending"]
            if pending is None:
                pending_since = None
            elif pending_since is None:
                pending_since = time.monotonic()
            elif time.monotonic() - pending_since > self.answer_after / self.speed:
                self._players_answer(mid, table, pending["seq"])
                pending_since = None
            stop.wait(max(0.0, period - (time.monotonic() - t0)))

    def _players_end(self, mid: str, table: SimulatedTable) -> None:
        """The players end the stalled match on the phone ("End match"), first telling it
        any move it still lacks."""
        match = self.service.match(mid)
        for text in table.truth.actions[len(match.actions):-1]:
            self.service.act(mid, text, None, source="players")
        try:
            self.service.end(mid, None, source="players")
        except ServiceError as exc:
            logger.warning("the simulated players could not end the match: %s", exc.message)

    def _players_answer(self, mid: str, table: SimulatedTable, question: int) -> None:
        """Tell the phone what really happened (after undoing anything that did not); a
        repair of the record the camera proposed is taken with one tap when it is right."""
        pending = self.service.view(mid)["pending"]
        if pending is not None and pending["seq"] == question and \
                (pending.get("data") or {}).get("type") in REPAIR_TYPES:
            players = SimPlayers(self.service, mid, Truth(table.truth))
            if players.take_repair(question, pending["data"]):
                return
        match = self.service.match(mid)
        truth = table.truth.actions
        # the record follows the table when its moves lead where the true ones did (a
        # Quarriors draw read off the table names its dice in another order)
        track = Truth(table.truth)
        while not track.on_track(match):
            self.service.undo(mid, None, source="players")
            match = self.service.match(mid)
        missing = truth[len(match.actions):]
        if not missing:  # nothing had happened: say so, which closes the question
            self.service.note(mid, "answer", "nothing happened", {"question": question},
                              source="players")
        for i, text in enumerate(missing):
            self.service.act(mid, text, None, source="players",
                             answer_to=question if i == 0 else None)
