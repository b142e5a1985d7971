"""Printable mats: the PDF is a valid file at true scale, tiles cover the mat without cutting
a marker, the PNG records its resolution and its markers are where the layout says."""

from __future__ import annotations

import re
import struct
import zlib

import cv2
import numpy as np
import pytest

from calibration.geometry.markers import detect_markers
from calibration.layouts import all_layouts, load_layout
from calibration.printing.mat import paper_mask, png_bytes, render_mat
from calibration.printing.pdf import PT_PER_MM
from calibration.printing.tiles import (
    FOOTER,
    MARGIN,
    OVERLAP,
    PaperError,
    mat_pdf,
    paper_size,
    tiles,
)


def parse_pdf(data: bytes) -> dict:
    """Just enough of a PDF reader to check ours: objects by xref, pages, streams."""
    assert data.startswith(b"%PDF-1.")
    assert data.rstrip().endswith(b"%%EOF")
    start = int(re.search(rb"startxref\s+(\d+)", data).group(1))
    assert data[start:start + 4] == b"xref"
    m = re.match(rb"xref\s+0 (\d+)\s+", data[start:])
    count = int(m.group(1))
    table = data[start + m.end():].split(b"\n")[:count]
    offsets = [int(row[:10]) for row in table[1:]]
    objects = {}
    for i, off in enumerate(offsets, 1):
        assert data[off:].startswith(f"{i} 0 obj".encode()), f"xref of object {i} is wrong"
        end = data.index(b"endobj", off)
        objects[i] = data[off:end]
    pages = [o for o in objects.values() if b"/Type /Page " in o]
    boxes = [tuple(float(v) for v in re.search(rb"/MediaBox \[([^\]]+)\]", p).group(1).split())
             for p in pages]
    streams = []
    for p in pages:
        ref = int(re.search(rb"/Contents (\d+) 0 R", p).group(1))
        body = objects[ref]
        length = int(re.search(rb"/Length (\d+)", body).group(1))
        raw = body[body.index(b"stream\n") + 7:][:length]
        streams.append(zlib.decompress(raw).decode("latin-1"))
    return {"pages": pages, "boxes": boxes, "streams": streams, "objects": objects}


@pytest.mark.parametrize("paper,size_pt", [("A4", (595.28, 841.89)), ("A3", (841.89, 1190.55)),
                                           ("letter", (612.0, 792.0))])
def test_pdf_pages_are_the_paper_at_true_scale(paper: str, size_pt: tuple[float, float]) -> None:
    layout = load_layout("icedice", 2)
    pdf = parse_pdf(mat_pdf(layout, paper))
    (_, sheets) = tiles(layout, paper)
    assert len(pdf["pages"]) == len(sheets) >= 1
    for box in pdf["boxes"]:
        w, h = box[2], box[3]
        assert sorted((round(w, 1), round(h, 1))) == sorted((round(size_pt[0], 1),
                                                              round(size_pt[1], 1)))
    for text in pdf["streams"]:
        # everything is drawn in millimetres through one scale of 72/25.4 points per mm
        first = text.splitlines()[0].split()
        assert abs(float(first[0]) - PT_PER_MM) < 1e-3 and abs(float(first[3]) + PT_PER_MM) < 1e-3
        assert "100 mm" in text and "print at 100 %" in text
    assert b"/PrintScaling /None" in mat_pdf(layout, paper)


def test_pdf_marker_cells_have_the_layout_size() -> None:
    layout = load_layout("pyradice", 2)
    page = parse_pdf(mat_pdf(layout, "A3"))["streams"][0]
    # a filled marker cell: "0 g x0 y0 m x1 y0 l x1 y1 l x0 y1 l h f"
    cells = re.findall(r"0 g ([\d.]+) ([\d.]+) m ([\d.]+) [\d.]+ l [\d.]+ ([\d.]+) l", page)
    assert cells
    cell = layout.markers[0].size / 6
    heights = {round(float(y1) - float(y0), 3) for _, y0, _, y1 in cells}
    assert heights == {round(cell, 3)}  # every black run is exactly one 5 mm cell tall


@pytest.mark.parametrize("layout", all_layouts(), ids=lambda lay: lay.key)
@pytest.mark.parametrize("paper", ["A4", "A3", "letter"])
def test_tiles_cover_the_mat_and_fit_the_paper(layout, paper: str) -> None:
    (pw, ph), sheets = tiles(layout, paper)
    assert {(pw, ph), (ph, pw)} == {paper_size(paper), paper_size(paper)[::-1]}
    w, h = layout.size_mm
    assert sum((t.x1 - t.x0) * (t.y1 - t.y0) for t in sheets) == pytest.approx(w * h)
    for t in sheets:
        assert t.x1 - t.x0 + (OVERLAP if t.glue_right else 0) <= pw - 2 * MARGIN + 1e-6
        assert t.y1 - t.y0 + (OVERLAP if t.glue_below else 0) <= ph - 2 * MARGIN - FOOTER + 1e-6
        for m in layout.markers:  # no cut and no glue strip through a marker
            x0, y0, x1, y1 = (m.centre[0] - m.size / 2, m.centre[1] - m.size / 2,
                              m.centre[0] + m.size / 2, m.centre[1] + m.size / 2)
            for cut in (t.x1,) if t.glue_right else ():
                assert not (x0 - 3 <= cut + OVERLAP and cut - 3 <= x1)
            for cut in (t.y1,) if t.glue_below else ():
                assert not (y0 - 3 <= cut + OVERLAP and cut - 3 <= y1)
    with pytest.raises(PaperError):
        paper_size("B5")


def test_png_records_dpi_and_markers_are_in_place() -> None:
    layout = load_layout("icedice", 2)
    ppm = 4.0
    img = render_mat(layout, ppm)
    w, h = layout.size_mm
    assert img.shape[:2] == (round(h * ppm), round(w * ppm))
    data = png_bytes(img, ppm * 25.4)
    i = data.index(b"pHYs")
    x, y, unit = struct.unpack(">IIB", data[i + 4:i + 13])
    assert unit == 1 and x == y == round(ppm * 1000)
    assert cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR).shape == img.shape
    seen = detect_markers(img)
    assert set(seen.ids.tolist()) == layout.marker_ids()
    by = {m.id: m for m in layout.markers}
    for mid, corners in zip(seen.ids, seen.corners, strict=True):
        # the raster's pixel centres are at (j + 0.5) / ppm mm
        want = (np.array(by[int(mid)].corners()) * ppm) - 0.5
        assert np.abs(corners - want).max() < 1.0  # a quarter millimetre at 4 px/mm


def test_paper_mask_keeps_clear_of_ink() -> None:
    layout = load_layout("quarriors", 2)
    free = paper_mask(layout, 1.0, 2.0)
    m = layout.markers[0]
    assert not free[int(m.centre[1]), int(m.centre[0])]
    wilds = layout.zone("wilds").polygon
    cx = int(sum(p[0] for p in wilds) / 4)
    assert free[int(max(p[1] for p in wilds)) - 20, cx]  # the middle of a zone is bare paper
    assert 0.5 < free.mean() < 0.95


@pytest.mark.parametrize("game", ["icedice", "pyramid_dice", "pyradice", "quarriors"])
def test_every_game_mat_renders_as_pdf_and_png(game: str) -> None:
    layout = load_layout(game)
    pdf = parse_pdf(mat_pdf(layout, "A4"))
    assert len(pdf["pages"]) == len(tiles(layout, "A4")[1])
    assert all(z.label.split(" - ")[0] in "".join(pdf["streams"]) for z in layout.zones)
    img = render_mat(layout, 3.0)
    assert set(detect_markers(img).ids.tolist()) == layout.marker_ids()
