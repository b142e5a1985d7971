"""Match records out: JSON Lines for tools, and BG Stats' play-import file (.bgsplay).

The BG Stats file follows the layout the app itself writes when it shares a play: tables
of players, games, locations and plays joined by ``...RefId`` numbers. UUIDs are derived
from the match id (uuid5), so exporting a match twice gives the same play and BG Stats
does not import it twice. The BoardGameGeek ids of these games are not in any source we
have, so ``bggId`` is 0 (the app then asks to link the game).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

from engine import Match

NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "dicetable/matches")


def jsonl_lines(match: Match, match_id: str) -> Iterator[str]:
    """A header line, then one line per log entry (actions carry the scores after them)."""
    record = match.to_dict()
    header = {k: v for k, v in record.items() if k not in ("entries", "final_state")}
    yield json.dumps({"type": "match", "id": match_id, **header}, ensure_ascii=False)
    replay = Match.from_dict({**record, "entries": [], "final_state": None})
    for entry in match.entries:
        line: dict[str, Any] = {"type": "entry", **entry.to_dict()}
        if entry.kind == "action":
            replay.push_text(entry.text, source=entry.source)
            line["scores"] = [s.total for s in match.game.score(replay.state)]
        elif entry.kind == "undo":
            replay.undo()
            line["scores"] = [s.total for s in match.game.score(replay.state)]
        yield json.dumps(line, ensure_ascii=False)
    outcome = match.game.outcome(match.state)
    yield json.dumps({"type": "result",
                      "scores": [s.to_dict() for s in match.game.score(match.state)],
                      "outcome": outcome.to_dict() if outcome else None})


def bgstats(match: Match, match_id: str, *, played_at: float | None = None,
            duration_min: int = 0, location: str = "dicetable",
            names: list[str] | None = None) -> dict[str, Any]:
    """The match as a BG Stats play file (the players' names as given, else as logged at
    setup or on the phone, else P1, P2...)."""
    game = match.game
    players = match.initial.players
    names = names or match.names
    scores = game.score(match.state)
    outcome = game.outcome(match.state)
    winners = set(outcome.winners) if outcome else set()
    order = sorted(range(players), key=lambda p: -scores[p].total)
    ranks = {p: 1 + sum(1 for q in range(players) if scores[q].total > scores[p].total)
             for p in order}
    first = int(getattr(match.initial, "current", 0))
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(played_at or time.time()))

    def uid(kind: str, key: str) -> str:
        return str(uuid.uuid5(NAMESPACE, f"{kind}:{key}")).upper()

    return {
        "about": "A play recorded by dicetable, for import into BG Stats.",
        "players": [{"id": i + 1, "uuid": uid("player", names[i]), "name": names[i],
                     "isAnonymous": False} for i in range(players)],
        "locations": [{"id": 1, "uuid": uid("location", location), "name": location}],
        "games": [{"id": 1, "uuid": uid("game", game.info.name), "name": game.info.title,
                   "bggId": 0, "highestWins": True, "noPoints": False,
                   "cooperative": False, "usesTeams": False}],
        "plays": [{
            "uuid": uid("play", match_id),
            "gameRefId": 1,
            "locationRefId": 1,
            "playDate": when,
            "durationMin": duration_min,
            "ignored": outcome is None,  # an unfinished match is kept but not counted
            "manualWinner": False,
            "rounds": 0,
            "usesTeams": False,
            "rating": 0,
            "scoringSetting": 0,
            "playImages": "[]",
            "comments": f"dicetable match {match_id}, {len(match.actions)} moves",
            "playerScores": [{
                "playerRefId": p + 1,
                "score": str(scores[p].total),
                "winner": p in winners,
                "rank": ranks[p],
                "seatOrder": p + 1,
                "startPlayer": p == first,
                "newPlayer": False,
            } for p in range(players)],
        }],
    }
