"""Every kind of bad photo gives one clear ImageError; odd but usable ones are converted."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.imageio import ImageError, decode_image, header_size, load_image


def jpeg(img: np.ndarray) -> bytes:
    return cv2.imencode(".jpg", img)[1].tobytes()


def png(img: np.ndarray) -> bytes:
    return cv2.imencode(".png", img)[1].tobytes()


PHOTO = (np.random.default_rng(0).integers(0, 255, (48, 64, 3))).astype(np.uint8)


@pytest.mark.parametrize(("data", "message"), [
    (b"", "empty file"),
    (b"just some text, not a picture\n" * 4, "not an image"),
    (jpeg(PHOTO)[:300], "truncated JPEG"),
    (png(PHOTO)[:200], "truncated PNG"),
    (png(np.zeros((1, 1, 3), np.uint8)), "1x1"),
    (png(np.zeros((9000, 12000), np.uint8)), "12000x9000"),
])
def test_bad_input_has_a_clear_message(data: bytes, message: str) -> None:
    with pytest.raises(ImageError, match=message):
        decode_image(data)


@pytest.mark.parametrize("img", [
    PHOTO,
    cv2.cvtColor(PHOTO, cv2.COLOR_BGR2GRAY),
    PHOTO.astype(np.uint16) * 257,
    cv2.cvtColor(PHOTO, cv2.COLOR_BGR2BGRA),
])
def test_grey_16bit_and_alpha_become_8bit_bgr(img: np.ndarray) -> None:
    out = decode_image(png(img))
    assert out.dtype == np.uint8
    assert out.shape == (48, 64, 3)
    assert abs(int(out.mean()) - int(PHOTO.mean())) < 40


def test_header_size_without_decoding() -> None:
    assert header_size(png(PHOTO)) == (64, 48)
    assert header_size(jpeg(PHOTO)) == (64, 48)
    assert header_size(b"GIF89a") is None


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(ImageError, match="no such file"):
        load_image(tmp_path / "nope.jpg")
    with pytest.raises(ImageError, match="directory"):
        load_image(tmp_path)


def with_exif_orientation(data: bytes, orientation: int) -> bytes:
    """A JPEG with an APP1 Exif segment holding one Orientation (0x0112) entry, as phones
    write when the sensor's rows are not the picture's."""
    entry = b"\x01\x12" + b"\x00\x03" + b"\x00\x00\x00\x01" + bytes([0, orientation, 0, 0])
    tiff = b"MM\x00\x2a\x00\x00\x00\x08" + b"\x00\x01" + entry + b"\x00\x00\x00\x00"
    body = b"Exif\x00\x00" + tiff
    app1 = b"\xff\xe1" + (len(body) + 2).to_bytes(2, "big") + body
    return data[:2] + app1 + data[2:]


def test_exif_orientation_is_applied() -> None:
    # Orientation 6: the stored rows must be turned 90 deg clockwise to be seen upright.
    stored = np.zeros((40, 80, 3), np.uint8)
    stored[:, :20] = 255  # a white band on the stored left
    upright = decode_image(with_exif_orientation(jpeg(stored), 6))
    assert upright.shape == (80, 40, 3)
    assert upright[:20].mean() > 200 and upright[40:].mean() < 40  # the band is now on top
    assert decode_image(jpeg(stored)).shape == (40, 80, 3)
