"""Frame sources behind one protocol: the Pi camera, a USB webcam, files, a simulated table.

``open_source(spec)`` understands ``picamera``, ``usb:N``, ``file:PATH`` (an image, a folder
of images or a video), ``sim[:GAME]`` and ``auto``, which tries them in that order (with a
warning at each fallback). ``DICETABLE_CAMERA`` overrides ``auto``. picamera2 is imported
only when the Pi camera is asked for, so nothing else needs it installed.
"""

from __future__ import annotations

import logging
import os
import time
import warnings
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from vision.frame import Frame

logger = logging.getLogger(__name__)

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"}
VIDEO_SUFFIXES = {".mp4", ".avi", ".mov", ".mkv", ".webm", ".h264", ".mjpeg", ".mjpg"}


class CameraUnavailableError(RuntimeError):
    """The camera cannot be opened or stopped delivering; the message says what to do."""


class CameraFallbackWarning(UserWarning):
    """``auto`` could not use one source and tries the next."""


class FrameSource(Protocol):
    """Where frames come from. ``read`` returns None when a finite source is exhausted and
    raises CameraUnavailableError when a live camera vanishes."""

    id: str
    fps: float

    def read(self) -> Frame | None: ...

    def close(self) -> None: ...


def frames(source: FrameSource) -> Iterator[Frame]:
    """Every frame of a source until it ends."""
    while (frame := source.read()) is not None:
        yield frame


# --- Raspberry Pi camera --------------------------------------------------------------------
class PicameraSource:
    """The Pi camera through picamera2: a full frame to read and a small grey stream (the
    Y plane of the lores stream) for the settler."""

    def __init__(self, size: tuple[int, int] = (1280, 960), lores: tuple[int, int] = (320, 240),
                 fps: float = 30.0, module: Any = None) -> None:
        if module is None:
            try:
                import picamera2 as module  # type: ignore[import-not-found,no-redef]
            except ImportError:
                raise CameraUnavailableError(
                    "picamera2 is not installed: on Raspberry Pi OS run 'sudo apt install "
                    "python3-picamera2' and use a venv made with --system-site-packages"
                ) from None
        try:
            if not module.Picamera2.global_camera_info():
                raise CameraUnavailableError(
                    "no Raspberry Pi camera found: check the ribbon cable and run "
                    "'rpicam-hello --list-cameras'")
            self._cam = module.Picamera2()
            config = self._cam.create_video_configuration(
                main={"size": size, "format": "RGB888"},
                lores={"size": lores, "format": "YUV420"},
                controls={"FrameRate": fps})
            self._cam.configure(config)
            self._cam.start()
        except CameraUnavailableError:
            raise
        except Exception as exc:  # libcamera raises many types
            raise CameraUnavailableError(f"the Pi camera could not start: {exc}") from None
        self.id, self.fps, self._lores, self._seq = "picamera", fps, lores, 0

    def read(self) -> Frame | None:
        try:
            (main, yuv), _ = self._cam.capture_arrays(["main", "lores"])
        except Exception as exc:
            raise CameraUnavailableError(f"the Pi camera stopped: {exc}") from None
        w, h = self._lores
        grey = np.asarray(yuv).reshape(-1)[: w * h].reshape(h, w)
        # picamera2's "RGB888" is laid out B, G, R in memory: already OpenCV's order.
        frame = Frame(np.ascontiguousarray(main[:, :, :3]), self._seq, time.monotonic(),
                      self.id, lores=grey)
        self._seq += 1
        return frame

    def close(self) -> None:
        try:
            self._cam.stop()
            self._cam.close()
        except Exception:  # closing a camera that died is not an error worth raising
            logger.debug("closing the Pi camera failed", exc_info=True)


# --- USB webcam and video files -------------------------------------------------------------
class OpenCVSource:
    """A webcam (``usb:N``) or a video file through OpenCV's VideoCapture."""

    MAX_FAILURES = 30  # about a second of missing frames before the camera counts as gone

    def __init__(self, target: int | str, *, live: bool | None = None,
                 size: tuple[int, int] | None = None) -> None:
        self.live = isinstance(target, int) if live is None else live
        self.id = f"usb:{target}" if isinstance(target, int) else f"file:{target}"
        if self.live:
            # OpenCV's own warnings about absent devices would bury our one-line error.
            cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
        self._cap = cv2.VideoCapture(target)
        if not self._cap.isOpened():
            self._cap.release()
            hint = ("is it plugged in, and not used by another program? (ls /dev/video*)"
                    if self.live else "is it a video OpenCV can decode?")
            raise CameraUnavailableError(f"cannot open {self.id}: {hint}")
        if self.live:
            # One buffered frame: a reading is of the table now, not of a second ago.
            self._cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)
            if size is not None:  # the camera picks its nearest mode
                self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
                self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        fps = self._cap.get(cv2.CAP_PROP_FPS)
        self.fps = float(fps) if fps and fps > 0 else 30.0
        self._seq, self._failures = 0, 0

    def read(self) -> Frame | None:
        while True:
            ok, image = self._cap.read()
            if ok and image is not None:
                break
            if not self.live:
                return None
            self._failures += 1
            if self._failures >= self.MAX_FAILURES:
                raise CameraUnavailableError(
                    f"{self.id} stopped sending frames: was it unplugged?")
            time.sleep(0.03)
        self._failures = 0
        if image.ndim == 2:
            image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        frame = Frame(image, self._seq, time.monotonic(), self.id)
        self._seq += 1
        return frame

    def close(self) -> None:
        self._cap.release()


class ImageFolderSource:
    """One image, or every image of a folder in name order; each shown ``repeat`` times (a
    still table for the settler)."""

    def __init__(self, path: Path, repeat: int = 1, fps: float = 30.0) -> None:
        if path.is_dir():
            self.paths = sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            if not self.paths:
                raise CameraUnavailableError(f"{path} holds no images")
        else:
            self.paths = [path]
        self.id, self.fps, self.repeat = f"file:{path}", fps, max(1, repeat)
        self._index, self._seq = 0, 0
        self._image: np.ndarray | None = None

    def read(self) -> Frame | None:
        if self._index >= len(self.paths) * self.repeat:
            return None
        if self._index % self.repeat == 0:
            path = self.paths[self._index // self.repeat]
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                raise CameraUnavailableError(f"{path}: not an image OpenCV can read")
            self._image = image
        assert self._image is not None
        self._index += 1
        frame = Frame(self._image, self._seq, time.monotonic(), self.id)
        self._seq += 1
        return frame

    def close(self) -> None:
        self._image = None


def open_file(path: Path, repeat: int = 1) -> FrameSource:
    if not path.exists():
        raise CameraUnavailableError(f"{path}: no such file or folder")
    if path.is_dir() or path.suffix.lower() in IMAGE_SUFFIXES:
        return ImageFolderSource(path, repeat=repeat)
    if path.suffix.lower() in VIDEO_SUFFIXES:
        return OpenCVSource(str(path), live=False)
    raise CameraUnavailableError(f"{path}: not an image, a folder of images or a video")


# --- choosing a source ----------------------------------------------------------------------
SimFactory = Callable[[str | None], FrameSource]

AUTO_ORDER = ("picamera", "usb:0", "sim")


def open_source(spec: str, *, env: Mapping[str, str] | None = None,
                sim: SimFactory | None = None, picamera_module: Any = None,
                size: tuple[int, int] | None = None) -> FrameSource:
    """Open a frame source from its spec; CameraUnavailableError says what to do.

    ``size`` asks a live camera for that frame size (calibration wants many pixels)."""
    env = os.environ if env is None else env
    spec = spec.strip()
    if spec == "auto":
        override = env.get("DICETABLE_CAMERA", "").strip()
        if override and override != "auto":
            logger.info("DICETABLE_CAMERA=%s overrides --camera auto", override)
            return open_source(override, env={}, sim=sim, picamera_module=picamera_module,
                               size=size)
        problems = []
        for candidate in AUTO_ORDER:
            try:
                return open_source(candidate, env={}, sim=sim,
                                   picamera_module=picamera_module, size=size)
            except CameraUnavailableError as exc:
                problems.append(f"{candidate}: {exc}")
                if candidate != AUTO_ORDER[-1]:
                    warnings.warn(f"camera {candidate} unavailable ({exc}); trying the next",
                                  CameraFallbackWarning, stacklevel=2)
        raise CameraUnavailableError("no camera could be opened: " + "; ".join(problems))
    if spec in ("picamera", "picamera2"):
        if size is not None:
            return PicameraSource(size=size, module=picamera_module)
        return PicameraSource(module=picamera_module)
    if spec.startswith("usb:"):
        index = spec[4:]
        if not index.isdigit():
            raise CameraUnavailableError(f"{spec!r}: write usb:0, usb:1...")
        return OpenCVSource(int(index), size=size)
    if spec.startswith("file:"):
        return open_file(Path(spec[5:]).expanduser())
    if spec == "sim" or spec.startswith("sim:"):
        if sim is None:
            raise CameraUnavailableError("the simulated table is not available here")
        return sim(spec[4:] or None)
    raise CameraUnavailableError(
        f"unknown camera {spec!r}: use auto, picamera, usb:N, file:PATH or sim")
