"""Trains the die-face classifier of the catalogued die types and exports it to ONNX.

Usage: ``python -m models.training.faces.train_faces [--seed 0] [--per-face 200] [--steps 9000]
[--aux-dice 300 --aux-per-face 12] [--printed-sides N]``

Data: rendered crops (:mod:`vision.synth.facecrops`) of every face of every shipped die type, plus
"auxiliary" dice with random glyph faces (half with one bold symbol, as symbol dice print
them). Two objectives share the network: cross-entropy of the shipped labels on the logits
head, and a cosine-margin softmax (CosFace) of every class, shipped and auxiliary, on the
normalised embedding. The auxiliary classes (thousands of random faces, a few crops each) are
never read at run time; they make the embedding that enrolment compares (nearest class mean)
tell apart faces nobody catalogued. The network is small (48x48 input, 4 strided convs, a 96-d
embedding); its temperature is fitted on held-out crops with the logits averaged over the
four 90-degree turns of each crop, as :class:`vision.faces.reading.DieFaceReader` reads them.
Writes ``models/die_faces_202611.onnx`` with two outputs (logits, L2-normalised embedding),
``models/die_faces.json`` (vocabulary, temperature, measured accuracy, command, sha256) and
updates ``models/SHA256SUMS``.
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

from models.training.dice.train_classifier import fit_temperature
from models.training.export import export_crop_net, update_sha256sums
from vision.faces.dietypes import DieType, all_labels, catalogue, custom
from vision.synth.facecrops import CROP_PX, OBLIQUE, TRAIN, WIDE, face_crops

logger = logging.getLogger(__name__)

MODELS = Path(__file__).resolve().parents[2]
ONNX_FILE = "die_faces_202611.onnx"
META_FILE = "die_faces.json"
AUX_DICE = 300
AUX_SEED = 7
EMBED = 96
#: CosFace scale and margin of the embedding objective
COS_SCALE, COS_MARGIN = 16.0, 0.2


def aux_types(seed_base: int, n: int = AUX_DICE) -> list[DieType]:
    """Dice with random glyph faces and random body/ink colours (reproducible by seed; the
    glyph seeds, seed_base * 10_000 + ..., never reach the evaluation's, 900_000 and up)."""
    rng = np.random.default_rng(seed_base)
    out = []
    for i in range(n):
        body = rng.integers(0, 256, 3)
        ink = 255 - body if rng.random() < 0.7 else rng.integers(0, 256, 3)
        if abs(int(body.mean()) - int(ink.mean())) < 60 and rng.random() < 0.7:
            ink = np.full(3, 20 if body.mean() > 127 else 235)
        hexes = ["#" + "".join(f"{int(v):02x}" for v in c) for c in (body, ink)]
        labels = [f"aux{seed_base}-{i}-{k}" for k in range(6)]
        out.append(custom(f"aux{seed_base}-{i}", labels, hexes[0], hexes[1],
                          seeds=[seed_base * 10_000 + i * 6 + k for k in range(6)],
                          bold=i % 2 == 0))
    return out


_CONDITIONS = {"train": TRAIN, "wide": WIDE, "oblique": OBLIQUE}


def _job(args: tuple[str, int, int, int, int, str]) -> tuple[np.ndarray, list[str]]:
    name, face_i, n, seed, aux, cond = args
    types = {t.name: t for t in aux_types(AUX_SEED, aux)} if aux else catalogue()
    dt = types[name]
    face = dt.faces[face_i]
    crops = face_crops(dt, face, n, np.random.default_rng(seed), _CONDITIONS[cond], CROP_PX)
    return crops, [face.label] * n


def make_data(per_face: int, seed: int, aux_dice: int = AUX_DICE, aux_per_face: int = 12,
              workers: int = 2, printed_sides: int = 0, oblique: int = 0
              ) -> tuple[np.ndarray, list[str]]:
    """`printed_sides`: crops per shipped face under ``facecrops.WIDE`` (sides up to a face
    wide and printed with the die's other faces), added to the `per_face` ``TRAIN`` crops;
    `oblique`: the same under ``facecrops.OBLIQUE`` (the top face foreshortened too). Their
    seeds follow all the others', so the ``TRAIN`` crops are those of a run without."""
    jobs = []
    k = 0
    for aux, types in ((0, list(catalogue().values())),
                       (aux_dice, aux_types(AUX_SEED, aux_dice) if aux_dice else [])):
        for dt in types:
            for fi in range(6):
                jobs.append((dt.name, fi, aux_per_face if aux else per_face,
                             seed * 100_003 + k, aux, "train"))
                k += 1
    for n, cond in ((printed_sides, "wide"), (oblique, "oblique")):
        if n:
            for dt in catalogue().values():
                for fi in range(6):
                    jobs.append((dt.name, fi, n, seed * 100_003 + k, 0, cond))
                    k += 1
    crops, labels = [], []
    with ProcessPoolExecutor(workers) as pool:
        for c, lb in tqdm(pool.map(_job, jobs), total=len(jobs), desc="render", unit="face"):
            crops.append(c)
            labels += lb
    return np.concatenate(crops), labels


def conv_trunk(width: float = 1.0) -> nn.Sequential:
    """The face models' convolutions: crop (B, 3, 48, 48) -> (B, C, 3, 3); `width` scales
    the channels (24, 32, 48, 64, 64 at 1.0)."""
    c = [max(8, int(round(v * width))) for v in (24, 32, 48, 64, 64)]

    def cbr(i: int, o: int, s: int) -> nn.Sequential:
        return nn.Sequential(nn.Conv2d(i, o, 3, s, 1, bias=False), nn.BatchNorm2d(o),
                             nn.ReLU(inplace=True))

    # 48 -> 24 at once: the smallest strokes are ~3 px wide at crop size
    return nn.Sequential(cbr(3, c[0], 2), cbr(c[0], c[1], 1), cbr(c[1], c[2], 2),
                         cbr(c[2], c[3], 2), cbr(c[3], c[4], 2))


class FaceNet(nn.Module):
    """Crop (B, 3, 48, 48) in [0, 1] -> (logits, L2-normalised embedding)."""

    def __init__(self, n_classes: int) -> None:
        super().__init__()
        self.features = conv_trunk()
        self.embed = nn.Linear(64 * 9, EMBED)
        self.fc = nn.Linear(EMBED, n_classes)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        e = self.embed(torch.flatten(self.features(x), 1))
        return self.fc(F.relu(e)), F.normalize(e, dim=1)


def augment(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    # Only rotations/gain: flips would mirror digits and the level dots' order.
    k = int(torch.randint(0, 4, (1,), generator=gen))
    x = torch.rot90(x, k, dims=(2, 3))
    b = x.shape[0]
    gain = torch.empty(b, 1, 1, 1).uniform_(0.8, 1.2, generator=gen)
    return (x * gain).clamp(0, 1)


def to_tensor(crops: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(crops)).permute(0, 3, 1, 2).float() / 255.0


def train(crops: np.ndarray, y: np.ndarray, n_shipped: int, n_all: int, steps: int, seed: int,
          batch: int = 64, aux_batch: int = 48) -> FaceNet:
    """Cross-entropy of the shipped labels on the logits, plus CosFace of all labels on the
    embedding (shipped crops and `aux_batch` auxiliary crops per step)."""
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    net = FaceNet(n_shipped)
    proxies = nn.Parameter(torch.randn(n_all, EMBED) * 0.1)
    opt = torch.optim.AdamW([*net.parameters(), proxies], lr=3e-3, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=steps, pct_start=0.15)
    yt = torch.from_numpy(y)
    rng = np.random.default_rng(seed)
    shipped = np.nonzero(y < n_shipped)[0]
    aux = np.nonzero(y >= n_shipped)[0]
    net.train()
    bar = tqdm(range(steps), desc="train", unit="step")
    ok = seen = 0
    for step in bar:
        idx = shipped[rng.integers(0, len(shipped), batch)]
        if len(aux) and aux_batch:
            idx = np.concatenate([idx, aux[rng.integers(0, len(aux), aux_batch)]])
        logits, emb = net(augment(to_tensor(crops[idx]), gen))
        yb = yt[idx]
        loss = F.cross_entropy(logits[:batch], yb[:batch], label_smoothing=0.05)
        cos = emb @ F.normalize(proxies, dim=1).T
        cos = cos - COS_MARGIN * F.one_hot(yb, n_all)
        loss = loss + F.cross_entropy(COS_SCALE * cos, yb)
        logits = logits[:batch]
        yt_b = yb[:batch]
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        ok += int((logits.argmax(1) == yt_b).sum())
        seen += batch
        if step % 50 == 0:
            bar.set_postfix(loss=f"{loss.item():.3f}", acc=f"{ok / seen:.3f}")
            ok = seen = 0
    return net.eval()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--per-face", type=int, default=200)
    ap.add_argument("--steps", type=int, default=9000)
    ap.add_argument("--aux-dice", type=int, default=AUX_DICE,
                    help="random-glyph dice for the embedding objective")
    ap.add_argument("--aux-per-face", type=int, default=12)
    ap.add_argument("--printed-sides", type=int, default=0, metavar="N",
                    help="also N crops per shipped face with wide, printed sides "
                         "(facecrops.WIDE: a wide camera's photo)")
    ap.add_argument("--oblique", type=int, default=0, metavar="N",
                    help="also N crops per shipped face seen obliquely (facecrops.OBLIQUE: "
                         "printed sides and a foreshortened top face)")
    ap.add_argument("--cache", type=Path, help="keep the rendered crops in this .npz")
    ap.add_argument("--save-torch", type=Path,
                    help="also keep the torch weights (state_dict) here, to fine-tune later")
    ap.add_argument("--out-dir", type=Path, default=MODELS,
                    help="write the model and its metadata here (SHA256SUMS only if models/)")
    ap.add_argument("--no-aux", action="store_true",
                    help="train on the shipped faces only (all capacity to them)")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO)
    t0 = time.time()
    torch.set_num_threads(1)
    if args.cache is not None and args.cache.is_file():
        data = np.load(args.cache)
        crops, labels = data["crops"], [str(v) for v in data["labels"]]
    else:
        crops, labels = make_data(args.per_face, args.seed, args.aux_dice, args.aux_per_face,
                                   printed_sides=args.printed_sides, oblique=args.oblique)
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
    net = train(crops[fit], y[fit], len(shipped), len(vocab), args.steps, args.seed)
    hold = hold[y[hold] < len(shipped)]
    with torch.no_grad():  # as the reader does: logits averaged over the four turns
        logits = torch.cat([
            torch.stack([net(torch.rot90(to_tensor(crops[hold[i:i + 512]]), k, dims=(2, 3)))[0]
                         for k in range(4)]).mean(0)
            for i in range(0, len(hold), 512)])
    yh = torch.from_numpy(y[hold])
    temp = fit_temperature(logits, yh.numpy(), max_iter=100)
    acc = float((logits.argmax(1) == yh).float().mean())
    if args.save_torch is not None:
        torch.save(net.state_dict(), args.save_torch)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    out = args.out_dir / ONNX_FILE
    export_crop_net(net, out, CROP_PX, ("logits", "embedding"))
    sha = hashlib.sha256(out.read_bytes()).hexdigest()
    meta = {"file": ONNX_FILE, "sha256": sha, "crop_px": CROP_PX, "labels": shipped,
            "aux_classes": len(vocab) - len(shipped), "temperature": temp,
            "held_out_accuracy_shipped_4turns": acc, "seed": args.seed,
            "per_face": args.per_face, "steps": args.steps, "crops": len(y),
            "aux_dice": args.aux_dice, "aux_per_face": args.aux_per_face,
            "printed_sides": args.printed_sides, "oblique": args.oblique,
            "test_time_turns": 4,
            "torch": torch.__version__, "minutes": round((time.time() - t0) / 60, 1),
            "command": f"python -m models.training.faces.train_faces --seed {args.seed} "
                       f"--per-face {args.per_face} --steps {args.steps} "
                       f"--aux-dice {args.aux_dice} --aux-per-face {args.aux_per_face}"
                       + (f" --printed-sides {args.printed_sides}" if args.printed_sides
                          else "")
                       + (f" --oblique {args.oblique}" if args.oblique else "")
                       + (" --no-aux" if args.no_aux else "")}
    (args.out_dir / META_FILE).write_text(json.dumps(meta, indent=1) + "\n")
    if args.out_dir.resolve() == MODELS.resolve():
        update_sha256sums(MODELS, {ONNX_FILE: sha})
    print(json.dumps({k: meta[k] for k in ("held_out_accuracy_shipped_4turns", "temperature",
                                           "minutes")}))


if __name__ == "__main__":
    main()
