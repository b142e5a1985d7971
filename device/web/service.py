"""Live matches: the one place where phone actions meet the rules and the store.

Every change goes the same way: check the version the phone saw (stale → conflict), let
the engine judge the action, store the entry durably, then tell the hub. The web layer
never judges a rule itself.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from device.store import Store, StoreError, load_checked
from engine import EngineError, IllegalActionError, Match, get_game


class ServiceError(Exception):
    """An error for the client: HTTP status, stable code, one-line message."""

    def __init__(self, status: int, code: str, message: str,
                 extra: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.extra = dict(extra or {})


@dataclass
class _Live:
    match: Match
    lock: threading.Lock


def match_view(match_id: str, match: Match) -> dict[str, Any]:
    """Everything the phone page shows of a match."""
    game, state = match.game, match.state
    outcome = game.outcome(state)
    pending = None
    for entry in reversed(match.entries):
        if entry.kind in ("answer", "action", "undo", "note"):
            break
        if entry.kind in ("question", "violation"):
            pending = entry.to_dict()
            break
    return {
        "id": match_id,
        "game": game.info.name,
        "title": game.info.title,
        "players": match.initial.players,
        "version": match.version,
        "to_move": game.to_move(state),
        "state": state.to_dict(),
        "scores": [s.to_dict() for s in game.score(state)],
        "outcome": outcome.to_dict() if outcome else None,
        "legal_actions": [a.to_str() for a in game.legal_actions(state)][:200],
        "entries": [e.to_dict() for e in match.entries[-50:]],
        "pending": pending,
    }


class MatchService:
    """Live matches in memory, backed by the store, published to listeners."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._live: dict[str, _Live] = {}
        self._lock = threading.Lock()
        self.listeners: list[Callable[[str, dict[str, Any]], None]] = []
        # The camera's last read picture per match: (number, JPEG). Not stored: it is the
        # live view, replaced at each reading (the evidence of moves is stored with them).
        self._pictures: dict[str, tuple[int, bytes]] = {}

    def set_picture(self, match_id: str, jpeg: bytes) -> None:
        """The table as the camera last read it, annotated (the phone's live view)."""
        n = self._pictures.get(match_id, (0, b""))[0] + 1
        self._pictures[match_id] = (n, jpeg)

    def picture(self, match_id: str) -> tuple[int, bytes] | None:
        """(number, JPEG) of the last live picture of a match, or None before the first."""
        return self._pictures.get(match_id)

    def _get(self, match_id: str) -> _Live:
        with self._lock:
            live = self._live.get(match_id)
            if live is None:
                try:
                    live = _Live(load_checked(self.store, match_id), threading.Lock())
                except StoreError as exc:
                    raise ServiceError(404, "match/not_found", str(exc)) from None
                self._live[match_id] = live
            return live

    def view(self, match_id: str) -> dict[str, Any]:
        live = self._get(match_id)
        with live.lock:
            return match_view(match_id, live.match)

    def create(self, game_name: str, players: int, options: Mapping[str, object],
               setup: Mapping[str, Any] | None, seed: int | None, title: str) -> str:
        try:
            match = Match(get_game(game_name), players, options, setup=setup, seed=seed)
        except EngineError as exc:
            raise ServiceError(422, exc.code, str(exc)) from None
        match_id = self.store.create_match(match, title=title)
        with self._lock:
            self._live[match_id] = _Live(match, threading.Lock())
        self._publish(match_id)
        return match_id

    def _commit(self, match_id: str, live: _Live, version: int | None,
                change: Callable[[Match], None],
                thumbnail: bytes | None = None) -> dict[str, Any]:
        with live.lock:
            match = live.match
            if version is not None and version != match.version:
                raise ServiceError(409, "action/stale_state_id",
                                   f"the match changed (version {match.version}, you saw "
                                   f"{version}): reload and try again",
                                   {"version": match.version})
            before = len(match.entries)
            try:
                change(match)
            except IllegalActionError as exc:
                raise ServiceError(422, exc.code, str(exc),
                                   {"rule": exc.rule.id, "rule_text": exc.rule.text}) from None
            except EngineError as exc:
                raise ServiceError(422, exc.code, str(exc)) from None
            finished = match.game.outcome(match.state) is not None
            new = match.entries[before:]
            last_action = max((e.seq for e in new if e.kind == "action"), default=None)
            for entry in new:
                self.store.append(match_id, entry, finished=finished,
                                  thumbnail=thumbnail if entry.seq == last_action else None)
        return self._publish(match_id)

    def act(self, match_id: str, text: str, version: int | None, source: str = "phone",
            answer_to: int | None = None) -> dict[str, Any]:
        live = self._get(match_id)

        def change(match: Match) -> None:
            action = match.game.parse_action(text)
            match.game.check(match.state, action)  # judge before logging the answer
            if answer_to is not None:
                match.note("answer", text, source=source, data={"question": answer_to})
            match.push(action, source=source)

        return self._commit(match_id, live, version, change)

    def accept(self, match_id: str, actions: list[Any], confidence: float,
               thumbnail: bytes | None = None, data: Mapping[str, Any] | None = None,
               ) -> dict[str, Any]:
        """Record what the camera saw and the rules accepted (a roll and its move, say)."""
        def change(match: Match) -> None:
            for action in actions:
                match.push(action, source="camera", confidence=confidence, data=data)

        return self._commit(match_id, self._get(match_id), None, change, thumbnail)

    def match(self, match_id: str) -> Match:
        """The live match (read it under no lock only for a snapshot of its state)."""
        return self._get(match_id).match

    def undo(self, match_id: str, version: int | None, source: str = "phone") -> dict[str, Any]:
        return self._commit(match_id, self._get(match_id), version,
                            lambda m: m.undo(source=source))

    def note(self, match_id: str, kind: str, text: str, data: Mapping[str, Any] | None = None,
             source: str = "camera") -> dict[str, Any]:
        return self._commit(match_id, self._get(match_id), None,
                            lambda m: m.note(kind, text, source=source, data=data))

    def record(self, match_id: str) -> dict[str, Any]:
        live = self._get(match_id)
        with live.lock:
            return live.match.to_dict()

    def _publish(self, match_id: str) -> dict[str, Any]:
        view = self.view(match_id)
        for listener in list(self.listeners):
            listener(match_id, view)
        return view
