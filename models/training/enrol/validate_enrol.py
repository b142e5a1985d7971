"""Chooses how an enrolled die's reading fuses its opinions, on validation dice.

Usage: ``python -m models.training.enrol.validate_enrol [--seed 60000] [--dice 16] [--tests 20]
[--catalogue-tests 10]``

The validation dice are :func:`vision.measure.faces.novel_dice` of seed 60 000 and d6 with a
symbol face of that seed: apart from the measured ones (``dicetable pieces``, seeds 20 000+)
and from the enrolment embedding's training dice (:mod:`models.training.enrol.train_enrol`). The
correlation, the face model's centred cosine and the enrolment embedding's cosine are taken
once per crop; then every weight of :data:`WEIGHTS` and scale of :data:`SCALES` is read as
:meth:`vision.faces.reading.DieFaceReader.read_enrolled` reads (a rejected crop counts as wrong);
prints accuracy and the log-loss of the true face per setting, for 3 and 5 shots. With
``--catalogue-tests``, the shipped types enrolled as new too (crops of this seed, not the
measurement's; the log-loss stays that of the new and symbol dice). With ``--verify``, the
per-die verifier (:mod:`vision.faces.verify`) is built and read too, and the shipped fusion
(correlation + 0.5 x enrolment cosine, scale 40) is read with each weight of
:data:`VERIFY_WEIGHTS` added.
"""

from __future__ import annotations

import argparse
import itertools
import json
from pathlib import Path

import numpy as np
from tqdm import tqdm

from vision.faces.dietypes import catalogue
from vision.faces.reading import FACES_FILE, DieFaceReader, EnrolledDie
from vision.measure.faces import ENROL, enrolled, novel_dice, symbol_dice
from vision.synth.facecrops import HARSH, face_crops

#: (face model's cosine weight, enrolment embedding's weight)
WEIGHTS = [(0.15, 0.0), (0.15, 0.3), (0.15, 0.5), (0.15, 1.0), (0.0, 0.3), (0.0, 0.5),
           (0.0, 0.75), (0.0, 1.0), (0.0, 1.5)]
SCALES = [20.0, 40.0, 60.0, 80.0]
#: the verifier's weight (score units: x 40 it is the log-likelihood ratio's in the logits)
VERIFY_WEIGHTS = [0.00125, 0.0025, 0.00375, 0.005, 0.0075, 0.01]
ALONE = 1000.0
"""Weight standing for "the enrolment embedding alone" (the others negligible beside it)."""


GROUPS = ("new_dice", "symbol_face", "catalogue_as_new")


def collect(reader: DieFaceReader, shots: int, dice: int, tests: int, seed: int,
            catalogue_tests: int = 0) -> list[tuple[EnrolledDie, np.ndarray, str, str]]:
    """(die, crops, true label, group of :data:`GROUPS`) per face of every validation die;
    with `catalogue_tests`, also the shipped types enrolled as new (their own crops of this
    seed: other renders than the measurement's, of the same designs)."""
    rng = np.random.default_rng(seed + shots)
    out = []
    for dt in novel_dice(dice, seed):
        die = enrolled(dt, shots, rng, reader.crop_px)
        out += [(die, face_crops(dt, f, tests, rng, HARSH, reader.crop_px), f.label, GROUPS[0])
                for f in {f.label: f for f in dt.faces}.values()]
    for truth in symbol_dice(dice, seed):
        die = EnrolledDie(truth.name, base="d6")
        die.add("1", face_crops(truth, truth.faces[0], shots, rng, ENROL, reader.crop_px))
        out += [(die, face_crops(truth, f, tests, rng, HARSH, reader.crop_px), f.label,
                 GROUPS[1]) for f in {f.label: f for f in truth.faces}.values()]
    for dt in (catalogue().values() if catalogue_tests else ()):
        die = enrolled(dt, shots, rng, reader.crop_px, f"new-{dt.name}")
        out += [(die, face_crops(dt, f, catalogue_tests, rng, HARSH, reader.crop_px), f.label,
                 GROUPS[2]) for f in {f.label: f for f in dt.faces}.values()]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=60_000)
    ap.add_argument("--dice", type=int, default=16)
    ap.add_argument("--tests", type=int, default=20)
    ap.add_argument("--catalogue-tests", type=int, default=0,
                    help="also the shipped types enrolled as new, this many crops per face")
    ap.add_argument("--verify", action="store_true",
                    help="also the per-die verifier (vision.faces.verify), at VERIFY_WEIGHTS")
    ap.add_argument("--models", type=Path,
                    help="a folder with the face and enrolment models (default: the shipped)")
    args = ap.parse_args()
    reader = DieFaceReader(args.models / FACES_FILE if args.models else None)
    if reader.enroller is None:
        raise SystemExit("no enrolment embedding beside the face model")
    parts_of = reader.enrolled_parts
    cache: dict[int, tuple] = {}

    def cached(crops: np.ndarray, die: EnrolledDie, face_model: bool = True,
               verify: bool = False) -> tuple:
        if id(crops) not in cache:  # every part, whatever the weights tried
            cache[id(crops)] = parts_of(crops, die, True, args.verify)
        return cache[id(crops)]

    reader.enrolled_parts = cached  # type: ignore[method-assign]
    report = {}
    for shots in (3, 5):
        items = collect(reader, shots, args.dice, args.tests, args.seed,
                            args.catalogue_tests)
        for die, crops, _, _ in tqdm(items, desc=f"{shots} shots", unit="face"):
            cached(crops, die)
        settings = [(ew, nw, 0.0, sc) for (ew, nw), sc in
                    itertools.product(WEIGHTS + [(0.0, ALONE)], SCALES)]
        if args.verify:
            settings += [(0.0, 0.5, vw, 40.0) for vw in VERIFY_WEIGHTS]
        for ew, nw, vw, sc in settings:
            reader.embed_weight, reader.enrol_weight, reader.verify_weight = ew, nw, vw
            reader.fused_scale = sc / ALONE if nw == ALONE else sc
            right = dict.fromkeys(GROUPS, 0)
            n = dict.fromkeys(GROUPS, 0)
            nll = 0.0
            for die, crops, label, group in items:
                for r in reader.read_enrolled(crops, die):
                    right[group] += r.label == label
                    n[group] += 1
                    if group != GROUPS[2]:  # the log-loss as before: new and symbol dice
                        nll -= np.log(max(r.dist.get(label, 0.0), 1e-9))
            key = f"{shots} shots, cos {ew}, enrol {'alone' if nw == ALONE else nw}, scale {sc}"
            if vw:
                key += f", verify {vw}"
            report[key] = {g: round(right[g] / n[g], 4) for g in GROUPS if n[g]}
            report[key]["nll"] = round(nll / (n[GROUPS[0]] + n[GROUPS[1]]), 4)
            print(key, report[key], flush=True)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
