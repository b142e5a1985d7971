"""3 against 5 enrolment shots read on the same test crops (a check, not a measurement).

Usage: ``python -m models.training.enrol.enrol_shots_paired [--seed 60000] [--dice 8] [--tests 40]``

:func:`vision.measure.faces.eval_enrolment` draws the shots and the test crops of each shot count
from its own random stream, so its 3-shot and 5-shot figures are read on different crops.
Here each die of :func:`vision.measure.faces.novel_dice` is enrolled with 5 steady shots per
face and, as the 3-shot die, with the first 3 of them; both read the same ``HARSH`` crops.
Prints both accuracies and how many crops only one of them reads right.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from vision.faces.reading import DieFaceReader, EnrolledDie
from vision.measure.faces import ENROL, novel_dice
from vision.synth.facecrops import HARSH, face_crops


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=60_000)
    ap.add_argument("--dice", type=int, default=8)
    ap.add_argument("--tests", type=int, default=40)
    args = ap.parse_args()
    reader = DieFaceReader()
    rng = np.random.default_rng(args.seed + 7)
    right = {3: 0, 5: 0}
    only = {3: 0, 5: 0}
    n = 0
    for dt in novel_dice(args.dice, args.seed):
        faces = list({f.label: f for f in dt.faces}.values())
        shots = {f.label: face_crops(dt, f, 5, rng, ENROL, reader.crop_px) for f in faces}
        dies = {}
        for k in (3, 5):
            dies[k] = EnrolledDie(f"{dt.name}-{k}")
            for label, s in shots.items():
                dies[k].add(label, s[:k])
        for f in faces:
            crops = face_crops(dt, f, args.tests, rng, HARSH, reader.crop_px)
            ok = {k: np.array([r.label == f.label for r in reader.read_enrolled(crops, dies[k])])
                  for k in (3, 5)}
            for k, other in ((3, 5), (5, 3)):
                right[k] += int(ok[k].sum())
                only[k] += int((ok[k] & ~ok[other]).sum())
            n += len(crops)
    print(json.dumps({"seed": args.seed, "crops": n, "accuracy_3_shots": round(right[3] / n, 4),
                      "accuracy_5_shots": round(right[5] / n, 4),
                      "right_only_with_3": only[3], "right_only_with_5": only[5]}))


if __name__ == "__main__":
    main()
