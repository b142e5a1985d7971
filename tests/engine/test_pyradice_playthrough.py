"""A golden Pyradice playthrough: a seeded random match (3 players, the quarry and tokens
drawn from the seed) written out turn by turn with the skills used and the scores, ending
with each player's score pad. Any change to the rules' behaviour shows up as a diff;
regenerate on purpose with

    DICETABLE_REGENERATE=1 python -m pytest tests/engine/test_pyradice_playthrough.py
"""

from __future__ import annotations

import random
from pathlib import Path

from golden import check_golden

from engine import get_game
from engine.match import Match

GAME = get_game("pyradice")
GOLDEN = Path(__file__).parent / "playthroughs" / "pyradice.txt"


def transcript() -> str:
    rng = random.Random(2025)
    match = Match(GAME, 3, seed=2025)
    s = match.state
    lines = [f"# Pyradice, 3 players, options {dict(s.options)}, seed 2025",
             f"# skills (levels 2-6): {' '.join(s.skills)}",
             f"# objectives (levels {s.objective_levels[0]}-{s.objective_levels[-1]}): "
             f"{' '.join(s.objectives)}",
             "# cards: " + " ".join(f"{c}:{colour}" for c, colour in s.cards)]
    while GAME.outcome(match.state) is None:
        who = match.state.current
        action = GAME.random_action(match.state, rng)
        events = match.push(action)
        scores = " ".join(str(sc.total) for sc in GAME.score(match.state))
        lines.append(f"P{who + 1} {action.to_str():<36} scores {scores}")
        lines += [f"    {e.kind}: {e.text}" for e in events if e.kind != "place"]
    for sc in GAME.score(match.state):
        pad = ", ".join(f"{name} {points}" for name, points in sc.breakdown)
        lines.append(f"# P{sc.player + 1} pad: {pad}; Σ {sc.total}")
    outcome = GAME.outcome(match.state)
    assert outcome is not None
    lines.append(f"# winners {[w + 1 for w in outcome.winners]}: {outcome.reason}")
    return "\n".join(lines) + "\n"


def test_golden_playthrough() -> None:
    check_golden(GOLDEN, transcript())
