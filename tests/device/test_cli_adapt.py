"""`dicetable adapt DIR --out FILE`, and `read` / `eval` with `--adapt FILE`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from device.cli import main
from tests.device.test_cli_vision import run_json, write_dataset


def test_adapt_then_read_and_eval_with_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                          ) -> None:
    write_dataset(tmp_path / "set")
    out = tmp_path / "table.json"
    assert main(["adapt", str(tmp_path / "set"), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "learnt from 2 photos: 6 dice" in text and f"wrote {out}" in text
    data = json.loads(out.read_text())
    assert data["photos"] == 2 and data["residual"] is not None
    status, metrics, _ = run_json(capsys, "eval", str(tmp_path / "set"), "--adapt", str(out),
                                  "--json")
    assert status == 0 and metrics["read_accuracy"] == 1.0
    image = next((tmp_path / "set" / "images").iterdir())
    status, result, _ = run_json(capsys, "read", str(image), "--adapt", str(out), "--json")
    assert status == 0 and len(result[0]["dice"]) == 3
    status, summary, _ = run_json(capsys, "adapt", str(tmp_path / "set"), "--out", str(out),
                                  "--any-size", "--json")
    assert status == 0 and summary["die_side"] is None and summary["dice"] == 6


@pytest.mark.parametrize("content, message", [
    ("{", "not an adaptation"),
    ('{"format": 1, "classifier_sha256": "ab", "die_side": null, "residual": null}',
     "another classifier"),
])
def test_a_bad_adaptation_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           content: str, message: str) -> None:
    write_dataset(tmp_path / "set")
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    image = next((tmp_path / "set" / "images").iterdir())
    for argv in (["read", str(image), "--adapt", str(bad)],
                 ["eval", str(tmp_path / "set"), "--adapt", str(bad)]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err


def test_adapt_refuses_what_it_cannot_learn_from(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["adapt", str(tmp_path / "nothing"), "--out", str(tmp_path / "a.json")]) == 2
    assert "images/ and labels/" in capsys.readouterr().err
    write_dataset(tmp_path / "set")
    assert main(["adapt", str(tmp_path / "set"), "--out", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err
    for label in (tmp_path / "set" / "labels").iterdir():
        label.write_text("")
    assert main(["adapt", str(tmp_path / "set"), "--out", str(tmp_path / "a.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no labelled dice" in err


def test_adapt_into_a_profile_read_by_read_profile(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    write_dataset(tmp_path / "set")
    profile = tmp_path / "table.toml"
    assert main(["adapt", str(tmp_path / "set"), "--profile", str(profile)]) == 0
    assert f"wrote {profile}" in capsys.readouterr().out
    assert "[adaptation]" in profile.read_text()
    assert main(["adapt", str(tmp_path / "set")]) == 2
    assert "--out FILE, --profile PROFILE" in capsys.readouterr().err


def test_adapting_to_one_photo_warns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_dataset(tmp_path / "set")
    images = sorted((tmp_path / "set" / "images").iterdir())
    for extra in images[1:]:
        extra.unlink()
        (tmp_path / "set" / "labels" / f"{extra.stem}.txt").unlink()
    assert main(["adapt", str(tmp_path / "set"), "--out", str(tmp_path / "a.json")]) == 0
    captured = capsys.readouterr()
    assert "learnt from 1 photos" in captured.out
    assert "one photo is little to learn a table from" in captured.err
    write_dataset(tmp_path / "two")
    assert main(["adapt", str(tmp_path / "two"), "--out", str(tmp_path / "b.json")]) == 0
    assert "warning" not in capsys.readouterr().err
