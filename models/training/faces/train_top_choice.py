"""Learn which of a typed die's candidate crops to read in a photo (``vision.faces.topface``).

Usage::

    python -m models.training.faces.train_top_choice [--seeds 10,11] [--scenes 40] [--lam 0.01]
                                               [--out-dir models]

Renders photos of IceDice's and Quarriors' catalogued dice (``vision.synth.scenes.typed_scene``:
the scenes' cameras, up to 30 degrees of tilt, 45-75 degree lenses, on each table kind of
``vision.synth.scenes.TABLES``), reads every die's candidates at its true box with the shipped
face model (``vision.faces.topface.read_candidates``), and again at the dice reader's own box of
each die (what ``dicetable read --game`` reads from), and fits a logistic regression (Newton's
method, L2 `lam` on the standardised features ``vision.faces.topface.FEATURES``) of "this
candidate's type and face are the die's". Writes ``top_face_choice.json``: the weights, the
face model's sha256 they were learnt on (the reader ignores them for another), and how they
were made. Photo seeds 10 and 11 by default: ``models.measure.photo_angles`` measures on seeds 0-2.
Numpy only; about 15 minutes on one core.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

from vision.faces.dietypes import die_of, game_types, get_type
from vision.faces.reading import DieFaceReader
from vision.faces.topface import CHOICE_FILE, FEATURES, features, read_candidates
from vision.measure.evaluate import match
from vision.synth.renderer import render
from vision.synth.scenes import TABLES, typed_scene

MODELS = Path(__file__).resolve().parents[2]
GAMES = ("icedice", "quarriors")


def collect(reader: DieFaceReader, seed: int, scenes: int, dice_reader=None
            ) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per die: (K, F) features of its candidates and (K,) whether each reads it right, at
    its true box, and with `dice_reader` (``vision.dice.reader.DiceReader``) also at the box of
    that reader's whose centre lies inside it (``vision.measure.evaluate.match``), the box
    `dicetable
    read --game` reads it from (often the top face alone)."""
    out = []
    for game in GAMES:
        names = game_types(game)
        types = [get_type(t) for t in names]
        for table in TABLES:
            rng = np.random.default_rng(seed)
            for _ in tqdm(range(scenes), desc=f"{game} {table} seed {seed}", unit="photo",
                          leave=False):
                scene = typed_scene(rng, types, table)
                r = render(scene)
                if len(r.boxes) == 0:
                    continue
                boxes, which = r.boxes, np.arange(len(r.boxes))
                if dice_reader is not None:
                    det = dice_reader.read(r.image)
                    pairs = match(det.xyxy, r.boxes)
                    if pairs:
                        boxes = np.vstack([boxes, det.xyxy[[p for p, _ in pairs]]])
                        which = np.concatenate([which, [lab for _, lab in pairs]])
                cands = read_candidates(reader, r.image, boxes, list(names))
                for box, c, i in zip(boxes, cands, which, strict=True):
                    dtype = scene.dice[int(r.die_index[i])].die_type
                    assert dtype is not None  # (typed scenes: every die has its type)
                    truth = die_of(dtype.name)
                    lb = r.labels[int(i)]
                    right = np.array([die_of(t) == truth and rd.label == lb
                                      for t, rd in zip(c.types, c.readings, strict=True)])
                    out.append((features(c, box, r.image.shape[:2]), right))
    return out


def fit(x: np.ndarray, y: np.ndarray, lam: float, iters: int = 100
        ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """(mean, scale, weights, bias) of an L2-regularised logistic regression."""
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-6
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    w = np.zeros(z.shape[1])
    reg = np.full(z.shape[1], lam)
    reg[-1] = 0.0  # the bias is not shrunk
    for _ in range(iters):
        p = 1 / (1 + np.exp(-z @ w))
        grad = z.T @ (p - y) / len(y) + reg * w
        hess = (z * (p * (1 - p))[:, None]).T @ z / len(y) + np.diag(reg + 1e-9)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    return mean, scale, w[:-1], float(w[-1])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="10,11", help="photo seeds to learn from")
    ap.add_argument("--scenes", type=int, default=40, help="photos per game, table and seed")
    ap.add_argument("--lam", type=float, default=0.01)
    ap.add_argument("--true-boxes-only", action="store_true",
                    help="learn from the dice's true boxes only, not also the dice reader's")
    ap.add_argument("--out-dir", type=Path, default=MODELS)
    args = ap.parse_args(argv)
    t0 = time.time()
    reader = DieFaceReader()
    seeds = [int(s) for s in args.seeds.split(",")]
    dice_reader = None
    if not args.true_boxes_only:
        from vision.dice.reader import DiceReader

        dice_reader = DiceReader()
    dice = [d for s in seeds for d in collect(reader, s, args.scenes, dice_reader)]
    x = np.vstack([f for f, _ in dice])
    y = np.concatenate([r for _, r in dice]).astype(np.float64)
    mean, scale, w, b = fit(x, y, args.lam)
    chosen = [int(np.argmax(((f - mean) / scale) @ w + b)) for f, _ in dice]
    in_sample = float(np.mean([r[c] for (_, r), c in zip(dice, chosen, strict=True)]))
    meta = {
        "features": list(FEATURES), "mean": mean.tolist(), "scale": scale.tolist(),
        "weights": w.tolist(), "bias": b,
        "face_model_sha256": hashlib.sha256(reader.path.read_bytes()).hexdigest(),
        "seeds": seeds, "scenes_per_game_table_seed": args.scenes, "lam": args.lam,
        "boxes": "true" if args.true_boxes_only else "true and the dice reader's",
        "dice": len(dice), "candidates": len(y),
        "in_sample_right": round(in_sample, 4),
        "in_sample_any_candidate_right": round(float(np.mean([r.any() for _, r in dice])), 4),
        "minutes": round((time.time() - t0) / 60, 1),
        "command": f"python -m models.training.faces.train_top_choice --seeds {args.seeds} "
                   f"--scenes {args.scenes} --lam {args.lam}"
                   + (" --true-boxes-only" if args.true_boxes_only else ""),
        "provenance": "renders only (vision.synth.scenes, vision.faces.dietypes' inferred "
                      "looks); no "
                      "photo of a real die",
    }
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / CHOICE_FILE).write_text(json.dumps(meta, indent=1) + "\n")
    print(json.dumps({k: meta[k] for k in ("dice", "in_sample_right",
                                           "in_sample_any_candidate_right", "minutes")}))


if __name__ == "__main__":
    main()
