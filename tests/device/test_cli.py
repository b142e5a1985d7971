"""The command line: every command documented and with --help, JSON outputs, and bad input
giving one clear line with exit status 2, never a traceback."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from device.commands import COMMANDS
from engine import Match, get_game

Cli = Callable[..., tuple[int, str, str]]  # the `cli` fixture (tests/device/conftest.py)

ROOT = Path(__file__).resolve().parents[2]


def record_file(tmp_path: Path) -> Path:
    match = Match(get_game("icedice"), 2)
    for text in ("roll red S", "take red S", "stop", "roll blue M"):
        match.push_text(text)
    path = tmp_path / "match.json"
    path.write_text(match.to_json(), encoding="utf-8")
    return path


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command: str, cli: Cli) -> None:
    code, out, _ = cli(command, "--help")
    assert code == 0 and "usage: dicetable " + command in out


def test_every_command_is_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert [c for c in COMMANDS if f"`dicetable {c}" not in readme] == []


def test_ci_runs_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)\n```", readme, re.S)
    test_command = next(b for b in blocks if "pytest" in b)
    assert test_command in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_games_json(cli: Cli) -> None:
    code, out, _ = cli("games", "--json")
    listing = {g["name"]: g for g in json.loads(out)}
    assert code == 0 and "icedice" in listing
    opts = {o["name"]: o for o in listing["icedice"]["options"]}
    assert opts["unobtainable_roll"]["provenance"] == "UNKNOWN"
    assert opts["unobtainable_roll"]["default"] == "roll_again"


def test_replay_valid_record(tmp_path: Path, cli: Cli) -> None:
    code, out, _ = cli("replay", str(record_file(tmp_path)), "--json")
    summary = json.loads(out)
    assert code == 0 and summary["valid"] and summary["actions"] == 4
    assert summary["outcome"] is None


@pytest.mark.parametrize("content, message", [
    (None, "no such file"),
    ("", "not JSON"),
    ("{oops", "not JSON"),
    ("[1, 2]", "not a dicetable match record"),
    ('{"format": "dicetable-match/1", "game": "chess"}', "unknown game"),
])
def test_replay_bad_logs(tmp_path: Path, cli: Cli,
                         content: str | None, message: str) -> None:
    path = tmp_path / "log.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    code, out, err = cli("replay", str(path))
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_replay_tampered_record(tmp_path: Path, cli: Cli) -> None:
    path = record_file(tmp_path)
    record = json.loads(path.read_text(encoding="utf-8"))
    record["entries"][1]["text"] = "take blue L"
    path.write_text(json.dumps(record), encoding="utf-8")
    code, _, err = cli("replay", str(path))
    assert code == 2 and "entry 1" in err and "icedice.take_rolled" in err


def test_unknown_game(cli: Cli) -> None:
    code, _, err = cli("playout", "--game", "chess", "--matches", "1")
    assert code == 2 and "unknown game 'chess'" in err and err.count("\n") == 1


def test_bad_numbers(cli: Cli) -> None:
    code, _, err = cli("playout", "--matches", "many")
    assert code == 2 and "invalid int value" in err
    code, _, err = cli("playout", "--matches", "0")
    assert code == 2 and "at least 1" in err


def test_icedice_has_no_player_limit_but_its_mats_stop_at_6(cli: Cli) -> None:
    """icedice.number_of_players: 'Number of Players: 2 (although more can play if you have
    extra pyramids)'. The rules play any number (there was a cap at 6); the printed mats,
    and with them the rendered camera, go to 6 players, and say so beyond."""
    code, out, _ = cli("games", "--json")
    listing = {g["name"]: g for g in json.loads(out)}
    assert listing["icedice"]["players"] == [2, None]
    assert listing["pyramid_dice"]["players"] == [1, 5]
    code, out, _ = cli("games")
    assert "IceDice (2 or more players" in out
    code, out, _ = cli("playout", "--game", "icedice", "--players", "9", "--matches", "1",
                       "--json")
    assert code == 0 and json.loads(out)[0]["finished"] == 1
    for command in (("simulate", "--game", "icedice", "--matches", "1"),
                    ("demo", "--game", "icedice", "--observer", "real", "--terminal")):
        code, _, err = cli(*command, "--players", "7")
        assert code == 2 and err.count("\n") == 1
        assert "no icedice mat for 7 players (mats exist for 2, 3, 4, 5, 6)" in err
        assert "--observer noise" in err
    code, _, err = cli("simulate", "--game", "pyradice", "--players", "5")
    assert code == 2 and "pyradice is for 2-4 players, not 5" in err


def test_playout_json(cli: Cli) -> None:
    code, out, _ = cli("playout", "--game", "icedice", "--matches", "5", "--json")
    (result,) = json.loads(out)
    assert code == 0 and result["matches"] == result["finished"] == 5


def test_demo_follows_the_simulated_match(tmp_path: Path,
                                          cli: Cli) -> None:
    record = tmp_path / "demo.json"
    code, out, _ = cli("demo", "--terminal", "--seed", "5", "--json", "--record",
                       str(record))
    summary = json.loads(out)
    assert code == 0 and summary["state_exact"] and summary["outcome"] is not None
    assert summary["accepted"] >= 0.8 * summary["moves"]
    code, out, _ = cli("replay", str(record), "--json")
    assert code == 0 and json.loads(out)["outcome"] == summary["outcome"]


def test_python_dash_m_device_runs_the_same_cli() -> None:
    result = subprocess.run([sys.executable, "-m", "device", "games"], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and "icedice" in result.stdout


def test_no_command_prints_help(cli: Cli) -> None:
    code, _, err = cli()
    assert code == 2 and "usage:" in err
