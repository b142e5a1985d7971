"""Live matches: the one place where the players' and the camera's changes meet the rules
and the store.

Every change goes the same way: check the version the phone saw (stale → conflict), let
the engine judge the change, store its entries durably in one transaction, then tell the
hub. The web layer never judges a rule itself. If the store refuses, the match in memory is
dropped and reloaded from the store, so memory never runs ahead of what is durable.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from device.matches.corrections import Amendment, amend, amendments
from device.matches.questions import doubtful, focus_dict
from device.matches.recovery import RepairError, apply_repair
from device.matches.views import match_view, replay_index, replay_step
from device.store import Store, StoreError, load_checked
from engine import (
    Accepted,
    Ambiguous,
    EngineError,
    IllegalActionError,
    Match,
    NoChange,
    Observation,
    Resolution,
    Violation,
    get_game,
    reconcile,
)
from engine.carry import Carried
from engine.observation import Expected
from engine.reconcile import Params

__all__ = ["MatchService", "ServiceError", "match_view"]

MAX_LIVE = 32
"""Matches held in memory, the least recently used leaving first; a finished match leaves at
once. Any match is loaded again from the store when asked (about 20 kB each: 6,000 matches
held for ever were 120 MB). What is lost with a match that leaves: the players' corrections
the camera's readings are still compared against, so a table's own match, used at every
frame, never leaves while it is played."""


class ServiceError(Exception):
    """An error for the client: HTTP status, stable code, one-line message."""

    def __init__(self, status: int, code: str, message: str,
                 extra: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.extra = dict(extra or {})


@dataclass
class _Alert:
    """What the camera last raised on a match (so the same question is asked once while the
    table stays the same)."""

    text: str | None = None
    """the open question or alert, as asked"""
    raised: bool = False
    """a rule break was alerted and the table has not matched the game since"""
    at: int | None = None
    """the match's entry count just after the open alert or question was raised"""


@dataclass
class _Live:
    match: Match
    lock: threading.Lock
    title: str = ""
    view: dict[str, Any] | None = None
    """the last view, valid while ``view["version"]`` is the match's version"""
    amendments: list[Amendment] = field(default_factory=list)
    """the players' corrections the camera's next readings are compared against"""
    alert: _Alert = field(default_factory=_Alert)
    carried: tuple[int, Any, Carried] | None = None
    """what the camera's last reading, left as no change, handed on (NoChange.carried): the
    number of the match's entries and its state then, and the chains; used by the next
    reading only while the match is still there (engine.carry)"""


def _engine_error(exc: EngineError) -> ServiceError:
    if isinstance(exc, IllegalActionError):
        return ServiceError(422, exc.code, str(exc),
                            {"rule": exc.rule.id, "rule_text": exc.rule.text})
    return ServiceError(422, exc.code, str(exc))


class MatchService:
    """Live matches in memory, backed by the store, published to listeners."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._live: OrderedDict[str, _Live] = OrderedDict()
        self._lock = threading.Lock()
        self.listeners: list[Callable[[str, dict[str, Any]], None]] = []
        # The camera's last read picture per match: (number, JPEG). Not stored: it is the
        # live view, replaced at each reading (the evidence of moves is stored with them).
        self._pictures: OrderedDict[str, tuple[int, bytes]] = OrderedDict()
        # Per match, what cuts the part of the camera's last picture that holds some objects
        # (a JPEG, ringed), kept with a question about them; set by whoever films the table.
        self.croppers: dict[str, Callable[[Sequence[Expected]], bytes | None]] = {}

    # --- the camera's side ------------------------------------------------------------------
    def set_picture(self, match_id: str, jpeg: bytes) -> None:
        """The table as the camera last read it, annotated (the phone's live view)."""
        with self._lock:
            n = self._pictures.pop(match_id, (0, b""))[0] + 1
            self._pictures[match_id] = (n, jpeg)
            while len(self._pictures) > MAX_LIVE:
                self._pictures.popitem(last=False)

    def picture(self, match_id: str) -> tuple[int, bytes] | None:
        """(number, JPEG) of the last live picture of a match, or None before the first."""
        return self._pictures.get(match_id)

    def see(self, match_id: str, observation: Observation, params: Params | None = None,
            evidence: Callable[[], bytes] | None = None,
            timings: dict[str, float] | None = None) -> Resolution:
        """What the camera saw, judged by the rules and recorded: the players' corrections
        applied (:meth:`amend`), explained by engine.reconcile with the match's seats, and
        then an accepted move recorded with its ``evidence`` (a small JPEG, made only then),
        a question or an alert raised once while the table stays the same, an open alert
        closed when the table matches the game again. ``timings`` gets the milliseconds
        the rules took (``reconcile``)."""
        live = self._get(match_id)
        alert = live.alert
        match = live.match
        if alert.at is not None and len(match.entries) != alert.at:
            # the players answered, acted or undid since: that alert is closed, and the same
            # question, raised by the table again, is asked again
            live.alert = alert = _Alert()
        if observation.moved and alert.raised:
            # after an alert the hands over the table are the players putting it back: that
            # motion is no evidence of a move (else the table as the game has it, seen
            # again, was weighed against moves the camera might have missed, and asked)
            observation = replace(observation, moved=None)
        observation = self.amend(match_id, observation)
        t0 = time.perf_counter()
        kept = live.carried
        carried = kept[2] if kept is not None and kept[0] == len(match.entries) \
            and kept[1] is match.state else ()
        res = reconcile(match.game, match.state, observation, params or Params(),
                        match.seats, carried)
        live.carried = (len(match.entries), match.state, res.carried) \
            if isinstance(res, NoChange) and res.carried else None
        if timings is not None:
            timings["reconcile"] = (time.perf_counter() - t0) * 1000
        self._record(match_id, live, res, evidence, observation.frame)
        return res

    def _record(self, mid: str, live: _Live, res: Resolution,
                evidence: Callable[[], bytes] | None, frame: int | None) -> None:
        alert = live.alert
        alert.raised = isinstance(res, Violation) or (alert.raised and
                                                     isinstance(res, Ambiguous))
        if isinstance(res, Accepted):
            alert.text = None
            self.accept(mid, list(res.actions), res.confidence,
                        thumbnail=evidence() if evidence is not None else None,
                        data={"frame": frame})
        elif isinstance(res, NoChange):
            if alert.text is not None:
                self.note(mid, "note", "the table matches the game again")
                alert.text = None
        elif isinstance(res, Ambiguous):
            text = " or ".join(c.text() for c in res.candidates)
            if text != alert.text:
                alert.text = text
                # a move the camera saw but whose unseen part only the players know (Pyramid
                # Dice: the players before a snatcher passed) is one yes/no question
                question = f"{res.confirm} ({text})" if res.confirm else \
                    f"Which was it: {text}?"
                # what the candidates disagree on, and that part of the picture for the page
                focus = doubtful(live.match.game, live.match.state, res.candidates)
                cropper = self.croppers.get(mid)
                crop = cropper(focus) if cropper is not None and focus else None
                self.note(mid, "question", question, thumbnail=crop,
                          data=res.to_dict() | {"focus": focus_dict(focus),
                                                "crop": crop is not None})
                alert.at = len(live.match.entries)
        elif isinstance(res, Violation):
            text = f"{res.rule.id}: {res.explanation}"
            if text != alert.text:
                alert.text = text
                self.note(mid, "violation", res.explanation, data=res.to_dict())
                alert.at = len(live.match.entries)

    def amend(self, match_id: str, observation: Observation) -> Observation:
        """The camera's observation with the players' corrections applied: a die they said
        shows 5 is read as 5 while it lies where it was (the runtime calls this before
        reconciling). A correction is spent once its object is gone from the state, and a
        die's as soon as the dice may have left their places: only a reading that knows the
        dice stayed put (``dice_moved`` False) is amended, since amending a new roll would
        hide it."""
        live = self._get(match_id)
        with live.lock:
            if not live.amendments:
                return observation
            view = live.match.game.expected_view(live.match.state)
            live.amendments = [a for a in live.amendments if a.expected(view)
                               and not (a.kind == "die" and observation.dice_moved is not False)]
            return amend(observation, live.amendments)

    def accept(self, match_id: str, actions: list[Any], confidence: float,
               thumbnail: bytes | None = None, data: Mapping[str, Any] | None = None,
               ) -> dict[str, Any]:
        """Record what the camera saw and the rules accepted (a roll and its move, say)."""
        def change(match: Match) -> dict[int, bytes]:
            for action in actions:
                match.push(action, source="camera", confidence=confidence, data=data)
            return {match.entries[-1].seq: thumbnail} if thumbnail is not None else {}

        return self._commit(match_id, None, change)

    def note(self, match_id: str, kind: str, text: str, data: Mapping[str, Any] | None = None,
             source: str = "camera", thumbnail: bytes | None = None) -> dict[str, Any]:
        """Log a note (a question, an alert...); ``thumbnail``: its picture (a question's
        crop), served as the entry's evidence."""
        def change(match: Match) -> dict[int, bytes]:
            match.note(kind, text, source=source, data=data)
            return {match.entries[-1].seq: thumbnail} if thumbnail is not None else {}

        return self._commit(match_id, None, change)

    # --- matches ----------------------------------------------------------------------------
    def _get(self, match_id: str) -> _Live:
        with self._lock:
            live = self._live.get(match_id)
            if live is None:
                try:
                    match = load_checked(self.store, match_id)
                except StoreError as exc:
                    raise ServiceError(404, "match/not_found", str(exc)) from None
                title = next((m.title for m in self.store.matches() if m.id == match_id), "")
                live = _Live(match, threading.Lock(), title)
                self._live[match_id] = live
                self._trim()
            else:
                self._live.move_to_end(match_id)
            return live

    def _trim(self) -> None:
        """Drop the least recently used matches beyond MAX_LIVE (under ``self._lock``); one
        in the middle of a change is left for the next time."""
        for match_id in list(self._live)[:max(0, len(self._live) - MAX_LIVE)]:
            if not self._live[match_id].lock.locked():
                del self._live[match_id]

    def held(self) -> int:
        """How many matches are in memory now."""
        return len(self._live)

    def match(self, match_id: str) -> Match:
        """The live match (read it under no lock only for a snapshot of its state)."""
        return self._get(match_id).match

    def view(self, match_id: str) -> dict[str, Any]:
        live = self._get(match_id)
        with live.lock:
            return self._view(match_id, live)

    def _view(self, match_id: str, live: _Live) -> dict[str, Any]:
        # Every change appends an entry, so the version names the view exactly; the camera
        # loop and the demo ask for it at every frame.
        if live.view is None or live.view["version"] != live.match.version:
            live.view = match_view(match_id, live.match, live.title)
        return live.view

    def create(self, game_name: str, players: int, options: Mapping[str, object],
               setup: Mapping[str, Any] | None, seed: int | None, title: str,
               names: Sequence[str] | None = None,
               seats: Sequence[str] | None = None) -> str:
        """A new match; ``names``: the players' (engine.match.check_names); ``seats``: the
        table edge each player sits at (engine.thrower). Both are the record's."""
        try:
            match = Match(get_game(game_name), players, options, setup=setup, seed=seed,
                          names=names, seats=seats)
        except EngineError as exc:
            raise _engine_error(exc) from None
        except (TypeError, ValueError, KeyError, AttributeError) as exc:
            # a setup of the wrong shape the game's own checks did not foresee
            raise ServiceError(422, "setup/invalid", f"setup: {exc}") from None
        match_id = self.store.create_match(match, title=title)
        with self._lock:
            self._live[match_id] = _Live(match, threading.Lock(), title)
            self._trim()
        self._publish(match_id)
        return match_id

    def seats(self, match_id: str) -> tuple[str, ...] | None:
        """The table edge each player sits at, or None when not set at setup."""
        live = self._get(match_id)
        with live.lock:
            return live.match.seats

    def record(self, match_id: str) -> dict[str, Any]:
        live = self._get(match_id)
        with live.lock:
            return live.match.to_dict()

    # --- the players' side ------------------------------------------------------------------
    def _commit(self, match_id: str, version: int | None,
                change: Callable[[Match], dict[int, bytes] | None],
                live: _Live | None = None) -> dict[str, Any]:
        live = live or self._get(match_id)
        with live.lock:
            match = live.match
            if version is not None and version != match.version:
                raise ServiceError(409, "action/stale_state_id",
                                   f"the match changed (version {match.version}, you saw "
                                   f"{version}): look again and retry",
                                   {"version": match.version})
            before = len(match.entries)
            try:
                thumbnails = change(match)
            except EngineError as exc:
                self._restore(match_id, live, before)
                raise _engine_error(exc) from None
            except Exception:  # ServiceError, or a bug: memory must not run ahead of the store
                self._restore(match_id, live, before)
                raise
            new = match.entries[before:]
            finished = False
            if new:
                finished = match.game.outcome(match.state) is not None
                try:
                    self.store.append_all(match_id, new, thumbnails=thumbnails or {},
                                          finished=finished)
                except StoreError:
                    self._forget(match_id)
                    raise
            view = self._view(match_id, live)
        for listener in list(self.listeners):
            listener(match_id, view)
        if finished:  # its last view is sent; from now on it is read from the store
            self._forget(match_id)
        return view

    def _restore(self, match_id: str, live: _Live, before: int) -> None:
        """A change that failed half-way (a correction) must leave no trace: reload."""
        if len(live.match.entries) != before:
            self._forget(match_id)

    def _forget(self, match_id: str) -> None:
        with self._lock:
            self._live.pop(match_id, None)

    def act(self, match_id: str, text: str, version: int | None, source: str = "phone",
            answer_to: int | None = None) -> dict[str, Any]:
        """Record an action; ``a; b`` records several at once (an answer to the camera's
        question is often a roll and the move made with it), all or none."""
        def change(match: Match) -> None:
            game, state = match.game, match.state
            actions = [game.parse_action(t) for t in text.split(";") if t.strip()]
            if not actions:
                actions = [game.parse_action(text)]  # the engine's message for an empty one
            for action in actions:  # judge all before logging anything
                state = game.apply(state, action)[0]
            if answer_to is not None:
                match.note("answer", text, source=source, data={"question": answer_to})
            for action in actions:
                match.push(action, source=source)

        return self._commit(match_id, version, change)

    def end(self, match_id: str, version: int | None, source: str = "phone"
            ) -> dict[str, Any]:
        """The players end the match where the rules let them (Pyramid Dice: 'end' by the
        stall rule). A match-control action taken on the phone, like setup or undo: nothing
        on the table shows it. 409 with the rules' reason where it is not allowed now."""
        def change(match: Match) -> None:
            game = match.game
            try:
                action = game.parse_action("end")
            except EngineError:
                raise ServiceError(409, "end/not_allowed", f"{game.info.title} has no early "
                                   "end: the match ends by its rules") from None
            try:
                after = game.apply(match.state, action)[0]
            except EngineError as exc:
                raise ServiceError(409, "end/not_allowed",
                                   f"the rules do not allow ending the match now: {exc}",
                                   {"rule": getattr(getattr(exc, "rule", None), "id", None)}
                                   ) from None
            if game.outcome(after) is None:  # Quarriors: 'end' ends a turn, not the match
                raise ServiceError(409, "end/not_allowed", f"{game.info.title} has no early "
                                   "end: the match ends by its rules")
            match.push(action, source=source, data={"initiative": "players"})

        return self._commit(match_id, version, change)

    def dismiss(self, match_id: str, seq: int, version: int | None, text: str,
                source: str = "phone") -> dict[str, Any]:
        """Close a question or an alert without an action ("nothing happened", or the
        players override the camera): logged as the answer to it."""
        def change(match: Match) -> None:
            if not 0 <= seq < len(match.entries) or \
                    match.entries[seq].kind not in ("question", "violation"):
                raise ServiceError(422, "answer/not_a_question",
                                   f"entry {seq} is not a question or an alert")
            match.note("answer", text, source=source, data={"question": seq})

        return self._commit(match_id, version, change)

    def propose(self, match_id: str, text: str, data: Mapping[str, Any]) -> dict[str, Any]:
        """Ask the players to repair the record (device.matches.recovery): a question of
        the camera's own, asked while its alert stays open (the alert is not raised again
        over it while the table stays the same)."""
        live = self._get(match_id)
        view = self.note(match_id, "question", text, data=data)
        if live.alert.at is not None:
            live.alert.at = len(live.match.entries)
        return view

    def repair(self, match_id: str, question: int, version: int | None, choice: int = 0,
               source: str = "phone") -> dict[str, Any]:
        """Carry out repair ``choice`` of those the question at ``question`` proposed (one
        tap): a correction entry with the camera's last picture, the undos and the actions,
        in one transaction (device.matches.recovery.apply_repair)."""
        picture = self.picture(match_id)

        def change(match: Match) -> dict[int, bytes]:
            try:
                seq = apply_repair(match, question, choice, source)
            except RepairError as exc:
                raise ServiceError(409 if exc.code == "repair/stale" else 422, exc.code,
                                   exc.message) from None
            return {seq: picture[1]} if picture is not None else {}

        return self._commit(match_id, version, change)

    def undo(self, match_id: str, version: int | None, source: str = "phone",
             to: int | None = None) -> dict[str, Any]:
        """Take back the last action, or (``to``) every action back to and including the
        live action logged at ``to``, in one change."""
        def change(match: Match) -> None:
            if to is None:
                match.undo(source=source)
                return
            live = [e.seq for e in match.live_entries]
            if to not in live:
                raise ServiceError(422, "undo/not_live",
                                   f"entry {to} is not an action in play (undone already, "
                                   "or not an action)")
            for _ in live[live.index(to):]:
                match.undo(source=source)

        return self._commit(match_id, version, change)

    def correct(self, match_id: str, seq: int, text: str, version: int | None,
                source: str = "phone") -> dict[str, Any]:
        """Replace the live action logged at ``seq`` with ``text`` (what really happened),
        judged from the state before it; the later actions that still follow are replayed,
        the others taken back. One ``correction`` entry says what changed; it is followed by
        the undos and the actions that carry it out, all stored in one transaction."""
        live = self._get(match_id)

        def change(match: Match) -> dict[int, bytes]:
            game = match.game
            live_entries = match.live_entries
            seqs = [e.seq for e in live_entries]
            if seq not in seqs:
                raise ServiceError(422, "correction/not_live",
                                   f"entry {seq} is not an action in play (undone already, "
                                   "or not an action)")
            before = match.state_before(seq)
            was = game.parse_action(match.entries[seq].text)
            now = game.parse_action(text)
            game.check(before, now)
            if now == was:
                raise ServiceError(422, "correction/same",
                                   f"{text!r} is what is recorded already")
            later = live_entries[seqs.index(seq) + 1:]
            state = game.apply(before, now)[0]
            kept: list[Any] = []
            dropped: list[str] = []
            for entry in later:
                action = game.parse_action(entry.text)
                if dropped or not game.is_legal(state, action):
                    dropped.append(entry.text)
                    continue
                state = game.apply(state, action)[0]
                kept.append(entry)
            fixed = amendments(game, before, was, now)
            note = match.note("correction", f"{was.to_str()} → {now.to_str()}", source=source,
                              data={"replaces": seq, "was": was.to_str(), "now": now.to_str(),
                                    "dropped": dropped,
                                    "amendments": [a.to_dict() for a in fixed]})
            for entry in reversed([match.entries[seq], *later]):
                match.undo(source=source, reason=f"undo {entry.text} (correction {note.seq})")

            def carried(entry: Any) -> dict[str, Any]:
                data = {k: v for k, v in entry.data.items() if k != "events"}
                return data | {"correction": note.seq}

            moved: dict[int, int] = {}
            match.push(now, source=source, data=carried(match.entries[seq]))
            moved[seq] = match.entries[-1].seq
            for entry in kept:
                match.push(game.parse_action(entry.text), source=entry.source,
                           confidence=entry.confidence, data=carried(entry))
                moved[entry.seq] = match.entries[-1].seq
            live.amendments = [a for a in live.amendments if a not in fixed] + fixed
            # The pictures of the moves follow them (a photo shows what really lies there);
            # the picture of a move taken back goes with the corrected action.
            pictures: dict[int, bytes] = {}
            for old in [seq, *(e.seq for e in later)]:
                jpeg = self.store.thumbnail(match_id, old)
                target = moved.get(old, moved[seq])
                if jpeg is not None and target not in pictures:
                    pictures[target] = jpeg
            return pictures

        return self._commit(match_id, version, change, live)

    def rename(self, match_id: str, names: Sequence[str], version: int | None,
               source: str = "phone") -> dict[str, Any]:
        """Name the players anew (logged: the record keeps who played)."""
        live = self._get(match_id)

        def change(match: Match) -> None:
            match.rename(names, source=source)

        return self._commit(match_id, version, change, live)

    # --- replay -----------------------------------------------------------------------------
    def replay(self, match_id: str) -> dict[str, Any]:
        live = self._get(match_id)
        with live.lock:
            return replay_index(match_id, live.match, self.store.evidence(match_id), live.title)

    def replay_step(self, match_id: str, step: int) -> dict[str, Any]:
        live = self._get(match_id)
        with live.lock:
            record = live.match.to_dict()
        steps = len(record["entries"])
        if not 0 <= step <= steps:
            raise ServiceError(404, "replay/no_step",
                               f"step {step} is not in this match (0 to {steps})")
        try:
            return replay_step(record, step)
        except EngineError as exc:  # a record the rules refuse: say so, never a 500
            raise ServiceError(409, "replay/invalid", str(exc)) from None

    def _publish(self, match_id: str) -> dict[str, Any]:
        view = self.view(match_id)
        for listener in list(self.listeners):
            listener(match_id, view)
        return view
