"""`dicetable games` says what an option's provenance means for the players (issue 32, 12):
a bare UNKNOWN beside a setting told them nothing."""

from __future__ import annotations

from typing import Any

from device.cli import main
from device.commands.games import provenance_words


def test_options_say_their_provenance_in_words(capsys: Any) -> None:
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    assert "[UNKNOWN]" not in out
    assert "unobtainable_roll=roll_again" in out
    line = next(x for x in out.splitlines() if "unobtainable_roll=" in x)
    assert "not in the rules: a guess, set it as your table plays" in line
    assert "A roll whose piece can be had neither" in out  # what the option is about
    assert provenance_words("INFERRED") == "[inferred from the rules, not stated]"
    assert provenance_words("rule text (optional rule)") == "[rule text (optional rule)]"
