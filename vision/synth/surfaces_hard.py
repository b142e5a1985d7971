"""Hard table surfaces: wood (grain, planks, varnish glare), wood-look vinyl floor, paper
(plain, graph, printed, a sheet on a desk), circuit boards, tiles and stone.

Each function is ``kind(h, w, mm_per_px, rng) -> (h, w, 3) uint8 BGR`` with its features
sized in millimetres, registered in :mod:`vision.synth.surfaces`. Grain and planks run along the
image's x axis: the camera's random azimuth and roll turn them every way.
"""

from __future__ import annotations

import logging

import cv2
import numpy as np

from vision.synth.surface_noise import (
    BGR,
    axes_px,
    fbm,
    grain,
    jitter_colour,
    ramp,
    scaled,
    smooth,
    smoothstep,
    soft_light,
    streaks,
)

logger = logging.getLogger(__name__)

#: (dark, light) wood tones, BGR: pine, oak, red-brown varnished, walnut, ebony-dark,
#: beige desk laminate, grey-washed.
WOOD_COLOURS: tuple[tuple[BGR, BGR], ...] = (
    ((60.0, 110.0, 165.0), (125.0, 180.0, 225.0)),
    ((50.0, 95.0, 140.0), (100.0, 150.0, 195.0)),
    ((20.0, 40.0, 115.0), (45.0, 75.0, 170.0)),
    ((25.0, 40.0, 65.0), (55.0, 80.0, 115.0)),
    ((15.0, 20.0, 28.0), (40.0, 50.0, 62.0)),
    ((75.0, 120.0, 165.0), (120.0, 165.0, 210.0)),
    ((95.0, 100.0, 108.0), (160.0, 165.0, 172.0)),
)


def _wood_tone(h: int, w: int, mm_per_px: float, rng: np.random.Generator,
               offset: np.ndarray | float = 0.0) -> np.ndarray:
    """Tone in about [0, 1] of flat-sawn wood with its grain along x.

    Growth rings are the level lines of the cross-grain coordinate bent by long, thin noise;
    each ring darkens sharply at its late wood. Pores are finer streaks. ``offset`` (scalar
    or (h, 1)) shifts the rings, so planks cut from the same field do not line up.
    """
    y, _ = axes_px(h, w)
    ring_mm = rng.uniform(1.5, 7.0)
    # Rings bend by millimetres, not by rings: a close view of fine grain stays straight.
    bend_mm = rng.uniform(3, 15) * streaks(h, w, 220 / mm_per_px, 40 / mm_per_px, rng) + \
        rng.uniform(0.5, 3) * streaks(h, w, 70 / mm_per_px, 10 / mm_per_px, rng)
    d = y * (mm_per_px / ring_mm) + bend_mm / ring_mm + offset
    frac = d - np.floor(d)
    late = frac ** rng.uniform(3.0, 9.0)
    pores = streaks(h, w, rng.uniform(6, 25) / mm_per_px, max(1.0, 0.35 / mm_per_px), rng)
    broad = streaks(h, w, 300 / mm_per_px, 25 / mm_per_px, rng)
    tone = 0.62 - rng.uniform(0.15, 0.4) * late + 0.05 * pores + 0.07 * broad
    return tone + 0.03 * grain(h, w, rng) + _fibre_lines(h, w, mm_per_px, rng, 0.1)


def _fibre_lines(h: int, w: int, mm_per_px: float, rng: np.random.Generator, strength: float
                 ) -> np.ndarray:
    """Sparse crisp lines along the grain, dark and light: the open pores and rays a close
    view of real wood (or its print) is full of."""
    across = max(1.0, 0.25 / mm_per_px)
    dark = smoothstep(1.0, 1.5, streaks(h, w, rng.uniform(10, 40) / mm_per_px, across, rng))
    light = smoothstep(1.0, 1.5, streaks(h, w, rng.uniform(10, 40) / mm_per_px, across, rng))
    return strength * (0.5 * light - dark)


def _glare(h: int, w: int, mm_per_px: float, rng: np.random.Generator) -> np.ndarray:
    """(h, w) in [0, 1]: the lamp mirrored in a varnished top, one soft bright band."""
    y, x = axes_px(h, w)
    ang = rng.uniform(0, np.pi)
    cx, cy = rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h
    dist = np.abs((x - cx) * float(np.cos(ang)) + (y - cy) * float(np.sin(ang)))
    width = rng.uniform(20, 150) / mm_per_px
    band = np.exp(-0.5 * (dist / width) ** 2) * rng.uniform(0.3, 0.9)
    return band * np.clip(1 + 0.15 * smooth(h, w, 200 / mm_per_px, rng), 0, 2)


def _with_glare(tone: np.ndarray, h: int, w: int, mm_per_px: float,
                rng: np.random.Generator) -> np.ndarray:
    g = _glare(h, w, mm_per_px, rng)
    return tone + (1.15 - tone) * g


def _wood_ramp(rng: np.random.Generator) -> list[tuple[float, BGR]]:
    dark, light = WOOD_COLOURS[int(rng.integers(len(WOOD_COLOURS)))]
    dark, light = jitter_colour(dark, rng, 6), jitter_colour(light, rng, 6)
    # Tones above 1 (glare) run out to near white: the varnish mirrors the lamp.
    return [(0.0, scaled(dark, 0.6)), (0.35, dark), (0.75, light), (1.0, (235.0, 240.0, 245.0))]


def _finish(tone: np.ndarray, stops: list[tuple[float, BGR]]) -> np.ndarray:
    """Tone in about [0, 1.15] (1.15: glare) mapped to the ramp's [0, 1]."""
    return ramp(np.clip(tone / 1.15, 0, 1), stops)


def wood(h: int, w: int, mm_per_px: float, rng: np.random.Generator) -> np.ndarray:
    """One wide board or a veneered desk top: light or dark grain, sometimes varnished."""
    tone = _wood_tone(h, w, mm_per_px, rng) * soft_light(h, w, mm_per_px, rng, 0.06)
    if rng.random() < 0.5:
        tone = _with_glare(tone, h, w, mm_per_px, rng)
    return _finish(tone, _wood_ramp(rng))


def _plank_index(h: int, w: int, mm_per_px: float, width_mm: float, rng: np.random.Generator
                 ) -> tuple[np.ndarray, np.ndarray]:
    """(row's plank (h, 1), seam mask (h, w) in [0, 1]): planks along x ``width_mm`` wide,
    each with its own staggered end joints."""
    y, x = axes_px(h, w)
    width = width_mm / mm_per_px
    plank = np.floor(y / width).astype(np.int32)
    seam_w = max(0.7, rng.uniform(0.5, 1.5) / mm_per_px)
    dy = np.abs(y - (plank.astype(np.float32) + 0.5) * width)
    seam = smoothstep(width / 2 - seam_w, width / 2, dy) * np.ones((1, w), np.float32)
    length = rng.uniform(600, 1500) / mm_per_px
    starts = rng.uniform(0, length, int(plank.max()) + 2).astype(np.float32)
    along = (x + starts[plank]) % length
    seam = np.maximum(seam, smoothstep(seam_w, 0, np.minimum(along, length - along)))
    return plank, seam


def planks(h: int, w: int, mm_per_px: float, rng: np.random.Generator) -> np.ndarray:
    """A plank floor or table: boards with offset grain, own tints and dark seams."""
    plank, seam = _plank_index(h, w, mm_per_px, rng.uniform(70, 200), rng)
    n = int(plank.max()) + 1
    offsets = rng.uniform(0, 50, n).astype(np.float32)
    tints = rng.uniform(0.88, 1.1, n).astype(np.float32)
    tone = _wood_tone(h, w, mm_per_px, rng, offsets[plank]) * tints[plank]
    tone = tone * (1 - 0.6 * seam)
    if rng.random() < 0.4:
        tone = _with_glare(tone, h, w, mm_per_px, rng)
    return _finish(tone * soft_light(h, w, mm_per_px, rng, 0.06), _wood_ramp(rng))


def vinyl_floor(h: int, w: int, mm_per_px: float, rng: np.random.Generator) -> np.ndarray:
    """Grey wood-look vinyl boards: a printed grain of long dark and light streaks."""
    plank, seam = _plank_index(h, w, mm_per_px, rng.uniform(140, 240), rng)
    n = int(plank.max()) + 1
    offsets = rng.uniform(0, 50, n).astype(np.float32)
    tone = 0.5 + 0.5 * (_wood_tone(h, w, mm_per_px, rng, offsets[plank]) - 0.5)
    # The print: many thin streaks of varying darkness, like brushed weathered wood.
    fine = streaks(h, w, rng.uniform(30, 90) / mm_per_px, max(1.0, 0.4 / mm_per_px), rng)
    tone += 0.07 * fine - 0.12 * np.clip(streaks(h, w, 150 / mm_per_px, 3 / mm_per_px, rng)
                                         - 0.6, 0, None)
    tone += _fibre_lines(h, w, mm_per_px, rng, 0.15)
    tone *= rng.uniform(0.9, 1.1, n).astype(np.float32)[plank]
    tone = tone * (1 - 0.45 * seam) * soft_light(h, w, mm_per_px, rng, 0.08)
    grey = scaled((128.0, 128.0, 131.0), rng.uniform(0.8, 1.15))
    return ramp(np.clip(tone, 0, 1), [(0.0, scaled(grey, 0.35)), (0.5, grey),
                                      (1.0, scaled(grey, 1.45))])


def _paper_tone(h: int, w: int, mm_per_px: float, rng: np.random.Generator) -> np.ndarray:
    return 0.88 + 0.015 * grain(h, w, rng) + 0.012 * smooth(h, w, 150 / mm_per_px, rng)


_PAPER: BGR = (238.0, 242.0, 245.0)


def _line_grid(h: int, w: int, pitch: float, width: float) -> np.ndarray:
    """(h, w) coverage of ruled lines every ``pitch`` px in both directions, ``width`` px
    wide, anti-aliased (a line a tenth of a pixel wide is a faint one, not a missing one)."""
    y, x = axes_px(h, w)
    dx = np.abs((x / pitch + 0.5) % 1.0 - 0.5) * pitch
    dy = np.abs((y / pitch + 0.5) % 1.0 - 0.5) * pitch
    cover = min(1.0, width)
    return np.maximum(np.clip(width / 2 + 0.5 - dx, 0, cover),
                      np.clip(width / 2 + 0.5 - dy, 0, cover))


def paper(h: int, w: int, mm_per_px: float, rng: np.random.Generator) -> np.ndarray:
    """Plain white paper or a white board: bright, almost flat."""
    tint = jitter_colour(_PAPER, rng, 5)
    return ramp(np.clip(_paper_tone(h, w, mm_per_px, rng), 0, 1),
                [(0.0, (0.0, 0.0, 0.0)), (0.9, tint), (1.0, scaled(tint, 1.08))])


def graph_paper(h: int, w: int, mm_per_px: float, rng: np.random.Generator) -> np.ndarray:
    """Squared paper: thin lines every 5 mm (bolder every 10), grey, blue or green."""
    img = paper(h, w, mm_per_px, rng).astype(np.float32)
    ink = np.array(jitter_colour([(150, 150, 150), (200, 160, 120), (150, 185, 140)][
        int(rng.integers(3))], rng, 8), np.float32)
    pitch = float(rng.choice([5.0, 5.0, 4.0, 10.0])) / mm_per_px
    lines = _line_grid(h, w, pitch, 0.2 / mm_per_px) * rng.uniform(0.5, 0.9)
    if rng.random() < 0.5:
        lines = np.maximum(lines, _line_grid(h, w, pitch * 2, 0.4 / mm_per_px))
    img += (ink - img) * lines[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


_WORDS = ("the", "dice", "roll", "turn", "score", "and", "player", "card", "rules", "of",
          "game", "each", "move", "12", "2024", "page", "table", "if", "when", "points")


def _print_text(img: np.ndarray, mm_per_px: float, rng: np.random.Generator) -> None:
    """Lines of small dark print across ``img`` (in place), as on a rule sheet."""
    h, w = img.shape[:2]
    line_mm = rng.uniform(2.5, 5.0)
    scale = line_mm * 0.4 / mm_per_px / 22.0  # Hershey simplex caps are about 22 px at 1.0
    if scale < 0.05:
        return  # print smaller than the pixels: only the paper shows
    ink = tuple(float(v) for v in jitter_colour((40, 40, 45), rng, 10))
    thick = max(1, int(round(scale * 1.2)))
    step = int(line_mm / mm_per_px)
    margin = int(rng.uniform(0, 25) / mm_per_px)
    for y in range(int(rng.uniform(0.3, 1.0) * step), h, max(step, 2)):
        words = [_WORDS[int(k)] for k in rng.integers(0, len(_WORDS), 30)]
        cv2.putText(img, " ".join(words), (margin, y), cv2.FONT_HERSHEY_SIMPLEX, scale, ink,
                    thick, cv2.LINE_AA)


def printed_paper(h: int, w: int, mm_per_px: float, rng: np.random.Generator) -> np.ndarray:
    """A printed sheet (rules, a score pad): rows of small text on white."""
    img = paper(h, w, mm_per_px, rng)
    _print_text(img, mm_per_px, rng)
    return img


def paper_on_desk(h: int, w: int, mm_per_px: float, rng: np.random.Generator) -> np.ndarray:
    """A sheet of A4 lying askew on a wooden desk, its edge casting a thin shadow."""
    desk = wood(h, w, mm_per_px, rng)
    sheet = [paper, graph_paper, printed_paper][int(rng.integers(3))](h, w, mm_per_px, rng)
    centre = (w / 2 + rng.uniform(-0.3, 0.3) * w, h / 2 + rng.uniform(-0.3, 0.3) * h)
    size = (210 / mm_per_px, 297 / mm_per_px) if rng.random() < 0.5 else (297 / mm_per_px,
                                                                          210 / mm_per_px)
    box = cv2.boxPoints((centre, size, float(rng.uniform(-25, 25))))
    mask = np.zeros((h, w), np.float32)
    cv2.fillPoly(mask, [np.round(box * 16).astype(np.int32)], 1.0, cv2.LINE_AA, shift=4)
    shadow = cv2.GaussianBlur(mask, (0, 0), max(0.6, 1.5 / mm_per_px))
    shadow = np.roll(shadow, (int(1.5 / mm_per_px) + 1, int(1.0 / mm_per_px) + 1), (0, 1))
    out = desk.astype(np.float32) * (1 - 0.35 * shadow * (1 - mask))[..., None]
    out += (sheet.astype(np.float32) - out) * mask[..., None]
    return np.clip(out, 0, 255).astype(np.uint8)


def tiles(h: int, w: int, mm_per_px: float, rng: np.random.Generator) -> np.ndarray:
    """Ceramic tiles: one glaze colour varying tile to tile, grout lines, a glaze sheen."""
    size = rng.uniform(80, 400) / mm_per_px
    ratio = float(rng.choice([1.0, 1.0, 2.0, 0.5]))
    y, x = axes_px(h, w)
    ty, tx = np.floor(y / size), np.floor(x / (size * ratio))
    shift = (ty % 2) * 0.5 if rng.random() < 0.3 else 0.0  # running bond
    tx = np.floor(x / (size * ratio) + shift)
    grout = max(0.8, rng.uniform(2, 6) / mm_per_px)
    gx = np.abs(((x / (size * ratio) + shift) % 1.0) - 0.5) * size * ratio
    gy = np.abs((y / size % 1.0) - 0.5) * size
    line = np.maximum(smoothstep(size * ratio / 2 - grout, size * ratio / 2, gx),
                      smoothstep(size / 2 - grout, size / 2, gy))
    per_tile = rng.uniform(0.9, 1.08, (64, 64)).astype(np.float32)
    tone = 0.7 * per_tile[ty.astype(np.int32) % 64, tx.astype(np.int32) % 64]
    tone = tone + 0.015 * fbm(h, w, 20 / mm_per_px, rng)
    tone = tone * (1 - line) + line * rng.uniform(0.35, 0.95)
    tone = _with_glare(tone, h, w, mm_per_px, rng) if rng.random() < 0.5 else tone
    glaze = jitter_colour([(225, 228, 230), (160, 185, 205), (110, 110, 110), (120, 150, 90),
                           (60, 70, 80)][int(rng.integers(5))], rng, 8)
    return _finish(tone, [(0.0, (20.0, 20.0, 20.0)), (0.6, glaze),
                          (1.0, (245.0, 245.0, 245.0))])


def stone(h: int, w: int, mm_per_px: float, rng: np.random.Generator) -> np.ndarray:
    """Granite (speckled crystals of three sizes) or marble (veins) worktop."""
    base = jitter_colour([(60, 60, 62), (180, 180, 178), (110, 120, 135), (35, 35, 40)][
        int(rng.integers(4))], rng, 6)
    tone: np.ndarray
    if rng.random() < 0.6:
        tone = np.full((h, w), 0.5, np.float32)
        for size_mm, k in ((0.8, 0.25), (2.0, 0.3), (4.0, 0.2)):
            n = smooth(h, w, size_mm / mm_per_px, rng)
            tone += k * (n > 1.0) - k * (n < -1.1)
        tone += 0.05 * grain(h, w, rng)
    else:
        y, x = axes_px(h, w)
        turb = fbm(h, w, 250 / mm_per_px, rng, 3)
        period = rng.uniform(40, 120) / mm_per_px
        vein = np.abs(np.sin((x + y * rng.uniform(-1, 1)) / period + 0.6 * turb))
        tone = 0.65 - 0.3 * (1 - vein) ** 20 + 0.05 * smooth(h, w, 30 / mm_per_px, rng)
    tone = _with_glare(tone, h, w, mm_per_px, rng) if rng.random() < 0.4 else tone
    return _finish(tone, [(0.0, scaled(base, 0.3)), (0.45, base), (0.8, scaled(base, 1.5)),
                          (1.0, (240.0, 240.0, 240.0))])


def _pcb_traces(img: np.ndarray, mm_per_px: float, colour: BGR, rng: np.random.Generator
                ) -> None:
    """Manhattan and 45-degree copper traces ending in round pads (in place)."""
    h, w = img.shape[:2]
    width = max(1, int(rng.uniform(0.3, 1.2) / mm_per_px))
    for _ in range(int(h * w * mm_per_px ** 2 / 2500)):
        p = rng.uniform(0, 1, 2) * (w, h)
        pts = [p.copy()]
        for _ in range(int(rng.integers(2, 5))):
            ang = np.deg2rad(45 * int(rng.integers(8)))
            p = p + rng.uniform(5, 40) / mm_per_px * np.array([np.cos(ang), np.sin(ang)])
            pts.append(p.copy())
        poly = np.round(np.array(pts) * 16).astype(np.int32)
        cv2.polylines(img, [poly], False, colour, width, cv2.LINE_AA, shift=4)
        for q in (poly[0], poly[-1]):
            cv2.circle(img, tuple(int(v) for v in q), int(width * 1.6 * 16), colour, -1,
                       cv2.LINE_AA, shift=4)


def _pcb_parts(img: np.ndarray, mm_per_px: float, rng: np.random.Generator) -> None:
    """Chips with pins, capacitors, white silkscreen boxes and labels (in place)."""
    h, w = img.shape[:2]
    for _ in range(int(h * w * mm_per_px ** 2 / 6000) + 1):
        c = rng.uniform(0, 1, 2) * (w, h)
        kind = int(rng.integers(3))
        if kind == 0:  # a chip: black body, two rows of silver pins
            a, b = rng.uniform(5, 20, 2) / mm_per_px
            x0, y0 = int(c[0] - a / 2), int(c[1] - b / 2)
            pitch = max(2, int(1.27 / mm_per_px * 2))
            for x in range(x0 + pitch // 2, int(x0 + a), pitch):
                cv2.rectangle(img, (x, y0 - pitch // 2), (x + max(1, pitch // 3),
                                                         int(y0 + b + pitch // 2)),
                              (190, 190, 195), -1)
            cv2.rectangle(img, (x0, y0), (int(x0 + a), int(y0 + b)), (28, 28, 30), -1)
        elif kind == 1:  # an electrolytic capacitor seen from above
            r = int(rng.uniform(2.5, 5) / mm_per_px)
            cv2.circle(img, (int(c[0]), int(c[1])), r, jitter_colour((150, 80, 30), rng), -1,
                       cv2.LINE_AA)
            cv2.circle(img, (int(c[0]), int(c[1])), max(1, r * 2 // 3), (200, 200, 205), 1,
                       cv2.LINE_AA)
        else:  # silkscreen outline and reference
            a = rng.uniform(3, 12) / mm_per_px
            cv2.rectangle(img, (int(c[0]), int(c[1])), (int(c[0] + a), int(c[1] + a * 0.6)),
                          (230, 230, 230), 1)
            cv2.putText(img, f"R{int(rng.integers(1, 99))}", (int(c[0]), int(c[1] - 2)),
                        cv2.FONT_HERSHEY_SIMPLEX, max(0.2, 0.06 / mm_per_px), (230, 230, 230),
                        1, cv2.LINE_AA)


def circuit_board(h: int, w: int, mm_per_px: float, rng: np.random.Generator) -> np.ndarray:
    """A circuit board or perfboard: solder mask, copper traces and pads, a grid of plated
    holes, chips and capacitors (an electronics box full of round and square things)."""
    mask = jitter_colour([(45, 90, 25), (60, 100, 40), (110, 55, 20), (30, 30, 30),
                          (40, 40, 120)][int(rng.integers(5))], rng, 8)
    tone = np.clip(0.55 + 0.04 * smooth(h, w, 15 / mm_per_px, rng) + 0.03 * grain(h, w, rng),
                   0, 1)
    img = ramp(tone, [(0.0, (0.0, 0.0, 0.0)), (0.55, mask), (1.0, scaled(mask, 1.6))])
    if rng.random() < 0.5:  # perfboard: plated holes every 2.54 mm
        pitch = 2.54 / mm_per_px
        y, x = axes_px(h, w)
        dx = ((x / pitch) % 1.0 - 0.5) * pitch
        dy = ((y / pitch) % 1.0 - 0.5) * pitch
        r = np.sqrt(dx * dx + dy * dy)
        ring_r, hole_r = 0.8 / mm_per_px, 0.4 / mm_per_px
        rings = np.clip(ring_r + 0.5 - r, 0, 1)
        hole = np.clip(hole_r + 0.5 - r, 0, 1)
        copper = np.array(jitter_colour((70, 150, 200), rng, 10), np.float32)
        out = img.astype(np.float32)
        out += (copper - out) * rings[..., None]
        out *= (1 - 0.85 * hole)[..., None]
        img = np.clip(out, 0, 255).astype(np.uint8)
    _pcb_traces(img, mm_per_px, scaled(mask, 1.2), rng)
    _pcb_parts(img, mm_per_px, rng)
    _wires(img, mm_per_px, rng)
    return img


_WIRE_COLOURS: tuple[BGR, ...] = ((40.0, 40.0, 200.0), (60.0, 160.0, 40.0), (190.0, 90.0, 30.0),
                                  (40.0, 210.0, 230.0), (230.0, 230.0, 230.0), (30.0, 30.0, 30.0))


def _wires(img: np.ndarray, mm_per_px: float, rng: np.random.Generator) -> None:
    """Loose insulated wires across the board: curves with a lit ridge (in place)."""
    h, w = img.shape[:2]
    width = max(2, int(rng.uniform(1.2, 2.2) / mm_per_px))
    for _ in range(int(rng.integers(0, 8))):
        ends = rng.uniform(-0.1, 1.1, (4, 2)) * (w, h)
        t = np.linspace(0, 1, 40)[:, None]
        curve = ((1 - t) ** 3 * ends[0] + 3 * (1 - t) ** 2 * t * ends[1]
                 + 3 * (1 - t) * t ** 2 * ends[2] + t ** 3 * ends[3])
        pts = np.round(curve * 16).astype(np.int32)
        colour = _WIRE_COLOURS[int(rng.integers(len(_WIRE_COLOURS)))]
        cv2.polylines(img, [pts], False, scaled(colour, 0.5), width + 2, cv2.LINE_AA, shift=4)
        cv2.polylines(img, [pts], False, colour, width, cv2.LINE_AA, shift=4)
        cv2.polylines(img, [pts - 16 * width // 4], False, scaled(colour, 1.5),
                      max(1, width // 3), cv2.LINE_AA, shift=4)
