"""Trains an expert face model for a few die types the shared face model reads least well.

Usage: ``python -m models.training.faces.train_face_expert --types TYPE... [--name NAME]
[--seed 0] [--per-face 2000] [--steps 6000] [--square-on 0.3] [--width 1.0]``

The shared face model (:mod:`models.training.faces.train_faces`) spreads one small network over 56
labels and an embedding objective; a die whose faces differ by little (the IceDice size die:
one pyramid pictogram 0.34, 0.46 or 0.58 of the face) is read less well than the rest. An
expert is the same kind of network trained on the named types' faces only, with many more
crops per face: most cut as the dice reader cuts a detected die (its box x 1.15, TRAIN
conditions), a share (``--square-on``) cut as the live observer reads a die on a calibrated
mat (the top face's plane warped square-on, :data:`vision.synth.facecrops.TOP`).

Validation (the decision data; the measuring seeds of ``dicetable pieces``, 10 000+ and
11 000+, are never rendered here): crops rendered with seeds from :data:`VAL_SEED`, in both
cuts, logits averaged over the four quarter turns as the reader reads them. The temperature
is fitted on them. The int8 model (static quantisation, calibrated on training crops) is
shipped when its validation accuracy is not lower than the float model's; otherwise the
float one. The expert is shipped for the types where it reads the validation renders (mean
of both cuts) at least as well as the shared model (the shared model's figures on the same
renders are kept in ``die_faces_experts.json`` beside the expert's).

Writes ``models/die_faces_<name>_202611.onnx`` (input ``crops`` (N, 3, 48, 48) BGR in
[0, 1], output ``logits`` over the types' labels), its entry in ``models/die_faces_experts.json``
(types, labels, temperature, validation accuracy, command, sha256) and its line of
``models/SHA256SUMS``. :class:`vision.faces.reading.DieFaceReader` reads those types with it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from models.training.dice.train_classifier import fit_temperature
from models.training.export import export_crop_net, update_sha256sums
from models.training.faces.train_faces import augment, conv_trunk, to_tensor
from models.training.quantize import quantize
from vision.faces.dietypes import DieType, get_type
from vision.onnx_models import open_session
from vision.synth.facecrops import CROP_PX, TOP, TRAIN, face_crops

logger = logging.getLogger(__name__)

MODELS = Path(__file__).resolve().parents[2]
EXPERTS_FILE = "die_faces_experts.json"
#: validation renders' seeds (training: seed x 100 003 + face; measuring: 10 000+, 11 000+)
VAL_SEED = 70_000


def expert_file(name: str) -> str:
    return f"die_faces_{name}_202611.onnx"


def labels_of(types: list[DieType]) -> list[str]:
    return sorted({f.label for dt in types for f in dt.faces})


def render(types: list[DieType], per_face: int, seed: int, square_on: float
           ) -> tuple[np.ndarray, list[str]]:
    crops, labels = [], []
    k = 0
    for dt in types:
        for face in dt.faces:  # every face, as the measurement does (two may share a label)
            rng = np.random.default_rng(seed * 100_003 + k)
            k += 1
            top = int(round(per_face * square_on))
            crops.append(face_crops(dt, face, per_face - top, rng, TRAIN, CROP_PX))
            if top:
                crops.append(face_crops(dt, face, top, rng, TOP, CROP_PX))
            labels += [face.label] * per_face
    return np.concatenate(crops), labels


class ExpertNet(nn.Module):
    """Crop (B, 3, 48, 48) in [0, 1] -> logits (the shared model's shape, scaled by width)."""

    def __init__(self, n_classes: int, width: float = 1.0) -> None:
        super().__init__()
        self.features = conv_trunk(width)
        c4 = max(8, int(round(64 * width)))
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(c4 * 9, 96), nn.ReLU(inplace=True),
                                  nn.Linear(96, n_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


def train(crops: np.ndarray, y: np.ndarray, n_classes: int, steps: int, seed: int,
          width: float, batch: int = 96) -> ExpertNet:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    net = ExpertNet(n_classes, width)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=steps, pct_start=0.15)
    yt = torch.from_numpy(y)
    rng = np.random.default_rng(seed)
    net.train()
    t0 = time.time()
    for step in range(steps):
        idx = rng.integers(0, len(y), batch)
        loss = F.cross_entropy(net(augment(to_tensor(crops[idx]), gen)), yt[idx],
                               label_smoothing=0.05)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 500 == 0:
            logger.info("step %d loss %.3f (%.0f s)", step, loss.item(), time.time() - t0)
    return net.eval()


def turned_logits(run, crops: np.ndarray) -> np.ndarray:
    """Logits averaged over the four quarter turns, as the reader reads them."""
    out = []
    for i in range(0, len(crops), 256):
        c = crops[i:i + 256]
        out.append(np.mean([run(np.ascontiguousarray(np.rot90(c, k, axes=(1, 2))))
                            for k in range(4)], axis=0))
    return np.concatenate(out)


def per_type_accuracy(logits: np.ndarray, y: np.ndarray, owner: list[str], types: list[DieType],
                      vocab: list[str]) -> dict[str, float]:
    """Accuracy per type with the logits restricted to the type's labels."""
    out = {}
    own = np.array(owner)
    for dt in types:
        cols = [vocab.index(lb) for lb in labels_of([dt])]
        m = own == dt.name
        pred = np.array(cols)[logits[m][:, cols].argmax(1)]
        out[dt.name] = round(float((pred == y[m]).mean()), 4)
    return out


def shared_accuracy(val: dict[str, tuple[np.ndarray, np.ndarray, list[str]]],
                    types: list[DieType], vocab: list[str]) -> dict[str, dict[str, float]]:
    """The shipped shared model's accuracy per type on the same validation renders (its
    reading, rejects counted wrong): what the expert must beat to be shipped."""
    from vision.faces.reading import DieFaceReader

    shared = DieFaceReader(MODELS / "die_faces_202611.onnx", experts=False)
    out: dict[str, dict[str, float]] = {}
    for cut, (vc, vy, owner) in val.items():
        own = np.array(owner)
        out[cut] = {}
        for dt in types:
            m = own == dt.name
            got = [r.label for r in shared.read_type(vc[m], dt)]
            out[cut][dt.name] = round(float(np.mean([g == vocab[t] for g, t
                                                     in zip(got, vy[m], strict=True)])), 4)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--types", nargs="+", required=True)
    ap.add_argument("--name", help="the expert's name in its file name (default: the type, "
                                   "when there is one)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--per-face", type=int, default=2000)
    ap.add_argument("--val-per-face", type=int, default=300)
    ap.add_argument("--steps", type=int, default=6000)
    ap.add_argument("--square-on", type=float, default=0.3)
    ap.add_argument("--width", type=float, default=1.0)
    ap.add_argument("--out-dir", type=Path, default=MODELS,
                    help="write the model and its entry here (SHA256SUMS only if models/)")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    torch.set_num_threads(1)
    t0 = time.time()
    types = [get_type(t) for t in args.types]
    vocab = labels_of(types)
    index = {lb: i for i, lb in enumerate(vocab)}
    crops, labels = render(types, args.per_face, args.seed, args.square_on)
    y = np.array([index[lb] for lb in labels], np.int64)
    logger.info("rendered %d crops (%.0f s)", len(y), time.time() - t0)
    val = {}
    for cut, share in (("box", 0.0), ("square_on", 1.0)):
        vc, vl = render(types, args.val_per_face, VAL_SEED + args.seed + int(share), share)
        owner = [dt.name for dt in types for _ in dt.faces for _ in range(args.val_per_face)]
        val[cut] = (vc, np.array([index[lb] for lb in vl]), owner)
    net = train(crops, y, len(vocab), args.steps, args.seed, args.width)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    if args.name is None and len(args.types) > 1:
        ap.error("--name is needed for an expert of several types")
    name = expert_file(args.name or args.types[0])
    out = args.out_dir / name
    with tempfile.TemporaryDirectory() as tmp:
        fpath = Path(tmp) / "float.onnx"
        export_crop_net(net, fpath, CROP_PX)
        qpath = Path(tmp) / "int8.onnx"
        pick = np.random.default_rng(args.seed).choice(len(crops), min(600, len(crops)),
                                                       replace=False)
        calib = crops[pick]
        quantize(fpath, qpath, calib)
        scores = {}
        for kind, path in (("float", fpath), ("int8", qpath)):
            sess = open_session(path)

            def run(c: np.ndarray, s=sess) -> np.ndarray:
                return s.run(None, {"crops": to_tensor(c).numpy()})[0]

            got = {cut: turned_logits(run, vc) for cut, (vc, _, _) in val.items()}
            scores[kind] = (got, {cut: per_type_accuracy(got[cut], vy, own, types, vocab)
                                  for cut, (_, vy, own) in val.items()})
            logger.info("%s validation %s", kind, scores[kind][1])
        mean = {k: np.mean([a for cut in s[1].values() for a in cut.values()])
                for k, s in scores.items()}
        kind = "int8" if mean["int8"] >= mean["float"] else "float"
        out.write_bytes((qpath if kind == "int8" else fpath).read_bytes())
    logits_by, acc = scores[kind]
    all_logits = np.concatenate([logits_by[c] for c in val])
    all_y = np.concatenate([val[c][1] for c in val])
    temp = fit_temperature(torch.from_numpy(all_logits).float(), all_y, max_iter=100)
    sha = hashlib.sha256(out.read_bytes()).hexdigest()
    meta_path = args.out_dir / EXPERTS_FILE
    meta = json.loads(meta_path.read_text()) if meta_path.is_file() else {"experts": {}}
    meta["experts"] = {k: v for k, v in meta["experts"].items() if v["file"] != name}
    meta["experts"][name.removesuffix(".onnx")] = {
        "file": name, "sha256": sha, "types": args.types, "labels": vocab,
        "temperature": temp, "test_time_turns": 4, "crop_px": CROP_PX, "precision": kind,
        "validation_accuracy": acc,
        "shared_model_validation_accuracy": shared_accuracy(val, types, vocab),
        "validation_mean": {k: round(float(v), 4) for k, v in mean.items()},
        "seed": args.seed, "per_face": args.per_face, "steps": args.steps,
        "square_on": args.square_on, "width": args.width, "torch": torch.__version__,
        "minutes": round((time.time() - t0) / 60, 1),
        "command": "python -m models.training.faces.train_face_expert --types "
                   + " ".join(args.types)
                   + (f" --name {args.name}" if args.name else "")
                   + f" --seed {args.seed} --per-face {args.per_face} --steps {args.steps}"
                   f" --square-on {args.square_on} --width {args.width}"}
    meta_path.write_text(json.dumps(meta, indent=1) + "\n")
    if args.out_dir.resolve() == MODELS.resolve():
        update_sha256sums(MODELS, {name: sha})
    print(json.dumps({"file": name, "precision": kind, "validation_accuracy": acc,
                      "temperature": temp, "bytes": out.stat().st_size,
                      "minutes": meta["experts"][name.removesuffix(".onnx")]["minutes"]}))


if __name__ == "__main__":
    main()
