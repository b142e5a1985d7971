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
from vision.dietypes import game_types
from vision.faces import DieFaceReader
from vision.pyramids import RAINBOW, SUITS_EDITION, read_pyramids
from vision.topface import CHOOSER_GAMES, TopFaceChooser, nearest, read_candidates

logger = logging.getLogger(__name__)

PPM = 2.0


def read_dice_types(reader: DieFaceReader, image: np.ndarray, det: Detections, game: str,
                    types: list[str] | None = None, chooser: Any = "shipped"
                    ) -> list[dict[str, Any] | None]:
    """Per detection: type, face, face_probability and faces (distribution) for the game's
    catalogued die types; None for every die when the game has none (plain d6).

    Of the die's box and the squares inside it (:func:`vision.topface.top_candidates`), each
    read with the type whose face means lie nearest it, one is chosen: by the shipped
    :class:`vision.topface.TopFaceChooser` for the games of
    :data:`vision.topface.CHOOSER_GAMES` (`chooser` "shipped"; or one given), else (None, or
    none shipped for this face model) the nearest to a face mean
    (:func:`vision.topface.nearest`). Cut from the box alone, dice of rendered photos
    (device.light_faces, grey table, 40 photos, true boxes) were read right 117 / 199
    IceDice and 105 / 199 Quarriors, 123 / 199 each even with the true type: a crop around
    the true top face reads 187 and 173 (probes). The squares were chosen on those photos
    (161 and 148 right); on others (light_faces --seed 1, five tables) IceDice 553 -> 726 of
    925 dice right, Quarriors 474 -> 676; with the scale-coded rule
    (:func:`vision.topface.scale_coded`) IceDice 737.

    `types`: the die types it may be, when known (default: every catalogued type of `game`)."""
    types = game_types(game) if types is None else types
    if not types or len(det) == 0:
        return [None] * len(det)
    if isinstance(chooser, str):
        chooser = TopFaceChooser.beside(reader) if game in CHOOSER_GAMES else None
    out: list[dict[str, Any] | None] = []
    read_all = chooser is not None  # the nearest needs only the chosen one read
    for box, cands in zip(det.xyxy, read_candidates(reader, image, det.xyxy, types, read_all),
                          strict=True):
        if read_all:
            c = chooser.choose(cands, box, image.shape[:2])
            r = cands.readings[c]
        else:
            c = nearest(cands)
            r = reader.read_type(cands.crops[c][None], cands.types[c])[0]
        out.append({"type": cands.types[c], "face": r.label,
                    "face_probability": round(r.probability, 4),
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
