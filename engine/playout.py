"""Seeded random playouts: the invariant check every game must pass (OpenSpiel style).

At every step: a live match has a legal action, a legal action never raises, the state
round-trips through JSON, and the candidates reconcile weighs agree with ``is_legal``. At the
end the match record replays to the identical state.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass, field
from typing import Any

from engine.core import Game
from engine.match import Match


class PlayoutError(AssertionError):
    """An invariant broke; the message says which, with the seed to reproduce it."""


@dataclass
class PlayoutStats:
    game: str
    matches: int = 0
    finished: int = 0
    actions: int = 0
    seconds: float = 0.0
    wins: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game, "matches": self.matches, "finished": self.finished,
                "actions": self.actions, "seconds": round(self.seconds, 3),
                "ms_per_match": round(1000 * self.seconds / max(self.matches, 1), 3),
                "wins": dict(sorted(self.wins.items()))}


def playout(game: Game[Any, Any], players: int, seed: int, *, max_actions: int = 20_000,
            check_candidates: bool = False, options: dict[str, object] | None = None) -> Match:
    """Play one random match to its end, checking the invariants on the way."""
    rng = random.Random(seed)
    match = Match(game, players, options, seed=seed)
    where = f"{game.info.name} players={players} seed={seed}"
    for step in range(max_actions):
        state = match.state
        legal = game.legal_actions(state)
        if game.outcome(state) is not None:
            if legal:
                raise PlayoutError(f"{where}: legal actions after the end")
            break
        if not legal:
            raise PlayoutError(f"{where} step {step}: no legal action in a live match")
        if check_candidates:
            for cand in game.candidates(state):
                if cand.legal != game.is_legal(state, cand.action):
                    raise PlayoutError(f"{where}: candidate {cand.action.to_str()} mislabeled")
        action = game.random_action(state, rng)
        text = action.to_str()
        if game.parse_action(text) != action:
            raise PlayoutError(f"{where}: {text!r} does not parse back to the same action")
        try:
            match.push(action, source="sim")
        except Exception as exc:  # a legal action must never raise
            raise PlayoutError(f"{where} step {step}: {text!r} raised {exc!r}") from exc
        data = json.loads(json.dumps(match.state.to_dict()))
        if game.state_from_dict(data) != match.state:
            raise PlayoutError(f"{where} step {step}: state does not round-trip via JSON")
    else:
        raise PlayoutError(f"{where}: not over after {max_actions} actions")
    replayed = Match.from_json(match.to_json())
    if replayed.state != match.state:
        raise PlayoutError(f"{where}: the record does not replay to the same state")
    return match


def run_playouts(game: Game[Any, Any], matches: int, seed: int = 0, *,
                 players: int | None = None, check_candidates: bool = False) -> PlayoutStats:
    """``matches`` seeded playouts, player counts cycling over the game's range."""
    stats = PlayoutStats(game.info.name)
    top = min(game.info.max_players or 5, 5)  # no limit (IceDice): up to 5 as the others
    counts = [players] if players else list(range(game.info.min_players, top + 1))
    start = time.perf_counter()
    for i in range(matches):
        match = playout(game, counts[i % len(counts)], seed + i,
                        check_candidates=check_candidates and i % 10 == 0)
        stats.matches += 1
        stats.actions += len(match.actions)
        outcome = game.outcome(match.state)
        if outcome is not None:
            stats.finished += 1
            key = ",".join(f"P{w + 1}" for w in outcome.winners)
            stats.wins[key] = stats.wins.get(key, 0) + 1
    stats.seconds = time.perf_counter() - start
    return stats
