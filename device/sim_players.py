"""The simulated players at the phone: they answer the camera's questions, sometimes wrongly,
and take the camera's repairs of the record when they are right.

With ``wrong_answers`` p, a "which was it?" question whose candidates include a legal move
other than the true one is answered with such a move with chance p (what a player who
glances at the phone does). The players do not notice: the record is then off the table
until the camera repairs it (device.matches.recovery). They judge a proposed repair by the
table they see, as people would: they take it when it records what really happened
(the record then leads where the true moves did) and decline it otherwise; a repair
proposed over a right record (the camera misread a piece) is declined with what really
happened, as they answer the camera's alerts. While the
record is off the table they cannot answer an ordinary question right (its choices all
start from the wrong record): they answer "none of these".

If the camera proposes nothing that is right for :data:`GIVE_UP` readings, the players put
the record right by hand (undo, then enter the true moves), which the figures count as a
match not recorded exactly.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from device.matches.recovery import REPAIR_TYPES
from device.matches.service import MatchService
from engine import EngineError, Match

GIVE_UP = 8
"""readings off the table with no right repair proposed before the players fix it by hand"""


@dataclass
class Truth:
    """The true states along the true moves, computed as far as asked."""

    match: Match
    """the simulated table's own match (its actions are the true moves so far)"""
    states: list[Any] = field(default_factory=list)

    def state(self, n: int) -> Any | None:
        """The true state after the first ``n`` true moves (None: not played yet)."""
        if not self.states:
            self.states.append(self.match.initial)
        actions = self.match.actions
        game = self.match.game
        while len(self.states) <= min(n, len(actions)):
            action = game.parse_action(actions[len(self.states) - 1])
            self.states.append(game.apply(self.states[-1], action)[0])
        return self.states[n] if n < len(self.states) else None

    def on_track(self, match: Match) -> bool:
        """The recorded moves lead where the true ones did (two moves with one outcome,
        such as a die raised by one card or set by another, are the same to the match)."""
        n = len(match.actions)
        return n <= len(self.match.actions) and match.state == self.state(n)

    def leads_right(self, match: Match, base: Any, kept: int, texts: Sequence[str]) -> bool:
        """Recording ``texts`` from ``base`` (after ``kept`` recorded moves) leads where
        the true moves did."""
        state = base
        try:
            for text in texts:
                state = match.game.apply(state, match.game.parse_action(text))[0]
        except EngineError:
            return False
        n = kept + len(texts)
        return n <= len(self.match.actions) and state == self.state(n)


@dataclass
class SimPlayers:
    """The players of one simulated match, at the phone."""

    service: MatchService
    match_id: str
    truth: Truth
    wrong_answers: float = 0.0
    rng: random.Random = field(default_factory=random.Random)
    lost_by_answer: bool = False
    """the record left the table by one of their wrong answers (and is not back yet)"""
    lost_for: int = 0
    """readings since then"""
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(
        ("wrong_answers", "readings_lost", "lost_longest", "repairs_proposed", "repairs_taken",
         "repairs_declined", "tables_taken", "fixed_by_hand"), 0))

    def reading(self) -> bool:
        """After a reading: count it if the record is off the table by a wrong answer;
        True while it is (the caller then leaves the record to the camera's repairs)."""
        match = self.service.match(self.match_id)
        if not self.lost_by_answer:
            return False
        if self.truth.on_track(match):
            self.lost_by_answer, self.lost_for = False, 0
            return False
        self.lost_for += 1
        self.counts["readings_lost"] += 1
        self.counts["lost_longest"] = max(self.counts["lost_longest"], self.lost_for)
        if self.lost_for >= GIVE_UP:
            self.fix_by_hand()
            return False
        return True

    def fix_by_hand(self) -> None:
        """Undo to where the record and the table agree, then enter the true moves."""
        match = self.service.match(self.match_id)
        while not self.truth.on_track(match):
            self.service.undo(self.match_id, None, source="players")
            match = self.service.match(self.match_id)
        for text in self.truth.match.actions[len(match.actions):]:
            self.service.act(self.match_id, text, None, source="players")
        self.lost_by_answer, self.lost_for = False, 0
        self.counts["fixed_by_hand"] += 1

    def answer(self, pending: Mapping[str, Any]) -> list[str] | None:
        """Answer the open question ``pending`` (an entry); returns the moves entered, or
        None when the question was a repair or was left."""
        data = pending.get("data") or {}
        seq = int(pending["seq"])
        match = self.service.match(self.match_id)
        if data.get("type") in REPAIR_TYPES:
            self.counts["repairs_proposed"] += 1
            if self.take_repair(seq, data):
                key = "tables_taken" if data.get("type") == "table" else "repairs_taken"
                self.counts[key] += 1
                return None
            self.counts["repairs_declined"] += 1
            missing = list(self.truth.match.actions[len(match.actions):])
            if self.lost_by_answer or not missing or not self.truth.on_track(match):
                self.service.dismiss(self.match_id, seq, None, "no", source="players")
                return None
            # the record is right and the camera misread the table (a piece read as
            # another): "no, this is what happened", as they answer its alerts
            for i, text in enumerate(missing):
                self.service.act(self.match_id, text, None, answer_to=seq if i == 0 else None)
            return missing
        if self.lost_by_answer:
            self.service.dismiss(self.match_id, seq, None, "none of these", source="players")
            return None
        missing = list(self.truth.match.actions[len(match.actions):])
        wrong = self._wrong_choice(match, data.get("candidates") or []) \
            if self.wrong_answers and self.rng.random() < self.wrong_answers else None
        if wrong is not None:
            self.service.act(self.match_id, "; ".join(wrong), None, answer_to=seq)
            self.counts["wrong_answers"] += 1
            self.lost_by_answer, self.lost_for = True, 0
            return wrong
        for i, text in enumerate(missing):
            self.service.act(self.match_id, text, None, answer_to=seq if i == 0 else None)
        return missing

    def _wrong_choice(self, match: Match, candidates: Sequence[Mapping[str, Any]]
                      ) -> list[str] | None:
        """A legal candidate that is not what happened, or None."""
        kept = len(match.actions)
        wrong = [list(c["actions"]) for c in candidates
                 if c.get("legal") and c.get("actions")
                 and self._legal(match, c["actions"])
                 and not self.truth.leads_right(match, match.state, kept, c["actions"])]
        return self.rng.choice(wrong) if wrong else None

    @staticmethod
    def _legal(match: Match, texts: Sequence[str]) -> bool:
        state = match.state
        try:
            for text in texts:
                state = match.game.apply(state, match.game.parse_action(text))[0]
        except EngineError:
            return False
        return True

    def take_repair(self, seq: int, data: Mapping[str, Any]) -> bool:
        """Take the choice of the repair question at ``seq`` that records what really
        happened, if one does (True)."""
        for i, choice in enumerate(data.get("choices") or [data]):
            if self._repair_right(choice):
                self.service.repair(self.match_id, seq, None, choice=i, source="players")
                return True
        return False

    def _repair_right(self, choice: Mapping[str, Any]) -> bool:
        match = self.service.match(self.match_id)
        undo = list(choice.get("undo") or [])
        live = match.live_entries
        if len(undo) > len(live) or match.actions[len(live) - len(undo):] != undo:
            return False
        base = match.state_before(live[len(live) - len(undo)].seq) if undo else match.state
        return self.truth.leads_right(match, base, len(live) - len(undo),
                                      choice.get("actions") or [])
