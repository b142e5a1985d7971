"""What the phone page shows of a match: the live view, and each step of a replay.

Both are computed by the engine from the match's log (a replay step replays the first entries
of the record through the rules), never from stored states.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from device.matches.corrections import parts
from engine import Match
from engine.match import Entry


def pending_entry(match: Match) -> dict[str, Any] | None:
    """The open question or alert: the last one, unless something was done since."""
    for entry in reversed(match.entries):
        if entry.kind in ("answer", "action", "undo", "note", "names", "correction"):
            return None
        if entry.kind in ("question", "violation"):
            return entry.to_dict()
    return None


def last_camera_move(match: Match) -> dict[str, Any] | None:
    """The camera's last accepted move (a roll and the move read with it share a frame), as
    corrected if it was, with the parts of each action the players may correct."""
    live = match.live_entries
    group: list[Entry] = []
    for entry in reversed(live):
        if entry.source != "camera" and "correction" not in entry.data:
            if group:
                break
            continue
        if group and entry.data.get("frame") != group[-1].data.get("frame"):
            break
        group.append(entry)
    if not group:
        return None
    group.reverse()
    game = match.game
    actions = []
    for entry in group:
        before = match.state_before(entry.seq)
        actions.append({"seq": entry.seq, "text": entry.text,
                        "confidence": entry.confidence,
                        "parts": parts(game, before, game.parse_action(entry.text))})
    return {"actions": actions, "evidence": group[-1].seq}


def state_view(match: Match, state: Any) -> dict[str, Any]:
    """Whose turn, the table, the scores and the result in ``state``."""
    game = match.game
    outcome = game.outcome(state)
    return {
        "to_move": game.to_move(state),
        "state": state.to_dict(),
        "scores": [s.to_dict() for s in game.score(state)],
        "outcome": outcome.to_dict() if outcome else None,
    }


def match_view(match_id: str, match: Match, title: str = "") -> dict[str, Any]:
    """Everything the phone page shows of a live match."""
    game, state = match.game, match.state
    return {
        "id": match_id,
        "game": game.info.name,
        "title": game.info.title,
        "match_title": title,
        "players": match.initial.players,
        "names": match.names,
        "seats": match.seats,
        "version": match.version,
        **state_view(match, state),
        "legal_actions": [a.to_str() for a in game.legal_actions(state)][:200],
        # the players may end the match on the phone (Pyramid Dice: the stall rule)
        "can_end": ends_match(game, state),
        "entries": [e.to_dict() for e in match.entries[-50:]],
        "live": [e.seq for e in match.live_entries][-50:],
        "pending": pending_entry(match),
        "last_camera": last_camera_move(match),
    }


def ends_match(game: Any, state: Any) -> bool:
    """Whether the players may end the match now on the phone: a legal 'end' that ends it
    (Pyramid Dice's stall rule; Quarriors' 'end' ends a turn, which the table shows)."""
    return any(a.to_str() == "end" and game.outcome(game.apply(state, a)[0]) is not None
               for a in game.legal_actions(state))


def replay_index(match_id: str, match: Match, evidence: set[int],
                 title: str = "") -> dict[str, Any]:
    """The whole log, for stepping through it: step k is the table after the first k
    entries."""
    return {"id": match_id, "game": match.game.info.name, "title": match.game.info.title,
            "match_title": title, "names": match.names,
            "steps": len(match.entries), "version": match.version,
            "entries": [e.to_dict() | {"evidence": e.seq in evidence} for e in match.entries]}


def replay_step(record: Mapping[str, Any], step: int) -> dict[str, Any]:
    """The table after the first ``step`` entries of ``record``, replayed by the engine."""
    entries: Sequence[Mapping[str, Any]] = record["entries"]
    partial = Match.from_dict({**record, "entries": list(entries[:step]), "final_state": None})
    last = partial.entries[-1].to_dict() if partial.entries else None
    return {"step": step, "steps": len(entries), "entry": last,
            "names": partial.names, **state_view(partial, partial.state)}
