"""A match: the initial state plus an append-only log; replay, undo and the JSON record.

Every entry is kept: actions, undos, questions, answers, violations, corrections. The
current state is always the replay of the action entries through the rules, so a record
loaded from JSON reaches exactly the state it was saved in, or fails loudly.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import engine
from engine.core import Event, Game
from engine.errors import (
    EngineError,
    IllegalActionError,
    InvalidStateError,
    Rule,
    UnknownGameError,
)
from engine.registry import get_game
from engine.thrower import check_seats

RECORD_FORMAT = "dicetable-match/1"

#: entry kinds that are not actions: they are kept for the record and do not change state
#: (``names``: the players named anew, ``Match.rename``)
NOTE_KINDS = frozenset({"question", "answer", "violation", "correction", "note", "names"})
MAX_NAME = 24
"""Longest player name kept (a phone's name field; the log quotes it)."""
_LEGACY_NAMES, _LEGACY_SEATS = "names", "seats"
"""Records made before names and seats were the match's own kept them in notes' data
under these keys: they are read from there."""


class InvalidNamesError(EngineError, ValueError):
    """Player names that cannot be kept (more names than players, one too long)."""

    code = "names/invalid"


def check_names(names: Sequence[str] | None, players: int) -> tuple[str, ...]:
    """Player names as entered: trimmed, at most one per player, none longer than MAX_NAME
    (InvalidNamesError at ``names`` or the long name's index)."""
    if names is None:
        return ()
    if len(names) > players:
        raise InvalidNamesError(f"{len(names)} names for {players} players").at("names")
    out = tuple(" ".join(str(n).split()) for n in names)
    for i, name in enumerate(out):
        if len(name) > MAX_NAME:
            raise InvalidNamesError(f"the name {name[:MAX_NAME]!r}… is longer than {MAX_NAME} "
                                    "letters").at("names", i)
    return out


@dataclass(frozen=True, slots=True)
class Entry:
    """One line of the log.

    Attributes:
        seq: position in the log (0-based, never reused).
        kind: ``action``, ``undo`` or one of NOTE_KINDS.
        text: the action's text form (``action``), or a human sentence.
        source: who said it: ``camera``, ``phone``, ``cli``, ``sim``...
        confidence: the reconcile posterior for camera actions.
        data: anything else worth keeping (JSON values).
    """

    seq: int
    kind: str
    text: str = ""
    source: str = "cli"
    confidence: float | None = None
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seq": self.seq, "kind": self.kind, "text": self.text,
                               "source": self.source}
        if self.confidence is not None:
            out["confidence"] = self.confidence
        if self.data:
            out["data"] = dict(self.data)
        return out


class Match:
    """A match of one game, built from its setup and grown by ``push``.

    The players' names (entered at setup, renamed later with :meth:`rename`) and the table
    edge each sits at (engine.thrower, set at setup) are part of the record."""

    def __init__(self, game: Game[Any, Any], players: int,
                 options: Mapping[str, object] | None = None, *,
                 setup: Mapping[str, Any] | None = None, seed: int | None = None,
                 names: Sequence[str] | None = None,
                 seats: Sequence[str] | None = None) -> None:
        self.game = game
        self.initial = game.new_state(players, options, setup=setup, seed=seed)
        self.seed = seed
        self.setup_names = check_names(names, players)
        try:
            self.seats: tuple[str, ...] | None = (
                check_seats(seats, players) if seats is not None else None)
        except ValueError as exc:
            raise InvalidSeatsError(f"seats: {exc}").at("seats") from None
        self.entries: list[Entry] = []
        self._stack: list[tuple[int, Any]] = []  # (entry seq, state before) per live action
        self.state: Any = self.initial

    # --- the players ----------------------------------------------------------------------
    @property
    def names(self) -> list[str]:
        """The players' names as last entered (P1, P2... where none was given)."""
        names: Sequence[str] = self.setup_names
        for entry in reversed(self.entries):
            given = entry.data.get(_LEGACY_NAMES) if entry.kind in ("names", "note") else None
            if isinstance(given, list):
                names = [str(n) for n in given]
                break
        players = self.initial.players
        return [names[i] if i < len(names) and names[i] else f"P{i + 1}"
                for i in range(players)]

    def rename(self, names: Sequence[str], *, source: str = "cli") -> Entry:
        """Name the players anew (logged: the record keeps who played)."""
        clean = check_names(names, self.initial.players)
        text = "players: " + ", ".join(n or f"P{i + 1}" for i, n in enumerate(clean))
        return self.note("names", text, source=source, data={"names": list(clean)})

    # --- growing the log -----------------------------------------------------------------
    @property
    def version(self) -> int:
        """Changes with every entry: the phone's stale-action check compares it."""
        return len(self.entries)

    @property
    def live_entries(self) -> list[Entry]:
        """The entries of the live actions (undone ones left out), in order."""
        return [self.entries[seq] for seq, _ in self._stack]

    @property
    def actions(self) -> list[str]:
        """The live actions' text, in order."""
        return [entry.text for entry in self.live_entries]

    def state_before(self, seq: int) -> Any:
        """The state just before the live action logged at ``seq`` (a correction replaces
        that action with another one judged from this state); KeyError when the entry is not
        a live action."""
        for live_seq, before in reversed(self._stack):  # (asked mostly of the last few)
            if live_seq == seq:
                return before
        raise KeyError(f"entry {seq} is not a live action")

    def live_tail(self, n: int) -> list[tuple[Entry, Any]]:
        """The last ``n`` live actions' entries, each with the state just before it."""
        return [(self.entries[seq], before) for seq, before in self._stack[-n:]] if n else []

    def push(self, action: Any, *, source: str = "cli", confidence: float | None = None,
             data: Mapping[str, Any] | None = None) -> tuple[Event, ...]:
        """Apply a legal action and log it; raises IllegalActionError and logs nothing."""
        after, events = self.game.apply(self.state, action)
        entry = Entry(len(self.entries), "action", action.to_str(), source, confidence,
                      dict(data or {}) | ({"events": [e.to_dict() for e in events]}
                                          if events else {}))
        self.entries.append(entry)
        self._stack.append((entry.seq, self.state))
        self.state = after
        return events

    def push_text(self, text: str, **kwargs: Any) -> tuple[Event, ...]:
        return self.push(self.game.parse_action(text), **kwargs)

    def undo(self, *, source: str = "cli", reason: str = "") -> str:
        """Take back the last live action (logged as an ``undo`` entry); returns its text."""
        if not self._stack:
            raise IllegalActionError(_NOTHING_TO_UNDO, "there is no action to undo")
        seq, before = self._stack.pop()
        text = self.entries[seq].text
        self.entries.append(Entry(len(self.entries), "undo", reason or f"undo {text}", source,
                                  data={"undoes": seq}))
        self.state = before
        return text

    def note(self, kind: str, text: str, *, source: str = "cli",
             data: Mapping[str, Any] | None = None) -> Entry:
        """Log a question, an answer, a violation, a correction or a note."""
        if kind not in NOTE_KINDS:
            raise ValueError(f"not a note kind: {kind!r}")
        entry = Entry(len(self.entries), kind, text, source, None, dict(data or {}))
        self.entries.append(entry)
        return entry

    # --- the record ------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "format": RECORD_FORMAT,
            "engine_version": engine.__version__,
            "game": self.game.info.name,
            "players": self.initial.players,
            "options": dict(self.initial.options),
            "seed": self.seed,
        }
        if any(self.setup_names):
            out["names"] = list(self.setup_names)
        if self.seats is not None:
            out["seats"] = list(self.seats)
        return out | {
            "initial_state": self.initial.to_dict(),
            "entries": [e.to_dict() for e in self.entries],
            "final_state": self.state.to_dict(),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=1)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Match:
        """Replay a record through the rules; raises InvalidStateError naming the bad entry.

        The record's ``final_state`` (when present) must equal the replayed state.
        """
        if not isinstance(data, Mapping) or data.get("format") != RECORD_FORMAT:
            raise InvalidStateError(f"not a dicetable match record (expected format "
                                    f"{RECORD_FORMAT!r})")
        try:
            game = get_game(str(data["game"]))
        except (KeyError, UnknownGameError) as exc:
            raise InvalidStateError(f"match record: {exc}") from None
        try:
            match = cls.__new__(cls)
            match.game = game
            match.initial = game.state_from_dict(data["initial_state"])
            match.seed = data.get("seed")
            match.entries, match._stack, match.state = [], [], match.initial
            entries = data["entries"]
        except (KeyError, TypeError) as exc:
            raise InvalidStateError(f"match record lacks a field: {exc}") from None
        try:
            match.setup_names = check_names(data.get("names"), match.initial.players)
            seats = data.get("seats")
            match.seats = check_seats(seats, match.initial.players) if seats is not None \
                else None
        except (EngineError, ValueError, TypeError) as exc:
            raise InvalidStateError(f"match record: {exc}") from None
        if not isinstance(entries, list):
            raise InvalidStateError("match record: 'entries' must be a list")
        # The header repeats what the initial state holds; a record whose header says
        # otherwise was edited by hand and is not what was played.
        players = data.get("players", match.initial.players)
        if type(players) is not int or players != match.initial.players:
            raise InvalidStateError(f"match record: the header says {players!r} players, the "
                                    f"initial state {match.initial.players}")
        if match.seats is None:
            match.seats = _legacy_seats(entries, match.initial.players)
        for i, raw in enumerate(entries):
            seq = raw.get("seq", i) if isinstance(raw, Mapping) else i
            if type(seq) is not int or seq != i:
                raise InvalidStateError(f"entry {i} is numbered {seq!r}, not {i}")
            try:
                kind, text = raw["kind"], str(raw.get("text", ""))
                source = str(raw.get("source", "cli"))
                if kind == "action":
                    match.push_text(text, source=source, confidence=raw.get("confidence"),
                                    data={k: v for k, v in raw.get("data", {}).items()
                                          if k != "events"})
                elif kind == "undo":
                    match.undo(source=source, reason=text)
                else:
                    match.note(kind, text, source=source, data=raw.get("data"))
            except EngineError as exc:
                raise InvalidStateError(f"entry {i} ({raw.get('text', '')!r}) does not "
                                        f"replay: {exc}") from None
            except (KeyError, TypeError, AttributeError, ValueError) as exc:
                raise InvalidStateError(f"entry {i} is malformed: {exc}") from None
        final = data.get("final_state")
        if final is not None and match.state.to_dict() != final:
            raise InvalidStateError("the replayed state differs from the record's final_state")
        return match

    @classmethod
    def from_json(cls, text: str) -> Match:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidStateError(f"not JSON: {exc.msg} at line {exc.lineno}") from None
        except RecursionError:  # a record is a few levels deep; this one is a hostile file
            raise InvalidStateError("not a match record: the JSON is nested too deeply") \
                from None
        return cls.from_dict(data)


class InvalidSeatsError(EngineError, ValueError):
    """Seats that are no table edges, or not one per player."""

    code = "seats/invalid"


def _legacy_seats(entries: Sequence[Any], players: int) -> tuple[str, ...] | None:
    """The seats an older record kept in a note (the last such note, when it seats every
    player), or None."""
    for raw in reversed(entries):
        data = raw.get("data") if isinstance(raw, Mapping) else None
        if isinstance(raw, Mapping) and raw.get("kind") == "note" and \
                isinstance(data, Mapping) and isinstance(data.get(_LEGACY_SEATS), list):
            seats = tuple(str(s) for s in data[_LEGACY_SEATS])
            return seats if len(seats) == players else None
    return None


_NOTHING_TO_UNDO = Rule(
    "core.undo_empty", "Only an action that was made can be undone.", "engine")
