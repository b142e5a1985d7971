"""Measured face accuracy on renders never used in training, and of enrolment.

- per die type: crops of every face of every shipped type, rendered with seeds the training
  never used; a rejected reading counts as wrong.
- enrolment: new dice (random glyph faces on random colours, none in the training set, the
  six faces of a die different even up to a turn: faces that are one another turned cannot
  be told apart from above, by any reader) and
  ordinary dice whose 1 is replaced by an unseen symbol. The players' shots are rendered under
  one steady light (:data:`ENROL`); the test crops under other light, rotation, position and
  noise (:data:`vision.synth.facecrops.HARSH`).
"""

from __future__ import annotations

import logging
import time

import numpy as np

from vision.faces.dietypes import DieType, catalogue, custom, get_type
from vision.faces.draw import glyph_key
from vision.faces.reading import DieFaceReader, EnrolledDie
from vision.synth.facecrops import HARSH, STEADY, TRAIN, Conditions, face_crops

logger = logging.getLogger(__name__)

#: Shots taken by the players: the table's light, the die held still, any rotation.
ENROL = STEADY


def eval_types(reader: DieFaceReader, per_face: int = 100, seed: int = 10_000,
               cond: Conditions = TRAIN) -> dict[str, dict[str, float]]:
    """Per shipped type: accuracy, reject rate and accuracy of the accepted readings."""
    rng = np.random.default_rng(seed)
    out = {}
    for name, dt in catalogue().items():
        right = rejected = accepted_right = n = 0
        for face in dt.faces:
            got = reader.read_type(face_crops(dt, face, per_face, rng, cond, reader.crop_px), dt)
            for r in got:
                n += 1
                rejected += r.label is None
                right += r.label == face.label
                accepted_right += r.label == face.label
        out[name] = {"crops": n, "accuracy": right / n, "rejected": rejected / n,
                     "accuracy_accepted": accepted_right / max(n - rejected, 1)}
    return out


def distinct_glyph_seeds(start: int, n: int = 6) -> list[int]:
    """The first `n` glyph seeds from `start` whose bold glyphs differ even up to a turn (a
    die's faces must: a die lies at any yaw, so a face and the same face turned are one)."""
    out: list[int] = []
    keys: set[object] = set()
    sd = start
    while len(out) < n:
        k = glyph_key(sd)
        if k not in keys:
            keys.add(k)
            out.append(sd)
        sd += 1
    return out


def novel_dice(n: int, seed: int) -> list[DieType]:
    """Dice nobody trained on: a bold random symbol on each face, the six different even up
    to a turn (:func:`distinct_glyph_seeds`), random body/ink colours (ink and body differ in
    brightness, as printed dice do)."""
    rng = np.random.default_rng(seed)
    dice = []
    for i in range(n):
        body = rng.integers(0, 256, 3)
        ink = 255 - body if rng.random() < 0.7 else rng.integers(0, 256, 3)
        if abs(int(body.mean()) - int(ink.mean())) < 80:
            ink = np.full(3, 20 if body.mean() > 127 else 235)
        hexes = ["#" + "".join(f"{int(v):02x}" for v in c) for c in (body, ink)]
        dice.append(custom(f"novel-{seed}-{i}", [f"f{k}" for k in range(6)], hexes[0], hexes[1],
                           seeds=distinct_glyph_seeds(900_000 + seed * 1000 + i * 40),
                           bold=True))
    return dice


def symbol_dice(n: int, seed: int) -> list[DieType]:
    """Ordinary d6 whose 1 shows a bold random symbol nobody trained on (glyph seeds
    950 000 + seed + i): the skull-on-the-1 case, where only that face is enrolled."""
    d6 = get_type("d6")
    out = []
    for i in range(n):
        glyph = custom("sym", ["1"], d6.body, d6.ink, seeds=[950_000 + seed + i],
                       bold=True).faces[0]
        out.append(DieType(f"d6-symbol-{i}", "", d6.body, d6.ink, (glyph, *d6.faces[1:])))
    return out


def enrolled(dt: DieType, shots: int, rng: np.random.Generator, crop_px: int,
             name: str | None = None) -> EnrolledDie:
    """``dt`` enrolled as a new die (``name``, default its own): `shots` steady shots
    (:data:`ENROL`) of each distinct face."""
    die = EnrolledDie(name or dt.name)
    for face in {f.label: f for f in dt.faces}.values():
        die.add(face.label, face_crops(dt, face, shots, rng, ENROL, crop_px))
    return die


def _measure(reader: DieFaceReader, die: EnrolledDie, truth: DieType, tests: int,
             rng: np.random.Generator, clock: list[float] | None = None,
             rejected: list[int] | None = None) -> tuple[int, int]:
    """(right, crops) of `die`'s reading of its faces; `clock` gets the seconds spent
    reading, after the die's enrolment was prepared (its first reading); `rejected` the
    number of readings rejected (under the reader's threshold)."""
    right = n = 0
    for face in {f.label: f for f in truth.faces}.values():
        crops = face_crops(truth, face, tests, rng, HARSH, reader.crop_px)
        reader.read_enrolled(crops[:1], die)  # prepares the die once: not the reading's time
        t0 = time.perf_counter()
        got = reader.read_enrolled(crops, die)
        if clock is not None:
            clock.append(time.perf_counter() - t0)
        right += sum(r.label == face.label for r in got)
        n += len(got)
        if rejected is not None:
            rejected.append(sum(r.label is None for r in got))
    return right, n


def eval_enrolment(reader: DieFaceReader, shots: int, dice: int = 8, tests: int = 40,
                   seed: int = 20_000, catalogue_tests: int = 0) -> dict[str, float]:
    """Accuracy after `shots` enrolment shots per face, on new dice and on d6 with a symbol
    (and, with `catalogue_tests`, on the shipped dice enrolled as new)."""
    rng = np.random.default_rng(seed + shots)
    right = n = 0
    clock: list[float] = []
    rejected: list[int] = []
    for dt in novel_dice(dice, seed):
        die = enrolled(dt, shots, rng, reader.crop_px)
        r, k = _measure(reader, die, dt, tests, rng, clock, rejected)
        right, n = right + r, n + k
    new_right, new_n, new_rejected = right, n, sum(rejected)
    ms_per_crop = 1000 * sum(clock) / n
    # ordinary dice whose 1 shows a symbol nobody trained on: only that face is enrolled
    right = n = 0
    for truth in symbol_dice(dice, seed):
        die = EnrolledDie(truth.name, base="d6")
        die.add("1", face_crops(truth, truth.faces[0], shots, rng, ENROL, reader.crop_px))
        r, k = _measure(reader, die, truth, tests, rng)
        right, n = right + r, n + k
    out = {"shots": shots, "new_dice_accuracy": new_right / new_n,
           "symbol_face_accuracy": right / n,
           # The same readings seen as a reader with a reject option: the share it declined
           # (the players are asked) and how many of the others were right.
           "new_dice_rejected": new_rejected / new_n,
           "new_dice_accuracy_accepted": new_right / max(new_n - new_rejected, 1),
           "new_dice_ms_per_crop": round(ms_per_crop, 2)}
    if catalogue_tests:
        out["catalogue_as_new_accuracy"] = eval_catalogue_as_new(reader, shots,
                                                                 catalogue_tests, seed)
    return out


def eval_catalogue_as_new(reader: DieFaceReader, shots: int, tests: int = 10,
                          seed: int = 20_000) -> float:
    """Accuracy on the shipped dice enrolled as if nobody had catalogued them (every distinct
    face enrolled, no base type): printed faces of another family than the random glyphs the
    enrolment embedding was trained on (pictograms, colour patches, Quarriors numbers)."""
    rng = np.random.default_rng(seed + 500 + shots)
    right = n = 0
    for dt in catalogue().values():
        die = enrolled(dt, shots, rng, reader.crop_px, f"new-{dt.name}")
        r, k = _measure(reader, die, dt, tests, rng)
        right, n = right + r, n + k
    return right / n
