"""`dicetable mat` and `dicetable calibrate`: files written, JSON outputs, and every user
mistake one clear line with exit status 2."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.layouts import load_layout
from calibration.profile import load
from calibration.render.synthetic import MatRenderer, Placed

Cli = Callable[..., tuple[int, str, str]]  # the `cli` fixture (tests/device/conftest.py)


def one_error_line(err: str, text: str) -> None:
    lines = [ln for ln in err.splitlines() if ln.startswith("dicetable")]
    assert len(lines) == 1 and text in lines[0], err
    assert "Traceback" not in err


def test_mat_pdf_and_png(tmp_path: Path, cli: Cli) -> None:
    code, out, _ = cli("mat", "--game", "icedice", "--out", str(tmp_path / "m.pdf"))
    assert code == 0 and "A4 sheets" in out and "100 %" in out
    assert (tmp_path / "m.pdf").read_bytes().startswith(b"%PDF-")
    code, out, _ = cli("mat", "--game", "Pyramid-Dice", "--players", "4", "--paper",
                       "a3", "--out", str(tmp_path / "m.png"), "--dpi", "60", "--json")
    info = json.loads(out)
    assert code == 0 and info["mat"] == "pyramid_dice-4" and info["format"] == "png"
    img = cv2.imread(str(tmp_path / "m.png"))
    w, h = load_layout("pyramid_dice", 4).size_mm
    assert img.shape[:2] == (round(h * 60 / 25.4), round(w * 60 / 25.4))
    assert "area:3" in info["zones"] and info["markers"]["count"] == 20


@pytest.mark.parametrize("args,message", [
    (["--game", "chess"], "unknown game 'chess'"),
    (["--game", "icedice", "--paper", "B5"], "unknown paper 'B5'"),
    (["--game", "icedice", "--players", "9"], "no icedice mat for 9 players"),
    (["--game", "icedice", "--players", "0"], "--players must be at least 1"),
])
def test_mat_errors(tmp_path: Path, cli: Cli, args: list[str],
                    message: str) -> None:
    code, _, err = cli("mat", *args, "--out", str(tmp_path / "m.pdf"))
    assert code == 2
    one_error_line(err, message)
    assert not (tmp_path / "m.pdf").exists()


def test_mat_unwritable_or_unknown_output(tmp_path: Path,
                                          cli: Cli) -> None:
    code, _, err = cli("mat", "--game", "icedice", "--out",
                       str(tmp_path / "no" / "such" / "m.pdf"))
    assert code == 2
    one_error_line(err, "cannot write")
    code, _, err = cli("mat", "--game", "icedice", "--out", str(tmp_path / "m.svg"))
    assert code == 2
    one_error_line(err, "--out must end in .pdf or .png")


@pytest.fixture(scope="module")
def photo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    mr = MatRenderer(load_layout("icedice"))
    rng = np.random.default_rng(4)
    dice = tuple(Placed(120 + 50 * (i % 3), 150 + 50 * (i // 3), 3, c)
                 for i, c in enumerate(("red", "blue", "yellow")))
    shot = mr.photo(mr.random_pose(rng, fov_deg=62.0), dice, seed=1, noise=2)
    path = tmp_path_factory.mktemp("photos") / "table.jpg"
    cv2.imwrite(str(path), shot.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return path


def test_calibrate_from_an_image(tmp_path: Path, photo: Path,
                                 cli: Cli) -> None:
    out_file = tmp_path / "table.toml"
    code, out, _ = cli("calibrate", "--image", str(photo), "--game", "icedice",
                       "--colours", "red,blue,yellow", "--out", str(out_file), "--json")
    info = json.loads(out)
    assert code == 0 and info["mat"] == "icedice-2"
    assert info["markers_used"] == info["markers_total"] == 14
    assert info["reprojection_error_px"] < 1.5
    assert info["palette"] == {"red": 1, "blue": 1, "yellow": 1}
    profile = load(out_file)
    assert profile.layout.key == "icedice-2" and profile.source == str(photo)
    code, out, _ = cli("calibrate", "--image", str(photo), "--game", "icedice",
                       "--out", str(tmp_path / "b.toml"))
    assert code == 0 and out.startswith(f"wrote {tmp_path / 'b.toml'}: IceDice")


def test_calibrate_errors(tmp_path: Path, photo: Path,
                          cli: Cli) -> None:
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((480, 640, 3), 200, np.uint8))
    out = str(tmp_path / "p.toml")
    cases = [
        (["--image", str(blank), "--game", "icedice"], "0 of 14 markers seen: is the whole "
                                                       "mat in view?"),
        (["--image", str(photo), "--game", "quarriors"], "belong to the icedice-2 mat"),
        (["--image", str(tmp_path / "none.jpg"), "--game", "icedice"], "none.jpg"),
        (["--image", str(photo)], "--game is required"),
        (["--image", str(photo), "--game", "chess"], "unknown game"),
        (["--image", str(photo), "--game", "icedice", "--colours", "red,purple"],
         "looks like none of red, purple"),
        (["--camera", "laser", "--game", "icedice"], "unknown camera"),
        (["--camera", "usb:97", "--game", "icedice"], "cannot open usb:97"),
    ]
    for args, message in cases:
        code, _, err = cli("calibrate", *args, "--out", out)
        assert code == 2, (args, err)
        one_error_line(err, message)
    assert not Path(out).exists()
    code, _, err = cli("calibrate", "--image", str(photo), "--game", "icedice",
                       "--out", str(tmp_path / "no" / "p.toml"))
    assert code == 2
    one_error_line(err, "cannot write")


def test_calibrate_selftest_json(cli: Cli) -> None:
    code, out, _ = cli("calibrate", "--selftest", "--game", "pyradice", "--poses", "2",
                       "--json")
    result = json.loads(out)
    assert code == 0 and result["photos"] == 2 and result["dice"] > 0
    assert result["position_error_mm"]["p95"] <= 2.0
    assert result["zone_accuracy"] == 1.0 and result["slot_accuracy"] == 1.0
    assert 0 <= result["palette_accuracy"] <= 1
    assert [g["game"] for g in result["games"]] == ["pyradice"]


def test_calibrate_selftest_with_the_dice_reader(cli: Cli) -> None:
    from vision.dice.reader import DiceReader
    from vision.onnx_models import ModelNotFoundError

    try:
        DiceReader()
    except ModelNotFoundError as exc:
        pytest.skip(f"the dice reader's models are not here: {exc}")
    code, out, _ = cli("calibrate", "--selftest", "--reader", "--game", "icedice",
                       "--poses", "2", "--json")
    result = json.loads(out)
    assert code == 0 and result["detections"] == "reader"
    assert result["found"] > 0.5 and result["extra_objects"] <= 2  # markers are not dice
    assert result["zone_accuracy"] >= 0.9


def test_calibrate_grabs_from_the_pi_camera() -> None:
    """The calibration photo comes through the same frame sources as the live loop."""
    from test_camera import fake_module  # the picamera2 stand-in (same folder)

    from device.commands.calibrate import grab_frame

    image = grab_frame("picamera", picamera_module=fake_module())
    assert image.shape == (1080, 1920, 3)


def test_read_with_a_profile_adds_zones_and_mm(tmp_path: Path, photo: Path,
                                               cli: Cli) -> None:
    """`dicetable read IMAGE --profile PROFILE --json`: zone, slot and mm position per die;
    the mat's markers are never reported as dice."""
    profile = tmp_path / "table.toml"
    code, _, _ = cli("calibrate", "--image", str(photo), "--game", "icedice",
                     "--colours", "red,blue,yellow", "--out", str(profile))
    assert code == 0
    code, out, _ = cli("read", str(photo), "--profile", str(profile), "--json")
    (result,) = json.loads(out)
    assert code == 0 and result["error"] is None
    found = [d for d in result["dice"] if d["zone"] is not None]
    assert len(found) >= 2  # the three dice lie in the rolling area at known places
    for d in found:
        assert {"zone", "slot", "position_mm", "colour"} <= set(d)
        assert d["marker"] is None and len(d["position_mm"]) == 2
    code, _, err = cli("read", str(photo), "--profile", str(tmp_path / "none.toml"))
    assert code == 2
    one_error_line(err, "no profile at")
