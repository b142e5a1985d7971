"""A minimal PDF writer: vector polygons, outlines and Helvetica text, at true scale.

No dependency: a PDF of filled and stroked paths is a few objects and one content stream per
page. Every page's MediaBox is the paper size in points (1 pt = 1/72 in), and drawing is in
millimetres through one transform, so a print at 100 % (no "fit to page") has the mat's true
size. Text uses the standard Helvetica font, which every reader has, so nothing is embedded.
"""

from __future__ import annotations

import logging
import zlib
from dataclasses import dataclass, field

from calibration.printing.drawing import Fill, Outline, Shape, Text

logger = logging.getLogger(__name__)

PT_PER_MM = 72 / 25.4


def _num(v: float) -> str:
    s = f"{v:.3f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def _escape(text: str) -> str:
    # Helvetica in WinAnsi covers Latin-1; anything else prints as "?" rather than garbage.
    safe = text.encode("latin-1", "replace").decode("latin-1")
    return safe.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _path(pts: list[tuple[float, float]]) -> str:
    return f"{_num(pts[0][0])} {_num(pts[0][1])} m " + " ".join(
        f"{_num(x)} {_num(y)} l" for x, y in pts[1:]) + " h"


@dataclass
class Page:
    """One page: its size in mm and the drawing commands (in mm, y down)."""

    width_mm: float
    height_mm: float
    ops: list[str] = field(default_factory=list)

    def clip(self, x0: float, y0: float, x1: float, y1: float) -> None:
        """Clip everything drawn afterwards to a rectangle (until restore())."""
        self.ops.append(f"q {_num(x0)} {_num(y0)} {_num(x1 - x0)} {_num(y1 - y0)} re W n")

    def restore(self) -> None:
        self.ops.append("Q")

    def draw(self, shapes: list[Shape], dx: float = 0.0, dy: float = 0.0) -> None:
        """Draw shapes given in mat mm, shifted by (dx, dy) mm on the page.

        Consecutive fills of one grey become one path filled once: drawn one by one, the
        cells of a marker would show hairline seams in viewers that anti-alias each fill.
        """
        run: list[str] = []
        run_grey: float | None = None
        for s in shapes:
            if isinstance(s, Fill):
                if run and s.grey != run_grey:
                    self.ops.append(f"{_num(run_grey or 0)} g " + " ".join(run) + " f")
                    run = []
                run.append(_path([(x + dx, y + dy) for x, y in s.points]))
                run_grey = s.grey
                continue
            if run:
                self.ops.append(f"{_num(run_grey or 0)} g " + " ".join(run) + " f")
                run = []
            if isinstance(s, Outline):
                dash = f"[{_num(s.dash)} {_num(s.dash)}] 0 d " if s.dash else "[] 0 d "
                path = _path([(x + dx, y + dy) for x, y in s.points])
                self.ops.append(f"{_num(s.grey)} G {_num(s.width)} w {dash}{path} S")
            elif isinstance(s, Text):
                self.text(s.x + dx, s.y + dy, s.text, s.size, s.grey, s.centred, s.upside_down)
        if run:
            self.ops.append(f"{_num(run_grey or 0)} g " + " ".join(run) + " f")

    def text(self, x: float, y: float, text: str, size: float, grey: float = 0.0,
             centred: bool = False, upside_down: bool = False) -> None:
        font = size / 0.72  # Helvetica's cap height is 0.72 em
        if centred:
            x -= len(text) * font * 0.55 / 2 * (-1 if upside_down else 1)
        # The page transform flips y; the text matrix flips it back so letters stand upright
        # (or turns them half round: x runs left, y down).
        m = "-1 0 0 1" if upside_down else "1 0 0 -1"
        self.ops.append(f"BT {_num(grey)} g /F1 {_num(font)} Tf {m} {_num(x)} {_num(y)} Tm "
                        f"({_escape(text)}) Tj ET")

    def line(self, x0: float, y0: float, x1: float, y1: float, width: float = 0.2,
             grey: float = 0.0, dash: float = 0.0) -> None:
        d = f"[{_num(dash)} {_num(dash)}] 0 d " if dash else "[] 0 d "
        self.ops.append(f"{_num(grey)} G {_num(width)} w {d}{_num(x0)} {_num(y0)} m "
                        f"{_num(x1)} {_num(y1)} l S")

    def stream(self) -> bytes:
        # mm -> pt, origin top-left, y down.
        head = f"{_num(PT_PER_MM)} 0 0 {_num(-PT_PER_MM)} 0 {_num(self.height_mm * PT_PER_MM)} cm"
        return "\n".join([head, "1 J 1 j", *self.ops]).encode("latin-1")


def pdf_bytes(pages: list[Page], title: str = "dicetable mat") -> bytes:
    """A complete PDF file of the pages."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")  # filled in once the page tree's number is known
    tree = add(b"")
    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica "
               b"/Encoding /WinAnsiEncoding >>")
    info = add(f"<< /Title ({_escape(title)}) /Producer (dicetable) >>".encode("latin-1"))
    kids = []
    for page in pages:
        data = zlib.compress(page.stream())
        content = add(f"<< /Length {len(data)} /Filter /FlateDecode >>\nstream\n".encode()
                      + data + b"\nendstream")
        box = f"[0 0 {page.width_mm * PT_PER_MM:.2f} {page.height_mm * PT_PER_MM:.2f}]"
        kids.append(add(f"<< /Type /Page /Parent {tree} 0 R /MediaBox {box} "
                        f"/Resources << /Font << /F1 {font} 0 R >> >> "
                        f"/Contents {content} 0 R >>".encode()))
    objects[catalog - 1] = f"<< /Type /Catalog /Pages {tree} 0 R /ViewerPreferences " \
                           f"<< /PrintScaling /None >> >>".encode()
    objects[tree - 1] = (f"<< /Type /Pages /Count {len(kids)} /Kids ["
                         + " ".join(f"{k} 0 R" for k in kids) + "] >>").encode()
    out = bytearray(b"%PDF-1.6\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += (f"trailer\n<< /Size {len(objects) + 1} /Root {catalog} 0 R /Info {info} 0 R >>\n"
            f"startxref\n{xref}\n%%EOF\n").encode()
    return bytes(out)
