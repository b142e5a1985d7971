"""Trains the enrolment embedding (:mod:`vision.faces.embed`) and exports it to int8 ONNX.

Usage: ``python -m models.training.enrol.train_enrol [--seed 0] [--dice 600] [--steps 3000]``

Data: rendered dice of random designs (:func:`train_dice`): six bold random glyphs (letters,
digits, symbols, random polygons, strokes; six different even up to a turn) on random
body/ink colours, some with marks anywhere instead, some ordinary d6 with one random
symbol face, and dice of the shipped types' face families on random colours (:data:`KINDS`:
colour patches of random hues with a symbol face, pyramid pictograms, random Quarriors
faces, pips). Their glyph seeds (:data:`GLYPH_BASE` and up, ``seed * 100_000`` further on)
and colour seeds are disjoint from every die the measurement renders
(:func:`vision.measure.faces.novel_dice`: glyph seeds 900 000 + 1000 x its seed and up, e.g.
20 900 000+ for ``pieces`` seed 0 and 60 900 000+ for validation seed 60 000; the symbol
faces 950 000 + its seed + i). Each face: :data:`STEADY_SHOTS` crops as the players' shots
(``facecrops.STEADY``) and :data:`WIDE_CROPS` as a thrown die is seen (:data:`WIDE`: light,
tilt, box, blur, noise and JPEG a bit beyond ``facecrops.HARSH``).

Loss (prototypical, per step :data:`EPISODE_DICE` dice): each face's prototype is the mean
embedding of 1-4 of its shots; crops of it in the wide conditions must be nearer to it than
to any other face of the episode (the die's own five others first of all); cosine with a
margin, softmax. Crops are turned upright by the die's edges first and a random quarter
turn, as the reader averages the four.

Writes ``models/die_enrol_202611_int8.onnx`` (static int8, calibrated on training crops),
``models/die_enrol.json`` (command, seeds, held-out accuracy, sha256) and the line in
``models/SHA256SUMS``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F
from tqdm import tqdm

from models.training.export import export_crop_net, update_sha256sums
from models.training.faces.train_faces import conv_trunk
from models.training.quantize import quantize
from vision.faces.dietypes import DieType, Face, custom, get_type
from vision.faces.embed import ENROL_FILE, prepared
from vision.measure.faces import distinct_glyph_seeds
from vision.synth.facecrops import CROP_PX, STEADY, Conditions, face_crops

logger = logging.getLogger(__name__)

MODELS = Path(__file__).resolve().parents[2]
META_FILE = "die_enrol.json"
GLYPH_BASE = 200_000
"""Glyph seeds of the training dice start here (+ seed x 100 000, 40 per die): below the
measurement's 900 000+ and apart from the face model's auxiliary dice (70 000-71 799)."""
EMBED = 64
STEADY_SHOTS = 4
WIDE_CROPS = 6
WIDE = Conditions(gain=(0.4, 1.5), cast=0.2, tilt=0.5, persp=0.08, box_jitter=0.12,
                  blur=(0.0, 1.4), noise=(1.0, 9.0), jpeg=(40, 95))
EPISODE_DICE = 8
QUERIES = 3
MARGIN = 0.1


def _hex(c) -> str:
    return "#" + "".join(f"{int(v):02x}" for v in c)


def _look(**kw) -> tuple:
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in kw.items()))


def _colours(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Random body and ink colours differing in brightness (as printed dice do)."""
    body = rng.integers(0, 256, 3)
    ink = 255 - body if rng.random() < 0.7 else rng.integers(0, 256, 3)
    if abs(int(body.mean()) - int(ink.mean())) < 80 and rng.random() < 0.8:
        ink = np.full(3, 20 if body.mean() > 127 else 235)
    return body, ink


def _patch_die(name: str, rng: np.random.Generator) -> DieType:
    """The colour die's family (IceDice): five colour patches of hues spread round the
    wheel (random offset, saturation, value; sometimes a near-black one), one symbol face,
    on a random pale or dark body; patches square or discs (``vision.faces.draw.ink_mask``)."""
    light = rng.random() < 0.75
    body = rng.integers(200, 256, 3) if light else rng.integers(0, 70, 3)
    ink = np.full(3, 20) if light else np.full(3, 235)
    shape = rng.random() < 0.5
    hues = (rng.uniform(0, 180) + np.arange(5) * 36 + rng.uniform(-6, 6, 5)) % 180
    cols = []
    for k, h in enumerate(rng.permutation(hues)):
        if k == 0 and light and rng.random() < 0.3:
            cols.append(rng.integers(10, 40, 3))
            continue
        hsv = np.array([[[h, rng.uniform(140, 255), rng.uniform(110, 250)]]], np.uint8)
        cols.append(cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0][::-1])  # BGR -> RGB hex
    faces = [Face(f"c{k}", _look(kind="colour", colour=_hex(c),
                                 **({"shape": "disc"} if shape else {})))
             for k, c in enumerate(cols)]
    faces.append(Face("sym", _look(kind="symbol", symbol=str(rng.choice(SYMBOLS)))))
    return DieType(name, "", _hex(body), _hex(ink), tuple(faces))


def _picto_die(name: str, rng: np.random.Generator) -> DieType:
    """The size die's family (IceDice): six of one or two pyramid pictograms of sizes S/M/L,
    on random colours."""
    body, ink = _colours(rng)
    picks = rng.choice(len(PICTOS), 6, replace=False)
    faces = tuple(Face(f"p{k}", _look(kind="pictogram", sizes=list(PICTOS[i])))
                  for k, i in enumerate(picks))
    return DieType(name, "", _hex(body), _hex(ink), faces)


def _quarriors_look(rng: np.random.Generator) -> tuple:
    icon = str(rng.choice(QUARRIORS_ICONS))
    kw: dict = {"kind": "quarriors", "icon": icon, "burst": int(rng.choice(3, p=[.6, .3, .1]))}
    if icon in ("quiddity", "quiddity_or_reroll", "quiddity_and_draw"):
        kw["quiddity"] = int(rng.integers(1, 4))
    if icon in ("draw", "quiddity_and_draw"):
        kw["draw"] = int(rng.integers(1, 3))
    if icon == "creature":
        kw.update(level=int(rng.integers(1, 4)), attack=int(rng.integers(0, 7)),
                  defense=int(rng.integers(1, 7)))
    return _look(**kw)


def _quarriors_die(name: str, rng: np.random.Generator) -> DieType:
    """The Quarriors family: six different random faces (quiddity, creature level dots and
    attack/defence, draw, reroll, spell, bursts) on random colours."""
    body, ink = _colours(rng)
    looks: list[tuple] = []
    while len(looks) < 6:
        lk = _quarriors_look(rng)
        if lk not in looks:
            looks.append(lk)
    return DieType(name, "", _hex(body), _hex(ink),
                   tuple(Face(f"q{k}", lk) for k, lk in enumerate(looks)))


def _pips_die(name: str, rng: np.random.Generator) -> DieType:
    """An ordinary pipped d6 on random colours."""
    body, ink = _colours(rng)
    return DieType(name, "", _hex(body), _hex(ink),
                   tuple(Face(str(v), _look(kind="pips", value=v)) for v in range(1, 7)))


#: Shares of the training dice by family (the rest: six bold random glyphs). The families of
#: the shipped types' faces (colour patches, pictograms, Quarriors) joined the random glyph
#: dice after the embedding, trained on glyphs alone, read those types enrolled as new worse
#: than the face model's embedding had (0.8924 against 0.9524 with 5 shots).
KINDS = {"d6-symbol": 0.10, "marks": 0.10, "patch": 0.12, "picto": 0.06, "quarriors": 0.14,
         "pips": 0.04}
#: The symbols vision.faces.draw draws (``kind: symbol``), as the colour dice's sixth face.
SYMBOLS = ["atom", "star", "skull", "shield", "swirl", "diamond", "card", "reroll"]
PICTOS = ["S", "M", "L", "SM", "SL", "ML", "SS", "MM", "LL"]
QUARRIORS_ICONS = ["quiddity", "quiddity", "creature", "creature", "creature", "draw",
                   "reroll", "spell", "quiddity_and_draw", "quiddity_or_reroll",
                   "reroll_and_draw"]


def train_dice(n: int, seed: int) -> list[DieType]:
    """`n` dice of random designs (reproducible by `seed`; see the module's docstring)."""
    rng = np.random.default_rng(1_000 + seed)
    d6 = get_type("d6")
    edges = np.cumsum(list(KINDS.values()))
    out = []
    for i in range(n):
        base = GLYPH_BASE + seed * 100_000 + i * 40
        kind = (list(KINDS) + ["glyphs"])[int(np.searchsorted(edges, rng.random(), "right"))]
        if kind == "d6-symbol":  # an ordinary d6 with a symbol on the 1 (the skull-on-1 case)
            glyph = custom("sym", ["1"], d6.body, d6.ink, seeds=[base], bold=True).faces[0]
            out.append(DieType(f"train-d6-{i}", "", d6.body, d6.ink, (glyph, *d6.faces[1:])))
        elif kind == "patch":
            out.append(_patch_die(f"train-patch-{i}", rng))
        elif kind == "picto":
            out.append(_picto_die(f"train-picto-{i}", rng))
        elif kind == "quarriors":
            out.append(_quarriors_die(f"train-quarriors-{i}", rng))
        elif kind == "pips":
            out.append(_pips_die(f"train-pips-{i}", rng))
        else:
            hexes = [_hex(c) for c in _colours(rng)]
            bold = kind == "glyphs"
            seeds = distinct_glyph_seeds(base) if bold else [base + k for k in range(6)]
            out.append(custom(f"train-{i}", [f"f{k}" for k in range(6)], hexes[0], hexes[1],
                              seeds=seeds, bold=bold))
    return out


def make_data(dice: list[DieType], seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(steady, wide): uint8 upright-turned crops, (dice, 6, STEADY_SHOTS|WIDE_CROPS, ...)."""
    rng = np.random.default_rng(seed)
    steady = np.empty((len(dice), 6, STEADY_SHOTS, CROP_PX, CROP_PX, 3), np.uint8)
    wide = np.empty((len(dice), 6, WIDE_CROPS, CROP_PX, CROP_PX, 3), np.uint8)
    for d, dt in enumerate(tqdm(dice, desc="render", unit="die")):
        for k, face in enumerate(dt.faces):
            for arr, n, cond in ((steady, STEADY_SHOTS, STEADY), (wide, WIDE_CROPS, WIDE)):
                c = face_crops(dt, face, n, rng, cond, CROP_PX)
                arr[d, k] = (prepared(c).transpose(0, 2, 3, 1) * 255 + 0.5).astype(np.uint8)
    return steady, wide


class EnrolNet(nn.Module):
    """Crop (B, 3, 48, 48) BGR in [0, 1] -> (B, EMBED) unit embedding."""

    def __init__(self, width: float = 1.0) -> None:
        super().__init__()
        self.features = conv_trunk(width)
        c = max(8, int(round(64 * width)))
        self.embed = nn.Linear(c * 9, EMBED)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.normalize(self.embed(torch.flatten(self.features(x), 1)), dim=1)


def _tensor(a: np.ndarray, rng: np.random.Generator) -> torch.Tensor:
    """uint8 (B, h, w, 3) -> float (B, 3, h, w), each crop at a random quarter turn."""
    a = np.stack([np.rot90(c, int(k)) for c, k in zip(a, rng.integers(0, 4, len(a)),
                                                      strict=True)])
    return torch.from_numpy(np.ascontiguousarray(a)).permute(0, 3, 1, 2).float() / 255.0


def episode_loss(net: EnrolNet, steady: np.ndarray, wide: np.ndarray, dice: np.ndarray,
                 rng: np.random.Generator, scale: torch.Tensor) -> tuple[torch.Tensor, float]:
    sup, sup_face, qry, qry_face = [], [], [], []
    for j, d in enumerate(dice):
        for k in range(6):
            shots = int(rng.integers(1, STEADY_SHOTS + 1))
            sup.append(steady[d, k, rng.choice(STEADY_SHOTS, shots, replace=False)])
            sup_face += [j * 6 + k] * shots
            qry.append(wide[d, k, rng.choice(WIDE_CROPS, QUERIES, replace=False)])
            qry_face += [j * 6 + k] * QUERIES
    emb = net(_tensor(np.concatenate(sup + qry), rng))
    ns = len(sup_face)
    es, eq = emb[:ns], emb[ns:]
    sf = torch.tensor(sup_face)
    protos = torch.zeros(len(dice) * 6, EMBED).index_add_(0, sf, es)
    protos = F.normalize(protos, dim=1)
    yq = torch.tensor(qry_face)
    cos = eq @ protos.T
    loss = F.cross_entropy(scale * (cos - MARGIN * F.one_hot(yq, len(protos))), yq)
    return loss, float((cos.argmax(1) == yq).float().mean())


def train(steady: np.ndarray, wide: np.ndarray, steps: int, seed: int,
          width: float) -> EnrolNet:
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    net = EnrolNet(width)
    scale = nn.Parameter(torch.tensor(10.0))
    opt = torch.optim.AdamW([*net.parameters(), scale], lr=3e-3, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=steps, pct_start=0.1)
    net.train()
    bar = tqdm(range(steps), desc="train", unit="step")
    accs = []
    for step in bar:
        dice = rng.choice(len(steady), EPISODE_DICE, replace=False)
        loss, acc = episode_loss(net, steady, wide, dice, rng, scale)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        accs.append(acc)
        if step % 50 == 0:
            bar.set_postfix(loss=f"{loss.item():.3f}", acc=f"{np.mean(accs[-50:]):.3f}")
    return net.eval()


def held_out_accuracy(embed, steady: np.ndarray, wide: np.ndarray, shots: int) -> float:
    """Within-die 6-way accuracy: each wide crop against its die's six prototypes (the mean
    of `shots` steady shots), embeddings averaged over the four turns."""
    right = n = 0
    for d in range(len(steady)):
        protos = embed(steady[d, :, :shots].reshape(-1, CROP_PX, CROP_PX, 3))
        protos = protos.reshape(6, shots, -1).mean(axis=1)
        q = embed(wide[d].reshape(-1, CROP_PX, CROP_PX, 3))
        pred = np.argmax(q @ protos.T, axis=1)
        right += int((pred == np.repeat(np.arange(6), wide.shape[2])).sum())
        n += len(pred)
    return right / n


def _torch_embed(net: EnrolNet):
    def f(crops: np.ndarray) -> np.ndarray:
        x = torch.from_numpy(np.ascontiguousarray(crops)).permute(0, 3, 1, 2).float() / 255.0
        with torch.no_grad():
            e = torch.stack([net(torch.rot90(x, k, dims=(2, 3))) for k in range(4)]).mean(0)
        return F.normalize(e, dim=1).numpy()
    return f


def _onnx_embed(path: Path):
    from vision.onnx_models import open_session

    sess = open_session(path)

    def f(crops: np.ndarray) -> np.ndarray:
        x = np.ascontiguousarray(crops.transpose(0, 3, 1, 2), np.float32) / 255.0
        e = np.stack([sess.run(None, {"crops": np.ascontiguousarray(np.rot90(x, k, axes=(2, 3)))
                                      })[0] for k in range(4)]).mean(0)
        return e / np.linalg.norm(e, axis=1, keepdims=True)
    return f


def export_int8(net: EnrolNet, calib: np.ndarray, out: Path) -> None:
    """The network as static int8 ONNX at ``out`` (activation ranges from ``calib``, uint8
    BGR crops), quantised as the other shipped models are (models.training.quantize)."""
    with tempfile.TemporaryDirectory() as tmp:
        fp = Path(tmp) / "float.onnx"
        export_crop_net(net, fp, CROP_PX, ("embedding",))
        quantize(fp, out, calib)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dice", type=int, default=600, help="random-design training dice")
    ap.add_argument("--held-out", type=int, default=40, help="dice kept apart for the check")
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--width", type=float, default=1.0, help="channel width of the convs")
    ap.add_argument("--cache", type=Path, help="keep the rendered crops in this .npz")
    ap.add_argument("--out-dir", type=Path, default=MODELS,
                    help="write the model and its metadata here (SHA256SUMS only if models/)")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO)
    t0 = time.time()
    torch.set_num_threads(1)
    if args.cache is not None and args.cache.is_file():
        data = np.load(args.cache)
        steady, wide = data["steady"], data["wide"]
    else:
        steady, wide = make_data(train_dice(args.dice + args.held_out, args.seed), args.seed)
        if args.cache is not None:
            np.savez(args.cache, steady=steady, wide=wide)
    fit = slice(0, args.dice)
    hold = slice(args.dice, args.dice + args.held_out)
    net = train(steady[fit], wide[fit], args.steps, args.seed, args.width)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    out = args.out_dir / ENROL_FILE
    calib = np.concatenate([steady[fit][:100].reshape(-1, CROP_PX, CROP_PX, 3)[::4],
                            wide[fit][:100].reshape(-1, CROP_PX, CROP_PX, 3)[::6]])
    export_int8(net, calib, out)
    acc = {f"torch_{k}_shots": held_out_accuracy(_torch_embed(net), steady[hold], wide[hold], k)
           for k in (1, 4)}
    acc.update({f"int8_{k}_shots": held_out_accuracy(_onnx_embed(out), steady[hold],
                                                     wide[hold], k) for k in (1, 4)})
    sha = hashlib.sha256(out.read_bytes()).hexdigest()
    meta = {"file": ENROL_FILE, "sha256": sha, "bytes": out.stat().st_size, "crop_px": CROP_PX,
            "embedding": EMBED, "seed": args.seed, "dice": args.dice,
            "held_out_dice": args.held_out, "steps": args.steps, "width": args.width,
            "glyph_seeds": [GLYPH_BASE + args.seed * 100_000,
                            GLYPH_BASE + args.seed * 100_000 + 40 * (args.dice + args.held_out)],
            "held_out_within_die_accuracy": acc, "torch": torch.__version__,
            "minutes": round((time.time() - t0) / 60, 1),
            "command": f"python -m models.training.enrol.train_enrol --seed {args.seed} "
                       f"--dice {args.dice} --held-out {args.held_out} --steps {args.steps} "
                       f"--width {args.width}"}
    (args.out_dir / META_FILE).write_text(json.dumps(meta, indent=1) + "\n")
    if args.out_dir.resolve() == MODELS.resolve():
        update_sha256sums(MODELS, {ENROL_FILE: sha})
    print(json.dumps({k: meta[k] for k in ("held_out_within_die_accuracy", "bytes", "minutes")}))


if __name__ == "__main__":
    main()
