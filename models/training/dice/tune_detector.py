"""Fine-tune the shipped dice detector on photos of catalogued custom dice.

Usage::

    python -m models.training.dice.tune_detector --base ONNX --out DIR [--steps 3000] [--lr 1e-3]
        [--typed-scenes 1600] [--typed-share 0.4] [--real-share 0.35] [--val-photos 40]
        [--seed 0]

D1, the detector shipped before (trained on the renderer's data version 3), saw a custom die
in about one of 23 of the dice it drew (a quarter of the synthetic scenes hold 35 % custom
dice, ``dataset.TYPED_SCENES`` / ``TYPED_RATE``, and half its draws were real pip photos),
and ``read --game`` found too few of them: at the reader's boxes, 751 of 925 IceDice dice of
``models.measure.photo_angles --detector`` (photo seed 1), and a tenth of them even within 15
degrees of square-on. Of 30 missed dice of a probe (photo seed 5), 18 raised a heat peak
just under the threshold (0.2-0.3); looked at by eye, most stood against another die.

This starts from a trained detector's weights, read back from its ONNX file
(:func:`from_onnx`), and trains on three sources drawn by weight: the real train photos, the
synthetic pip scenes of the classifier's recipe (``runs/cache``, data version 4) and rendered
photos of custom dice (:func:`typed_photos`), so that the pip dice of real photos keep what
they have. The defaults are the shipped detector's recipe, tuned from D1 and chosen in
``models/dice_reader.md`` (14.5 minutes on one thread).

The typed photos use scene seeds 1000 + i (``models.measure.photo_angles`` measures on photo seeds
0-3 and the top-face chooser trained on 10-12). Writes ``DIR/dice_detector_202611.onnx``
and ``DIR/tune_detector.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import torch
from tqdm import tqdm

from models.training.dice.dataset import real_train, val_photo_names
from models.training.dice.syndata import load_synthetic
from models.training.dice.train_detector import train_detector
from models.training.export import export_detector
from models.training.nets import DiceDetector
from vision.dice.detector import preprocess_image
from vision.onnx_models import DETECTOR_FILE

TYPED_SEED = 1000
"""First scene seed of the typed photos: far from every seed a measurement renders."""


def from_onnx(path: Path, width: int = 24) -> DiceDetector:
    """The torch detector whose weights are those of the exported ONNX file ``path``.

    The export folds each batch norm into the convolution before it; the batch norm here is
    set to the identity (mean 0, variance 1 - eps, scale 1) and carries the folded bias."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    inits = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    convs = [n for n in graph.node if n.op_type == "Conv"]
    net = DiceDetector(width=width)
    mods = list(net.modules())
    pairs = [(m, mods[k + 1] if k + 1 < len(mods) and isinstance(mods[k + 1], torch.nn.BatchNorm2d)
              else None) for k, m in enumerate(mods) if isinstance(m, torch.nn.Conv2d)]
    if len(pairs) != len(convs):
        raise ValueError(f"{path}: {len(convs)} convolutions, the net has {len(pairs)}")
    with torch.no_grad():
        for (conv, bn), node in zip(pairs, convs, strict=True):
            assert isinstance(conv, torch.nn.Conv2d)
            assert bn is None or isinstance(bn, torch.nn.BatchNorm2d)
            w = torch.from_numpy(inits[node.input[1]].copy())
            b = torch.from_numpy(inits[node.input[2]].copy())
            if w.shape != conv.weight.shape:
                raise ValueError(f"{path}: {node.name} has weights {tuple(w.shape)}, the net "
                                 f"{tuple(conv.weight.shape)}")
            conv.weight.copy_(w)
            if bn is None:
                assert conv.bias is not None  # (a convolution with no norm after it)
                conv.bias.copy_(b)
            else:
                bn.weight.fill_(1.0)
                bn.bias.copy_(b)
                assert bn.running_mean is not None and bn.running_var is not None
                bn.running_mean.zero_()
                bn.running_var.fill_(1.0 - bn.eps)
    return net.eval()


def typed_photos(n: int, seed: int = TYPED_SEED) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """``n`` rendered photos of custom dice at the network's scale, and their boxes: even
    ones a game's dice on a table as a phone sees them (``vision.synth.scenes.typed_scene``), odd
    ones random scenes whose dice are all custom (``random_render``, typed_rate 1), both
    with the renderer's blur, noise and JPEG."""
    from vision.faces.dietypes import game_types, get_type
    from vision.synth.renderer import render
    from vision.synth.scenes import TABLES, random_render, typed_scene

    games = [[get_type(t) for t in game_types(g)] for g in ("icedice", "quarriors")]
    images, boxes = [], []
    for i in tqdm(range(n), desc="typed photos", unit="photo"):
        rng = np.random.default_rng([seed, i])
        if i % 2 == 0:
            scene = typed_scene(rng, games[(i // 2) % 2], TABLES[(i // 4) % len(TABLES)])
            blur = float(rng.choice([0.0, rng.uniform(0.3, 1.2)]))
            quality = int(rng.integers(40, 95))
            r = render(scene, jpeg_quality=quality, blur_sigma=blur,
                       noise_sigma=float(rng.uniform(0, 4)))
        else:
            w, h = ((640, 480), (800, 600), (640, 640))[int(rng.integers(3))]
            _, r = random_render(rng, width=w, height=h, die_px=(16, 70), n_dice=(1, 20),
                                 typed_rate=1.0)
        small, lb = preprocess_image(r.image)
        images.append(small)
        boxes.append((r.boxes * lb.scale).astype(np.float32).reshape(-1, 4))
    return images, boxes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--lr", type=float, default=1e-3, help="peak learning rate")
    ap.add_argument("--typed-scenes", type=int, default=1600, help="typed photos to render")
    ap.add_argument("--typed-share", type=float, default=0.4,
                    help="share of the draws from the typed photos")
    ap.add_argument("--real-share", type=float, default=0.35,
                    help="share of the draws from the real train photos (the rest: the "
                         "synthetic pip scenes)")
    ap.add_argument("--scenes", type=int, default=3000, help="synthetic scenes (the cache's)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--val-photos", type=int, default=40,
                    help="real train photos held out (models.training.dice.validate scores the "
                         "recipe on them; the shipped detector held out the same 40)")
    ap.add_argument("--base", type=Path, required=True,
                    help="the ONNX detector to start from (the shipped one was tuned from D1, "
                         "the file models/ held at commit 8c6bac2)")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    if args.typed_share + args.real_share > 1:
        ap.error("--typed-share and --real-share add up to more than 1")
    torch.set_num_threads(1)
    cv2.setNumThreads(1)
    t0 = time.time()
    net = from_onnx(args.base)
    typed_img, typed_box = typed_photos(args.typed_scenes)
    real = real_train(args.seed, exclude=val_photo_names(args.val_photos, args.seed))
    syn = load_synthetic(args.seed, args.scenes, 48)
    parts = [(typed_img, typed_box, args.typed_share),
             (real.det_images, real.det_boxes, args.real_share),
             (syn.det_images, syn.det_boxes, 1 - args.typed_share - args.real_share)]
    images = [im for p in parts for im in p[0]]
    boxes = [b for p in parts for b in p[1]]
    weights = np.concatenate([np.full(len(p[0]), p[2] / max(len(p[0]), 1)) for p in parts])
    del syn  # its classifier crops (0.6 GB) are not needed here
    tuned = train_detector(images, boxes, weights, args.steps, args.seed, net=net, lr=args.lr)
    args.out.mkdir(parents=True, exist_ok=True)
    export_detector(tuned, args.out / DETECTOR_FILE)
    digest = hashlib.sha256(args.base.read_bytes()).hexdigest()
    record = {"base": f"{args.base} sha256 {digest}",
              "steps": args.steps, "lr": args.lr,
              "typed_scenes": args.typed_scenes, "typed_share": args.typed_share,
              "real_share": args.real_share, "seed": args.seed,
              "val_photos": args.val_photos,
              "real_train_photos": len(real.det_images),
              "minutes": round((time.time() - t0) / 60, 1),
              "command": "python -m models.training.dice.tune_detector " + " ".join(
                  sys.argv[1:] if argv is None else argv)}
    (args.out / "tune_detector.json").write_text(json.dumps(record, indent=2) + "\n")
    print(json.dumps(record, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
