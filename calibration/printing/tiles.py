"""Cutting a mat into printable sheets, and the PDF of those sheets.

A mat larger than the paper is printed as tiles. Cuts run between markers (never through one),
each tile but the last in a row or column carries a 12 mm glue strip past its cut, and both
sides of every cut carry the same registration crosses: trim the next sheet along its dashed
line, lay it on the strip so the crosses meet, tape. Every sheet prints the mat's name, its
place in the grid and a 100 mm bar to check the print scale.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from calibration.layouts import Layout
from calibration.printing.drawing import mat_shapes
from calibration.printing.pdf import Page, pdf_bytes

logger = logging.getLogger(__name__)

#: Paper name -> (width, height) in mm, portrait.
PAPERS: dict[str, tuple[float, float]] = {
    "A4": (210.0, 297.0),
    "A3": (297.0, 420.0),
    "letter": (215.9, 279.4),
}
MARGIN = 6.0
"""Unprintable margin kept on every side of a sheet (most printers need 3-6 mm). At 10 mm
the 2-player IceDice mat (480 x 360 mm) took 6 A4 sheets, three of them two-thirds blank: its
two rows of landscape sheets fell 8 mm short; at 6 mm it takes 4."""
FOOTER = 8.0
"""Room at the sheet's bottom for the caption and the scale bar."""
OVERLAP = 12.0
QUIET = 3.0


class PaperError(ValueError):
    """Unknown paper name."""


@dataclass(frozen=True, slots=True)
class Tile:
    """One sheet: the mat rectangle it carries (without its glue strip) and its grid place."""

    x0: float
    y0: float
    x1: float
    y1: float
    row: int
    col: int
    glue_right: bool
    glue_below: bool


def paper_size(name: str) -> tuple[float, float]:
    for key, size in PAPERS.items():
        if key.lower() == name.strip().lower():
            return size
    raise PaperError(f"unknown paper {name!r} (choose {', '.join(PAPERS)})")


def _cuts(length: float, room: float, blocked: list[tuple[float, float]]) -> list[float]:
    """Cut positions along one axis: each piece (plus its glue strip) fits in `room`, and no
    cut or glue strip touches a blocked interval."""
    cuts, pos = [], 0.0
    while length - pos > room:
        c = pos + room - OVERLAP
        while c > pos + 20 and any(a - QUIET <= c + OVERLAP and c - QUIET <= b
                                   for a, b in blocked):
            c -= 1.0
        if c <= pos + 20:
            raise ValueError("the mat's markers leave no place to cut it for this paper")
        cuts.append(c)
        pos = c
    return cuts


def tiles(layout: Layout, paper: str) -> tuple[tuple[float, float], list[Tile]]:
    """(page size mm, tiles) for the orientation of the paper that needs fewer sheets."""
    pw, ph = paper_size(paper)
    w, h = layout.size_mm
    best: tuple[int, tuple[float, float], list[Tile]] | None = None
    for page in ((pw, ph), (ph, pw)):
        room_x, room_y = page[0] - 2 * MARGIN, page[1] - 2 * MARGIN - FOOTER
        xs_blocked = [(m.centre[0] - m.size / 2, m.centre[0] + m.size / 2)
                      for m in layout.markers]
        ys_blocked = [(m.centre[1] - m.size / 2, m.centre[1] + m.size / 2)
                      for m in layout.markers]
        try:
            xc = [0.0, *_cuts(w, room_x, xs_blocked), w]
            yc = [0.0, *_cuts(h, room_y, ys_blocked), h]
        except ValueError:
            continue
        out = [Tile(xc[c], yc[r], xc[c + 1], yc[r + 1], r, c, c + 2 < len(xc), r + 2 < len(yc))
               for r in range(len(yc) - 1) for c in range(len(xc) - 1)]
        if best is None or len(out) < best[0]:
            best = (len(out), page, out)
    if best is None:
        raise ValueError(f"cannot tile {layout.key} on {paper}")
    return best[1], best[2]


def _cross(page: Page, x: float, y: float, size: float = 4.0) -> None:
    page.line(x - size, y, x + size, y, 0.2)
    page.line(x, y - size, x, y + size, 0.2)


def mat_pdf(layout: Layout, paper: str = "A4") -> bytes:
    """The printable PDF of a mat: one page per tile, true scale."""
    (pw, ph), sheets = tiles(layout, paper)
    shapes = mat_shapes(layout)
    rows = max(t.row for t in sheets) + 1
    cols = max(t.col for t in sheets) + 1
    pages = []
    for t in sheets:
        page = Page(pw, ph)
        x1 = t.x1 + (OVERLAP if t.glue_right else 0)
        y1 = t.y1 + (OVERLAP if t.glue_below else 0)
        # A single sheet is centred; tiles sit at the top-left margin so strips line up.
        if len(sheets) == 1:
            ox, oy = (pw - (x1 - t.x0)) / 2, (ph - FOOTER - (y1 - t.y0)) / 2
        else:
            ox, oy = MARGIN, MARGIN
        dx, dy = ox - t.x0, oy - t.y0
        page.clip(ox, oy, ox + x1 - t.x0, oy + y1 - t.y0)
        page.draw(shapes, dx, dy)
        page.restore()
        # Cut lines and registration crosses on both sides of every cut.
        if t.col > 0:
            page.line(ox, oy, ox, oy + t.y1 - t.y0, 0.2, 0.5, dash=2)
        if t.row > 0:
            page.line(ox, oy, ox + t.x1 - t.x0, oy, 0.2, 0.5, dash=2)
        for xcut in ([t.x0] if t.col > 0 else []) + ([t.x1] if t.glue_right else []):
            for f in (0.25, 0.75):
                _cross(page, xcut + dx, t.y0 + f * (t.y1 - t.y0) + dy)
        for ycut in ([t.y0] if t.row > 0 else []) + ([t.y1] if t.glue_below else []):
            for f in (0.25, 0.75):
                _cross(page, t.x0 + f * (t.x1 - t.x0) + dx, ycut + dy)
        if t.glue_right:
            page.text(ox + t.x1 - t.x0 + 1, oy + 10, "glue", 2.0, 0.5)
        if t.glue_below:
            page.text(ox + 2, oy + t.y1 - t.y0 + 6, "glue", 2.0, 0.5)
        # Caption and a 100 mm bar to check the printer kept the scale.
        fy = ph - MARGIN - 0.5
        page.text(MARGIN, fy, f"dicetable mat {layout.key} - sheet row {t.row + 1}/{rows}, "
                              f"column {t.col + 1}/{cols} - print at 100 %", 2.5)
        by = ph - MARGIN - FOOTER + 1.5
        page.line(MARGIN, by, MARGIN + 100, by, 0.5)
        for tick in (0.0, 50.0, 100.0):
            page.line(MARGIN + tick, by - 1.5, MARGIN + tick, by + 1.5, 0.3)
        page.text(MARGIN + 103, by + 1, "100 mm: check this bar", 2.0)
        pages.append(page)
    return pdf_bytes(pages, f"dicetable mat {layout.key} ({paper})")
