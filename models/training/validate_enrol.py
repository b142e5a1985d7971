"""Chooses how an enrolled die's reading fuses its opinions, on validation dice.

Usage: ``python -m models.training.validate_enrol [--seed 60000] [--dice 16] [--tests 20]``

The validation dice are :func:`vision.faces_eval.novel_dice` of seed 60 000 and d6 with a
symbol face of that seed: apart from the measured ones (``dicetable pieces``, seeds 20 000+)
and from the enrolment embedding's training dice (:mod:`models.training.train_enrol`). The
correlation, the face model's centred cosine and the enrolment embedding's cosine are taken
once per crop; then every weight of :data:`WEIGHTS` and scale of :data:`SCALES` is read as
:meth:`vision.faces.DieFaceReader.read_enrolled` reads (a rejected crop counts as wrong);
prints accuracy and the log-loss of the true face per setting, for 3 and 5 shots.
"""

from __future__ import annotations

import argparse
import itertools
import json

import numpy as np
from tqdm import tqdm

from vision.facecrops import HARSH, face_crops
from vision.faces import DieFaceReader, EnrolledDie
from vision.faces_eval import ENROL, enrolled, novel_dice, symbol_dice

#: (face model's cosine weight, enrolment embedding's weight)
WEIGHTS = [(0.15, 0.0), (0.15, 0.1), (0.15, 0.2), (0.15, 0.3), (0.15, 0.5), (0.15, 0.75),
           (0.15, 1.0), (0.15, 1.5), (0.0, 0.3), (0.0, 0.5), (0.0, 1.0), (0.0, 1.5)]
SCALES = [20.0, 40.0, 60.0, 80.0]
ALONE = 1000.0
"""Weight standing for "the enrolment embedding alone" (the others negligible beside it)."""


def collect(reader: DieFaceReader, shots: int, dice: int, tests: int, seed: int
            ) -> list[tuple[EnrolledDie, np.ndarray, str, bool]]:
    """(die, crops, true label, symbol case) per face of every validation die."""
    rng = np.random.default_rng(seed + shots)
    out = []
    for dt in novel_dice(dice, seed):
        die = enrolled(dt, shots, rng, reader.crop_px)
        out += [(die, face_crops(dt, f, tests, rng, HARSH, reader.crop_px), f.label, False)
                for f in {f.label: f for f in dt.faces}.values()]
    for truth in symbol_dice(dice, seed):
        die = EnrolledDie(truth.name, base="d6")
        die.add("1", face_crops(truth, truth.faces[0], shots, rng, ENROL, reader.crop_px))
        out += [(die, face_crops(truth, f, tests, rng, HARSH, reader.crop_px), f.label, True)
                for f in {f.label: f for f in truth.faces}.values()]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=60_000)
    ap.add_argument("--dice", type=int, default=16)
    ap.add_argument("--tests", type=int, default=20)
    args = ap.parse_args()
    reader = DieFaceReader()
    if reader.enroller is None:
        raise SystemExit("no enrolment embedding beside the face model")
    parts_of = reader.enrolled_parts
    cache: dict[int, tuple] = {}

    def cached(crops: np.ndarray, die: EnrolledDie, face_model: bool = True) -> tuple:
        if id(crops) not in cache:  # every part, whatever the weights tried
            cache[id(crops)] = parts_of(crops, die, True)
        return cache[id(crops)]

    reader.enrolled_parts = cached  # type: ignore[method-assign]
    report = {}
    for shots in (3, 5):
        items = collect(reader, shots, args.dice, args.tests, args.seed)
        for die, crops, _, _ in tqdm(items, desc=f"{shots} shots", unit="face"):
            cached(crops, die)
        for (ew, nw), sc in itertools.product(WEIGHTS + [(0.0, ALONE)], SCALES):
            reader.embed_weight, reader.enrol_weight = ew, nw
            reader.fused_scale = sc / ALONE if nw == ALONE else sc
            right = {False: 0, True: 0}
            n = {False: 0, True: 0}
            nll = 0.0
            for die, crops, label, sym in items:
                for r in reader.read_enrolled(crops, die):
                    right[sym] += r.label == label
                    n[sym] += 1
                    nll -= np.log(max(r.dist.get(label, 0.0), 1e-9))
            key = f"{shots} shots, cos {ew}, enrol {'alone' if nw == ALONE else nw}, scale {sc}"
            report[key] = {"new_dice": round(right[False] / n[False], 4),
                           "symbol_face": round(right[True] / n[True], 4),
                           "nll": round(nll / (n[False] + n[True]), 4)}
            print(key, report[key], flush=True)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
