"""Options, the registry and the action/state contract shared by every game."""

from __future__ import annotations

import pytest

from engine import InvalidOptionError, UnknownGameError, all_games, get_game
from engine.core import Option


def test_option_validation() -> None:
    opt = Option("rounds", 2, "doc", "rule text", minimum=0)
    assert opt.validate(0) == 0
    for bad, message in [(-1, "at least 0"), (True, "whole number"), ("2", "whole number")]:
        with pytest.raises(InvalidOptionError, match=message):
            opt.validate(bad)
    word = Option("mode", "a", "doc", "INFERRED", choices=("a", "b"))
    with pytest.raises(InvalidOptionError, match="one of a, b"):
        word.validate("c")


def test_negative_stall_rounds_refused() -> None:
    with pytest.raises(InvalidOptionError, match="at least 0"):
        get_game("pyramid_dice").new_state(2, {"stall_rounds": -1})


def test_options_must_be_a_mapping() -> None:
    with pytest.raises(InvalidOptionError, match="mapping"):
        get_game("icedice").info.resolve_options(["trios"])  # type: ignore[arg-type]


def test_registry_names_and_aliases() -> None:
    assert get_game("Ice Dice") is get_game("icedice")
    assert get_game("pyramid-dice") is get_game("pyramid_dice")
    with pytest.raises(UnknownGameError, match="known: icedice"):
        get_game("yahtzee")


@pytest.mark.parametrize("game", [g.info.name for g in all_games()])
def test_every_game_documents_its_rules_and_options(game: str) -> None:
    g = get_game(game)
    assert g.rules and all(rid.startswith(f"{g.info.name}.") or rid.startswith("core.")
                           for rid in g.rules)
    assert all(r.text and r.source for r in g.rules.values())
    for opt in g.info.options:
        assert opt.doc and opt.provenance
        opt.validate(opt.default)  # every default is itself valid
