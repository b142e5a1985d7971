"""Progress bars on stderr for simulate, eval and pieces (issue 32, 10): drawn on a terminal,
never with --quiet or when stderr is a pipe, and never on stdout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from device import progress
from tests.device.conftest import Cli
from tests.device.test_cli_vision import write_dataset

SIMULATE = ["simulate", "--game", "icedice", "--matches", "1", "--observer", "noise",
            "--json"]


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress, "_is_terminal", lambda: True)


def test_simulate_counts_its_matches_on_stderr(cli: Cli, terminal: None) -> None:
    code, out, err = cli(*SIMULATE)
    assert code == 0 and json.loads(out)["matches"] == 1  # stdout stays JSON
    assert "simulate" in err and "1/1" in err and "exact=" in err


def test_quiet_and_pipes_get_no_bar(cli: Cli, monkeypatch: pytest.MonkeyPatch,
                                    tmp_path: Path) -> None:
    """(on eval, whose images take a second where simulate's matches take tens: the bar's
    switch is the one progress.bar every command shares)"""
    write_dataset(tmp_path / "d")
    monkeypatch.setattr(progress, "_is_terminal", lambda: True)
    code, _, err = cli("-q", "eval", str(tmp_path / "d"), "--json")
    assert code == 0 and err == ""
    monkeypatch.setattr(progress, "_is_terminal", lambda: False)
    code, _, err = cli("eval", str(tmp_path / "d"), "--json")
    assert code == 0 and err == ""


def test_eval_counts_its_images(cli: Cli, terminal: None, tmp_path: Path) -> None:
    write_dataset(tmp_path / "d")
    code, out, err = cli("eval", str(tmp_path / "d"), "--json")
    assert code == 0 and json.loads(out)["images"] == 2
    assert "eval" in err and "2/2" in err


def test_pieces_counts_its_steps(cli: Cli, terminal: None) -> None:
    code, out, err = cli("pieces", "--quick", "--only", "cards", "--json")
    assert code == 0 and "card_slots" in json.loads(out)
    assert "pieces: card slots" in err and "1/1" in err
