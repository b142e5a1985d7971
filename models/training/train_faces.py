"""Trains the die-face classifier of the catalogued die types and exports it to ONNX.

Usage: ``python -m models.training.train_faces [--seed 0] [--per-face 160] [--steps 1500]``

Data: rendered crops (:mod:`vision.facecrops`) of every face of every shipped die type, plus
"auxiliary" dice with random glyph faces. The auxiliary classes are never read at run time;
they teach the penultimate layer (the embedding that enrolment uses) to tell apart faces that
nobody catalogued. The network is small (48x48 input, 4 strided convs, a 96-d embedding) and
its temperature is fitted on held-out crops. Writes ``models/die_faces_202611.onnx`` with two
outputs (logits, L2-normalised embedding), ``models/die_faces.json`` (vocabulary, temperature,
measured accuracy, command, sha256) and updates ``models/SHA256SUMS``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F
from tqdm import tqdm

from models.training.train_classifier import fit_temperature
from vision.dietypes import DieType, all_labels, catalogue, custom
from vision.facecrops import CROP_PX, TRAIN, face_crops

logger = logging.getLogger(__name__)

MODELS = Path(__file__).resolve().parents[1]
ONNX_FILE = "die_faces_202611.onnx"
META_FILE = "die_faces.json"
AUX_DICE = 14
EMBED = 96


def aux_types(seed_base: int, n: int = AUX_DICE) -> list[DieType]:
    """Dice with random glyph faces and random body/ink colours (reproducible by seed)."""
    rng = np.random.default_rng(seed_base)
    out = []
    for i in range(n):
        body = rng.integers(0, 256, 3)
        ink = 255 - body if rng.random() < 0.7 else rng.integers(0, 256, 3)
        hexes = ["#" + "".join(f"{int(v):02x}" for v in c) for c in (body, ink)]
        labels = [f"aux{seed_base}-{i}-{k}" for k in range(6)]
        out.append(custom(f"aux{seed_base}-{i}", labels, *hexes,
                          seeds=[seed_base * 1000 + i * 6 + k for k in range(6)]))
    return out


def _job(args: tuple[str, int, int, int, bool]) -> tuple[np.ndarray, list[str]]:
    name, face_i, n, seed, aux = args
    types = {t.name: t for t in aux_types(7)} if aux else catalogue()
    dt = types[name]
    face = dt.faces[face_i]
    crops = face_crops(dt, face, n, np.random.default_rng(seed), TRAIN, CROP_PX)
    return crops, [face.label] * n


def make_data(per_face: int, seed: int, workers: int = 2) -> tuple[np.ndarray, list[str]]:
    jobs = []
    k = 0
    for aux, types in ((False, list(catalogue().values())), (True, aux_types(7))):
        for dt in types:
            for fi in range(6):
                jobs.append((dt.name, fi, per_face, seed * 100_003 + k, aux))
                k += 1
    crops, labels = [], []
    with ProcessPoolExecutor(workers) as pool:
        for c, lb in tqdm(pool.map(_job, jobs), total=len(jobs), desc="render", unit="face"):
            crops.append(c)
            labels += lb
    return np.concatenate(crops), labels


class FaceNet(nn.Module):
    """Crop (B, 3, 48, 48) in [0, 1] -> (logits, L2-normalised embedding)."""

    def __init__(self, n_classes: int) -> None:
        super().__init__()

        def cbr(i: int, o: int, s: int) -> nn.Sequential:
            return nn.Sequential(nn.Conv2d(i, o, 3, s, 1, bias=False), nn.BatchNorm2d(o),
                                 nn.ReLU(inplace=True))

        # 48 -> 24 at once: the smallest strokes are ~3 px wide at crop size
        self.features = nn.Sequential(cbr(3, 24, 2), cbr(24, 32, 1), cbr(32, 48, 2),
                                      cbr(48, 64, 2), cbr(64, 64, 2))  # 3x3
        self.embed = nn.Linear(64 * 9, EMBED)
        self.fc = nn.Linear(EMBED, n_classes)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        e = F.relu(self.embed(torch.flatten(self.features(x), 1)))
        return self.fc(e), F.normalize(e, dim=1)


def augment(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    # Only rotations/gain: flips would mirror digits and the level dots' order.
    k = int(torch.randint(0, 4, (1,), generator=gen))
    x = torch.rot90(x, k, dims=(2, 3))
    b = x.shape[0]
    gain = torch.empty(b, 1, 1, 1).uniform_(0.8, 1.2, generator=gen)
    return (x * gain).clamp(0, 1)


def to_tensor(crops: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(crops)).permute(0, 3, 1, 2).float() / 255.0


def train(crops: np.ndarray, y: np.ndarray, n_classes: int, steps: int, seed: int,
          batch: int = 96) -> FaceNet:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    net = FaceNet(n_classes)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=steps, pct_start=0.15)
    yt = torch.from_numpy(y)
    rng = np.random.default_rng(seed)
    net.train()
    bar = tqdm(range(steps), desc="train", unit="step")
    ok = seen = 0
    for step in bar:
        idx = rng.integers(0, len(crops), batch)
        logits, _ = net(augment(to_tensor(crops[idx]), gen))
        loss = F.cross_entropy(logits, yt[idx], label_smoothing=0.05)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        ok += int((logits.argmax(1) == yt[idx]).sum())
        seen += batch
        if step % 50 == 0:
            bar.set_postfix(loss=f"{loss.item():.3f}", acc=f"{ok / seen:.3f}")
            ok = seen = 0
    return net.eval()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--per-face", type=int, default=160)
    ap.add_argument("--steps", type=int, default=1500)
    ap.add_argument("--cache", type=Path, help="keep the rendered crops in this .npz")
    ap.add_argument("--no-aux", action="store_true",
                    help="train on the shipped faces only (all capacity to them)")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO)
    t0 = time.time()
    torch.set_num_threads(2)
    if args.cache is not None and args.cache.is_file():
        data = np.load(args.cache)
        crops, labels = data["crops"], [str(v) for v in data["labels"]]
    else:
        crops, labels = make_data(args.per_face, args.seed)
        if args.cache is not None:
            np.savez(args.cache, crops=crops, labels=np.array(labels))
    if args.no_aux:
        keep = np.array([not lb.startswith("aux") for lb in labels])
        crops, labels = crops[keep], [lb for lb, k in zip(labels, keep, strict=True) if k]
    shipped = list(all_labels())
    vocab = shipped + sorted(set(labels) - set(shipped))
    index = {lb: i for i, lb in enumerate(vocab)}
    y = np.array([index[lb] for lb in labels], np.int64)
    rng = np.random.default_rng(args.seed)
    order = rng.permutation(len(y))
    hold = order[: len(y) // 20]
    fit = order[len(y) // 20:]
    net = train(crops[fit], y[fit], len(vocab), args.steps, args.seed)
    with torch.no_grad():
        logits = torch.cat([net(to_tensor(crops[hold[i:i + 512]]))[0]
                            for i in range(0, len(hold), 512)])
    yh = torch.from_numpy(y[hold])
    temp = fit_temperature(logits, yh.numpy(), max_iter=100)
    acc = float((logits.argmax(1) == yh).float().mean())
    out = MODELS / ONNX_FILE
    torch.onnx.export(net, torch.zeros(1, 3, CROP_PX, CROP_PX), str(out),
                      input_names=["crops"], output_names=["logits", "embedding"],
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}, "embedding": {0: "n"}},
                      opset_version=17, dynamo=False)
    sha = hashlib.sha256(out.read_bytes()).hexdigest()
    meta = {"file": ONNX_FILE, "sha256": sha, "crop_px": CROP_PX, "labels": shipped,
            "aux_classes": len(vocab) - len(shipped), "temperature": temp,
            "held_out_accuracy_all_classes": acc, "seed": args.seed,
            "per_face": args.per_face, "steps": args.steps, "crops": len(y),
            "torch": torch.__version__, "minutes": round((time.time() - t0) / 60, 1),
            "command": f"python -m models.training.train_faces --seed {args.seed} "
                       f"--per-face {args.per_face} --steps {args.steps}"
                       + (" --no-aux" if args.no_aux else "")}
    (MODELS / META_FILE).write_text(json.dumps(meta, indent=1) + "\n")
    sums = MODELS / "SHA256SUMS"
    lines = [ln for ln in sums.read_text().splitlines() if not ln.endswith(ONNX_FILE)]
    sums.write_text("\n".join(sorted([*lines, f"{sha}  {ONNX_FILE}"],
                                     key=lambda s: s.split()[1])) + "\n")
    print(json.dumps({k: meta[k] for k in ("held_out_accuracy_all_classes", "temperature",
                                           "minutes")}))


if __name__ == "__main__":
    main()
