"""Frame sources: the Pi camera against a stand-in of the picamera2 API, files, folders,
videos, the auto fallback chain with its warnings, and cameras that vanish."""

from __future__ import annotations

import types
import warnings
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from device.camera import (
    CameraFallbackWarning,
    CameraUnavailableError,
    ImageFolderSource,
    frames,
    open_source,
)


class FakePicamera2:
    """The parts of picamera2.Picamera2 the source uses, with the same shapes."""

    cameras: list[dict[str, Any]] = [{"Model": "imx708"}]
    fail_after: int | None = None

    def __init__(self) -> None:
        self.config: dict[str, Any] = {}
        self.started = self.closed = False
        self.captures = 0

    @classmethod
    def global_camera_info(cls) -> list[dict[str, Any]]:
        return cls.cameras

    def create_video_configuration(self, main: dict[str, Any], lores: dict[str, Any],
                                   controls: dict[str, Any]) -> dict[str, Any]:
        return {"main": main, "lores": lores, "controls": controls}

    def configure(self, config: dict[str, Any]) -> None:
        self.config = config

    def start(self) -> None:
        self.started = True

    def capture_arrays(self, names: list[str]) -> tuple[list[np.ndarray], dict[str, Any]]:
        if self.fail_after is not None and self.captures >= self.fail_after:
            raise RuntimeError("Camera frontend has timed out!")
        self.captures += 1
        w, h = self.config["main"]["size"]
        lw, lh = self.config["lores"]["size"]
        main = np.zeros((h, w, 4), np.uint8)  # XBGR8888-like padding: 4 channels
        main[:, :, 0] = 200  # blue first, as picamera2's RGB888 lays it out
        yuv = np.full((lh * 3 // 2, lw), 77, np.uint8)
        return [main, yuv], {"SensorTimestamp": self.captures}

    def stop(self) -> None:
        self.started = False

    def close(self) -> None:
        self.closed = True


def fake_module(**attrs: Any) -> Any:
    cls = type("FakePicamera2", (FakePicamera2,), attrs)
    return types.SimpleNamespace(Picamera2=cls)


def test_picamera_source_gives_full_and_lores_frames() -> None:
    src = open_source("picamera", picamera_module=fake_module())
    frame = src.read()
    assert frame is not None and frame.image.shape == (960, 1280, 3)
    assert frame.image[0, 0, 0] == 200 and frame.image[0, 0, 2] == 0  # BGR order kept
    assert frame.lores is not None and frame.lores.shape == (240, 320)
    assert frame.lores.mean() == 77 and frame.source == "picamera"
    assert src.read().seq == 1  # type: ignore[union-attr]
    src.close()


def test_picamera_missing_camera_and_vanishing_camera() -> None:
    with pytest.raises(CameraUnavailableError, match="no Raspberry Pi camera found"):
        open_source("picamera", picamera_module=fake_module(cameras=[]))
    src = open_source("picamera", picamera_module=fake_module(fail_after=2))
    src.read()
    src.read()
    with pytest.raises(CameraUnavailableError, match="the Pi camera stopped"):
        src.read()


def test_picamera_not_installed_says_how_to_install() -> None:
    try:
        import picamera2  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        with pytest.raises(CameraUnavailableError, match="apt install python3-picamera2"):
            open_source("picamera")
    else:  # pragma: no cover - only on a Pi
        pytest.skip("picamera2 is installed here")


def write_images(folder: Path, n: int) -> list[Path]:
    folder.mkdir()
    paths = []
    for i in range(n):
        img = np.full((48, 64, 3), 40 * i, np.uint8)
        path = folder / f"{i:03d}.png"
        cv2.imwrite(str(path), img)
        paths.append(path)
    return paths


def test_file_and_folder_sources(tmp_path: Path) -> None:
    paths = write_images(tmp_path / "shots", 3)
    (tmp_path / "shots" / "notes.txt").write_text("not an image")
    seen = [f.image[0, 0, 0] for f in frames(open_source(f"file:{tmp_path / 'shots'}"))]
    assert seen == [0, 40, 80]
    single = list(frames(ImageFolderSource(paths[1], repeat=4)))
    assert len(single) == 4 and [f.seq for f in single] == [0, 1, 2, 3]


def test_video_source(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for i in range(5):
        writer.write(np.full((48, 64, 3), 50 * i, np.uint8))
    writer.release()
    got = list(frames(open_source(f"file:{path}")))
    assert len(got) == 5 and got[-1].image.shape == (48, 64, 3)


@pytest.mark.parametrize("spec, message", [
    ("file:/nowhere/x.png", "no such file"),
    ("usb:x", "write usb:0"),
    ("laser", "unknown camera"),
    ("sim", "simulated table is not available"),
])
def test_bad_specs(spec: str, message: str) -> None:
    with pytest.raises(CameraUnavailableError, match=message):
        open_source(spec)


def test_unreadable_files(tmp_path: Path) -> None:
    bad = tmp_path / "broken.png"
    bad.write_bytes(b"\x89PNG truncated")
    src = open_source(f"file:{bad}")
    with pytest.raises(CameraUnavailableError, match="not an image"):
        src.read()
    other = tmp_path / "table.pdf"
    other.write_text("%PDF")
    with pytest.raises(CameraUnavailableError, match="not an image, a folder"):
        open_source(f"file:{other}")
    (tmp_path / "empty").mkdir()
    with pytest.raises(CameraUnavailableError, match="holds no images"):
        open_source(f"file:{tmp_path / 'empty'}")


def test_auto_falls_back_in_order_with_warnings(tmp_path: Path) -> None:
    write_images(tmp_path / "sim", 1)
    opened: list[str | None] = []

    def sim(game: str | None) -> Any:
        opened.append(game)
        return ImageFolderSource(tmp_path / "sim")

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        src = open_source("auto", env={}, sim=sim,
                          picamera_module=fake_module(cameras=[]))
    assert opened == [None] and src.id.startswith("file:")
    messages = [str(w.message) for w in caught if w.category is CameraFallbackWarning]
    assert len(messages) == 2
    assert messages[0].startswith("camera picamera unavailable")
    assert messages[1].startswith("camera usb:0 unavailable")


def test_auto_prefers_the_pi_camera() -> None:
    src = open_source("auto", env={}, picamera_module=fake_module())
    assert src.id == "picamera"


def test_environment_overrides_auto(tmp_path: Path) -> None:
    write_images(tmp_path / "f", 1)
    src = open_source("auto", env={"DICETABLE_CAMERA": f"file:{tmp_path / 'f'}"})
    assert src.id == f"file:{tmp_path / 'f'}"


def test_auto_with_nothing_lists_every_problem() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(CameraUnavailableError) as info:
            open_source("auto", env={}, picamera_module=fake_module(cameras=[]))
    text = str(info.value)
    assert "picamera:" in text and "usb:0:" in text and "sim:" in text
