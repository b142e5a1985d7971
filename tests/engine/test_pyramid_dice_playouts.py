"""Seeded random Pyramid Dice playouts (engine.playout): legal actions never raise, every
reached state round-trips through JSON, the match record replays to the identical state, and
every game ends. 200 matches here; the closing target (1000 per player count) runs with

    DICETABLE_PLAYOUTS=1000 python -m pytest -m slow tests/engine/test_pyramid_dice_playouts.py -s

or ``python -m device playout --game pyramid_dice --players N --matches 1000``.
"""

from __future__ import annotations

import os
import random
from typing import Any

import pytest

from engine import get_game
from engine.games.pyramid_dice.cards import EXAMPLE_PROVENANCE
from engine.match import Match
from engine.playout import playout, run_playouts

GAME = get_game("pyramid_dice")

CONFIGS: list[dict[str, object]] = [
    {},
    {"snatch": True},
    {"hard_mode": True, "ra_rerolls": 0},
    {"end_when": "pyramid_empty", "may_give_up": False},
    {"whole_steps": True, "negative_steps": False, "plus_turns_die": False},
    {"snatch": True, "snatch_god_cards": False, "ra_counts_toward_limit": True},
    {"stall_rounds": 1},
    {"stall_rounds": 0, "end_when": "pyramid_empty"},
]


@pytest.mark.parametrize("config", range(len(CONFIGS)))
def test_playouts_per_option_set(config: int) -> None:
    """25 matches per option set, player counts 1–5 in turn (200 in all)."""
    ended: dict[str, int] = {}
    for i in range(25):
        players = 1 + i % 5
        match = playout(GAME, players, seed=1000 * config + i, options=CONFIGS[config],
                        check_candidates=i % 8 == 0)
        outcome = GAME.outcome(match.state)
        assert outcome is not None and outcome.winners
        ended[str(match.state.ended)] = ended.get(str(match.state.ended), 0) + 1
        if players == 1:
            assert "explorer" in outcome.reason
    assert sum(ended.values()) == 25


def _custom_setup(rng: random.Random) -> dict[str, Any]:
    """A player-entered set: 10 treasure + 5 god cards on a 5-row layout of 15."""
    cards: list[dict[str, Any]] = []
    for i in range(15):
        god = i >= 10
        card: dict[str, Any] = {"id": f"c{i}", "kind": "god" if god else "treasure",
                                "number": rng.randint(1, 30), "points": 0 if god else i % 4,
                                "back": 2 if i < 6 else 1}
        if god:
            card["ability"] = ["reroll", "flip", "+1", "+2", "set6"][i - 10]
        cards.append(card)
    slots = [{"slot": f"r{r}c{c}", "covered_by": [f"r{r + 1}c{c}", f"r{r + 1}c{c + 1}"]
              if r < 5 else []} for r in range(1, 6) for c in range(1, r + 1)]
    return {"cards": {"provenance": EXAMPLE_PROVENANCE, "cards": cards},
            "card_counts": {"treasure": 10, "god": 5}, "layout": {"slots": slots},
            "first_player": 1}


def test_playouts_with_a_player_entered_card_set() -> None:
    rng = random.Random(7)
    for seed in range(10):
        setup = _custom_setup(rng)
        match = Match(GAME, 3, {"snatch": True}, setup=setup, seed=seed)
        for _ in range(5000):
            if GAME.outcome(match.state) is not None:
                break
            match.push(GAME.random_action(match.state, rng))
        assert GAME.outcome(match.state) is not None
        assert Match.from_json(match.to_json()).state == match.state


N = int(os.environ.get("DICETABLE_PLAYOUTS", "0"))


@pytest.mark.slow
@pytest.mark.skipif(N == 0, reason="set DICETABLE_PLAYOUTS=1000 for the closing target")
@pytest.mark.parametrize("players", range(1, 6))
def test_closing_target_playouts(players: int) -> None:
    stats = run_playouts(GAME, N, seed=100_000 * players, players=players)
    print(f"pyramid_dice players={players}: {stats.matches} matches, {stats.finished} "
          f"finished, {stats.actions} actions in {stats.seconds:.1f} s")
    assert stats.finished == N
