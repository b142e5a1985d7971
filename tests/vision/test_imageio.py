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


# --- issue 29: image bombs, and bytes after the end of a picture ---------------------------

def webp(img: np.ndarray, lossless: bool) -> bytes:
    return cv2.imencode(".webp", img, [cv2.IMWRITE_WEBP_QUALITY, 101 if lossless else 80])[1] \
        .tobytes()


def encoded(ext: str, img: np.ndarray = PHOTO) -> bytes:
    return cv2.imencode(ext, img)[1].tobytes()


def vp8l_claiming(width: int, height: int) -> bytes:
    """A real lossless WebP whose header is changed to declare another size: what a 10 KB
    WebP of 16383x16383 (one colour) looks like to a header reader."""
    data = bytearray(webp(PHOTO, lossless=True))
    at = data.index(b"VP8L") + 8
    bits = (width - 1) | (height - 1) << 14 | (int.from_bytes(data[at + 1:at + 5], "little")
                                               & ~((1 << 28) - 1))
    data[at + 1:at + 5] = bits.to_bytes(4, "little")
    return bytes(data)


def tiff_claiming(width: int, height: int, order: str = "<", big: bool = False) -> bytes:
    """A TIFF header whose first image is width x height (LONG entries), as a 1.8 MB
    deflated TIFF of 20000x20000 declares it."""
    import struct

    mark = b"II" if order == "<" else b"MM"
    if big:
        head = mark + struct.pack(order + "HHHQ", 43, 8, 0, 16)
        ifd = struct.pack(order + "Q", 2) + b"".join(
            struct.pack(order + "HHQQ", tag, 16, 1, v) for tag, v in ((256, width),
                                                                      (257, height)))
    else:
        head = mark + struct.pack(order + "HI", 42, 8)
        ifd = struct.pack(order + "H", 2) + b"".join(
            struct.pack(order + "HHII", tag, 4, 1, v) for tag, v in ((256, width),
                                                                     (257, height)))
    return head + ifd + b"\0" * 64


def vp8x_canvas(width: int, height: int, inner: bytes) -> bytes:
    """An extended WebP: a VP8X canvas of width x height holding the chunks of ``inner``."""
    body = b"\0" * 4 + (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
    chunks = b"VP8X" + len(body).to_bytes(4, "little") + body + inner[12:]
    return b"RIFF" + (len(chunks) + 4).to_bytes(4, "little") + b"WEBP" + chunks


@pytest.mark.parametrize(("ext", "params"), [
    (".webp", [cv2.IMWRITE_WEBP_QUALITY, 101]), (".webp", [cv2.IMWRITE_WEBP_QUALITY, 80]),
    (".tiff", []), (".bmp", []), (".png", []), (".jpg", []),
])
def test_header_size_of_every_format_read(ext: str, params: list[int]) -> None:
    data = cv2.imencode(ext, PHOTO, params)[1].tobytes()
    assert header_size(data) == (64, 48)
    assert decode_image(data).shape == (48, 64, 3)


@pytest.mark.parametrize(("data", "size"), [
    (vp8l_claiming(16383, 16383), "16383x16383"),
    (vp8x_canvas(16000, 16000, webp(PHOTO, lossless=False)), "16000x16000"),
    # a small canvas does not vouch for a large bitstream inside it
    (vp8x_canvas(64, 48, vp8l_claiming(9000, 9000)), "9000x9000"),
    (tiff_claiming(20000, 20000), "20000x20000"),
    (tiff_claiming(20000, 20000, ">"), "20000x20000"),
    (tiff_claiming(20000, 20000, big=True), "20000x20000"),
    (b"BM" + b"\0" * 12 + (40).to_bytes(4, "little") + (9000).to_bytes(4, "little")
     + (-9000).to_bytes(4, "little", signed=True) + b"\0" * 40, "9000x9000"),
], ids=["webp-lossless", "webp-canvas", "webp-bitstream-in-small-canvas", "tiff-le",
        "tiff-be", "bigtiff", "bmp"])
def test_bombs_are_refused_from_the_header_before_any_decoding(
        monkeypatch: pytest.MonkeyPatch, data: bytes, size: str) -> None:
    def no_decoding(*_: object) -> None:
        raise AssertionError("decoded before the size check")

    monkeypatch.setattr(cv2, "imdecode", no_decoding)
    with pytest.raises(ImageError, match=f"{size} pixels .* MP limit"):
        decode_image(data)


@pytest.mark.parametrize(("ext", "kind"), [(".gif", "GIF"), (".ppm", "PNM"),
                                           (".jp2", "JPEG 2000"), (".hdr", "HDR")])
def test_formats_whose_size_is_not_read_are_refused_by_name(ext: str, kind: str) -> None:
    with pytest.raises(ImageError, match=f"{kind} files are not read: dicetable reads JPEG"):
        decode_image(encoded(ext))


def test_a_header_without_a_size_is_refused() -> None:
    with pytest.raises(ImageError, match="damaged TIFF"):
        decode_image(b"II*\x00" + (8).to_bytes(4, "little") + b"\0" * 40)


def test_bytes_after_the_end_marker_are_accepted() -> None:
    # a phone's "motion photo" puts a video after the JPEG; editors append their own data
    assert decode_image(jpeg(PHOTO) + b"\x00ftypmp42" + b"v" * 1000).shape == (48, 64, 3)
    assert decode_image(png(PHOTO) + b"x" * 100).shape == (48, 64, 3)


def test_a_thumbnails_end_marker_does_not_hide_a_truncated_jpeg() -> None:
    thumb = jpeg(PHOTO[:16, :16])  # an EXIF thumbnail, with its own FF D9
    body = b"Exif\x00\x00" + thumb
    app1 = b"\xff\xe1" + (len(body) + 2).to_bytes(2, "big") + body
    whole = jpeg(PHOTO)
    with pytest.raises(ImageError, match="truncated JPEG"):
        decode_image(whole[:2] + app1 + whole[2:-400])


def test_an_oversized_file_is_not_read_into_memory(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.imageio as imageio

    path = tmp_path / "big.jpg"
    path.write_bytes(jpeg(PHOTO))
    monkeypatch.setattr(imageio, "MAX_FILE_BYTES", 100)
    monkeypatch.setattr(Path, "read_bytes", lambda self: pytest.fail("read whole"))
    with pytest.raises(ImageError, match="limit is"):
        load_image(path)
