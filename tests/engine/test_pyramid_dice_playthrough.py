"""A golden Pyramid Dice playthrough: a seeded random match (3 players, snatch on) written
out action by action with its events and scores. Any change to the rules' behaviour shows up
as a diff; regenerate on purpose with

    DICETABLE_REGENERATE=1 python -m pytest tests/engine/test_pyramid_dice_playthrough.py
"""

from __future__ import annotations

import random
from pathlib import Path

from golden import check_golden

from engine import get_game
from engine.match import Match

GAME = get_game("pyramid_dice")
GOLDEN = Path(__file__).parent / "playthroughs" / "pyramid_dice.txt"


def transcript() -> str:
    rng = random.Random(2023)
    match = Match(GAME, 3, {"snatch": True}, seed=2023)
    lines = [f"# Pyramid Dice, 3 players, options {dict(match.state.options)}, seed 2023",
             "# pyramid (slot card): " + " ".join(f"{s}:{c}" for s, c in match.state.pyramid)]
    while GAME.outcome(match.state) is None:
        who = match.state.current
        action = GAME.random_action(match.state, rng)
        events = match.push(action)
        scores = " ".join(str(s.total) for s in GAME.score(match.state))
        lines.append(f"P{who + 1} {action.to_str():<24} scores {scores}")
        lines += [f"    {e.kind}: {e.text}" for e in events]
    outcome = GAME.outcome(match.state)
    assert outcome is not None
    lines.append(f"# winners {[w + 1 for w in outcome.winners]}: {outcome.reason}")
    return "\n".join(lines) + "\n"


def test_golden_playthrough() -> None:
    check_golden(GOLDEN, transcript())
