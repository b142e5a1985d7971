"""The type and face of each catalogued die in a photo of no calibrated table (what
`dicetable read --game G` adds to each die): the type is the one whose face means
(embedding of rendered faces) lie nearest; its face is then read with that type's calibrated
probabilities. On a calibrated table the dice stage reads them square-on instead
(calibration.table.dice_top)."""

from __future__ import annotations

from typing import Any

import numpy as np

from calibration.perception import perception
from vision.dice.detections import Detections
from vision.faces.reading import DieFaceReader
from vision.faces.topface import TopFaceChooser, nearest, read_candidates


def read_dice_types(reader: DieFaceReader, image: np.ndarray, det: Detections, game: str,
                    types: list[str] | None = None, chooser: Any = "shipped"
                    ) -> list[dict[str, Any] | None]:
    """Per detection: type, face, face_probability and faces (distribution) for the game's
    catalogued die types; None for every die when the game has none (plain d6).

    Of the die's box and the squares inside it (:func:`vision.faces.topface.top_candidates`), each
    read with the type whose face means lie nearest it, one is chosen: by the shipped
    :class:`vision.faces.topface.TopFaceChooser` for the games whose spec asks for it
    (calibration.games: ``top_face_chooser``; `chooser` "shipped", or one given), else
    (None, or none shipped for this face model) the nearest to a face mean
    (:func:`vision.faces.topface.nearest`). Cut from the box alone, dice of rendered photos
    (models.measure.light_faces, grey table, 40 photos, true boxes) were read right 117 / 199
    IceDice and 105 / 199 Quarriors, 123 / 199 each even with the true type: a crop around
    the true top face reads 187 and 173 (probes). The squares were chosen on those photos
    (161 and 148 right); on others (light_faces --seed 1, five tables) IceDice 553 -> 726 of
    925 dice right, Quarriors 474 -> 676; with the scale-coded rule
    (:func:`vision.faces.topface.scale_coded`) IceDice 737.

    `types`: the die types it may be, when known (default: every catalogued type of `game`)."""
    spec = perception(game)
    types = list(spec.types()) if types is None else types
    if not types or len(det) == 0:
        return [None] * len(det)
    if isinstance(chooser, str):
        chooser = TopFaceChooser.beside(reader) if spec.top_face_chooser else None
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
