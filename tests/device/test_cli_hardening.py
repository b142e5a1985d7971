"""Hostile and clumsy input on the command line (issue 29): image bombs, a damaged profile, a
hand-edited or absurdly nested match record, names the API refuses, a folder for a profile
and mistyped colours are each one line on stderr, never an internal error or a traceback."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.device.test_cli import record_file
from tests.vision.test_imageio import tiff_claiming, vp8l_claiming

Cli = Callable[..., tuple[int, str, str]]  # the `cli` fixture (tests/device/conftest.py)


def one_line(err: str, message: str) -> None:
    assert message in err and err.count("\n") == 1, err
    assert "Traceback" not in err and "internal error" not in err, err


@pytest.fixture
def bombs(tmp_path: Path) -> list[Path]:
    """What a 10 KB WebP of 16383x16383 and a 1.8 MB TIFF of 20000x20000 declare."""
    webp, tiff = tmp_path / "bomb.webp", tmp_path / "bomb.tiff"
    webp.write_bytes(vp8l_claiming(16383, 16383))
    tiff.write_bytes(tiff_claiming(20000, 20000))
    return [webp, tiff]


def test_read_refuses_image_bombs_from_their_header(bombs: list[Path], cli: Cli) -> None:
    for bomb, size in zip(bombs, ("16383x16383", "20000x20000"), strict=True):
        code, _, err = cli("read", str(bomb))
        assert code == 1
        one_line(err, f"image is {size} pixels")
        assert str(bomb) in err


def test_enrol_refuses_image_bombs_and_writes_nothing(bombs: list[Path], tmp_path: Path,
                                                      cli: Cli) -> None:
    profile = tmp_path / "p.toml"
    for bomb in bombs:
        code, _, err = cli("enrol", "--die", "d", "--face", "1", "--profile", str(profile),
                           str(bomb))
        assert code == 2
        one_line(err, "MP limit")
    assert not profile.exists()


@pytest.mark.parametrize("die", ["../../etc/x", 'say "hi"', "two\nlines"])
def test_enrol_refuses_the_names_the_api_refuses(die: str, tmp_path: Path, cli: Cli) -> None:
    code, _, err = cli("enrol", "--die", die, "--face", "1", "--profile",
                       str(tmp_path / "p.toml"), str(tmp_path / "none.jpg"))
    assert code == 2
    assert "use 1-40 letters" in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_enrol_into_a_folder_is_one_line(tmp_path: Path, cli: Cli) -> None:
    photo = tmp_path / "die.png"
    cv2.imwrite(str(photo), np.full((64, 64, 3), 128, np.uint8))
    code, _, err = cli("enrol", "--die", "d", "--face", "1", "--profile", str(tmp_path),
                       str(photo))
    assert code == 2
    one_line(err, "is a folder")


def test_read_with_a_singular_homography_is_one_line(tmp_path: Path, cli: Cli) -> None:
    from calibration.profile import save
    from tests.calibration.test_profile import _profile
    from vision.synth.renderer import CameraPose, DieSpec, Scene, render

    p = _profile()
    flat = dataclasses.replace(p.geometry, homography=np.array(
        [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 0.0, 1.0]]))
    profile = tmp_path / "p.toml"
    save(dataclasses.replace(p, geometry=flat), profile)
    cam = CameraPose(width=480, height=360, fov_deg=55, distance_mm=260, tilt_deg=10)
    photo = tmp_path / "dice.png"
    cv2.imwrite(str(photo), render(Scene((DieSpec(0.0, 0.0, 3),), cam, seed=1)).image)
    code, _, err = cli("read", str(photo), "--profile", str(profile))
    assert code == 2
    one_line(err, "homography is singular")


def test_replay_of_a_deeply_nested_file_is_one_line(tmp_path: Path, cli: Cli) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 200_000 + "]" * 200_000, encoding="utf-8")
    code, _, err = cli("replay", str(path))
    assert code == 2
    one_line(err, "nested too deeply")


@pytest.mark.parametrize(("edit", "message"), [
    (lambda r: r.update(players=1_000_000_000), "header says 1000000000 players"),
    (lambda r: r["entries"][2].update(seq=1e30), "entry 2 is numbered 1e+30"),
])
def test_replay_refuses_a_hand_edited_header(tmp_path: Path, cli: Cli,
                                             edit: Callable[[dict], None],
                                             message: str) -> None:
    path = record_file(tmp_path)
    record = json.loads(path.read_text(encoding="utf-8"))
    edit(record)
    path.write_text(json.dumps(record), encoding="utf-8")
    code, out, err = cli("replay", str(path))
    assert code == 2 and out == ""
    one_line(err, message)


@pytest.mark.parametrize(("colours", "message"), [
    ("zz,,", "an empty name"), ("red,zz", "unknown colour 'zz'"), ("", "an empty name")])
def test_calibrate_refuses_mistyped_colours_before_reading(tmp_path: Path, cli: Cli,
                                                          colours: str, message: str) -> None:
    code, _, err = cli("calibrate", "--image", str(tmp_path / "none.jpg"), "--game",
                       "icedice", "--colours", colours, "--out", str(tmp_path / "p.toml"))
    assert code == 2
    one_line(err, message)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", ["export", "mat"])
def test_files_the_cli_writes_are_replaced_whole(tmp_path: Path, cli: Cli,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 command: str) -> None:
    """A write that fails half-way (here: the disk is full at the fsync) leaves the old file
    as it was, and one line; a plain truncate-then-write left it short."""
    import os

    from engine import Match, get_game

    out = tmp_path / ("out.jsonl" if command == "export" else "mat.png")
    out.write_bytes(b"the old file")
    record = tmp_path / "rec.json"
    record.write_text(Match(get_game("icedice"), 2).to_json(), encoding="utf-8")
    args = ["export", str(record)] if command == "export" else ["mat", "--game", "icedice"]

    def full(_: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    code, _, err = cli(*args, "--out", str(out))
    assert code == 2
    one_line(err, "No space left on device")
    assert out.read_bytes() == b"the old file"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([out.name, record.name])
