"""The engine's Quarriors data (engine/games/quarriors/data/base.json) is the shared card and
dice file restated by make_data.py: it must say the same as the shared file where it is here
(skipped with the reason when ../shared is absent), and hold the base set's counts."""

from __future__ import annotations

import json

import pytest

from engine.games.quarriors.cards import CARDS
from engine.games.quarriors.dice import DICE, data
from engine.games.quarriors.make_data import DEFAULT_SOURCE, convert


def test_the_shipped_file_is_the_shared_one_restated() -> None:
    if not DEFAULT_SOURCE.is_file():
        pytest.skip(f"{DEFAULT_SOURCE} is absent (../shared): cannot compare the shipped "
                    "Quarriors data with its source")
    assert convert(json.loads(DEFAULT_SOURCE.read_text(encoding="utf-8"))) == data()


def test_base_set_counts_and_provenance() -> None:
    """VERIFIED: "130 dice and 53 cards (3 basic, 20 spells = 5 classes x 4, 30 creatures =
    10 classes x 3)"."""
    kinds = [c.category for c in CARDS.values()]
    assert (kinds.count("basic"), kinds.count("spell"), kinds.count("creature")) == (3, 20, 30)
    assert len(DICE) == 18 and all(len(d.faces) == 6 for d in DICE.values())
    assert all(c.provenance for c in CARDS.values()) and all(d.provenance for d in DICE.values())
    assert CARDS["Strong Quake Dragon"].provenance.startswith("CONFLICT")
