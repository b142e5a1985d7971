"""Enrolled dice are read: after `dicetable enrol`, `read --profile` gives a skull die the
value its skull stands for, and leaves well-read pip dice alone."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import cv2

from vision.faces.dietypes import get_type
from vision.synth.renderer import CameraPose, DieSpec, Lighting, Scene, render

Cli = Callable[..., tuple[int, str, str]]  # the `cli` fixture (tests/device/conftest.py)

SKULL_D6 = get_type("d6-skull1")  # a d6 whose 1 is a skull


def photo(path: Path, dice: tuple[DieSpec, ...], seed: int, light: float = 45.0) -> str:
    cam = CameraPose(width=480, height=360, fov_deg=55, distance_mm=260, tilt_deg=10)
    shot = render(Scene(dice, cam, Lighting(azimuth_deg=light), seed=seed))
    cv2.imwrite(str(path), shot.image)
    return str(path)


def test_enrolled_skull_reads_as_its_value(tmp_path: Path, cli: Cli) -> None:
    shots = [photo(tmp_path / f"shot{k}.png",
                   (DieSpec(0.0, 0.0, 1, yaw_deg=37.0 * k, die_type=SKULL_D6),), seed=k)
             for k in range(5)]
    profile = tmp_path / "profile.toml"
    code, _, err = cli("enrol", "--die", "skull d6", "--face", "1", "--base", "d6",
                       "--profile", str(profile), *shots)
    assert code == 0, err

    # another light, other places; the skull die beside an ordinary die showing 4
    table = photo(tmp_path / "table.png",
                  (DieSpec(-40.0, 10.0, 1, yaw_deg=20.0, die_type=SKULL_D6),
                   DieSpec(35.0, -15.0, 4, yaw_deg=-30.0)), seed=1, light=160.0)
    code, out, err = cli("read", table, "--json")
    before = sorted(json.loads(out)[0]["dice"], key=lambda d: d["center"][0])
    # the pip classifier alone does not know the skull's meaning: it flags a symbol (its value
    # only a guess) or reads the skull's marks as pips (two eyes and a mouth, a 3)
    assert code == 0 and len(before) == 2
    assert before[0]["symbol"] or before[0]["value"] != 1

    code, out, err = cli("read", table, "--json", "--profile", str(profile))
    assert code == 0, err
    skull, four = sorted(json.loads(out)[0]["dice"], key=lambda d: d["center"][0])
    assert skull["value"] == 1 and skull["enrolled"]["die"] == "skull d6"
    assert skull["enrolled"]["probability"] >= 0.6
    assert four["value"] == 4 and "enrolled" not in four


def test_a_profile_with_a_broken_enrolment_is_one_line(tmp_path: Path, cli: Cli) -> None:
    bad = tmp_path / "profile.toml"
    bad.write_text("[enrolment]\ndie = 3\n")
    code, out, err = cli("read", photo(tmp_path / "t.png", (DieSpec(0, 0, 2),), 1),
                         "--profile", str(bad))
    assert code == 2 and "malformed [enrolment]" in err and "Traceback" not in err


def test_a_die_enrolled_by_an_older_version_is_refused_with_the_fix(tmp_path: Path,
                                                                     cli: Cli) -> None:
    old = tmp_path / "profile.toml"
    old.write_text('[enrolment."skull d6"]\nbase = "d6"\n\n[enrolment."skull d6".faces]\n'
                   '"1" = [[0.1, 0.2], [0.3, 0.4]]\n')
    code, out, err = cli("read", photo(tmp_path / "t.png", (DieSpec(0, 0, 2),), 1),
                         "--profile", str(old))
    assert code == 2 and "Traceback" not in err
    assert "'skull d6'" in err and "enrol" in err and len(err.strip().splitlines()) == 1
