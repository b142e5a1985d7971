"""Loading photos safely: every way a file can be unusable becomes one clear ImageError.

Handled: missing or unreadable files, 0-byte files, files that are not images, truncated
JPEG/PNG (detected before decoding: OpenCV would otherwise return a half-grey picture),
images too small to hold a die, and images so large that decoding them would blow the
memory budget of a Raspberry Pi. The size is read from the header, before decoding, and only
formats whose header this module reads are decoded (JPEG, PNG, WebP, TIFF, BMP): a 10 KB WebP
can declare 16383x16383 pixels. The same check guards the command line and every upload. Grayscale,
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


_SOF = frozenset((0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF))
FORMATS = "JPEG, PNG, WebP, TIFF or BMP"
"""What is decoded. OpenCV reads more (GIF, AVIF, JPEG 2000, HDR...), but only these have a
size this module reads from the header: any other would be decoded whole before its size is
known, which is how a 10 KB file becomes gigabytes of pixels."""


def image_format(data: bytes) -> str | None:
    """The format named by the file's first bytes, or None when it is none we know."""
    if data[:2] == b"\xff\xd8":
        return "JPEG"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "PNG"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WebP"
    if data[:4] in (b"II*\x00", b"MM\x00*", b"II+\x00", b"MM\x00+"):
        return "TIFF"
    if data[:2] == b"BM":
        return "BMP"
    for magic, name in ((b"GIF8", "GIF"), (b"\x00\x00\x00\x0cjP  ", "JPEG 2000"),
                        (b"\xff\x4f\xff\x51", "JPEG 2000"), (b"#?RADIANCE", "HDR"),
                        (b"\x59\xa6\x6a\x95", "Sun raster"), (b"PF", "PFM"), (b"Pf", "PFM")):
        if data.startswith(magic):
            return name
    if data[4:8] == b"ftyp":
        brand = data[8:12]
        return "AVIF" if brand in (b"avif", b"avis") else "HEIF" \
            if brand in (b"heic", b"heix", b"mif1", b"msf1") else None
    if len(data) > 2 and data[0:1] == b"P" and data[1:2] in b"123456" and data[2:3].isspace():
        return "PNM"
    return None


def _jpeg_segments(data: bytes) -> list[tuple[int, int]]:
    """(marker, offset) of the header segments of a JPEG, up to and including its first SOS
    (where the compressed picture starts)."""
    found, i = [], 2
    while i + 3 < len(data):
        if data[i] != 0xFF:
            break
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        found.append((marker, i))
        if marker == 0xDA:
            break
        (length,) = struct.unpack(">H", data[i + 2:i + 4])
        i += 2 + length
    return found


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from the first SOF marker of a JPEG, or None."""
    for marker, i in _jpeg_segments(data):
        if marker in _SOF and i + 9 <= len(data):
            h, w = struct.unpack(">HH", data[i + 5:i + 9])
            return w, h
    return None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    """The largest (width, height) any chunk of a WebP declares (canvas, frames, bitstreams),
    or None. The largest, not the first: a small canvas must not vouch for a large
    bitstream."""
    sizes: list[tuple[int, int]] = []

    def walk(i: int, end: int) -> None:
        while i + 8 <= end:
            kind = data[i:i + 4]
            (length,) = struct.unpack("<I", data[i + 4:i + 8])
            body = data[i + 8:min(i + 8 + length, end)]
            if kind == b"VP8 " and len(body) >= 10 and body[3:6] == b"\x9d\x01\x2a":
                w, h = struct.unpack("<HH", body[6:10])
                sizes.append((w & 0x3FFF, h & 0x3FFF))
            elif kind == b"VP8L" and len(body) >= 5 and body[0] == 0x2F:
                (bits,) = struct.unpack("<I", body[1:5])
                sizes.append(((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1))
            elif kind == b"VP8X" and len(body) >= 10:
                sizes.append((int.from_bytes(body[4:7], "little") + 1,
                              int.from_bytes(body[7:10], "little") + 1))
            elif kind == b"ANMF" and len(body) >= 16:  # a frame: its size, then its chunks
                sizes.append((int.from_bytes(body[6:9], "little") + 1,
                              int.from_bytes(body[9:12], "little") + 1))
                walk(i + 8 + 16, i + 8 + len(body))
            i += 8 + length + (length & 1)

    walk(12, len(data))
    return max(sizes, key=lambda s: s[0] * s[1]) if sizes else None


def _tiff_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) of the first image of a TIFF or BigTIFF (the one OpenCV decodes)."""
    order = "<" if data[:2] == b"II" else ">"
    big = data[2:4] in (b"+\x00", b"\x00+")
    try:
        if big:
            (ifd,) = struct.unpack(order + "Q", data[8:16])
            (count,) = struct.unpack(order + "Q", data[ifd:ifd + 8])
            start, step, head = ifd + 8, 20, order + "HHQ"
        else:
            (ifd,) = struct.unpack(order + "I", data[4:8])
            (count,) = struct.unpack(order + "H", data[ifd:ifd + 2])
            start, step, head = ifd + 2, 12, order + "HHI"
        found: dict[int, int] = {}
        for k in range(min(count, 4096)):
            at = start + k * step
            tag, kind, _ = struct.unpack(head, data[at:at + struct.calcsize(head)])
            if tag not in (256, 257):
                continue
            value = data[at + struct.calcsize(head):at + step]
            fmt = {3: "H", 4: "I", 16: "Q"}.get(kind)
            if fmt is None:
                return None
            found[tag] = struct.unpack(order + fmt, value[:struct.calcsize(fmt)])[0]
    except struct.error:
        return None
    if 256 in found and 257 in found:
        return found[256], found[257]
    return None


def _bmp_size(data: bytes) -> tuple[int, int] | None:
    if len(data) < 26:
        return None
    (header,) = struct.unpack("<I", data[14:18])
    if header == 12:  # the old OS/2 header: 16-bit sizes
        return struct.unpack("<HH", data[18:22])
    w, h = struct.unpack("<ii", data[18:26])
    return abs(w), abs(h)  # a negative height: rows stored top-down


def header_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) read from the header of a JPEG, PNG, WebP, TIFF or BMP without
    decoding; None if unknown."""
    kind = image_format(data)
    if kind == "PNG" and len(data) >= 24:
        w, h = struct.unpack(">II", data[16:24])
        return w, h
    reader = {"JPEG": _jpeg_size, "WebP": _webp_size, "TIFF": _tiff_size,
              "BMP": _bmp_size}.get(kind or "")
    return reader(data) if reader is not None else None


def _check_complete(data: bytes) -> None:
    """Refuses a JPEG or PNG that ends before its picture does. Bytes after the end marker
    are allowed: phones append a video to a "motion photo", editors their own data."""
    if data[:2] == b"\xff\xd8":
        segments = _jpeg_segments(data)
        # The entropy-coded data never holds FF D9 (an FF there is followed by 00 or a
        # restart marker), so the first FF D9 after the scan starts is the image's end. An
        # EXIF thumbnail's end marker lies before the scan and does not count.
        scan = segments[-1][1] if segments and segments[-1][0] == 0xDA else None
        if scan is None or b"\xff\xd9" not in data[scan:]:
            raise ImageError("truncated JPEG: the file ends before the image data does "
                             "(copy it again from the camera)")
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        i = 8
        while i + 8 <= len(data):
            (length,) = struct.unpack(">I", data[i:i + 4])
            if data[i + 4:i + 8] == b"IEND":
                return
            i += 12 + length
        raise ImageError("truncated PNG: the file ends before the image data does")


def decode_image(data: bytes) -> np.ndarray:
    """Bytes of an image file -> (H, W, 3) uint8 BGR; raises ImageError with the reason."""
    if len(data) == 0:
        raise ImageError("empty file (0 bytes)")
    if len(data) > MAX_FILE_BYTES:
        raise ImageError(f"file is {len(data) / 1e6:.0f} MB; the limit is "
                         f"{MAX_FILE_BYTES / 1e6:.0f} MB")
    kind = image_format(data)
    if kind is None:
        raise ImageError(f"not an image dicetable can read (expected {FORMATS})")
    _check_complete(data)
    size = header_size(data)
    if size is None:
        if kind in ("JPEG", "PNG", "WebP", "TIFF", "BMP"):
            raise ImageError(f"a damaged {kind}: its header gives no picture size")
        raise ImageError(f"{kind} files are not read: dicetable reads {FORMATS}; convert "
                         "the file first")
    w, h = size
    if w * h > MAX_PIXELS:
        raise ImageError(f"image is {w}x{h} pixels ({w * h / 1e6:.0f} MP), more than the "
                         f"{MAX_PIXELS / 1e6:.0f} MP limit; downscale it first")
    # ANYDEPTH|ANYCOLOR keeps 16-bit and grey as they are but, unlike IMREAD_UNCHANGED,
    # turns a phone photo upright by its EXIF orientation (alpha is dropped: unused).
    img = cv2.imdecode(np.frombuffer(data, np.uint8),
                       cv2.IMREAD_ANYDEPTH | cv2.IMREAD_ANYCOLOR)
    if img is None:
        raise ImageError(f"not an image dicetable can read (a damaged {kind}?)")
    if img.shape[0] * img.shape[1] > MAX_PIXELS:
        raise ImageError(f"image is {img.shape[1]}x{img.shape[0]} pixels, more than the "
                         f"{MAX_PIXELS / 1e6:.0f} MP limit; downscale it first")
    if img.dtype == np.uint16:
        img = np.right_shift(img, 8).astype(np.uint8)
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
        if p.is_file() and p.stat().st_size > MAX_FILE_BYTES:  # not read into memory
            raise ImageError(f"file is {p.stat().st_size / 1e6:.0f} MB; the limit is "
                             f"{MAX_FILE_BYTES / 1e6:.0f} MB")
        data = p.read_bytes()
    except FileNotFoundError:
        raise ImageError("no such file") from None
    except IsADirectoryError:
        raise ImageError("is a directory, not an image file") from None
    except OSError as exc:
        raise ImageError(f"cannot read the file: {exc.strerror or exc}") from None
    return decode_image(data)
