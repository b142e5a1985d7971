"""The camera never stays lost: proposals to repair the record, asked as one-tap questions.

When a reading fits no legal move from the recorded state (an alert), the record may be
what is wrong: the players answered a question with the wrong move, or the camera accepted
a misread die, and the table has gone on since. :class:`Recovery` (one per followed match,
kept by the runtime) then asks engine.recovery for the cheapest repair (take back the last
few actions and record what the table shows) and, when one fits, puts it to the players as
a question (``data.type`` ``repair``). After :data:`LOST_AFTER` readings in a row with no
fit, it offers "take the table as the camera sees it" (``data.type`` ``table``): the legal
record nearest to what is seen.

The question's data (for the page): ``type``, ``undo`` (the recorded actions taken back,
oldest first), ``undo_seqs`` (their log entries), ``actions`` (then recorded), ``words``
(the same in a sentence), ``lost`` (readings in a row that fitted nothing), ``violation``
(the alert that started it). ``POST /api/matches/{id}/repairs {question, version}``
carries it out (:func:`apply_repair`: one correction entry, with the camera's picture,
then the undos and the actions, stored in one transaction); ``/answers`` with "no"
declines it, and the same repair is not proposed again.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine import Accepted, Ambiguous, Match, NoChange, Observation, Resolution, Violation
from engine.reconcile import Params
from engine.recovery import Repair, find_repairs, fit

if TYPE_CHECKING:
    from device.matches.service import MatchService

logger = logging.getLogger(__name__)

LOST_AFTER = 3
"""Readings in a row that fit nothing before "take the table as the camera sees it" is
offered (a repair that fits is proposed at once)."""
MAX_UNDO = 3
"""Recorded actions a repair may take back: a wrong answer is found at the next reading
or two, while the moves since are few."""
TABLE_UNDO = 6
"""... and "take the table as the camera sees it", which looks further back."""
REPAIR_TYPES = ("repair", "table")
OVERRULED = 0.5
"""an answer the camera believed less than this is overruled (its doubt is above it)"""
WATCH = 2
"""readings after an overruled answer at which a repair that takes it back is looked for"""


@dataclass
class Recovery:
    """What one match's camera has been lost for, and the repairs it proposed."""

    lost: int = 0
    """readings in a row that fitted no legal move from the record (alerts)"""
    proposed: int = 0
    _watched: dict[int, int] = field(default_factory=dict)
    """readings checked since each overruled answer (by its action's seq)"""

    def after(self, service: MatchService, match_id: str, res: Resolution,
              observation: Observation, params: Params) -> list[Repair]:
        """Called with each reading's resolution: proposes repairs when the camera is lost
        (returns them), and counts the readings lost."""
        if isinstance(res, (Accepted, NoChange, Ambiguous)):
            self.lost = 0
            if isinstance(res, Ambiguous):
                return []
            return self._overruled(service, match_id, observation, params)
        assert isinstance(res, Violation)
        self.lost += 1
        match = service.match(match_id)
        history = _history(match)
        kind = "repair"
        repairs = find_repairs(match.game, history[-MAX_UNDO:], observation, params,
                               max_undo=MAX_UNDO, hints=_hints(match, MAX_UNDO))
        return self._ask(service, match_id, match, history, repairs, kind, observation,
                         params, res.to_dict())

    def _overruled(self, service: MatchService, match_id: str, observation: Observation,
                   params: Params) -> list[Repair]:
        """The players answered against the camera's favourite, and the camera then followed
        the table: a wrong answer can leave a record whose table looks the same as the true
        one (IceDice: a roll answered as the next player's 'stop' one move early), and the
        camera follows it for ever. For :data:`WATCH` readings after such an answer, a
        repair that takes it back and fits the table as well as the record does is asked."""
        match = service.match(match_id)
        history = _history(match)
        recent = history[-MAX_UNDO:]
        suspects = [len(recent) - i for i, h in enumerate(recent) if h[2] >= OVERRULED]
        if not suspects or self._watched.get(match.live_entries[-suspects[0]].seq, 0) \
                >= WATCH:
            return []
        seq = match.live_entries[-suspects[0]].seq
        self._watched[seq] = self._watched.get(seq, 0) + 1
        record = fit(match.game, match.state, observation, params)
        repairs = [r for r in find_repairs(match.game, recent, observation, params,
                                           max_undo=MAX_UNDO, hints=_hints(match, MAX_UNDO))
                   if len(r.undo) >= suspects[0] and r.log_likelihood >= record - 0.5]
        return self._ask(service, match_id, match, history, repairs, "repair", observation,
                         params, None)

    def _ask(self, service: MatchService, match_id: str, match: Match,
             history: list[tuple[Any, str, float]], repairs: list[Repair], kind: str,
             observation: Observation, params: Params,
             violation: dict[str, Any] | None) -> list[Repair]:
        if self.lost >= LOST_AFTER and (not repairs or _asked(match, repairs, kind)):
            kind = "table"
            repairs = [r for r in find_repairs(match.game, history[-TABLE_UNDO:], observation,
                                               params, max_undo=TABLE_UNDO, need_fit=False,
                                               hints=_hints(match, TABLE_UNDO))
                       if r.undo or r.actions]
        if not repairs or _asked(match, repairs, kind):
            return []
        live = [e.seq for e in match.live_entries]
        options = [{**r.to_dict(), "undo_seqs": live[len(live) - len(r.undo):],
                    "words": words(r, kind)} for r in repairs]
        data = {"type": kind, **options[0], "choices": options, "lost": self.lost,
                "violation": violation}
        service.propose(match_id, words(repairs[0], kind) if len(repairs) == 1 else
                        _ask(kind, len(repairs)), data)
        self.proposed += 1
        return repairs


@dataclass(frozen=True)
class _Answer:
    """An action recorded as (part of) the players' answer to a camera's question."""

    candidates: list[tuple[list[str], float]]
    """the question's legal candidates: (actions, the camera's posterior)"""
    chosen: list[str]
    """the actions the players answered with"""
    index: int
    """this action's place among them"""

    @property
    def doubt(self) -> float:
        """How likely the answer is wrong: 1 - how much the camera believed it."""
        believed = [p for a, p in self.candidates if a == self.chosen]
        return 1.0 - (max(believed) if believed else 0.5)

    def instead(self) -> list[tuple[list[str], float]]:
        """What the camera offered in place of this action and the answer's rest: the
        candidates that agree with the answer before it, from it on."""
        j = self.index
        return [(a[j:], p) for a, p in self.candidates
                if a[:j] == self.chosen[:j] and a != self.chosen]


def _answered(match: Match) -> dict[int, _Answer]:
    """The actions recorded as the players' answers to the camera's questions, by seq: an
    answer note is followed by the actions it names (``service.act``: 'a; b')."""
    out: dict[int, _Answer] = {}
    entries = match.entries
    for entry in entries:
        q = entry.data.get("question")
        if entry.kind != "answer" or not isinstance(q, int) or not 0 <= q < len(entries):
            continue
        cands = [(list(c["actions"]), float(c.get("posterior", 0.0)))
                 for c in entries[q].data.get("candidates", [])
                 if c.get("legal") and c.get("actions")]
        chosen = [t.strip() for t in entry.text.split(";") if t.strip()]
        for j in range(len(chosen)):
            seq = entry.seq + 1 + j
            if seq < len(entries) and entries[seq].kind == "action" and \
                    entries[seq].text == chosen[j]:
                out[seq] = _Answer(cands, chosen, j)
    return out


def _hints(match: Match, n: int) -> dict[int, list[tuple[list[str], float]]]:
    """For repairs of the last ``n`` live actions, by how many are taken back: when the
    first one taken back answered the camera's question, what the camera offered instead
    (its favourite first: what the table most likely showed)."""
    answered = _answered(match)
    live = match.live_entries[-n:] if n else []
    out: dict[int, list[tuple[list[str], float]]] = {}
    for i, entry in enumerate(live):
        answer = answered.get(entry.seq)
        if answer is not None and answer.instead():
            out[len(live) - i] = answer.instead()
    return out


def _history(match: Match) -> list[tuple[Any, str, float]]:
    """The last TABLE_UNDO live actions (all a repair may take back) with the state before
    each and how likely each is wrong: a camera move by its confidence; the players' answer
    by how much the camera believed the answer they chose (one against its favourite is the
    first suspect); a move entered by hand, 5 %. (The whole record's, each with its state
    searched for, took 29 ms a reading on mean in a cProfile of a 999-move simulated
    Quarriors match; the 20-match simulate's recover stage, p95, 40 ms then, 17 now.)"""
    out = []
    answered = _answered(match)
    for entry, before in match.live_tail(TABLE_UNDO):
        doubt = HAND_DOUBT
        if entry.source == "camera" and entry.confidence is not None:
            doubt = 1.0 - entry.confidence
        elif entry.seq in answered:
            doubt = answered[entry.seq].doubt
        out.append((before, entry.text,
                    min(max(doubt, MIN_DOUBT), 1.0 - MIN_DOUBT)))
    return out


HAND_DOUBT = 0.05
MIN_DOUBT = 0.01


def _ask(kind: str, n: int) -> str:
    if kind == "table":
        return f"The camera cannot follow the game. Which of these {n} is the table?"
    return f"The camera lost track. Which of these {n} happened?"


def words(repair: Repair, kind: str) -> str:
    """The proposal in a sentence (the page may word it its own way from the data)."""
    undo = ", ".join(repair.undo)
    then = "; ".join(a.to_str() for a in repair.actions) or "nothing"
    if kind == "table":
        lead = "The camera cannot follow the game. Take the table as it sees it"
    else:
        lead = "The camera lost track. Fix the record"
    if undo:
        return f"{lead}: take back {undo}, then record {then}?"
    return f"{lead}: record {then}?"


def _asked(match: Match, repairs: list[Repair], kind: str) -> bool:
    """The same repair is open now, or was declined, since the record last changed (a
    proposal hidden by a later alert is asked again)."""
    key = {"type": kind, "choices": [r.key() for r in repairs]}
    answered: set[int] = set()
    latest = True  # no question or alert logged after this entry
    for entry in reversed(match.entries):
        if entry.kind in ("action", "undo", "correction"):
            return False  # the record changed: a repair asked before is another one
        if entry.kind == "answer" and isinstance(entry.data.get("question"), int):
            answered.add(entry.data["question"])
        if entry.kind in ("question", "violation"):
            if entry.kind == "question" and _same(entry.data, key):
                return latest or entry.seq in answered
            latest = False
    return False


def _same(data: Mapping[str, Any], key: Mapping[str, Any]) -> bool:
    choices = [(tuple(c.get("undo", [])), tuple(c.get("actions", [])))
               for c in data.get("choices", [])]
    return data.get("type") in REPAIR_TYPES and data.get("type") == key["type"] \
        and choices == key["choices"]


class RepairError(Exception):
    """A repair that cannot be carried out now: (code, message)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


def apply_repair(match: Match, question: int, choice: int = 0, source: str = "phone") -> int:
    """Carry out repair ``choice`` proposed by the question at ``question``: one ``correction``
    entry saying what changes, then the undos and the actions (all judged by the rules).
    Returns the correction's seq. RepairError when the entry is no open repair, or the
    record changed since it was proposed."""
    if not 0 <= question < len(match.entries):
        raise RepairError("repair/not_a_repair", f"entry {question} is not in this match")
    entry = match.entries[question]
    data = entry.data
    if entry.kind != "question" or data.get("type") not in REPAIR_TYPES:
        raise RepairError("repair/not_a_repair", f"entry {question} is not a proposed repair")
    if any(e.kind in ("answer", "action", "undo", "correction")
           for e in match.entries[question + 1:]):
        raise RepairError("repair/stale", "the match changed since this repair was proposed: "
                                          "look again")
    choices = data.get("choices") or [data]
    if not 0 <= choice < len(choices):
        raise RepairError("repair/no_choice", f"choice {choice} is not one of the "
                                              f"{len(choices)} proposed")
    picked = choices[choice]
    undo = [str(t) for t in picked.get("undo", [])]
    if undo and match.actions[-len(undo):] != undo:
        raise RepairError("repair/stale", "the recorded moves are no longer those the repair "
                                          "takes back")
    actions = [match.game.parse_action(str(t)) for t in picked.get("actions", [])]
    note = match.note("correction", str(picked.get("words", entry.text)), source=source,
                      data={"question": question, "repair": data.get("type"), "choice": choice,
                            "undone": undo, "actions": [a.to_str() for a in actions]})
    for text in reversed(undo):
        match.undo(source=source, reason=f"undo {text} (repair {note.seq})")
    for action in actions:
        match.push(action, source=source, data={"correction": note.seq})
    return note.seq
