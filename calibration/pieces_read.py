"""Custom dice, pyramids and cards of a game in one photo: what `dicetable read --game G`
adds, and the :class:`engine.observation.Observed` objects the live loop weighs.

- dice of a game with catalogued die types (IceDice, Quarriors): the type of each die is the
  one whose face means (embedding of rendered faces) lie nearest; its face is then read with
  that type's calibrated probabilities.
- pyramids (IceDice) and card slots (Pyramid Dice: the pyramid's and the side area's places)
  need the profile: they are read on the table plane, against the mat's own raster.
"""

from __future__ import annotations

import logging
from functools import cache
from typing import Any

import numpy as np

from calibration.card_layout import card_slots
from calibration.layouts import Layout
from calibration.mat import render_mat
from calibration.profile import Profile
from engine.observation import Observed
from vision.card_slots import read_slots
from vision.detections import Detections
from vision.dietypes import game_types, get_type
from vision.faces import DieFaceReader
from vision.pyramids import RAINBOW, SUITS_EDITION, read_pyramids

logger = logging.getLogger(__name__)

PPM = 2.0


#: Squares cut inside a die's box, as fractions of its shorter side, each on a 3 x 3 grid of
#: places (corners, edges' middles, centre), besides the box itself: where the top face is.
TOP_FRACTIONS = (0.6, 0.75, 0.9)
SCALE_CODED_FRACTION = 0.75
"""The smallest square a scale-coded type's face is read from (see :func:`scale_coded`)."""


@cache
def scale_coded(type_name: str) -> bool:
    """Whether a type's faces are told apart by the size of what they show (IceDice's size
    die: a small, a medium or a large pyramid). A square cut inside such a face zooms its
    pictogram, so a medium pyramid read from a 0.6 square looks large (of the IceDice dice
    seen within 15 degrees of square-on and misread in device.photo_angles' seed-1 photos,
    7 of 8 were size dice read one size up, every one read right from its box). The square
    nearest a face mean is then chosen among those of at least SCALE_CODED_FRACTION, chosen
    on seed 0 (size dice read as such, 323 in 200 photos: 253 right as before, 267 with
    0.75, 222 with 0.9; the box when it is nearly as near, a vote of the squares, or the
    surest square: no better). Held out, ``python -m device.photo_angles`` (seed 1): size
    dice 256 -> 267 of 320, all IceDice dice 726 -> 737 of 925 (25-45 degrees 370 -> 381).
    It does not mend the near-axis ones (114 -> 115 of 122): a 0.75 square still zooms a
    face that fills the box, and the box alone misreads the oblique ones (141 of 323)."""
    return any(f.look_dict().get("kind") == "pictogram" for f in get_type(type_name).faces)


def top_candidates(xyxy: np.ndarray) -> np.ndarray:
    """(N, 1 + 9 x len(TOP_FRACTIONS), 4) boxes per die: its box, then squares inside it.

    A photo's die shows its sides as well as its top face, the more so the farther it lies
    from the camera's axis (a side as wide as 0.5-1 face at a wide phone's edge), and the
    sides are printed: the box's crop is a mix of faces the face model never trained on (its
    crops show plain sides, up to 0.35 of a face, vision.facecrops). Which corner of the box
    the top face is in depends on the camera's pose, which `read --game` does not know, so
    every place is a candidate."""
    xyxy = np.asarray(xyxy, np.float64).reshape(-1, 4)
    out = [xyxy]
    side = np.minimum(xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1])
    for f in TOP_FRACTIONS:
        a = side * f
        for cx in (xyxy[:, 0] + a / 2, (xyxy[:, 0] + xyxy[:, 2]) / 2, xyxy[:, 2] - a / 2):
            for cy in (xyxy[:, 1] + a / 2, (xyxy[:, 1] + xyxy[:, 3]) / 2, xyxy[:, 3] - a / 2):
                out.append(np.stack([cx - a / 2, cy - a / 2, cx + a / 2, cy + a / 2], axis=1))
    return np.stack(out, axis=1).astype(np.float32)


def read_dice_types(reader: DieFaceReader, image: np.ndarray, det: Detections, game: str,
                    types: list[str] | None = None) -> list[dict[str, Any] | None]:
    """Per detection: type, face, face_probability and faces (distribution) for the game's
    catalogued die types; None for every die when the game has none (plain d6).

    Of the die's box and the squares inside it (:func:`top_candidates`), the crop whose
    embedding lies nearest to any of the game's face means is the top face's: it gives the
    type, and its face is read with that type. Cut from the box alone, dice of rendered
    photos (device.light_faces, grey table, 40 photos, true boxes) were read right
    117 / 199 IceDice and 105 / 199 Quarriors, 123 / 199 each even with the true type: a crop
    around the true top face reads 187 and 173 (probes). The squares were chosen on those
    photos (161 and 148 right); on others (light_faces --seed 1, five tables) IceDice
    553 -> 726 of 925 dice right, Quarriors 474 -> 676; with the scale-coded rule
    (:func:`scale_coded`) IceDice 737.

    `types`: the die types it may be, when known (default: every catalogued type of `game`)."""
    types = game_types(game) if types is None else types
    if not types or len(det) == 0:
        return [None] * len(det)
    boxes = top_candidates(det.xyxy)
    n, k = boxes.shape[:2]
    crops = reader.crops(image, boxes.reshape(-1, 4))  # die i's candidate c at i * k + c
    emb = reader.embed(crops)  # turned like the rendered faces' means
    names, means = [], []
    for t in types:
        for m in reader.base_means(t).values():
            names.append(t)
            means.append(m)
    sims = (emb @ np.stack(means).T).reshape(n, k, len(means))
    out: list[dict[str, Any] | None] = []
    fraction = np.array([1.0, *np.repeat(TOP_FRACTIONS, 9)])  # each candidate's, the box 1
    for i in range(n):
        c, m = np.unravel_index(int(np.argmax(sims[i])), sims[i].shape)
        t = names[int(m)]
        if scale_coded(t) and fraction[c] < SCALE_CODED_FRACTION:
            own = sims[i][:, [j for j, u in enumerate(names) if u == t]].max(axis=1)
            c = int(np.argmax(np.where(fraction >= SCALE_CODED_FRACTION, own, -np.inf)))
        r = reader.read_type(crops[i * k + c][None], t)[0]
        out.append({"type": t, "face": r.label, "face_probability": round(r.probability, 4),
                    "faces": {lb: round(v, 4) for lb, v in r.dist.items()}})
    return out


@cache
def mat_raster(layout: Layout) -> np.ndarray:
    """The mat as printed, at PPM pixels per mm: the reference pieces and cards are told
    from (rendered once per layout)."""
    return render_mat(layout, PPM)


def read_table_pieces(profile: Profile, image: np.ndarray, edition: str = "rainbow",
                      card_zones: tuple[str, ...] = ("pyramid", "side")
                      ) -> list[dict[str, Any]]:
    """Pyramids (IceDice) or card slots (Pyramid Dice, of `card_zones`) of a calibrated
    table photo."""
    layout, g = profile.layout, profile.geometry
    region = (0.0, 0.0, *layout.size_mm)
    out: list[dict[str, Any]] = []
    if layout.game == "icedice":
        palette = SUITS_EDITION if edition == "suits" else RAINBOW
        for p in read_pyramids(image, g.homography, region, reference=mat_raster(layout),
                               nadir=g.camera_mm[:2], palette=palette, ppm=PPM):
            zone, slot = layout.locate((p.x, p.y))
            out.append({"kind": "piece", "type": "pyramid", "zone": zone, "slot": slot,
                        "position_mm": [round(p.x, 1), round(p.y, 1)],
                        "colour": max(p.colour, key=p.colour.get),
                        "size": max(p.size, key=p.size.get),
                        "colours": {k: round(v, 4) for k, v in p.colour.items()},
                        "sizes": {k: round(v, 4) for k, v in p.size.items()},
                        "base_mm": round(p.base_mm, 1)})
    elif layout.game == "pyramid_dice":
        zones = [z for z in card_zones if any(
            zz.name == z and zz.slots for zz in layout.zones)]
        slots, zone_of = [], {}
        for z in zones:
            for s in card_slots(layout, z):
                slots.append(s)
                zone_of[s.id] = z
        poly = np.concatenate([np.array(layout.zone(z).polygon) for z in zones])
        x0, y0 = poly.min(axis=0)
        x1, y1 = poly.max(axis=0)
        mat = mat_raster(layout)
        ref = mat[int(y0 * PPM):int(round(y1 * PPM)), int(x0 * PPM):int(round(x1 * PPM))]
        got = read_slots(image, g.homography, slots, ref, (x0, y0, x1, y1), PPM)
        for s in slots:
            out.append({"kind": "card", "type": "card", "zone": zone_of[s.id], "slot": s.id,
                        "present": got[s.id] >= 0.5, "probability": round(got[s.id], 4)})
    return out


def observed_pieces(pieces: list[dict[str, Any]]) -> list[Observed]:
    """The engine's view of read pieces: pyramids with colour and size distributions, the
    cards present in their slots (the card's identity is the state's, not the camera's)."""
    out = []
    for p in pieces:
        if p["kind"] == "piece":
            out.append(Observed.make("piece", p["zone"], p["slot"],
                                     position_mm=tuple(p["position_mm"]),
                                     colour=p["colours"], size=p["sizes"]))
        elif p["kind"] == "card" and p["present"]:
            # the engine names no place in the side area: a card there is only "in side"
            slot = None if p["zone"] == "side" else p["slot"]
            out.append(Observed.make("card", p["zone"], slot,
                                     confidence=float(p["probability"])))
    return out
