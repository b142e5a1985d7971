"""Loading photos safely: every way a file can be unusable becomes one clear ImageError.

Handled: missing or unreadable files, 0-byte files, files that are not images, truncated
JPEG/PNG (detected before decoding: OpenCV would otherwise return a half-grey picture),
images too small to hold a die, and images so large that decoding them would blow the
memory budget of a Raspberry Pi (checked from the header, before decoding). Grayscale,
16-bit and alpha images are accepted and converted to 8-bit BGR. A JPEG's EXIF orientation
is applied, so boxes are in the pixels of the picture as a phone or a viewer shows it.
"""

from __future__ import annotations

import logging
import struct
from pathlib import Path

import cv2
import numpy as np

logger = logging.getLogger(__name__)

MIN_SIDE = 16
MAX_PIXELS = 40_000_000
MAX_FILE_BYTES = 200_000_000


class ImageError(ValueError):
    """A file that cannot be used as a photo; the message says why, for the user."""


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from the first SOF marker of a JPEG, or None."""
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        (length,) = struct.unpack(">H", data[i + 2:i + 4])
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE,
                      0xCF):
            h, w = struct.unpack(">HH", data[i + 5:i + 9])
            return w, h
        i += 2 + length
    return None


def header_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) read from a PNG or JPEG header without decoding; None if unknown."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        w, h = struct.unpack(">II", data[16:24])
        return w, h
    if data[:2] == b"\xff\xd8":
        return _jpeg_size(data)
    return None


def _check_complete(data: bytes) -> None:
    if data[:2] == b"\xff\xd8" and b"\xff\xd9" not in data[-64:]:
        raise ImageError("truncated JPEG: the file ends before the image data does "
                         "(copy it again from the camera)")
    if data[:8] == b"\x89PNG\r\n\x1a\n" and b"IEND" not in data[-32:]:
        raise ImageError("truncated PNG: the file ends before the image data does")


def decode_image(data: bytes) -> np.ndarray:
    """Bytes of an image file -> (H, W, 3) uint8 BGR; raises ImageError with the reason."""
    if len(data) == 0:
        raise ImageError("empty file (0 bytes)")
    if len(data) > MAX_FILE_BYTES:
        raise ImageError(f"file is {len(data) / 1e6:.0f} MB; the limit is "
                         f"{MAX_FILE_BYTES / 1e6:.0f} MB")
    _check_complete(data)
    size = header_size(data)
    if size is not None:
        w, h = size
        if w * h > MAX_PIXELS:
            raise ImageError(f"image is {w}x{h} pixels ({w * h / 1e6:.0f} MP), more than the "
                             f"{MAX_PIXELS / 1e6:.0f} MP limit; downscale it first")
    # ANYDEPTH|ANYCOLOR keeps 16-bit and grey as they are but, unlike IMREAD_UNCHANGED,
    # turns a phone photo upright by its EXIF orientation (alpha is dropped: unused).
    img = cv2.imdecode(np.frombuffer(data, np.uint8),
                       cv2.IMREAD_ANYDEPTH | cv2.IMREAD_ANYCOLOR)
    if img is None:
        raise ImageError("not an image OpenCV can read (expected JPEG, PNG, BMP, TIFF, WebP...)")
    if img.shape[0] * img.shape[1] > MAX_PIXELS:
        raise ImageError(f"image is {img.shape[1]}x{img.shape[0]} pixels, more than the "
                         f"{MAX_PIXELS / 1e6:.0f} MP limit; downscale it first")
    if img.dtype == np.uint16:
        img = (img >> 8).astype(np.uint8)
    elif img.dtype != np.uint8:
        raise ImageError(f"unsupported pixel type {img.dtype}; use an 8- or 16-bit image")
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    elif img.shape[2] == 4:
        img = cv2.cvtColor(img, cv2.COLOR_BGRA2BGR)
    elif img.shape[2] == 1:
        img = cv2.cvtColor(img[..., 0], cv2.COLOR_GRAY2BGR)
    h, w = img.shape[:2]
    if min(h, w) < MIN_SIDE:
        raise ImageError(f"image is only {w}x{h} pixels; a die needs at least "
                         f"{MIN_SIDE}x{MIN_SIDE}")
    return np.ascontiguousarray(img)


def load_image(path: str | Path) -> np.ndarray:
    """Read an image file -> (H, W, 3) uint8 BGR; raises ImageError with the reason."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise ImageError("no such file") from None
    except IsADirectoryError:
        raise ImageError("is a directory, not an image file") from None
    except OSError as exc:
        raise ImageError(f"cannot read the file: {exc.strerror or exc}") from None
    return decode_image(data)
