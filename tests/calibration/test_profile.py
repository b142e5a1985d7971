"""The TOML profile: our writer's output reads back with tomllib, a profile round-trips, and
broken files are clear errors."""

from __future__ import annotations

import tomllib

import numpy as np
import pytest

from calibration.geometry.homography import Geometry
from calibration.layouts import load_layout
from calibration.palette import build_palette
from calibration.profile import Profile, ProfileError, load, save
from calibration.tomlwriter import dumps


def test_writer_output_is_toml() -> None:
    data = {"a": 1, "b": -2.5e-7, "c": "quote \" and \\ and é\n", "d": [1, 2.0, [3, 4]],
            "e": True, "none": None, "t": {"x": [[1.0, 2.0], [3.0, 4.0]], "k y": "v"},
            "arr": [{"name": "red", "v": [0.1]}, {"name": "blue", "v": []}]}
    back = tomllib.loads(dumps(data))
    want = dict(data)
    del want["none"]
    assert back == want
    with pytest.raises(TypeError):
        dumps({"x": float("nan")})
    with pytest.raises(TypeError):
        dumps({"x": object()})


def _profile() -> Profile:
    layout = load_layout("pyramid_dice", 3)
    h = np.array([[1.5, 0.1, 100.0], [-0.05, 1.4, 80.0], [1e-5, -2e-5, 1.0]])
    g = Geometry(h, (1280, 960), 1100.5, (330.0, 240.0, 800.0), 0.41, 0.27, 18, 17, 20, -0.08)
    palette = build_palette({"red": [np.array([[40, 35, 200], [45, 30, 190]], np.float32)],
                             "white": [np.array([[230, 230, 228]] * 3, np.float32)]})
    return Profile(layout, g, palette, (231.0, 240.5, 250.0), source="photo.jpg")


def test_profile_round_trip(tmp_path) -> None:
    p = _profile()
    path = tmp_path / "table.toml"
    save(p, path)
    assert path.read_text(encoding="utf-8").startswith("# dicetable calibration profile")
    q = load(path)
    assert q.layout == p.layout and q.palette == p.palette and q.white_bgr == p.white_bgr
    assert q.source == p.source and q.created == p.created
    assert np.allclose(q.geometry.homography, p.geometry.homography, rtol=0, atol=0)
    for f in ("image_size", "focal_px", "camera_mm", "error_px", "error_mm", "markers_seen", "k1",
              "markers_used", "markers_total"):
        assert getattr(q.geometry, f) == getattr(p.geometry, f), f


def test_profile_for_another_frame_size() -> None:
    p = _profile()
    half = p.for_image(640, 480)
    pt = np.array([[200.0, 150.0]])
    assert np.allclose(half.geometry.to_px(pt), p.geometry.to_px(pt) / 2)
    assert half.geometry.focal_px == p.geometry.focal_px / 2
    assert p.for_image(1280, 960) is p
    with pytest.raises(ProfileError, match="another shape"):
        p.for_image(1920, 1080)


def test_broken_profiles_are_clear_errors(tmp_path) -> None:
    with pytest.raises(ProfileError, match="no profile at .*run `dicetable calibrate`"):
        load(tmp_path / "none.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("format = [", encoding="utf-8")
    with pytest.raises(ProfileError, match="not valid TOML"):
        load(bad)
    bad.write_text('format = "something-else"\n', encoding="utf-8")
    with pytest.raises(ProfileError, match="not a dicetable profile"):
        load(bad)
    save(_profile(), bad)
    text = bad.read_text(encoding="utf-8").replace("focal_px", "focal")
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(ProfileError, match="missing or malformed field"):
        load(bad)
