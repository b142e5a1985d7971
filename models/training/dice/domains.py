"""Leave one domain out: how the reader does on a table it never saw, before and after
adapting to a few labelled photos of it. The figure every reader change is judged by.

Usage::

    python -m models.training.dice.domains train --name NAME [--held-out D,D] [recipe options]
    python -m models.training.dice.domains table --name NAME [--k 1,2,5] [--seeds 5] [--json]
    python -m models.training.dice.domains table --models models [--k ...]
    python -m models.training.dice.domains typed --name NAME --into NAME2 [--held-out D,all]
    python -m models.training.dice.domains ship --name NAME

``train`` trains the detector and classifier once per real domain with that domain left out
entirely (``domain_models.train_pair``) into ``runs/domains/NAME/<domain>/``, and with every
domain into ``runs/domains/NAME/all/`` when ``--held-out all`` is asked for (the shipped
pair). ``table`` reads each domain with the pair that never saw it: zero-shot on all of its
photos, then for k = 1, 2, 5 adapted (``vision.dice.adapt``) to k of its photos picked at random
(``--seeds`` draws) and scored on the others, averaged over the draws. ``--models DIR``
scores one pair on every domain instead (the shipped models: a domain it was trained on is
marked ``seen``, its figures are not zero-shot).

``typed`` goes on from each trained fold's detector with rendered photos of the games'
custom dice mixed in (``domain_models.typed_stage``) and writes the fold, its classifier
unchanged, to ``runs/domains/INTO/<domain>/``.

``ship`` copies ``runs/domains/NAME/all/``'s pair into ``models/`` and sets their checksums
in ``models/SHA256SUMS`` and the manifest, and the training record ``models/dice_reader.json``.

Per domain and k: found (``detected_recall``), read (``read_accuracy``), boxes on no die (a
share of the boxes, regions to ignore left out) and image exact. Results go to
``runs/domains/NAME/table.json``.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from dataclasses import fields
from pathlib import Path

import numpy as np

from models.training.dice.domain_models import Recipe, train_pair
from models.training.dice.real_domains import DOMAINS, domain_items
from vision.dice.adapt import (
    ADAPTED_THRESHOLD,
    LabelledPhoto,
    apply_adaptation,
    learn_adaptation,
)
from vision.dice.reader import DiceReader
from vision.imageio import load_image
from vision.measure.evaluate import Labelled, evaluate
from vision.onnx_models import CLASSIFIER_FILE, DETECTOR_FILE

logger = logging.getLogger(__name__)
REPO = Path(__file__).resolve().parents[3]
RUNS = REPO / "runs" / "domains"
METRICS = ("detected_recall", "read_accuracy", "extra_share", "image_exact")
SHORT = {"detected_recall": "found", "read_accuracy": "read", "extra_share": "no die",
         "image_exact": "exact"}


def _labelled_photo(item: Labelled) -> LabelledPhoto:
    img = load_image(item.image)
    h, w = img.shape[:2]
    return LabelledPhoto(img, item.xyxy(w, h), item.values, item.ignore_xyxy(w, h))


def _reader(folder: Path) -> DiceReader:
    return DiceReader(folder / DETECTOR_FILE, folder / CLASSIFIER_FILE)


def k_shot(reader: DiceReader, items: list[Labelled], k: int, seeds: int,
           threshold: float | None = ADAPTED_THRESHOLD) -> dict:
    """Mean metrics over ``seeds`` draws of k photos adapted to, scored on the others
    (``threshold``: the adapted detector's, ``learn_adaptation``'s)."""
    runs = []
    for seed in range(seeds):
        pick = set(np.random.default_rng([seed, 77]).choice(len(items), k, replace=False)
                   .tolist())
        adaptation = learn_adaptation(reader, [_labelled_photo(items[i]) for i in sorted(pick)],
                                      detect_threshold=threshold)
        apply_adaptation(reader, adaptation)
        try:
            runs.append(evaluate([it for i, it in enumerate(items) if i not in pick],
                                 reader.read))
        finally:
            apply_adaptation(reader, None)
    out: dict[str, object] = {m: float(np.mean([r[m] for r in runs])) for m in METRICS}
    out["draws"] = seeds
    out["spread_read"] = [float(min(r["read_accuracy"] for r in runs)),
                          float(max(r["read_accuracy"] for r in runs))]
    return out


def domain_row(reader: DiceReader, domain: str, ks: list[int], seeds: int,
               threshold: float | None = ADAPTED_THRESHOLD) -> dict:
    items = domain_items(domain)
    t = time.time()
    zero = evaluate(items, reader.read)
    row = {"photos": len(items), "dice": zero["dice"],
           "zero_shot": {m: zero[m] for m in (*METRICS, "ms_per_image", "extra", "predicted")}}
    for k in ks:
        if k < len(items):
            row[f"k{k}"] = k_shot(reader, items, k, seeds, threshold)
    row["seconds"] = round(time.time() - t, 1)
    return row


def format_table(table: dict) -> str:
    lines = ["| domain | pair | k | found | read | boxes on no die | image exact |",
             "|---|---|---|---|---|---|---|"]
    for domain, row in table["domains"].items():
        pair = row.get("pair", "")
        for key in ["zero_shot"] + [k for k in row if k.startswith("k") and k[1:].isdigit()]:
            m = row[key]
            k = "0" if key == "zero_shot" else key[1:]
            lines.append(f"| {domain} | {pair} | {k} | {m['detected_recall']:.3f} | "
                         f"{m['read_accuracy']:.3f} | {m['extra_share']:.3f} | "
                         f"{m['image_exact']:.3f} |")
    return "\n".join(lines)


def _table(args: argparse.Namespace) -> int:
    ks = [int(k) for k in args.k.split(",") if k]
    domains = args.domains.split(",") if args.domains else list(DOMAINS)
    table: dict = {"k": ks, "seeds": args.seeds, "adapt_threshold": args.adapt_threshold,
                   "domains": {}}
    if args.models:
        folder = Path(args.models)
        table["models"] = str(folder)
        reader = _reader(folder)
        record = folder / "record.json"
        seen = set(json.loads(record.read_text()).get("domains", [])) if record.exists() \
            else set(DOMAINS)
        for d in domains:
            row = domain_row(reader, d, ks, args.seeds, args.adapt_threshold)
            row["pair"] = "seen" if d in seen else "held out"
            table["domains"][d] = row
            print(format_table({"domains": {d: row}}), file=sys.stderr)
        out = Path(args.out) if args.out else None
    else:
        base = RUNS / args.name
        table["name"] = args.name
        for d in domains:
            folder = base / d
            if not (folder / CLASSIFIER_FILE).exists():
                print(f"no pair trained without {d} in {folder}; skipped", file=sys.stderr)
                continue
            row = domain_row(_reader(folder), d, ks, args.seeds, args.adapt_threshold)
            row["pair"] = "held out"
            table["domains"][d] = row
            print(format_table({"domains": {d: row}}), file=sys.stderr)
        out = Path(args.out) if args.out else base / "table.json"
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(table, indent=2) + "\n")
    print(json.dumps(table, indent=2) if args.json else format_table(table))
    return 0


def _train(args: argparse.Namespace) -> int:
    overrides = {f.name: getattr(args, f.name) for f in fields(Recipe)
                 if getattr(args, f.name, None) is not None}
    recipe = Recipe(**overrides)
    held = args.held_out.split(",") if args.held_out else list(DOMAINS)
    for d in held:
        if d != "all" and d not in DOMAINS:
            raise SystemExit(f"unknown domain {d!r}; the domains are {', '.join(DOMAINS)}, all")
    for d in held:
        out = RUNS / args.name / d
        record = train_pair(None if d == "all" else d, out, recipe)
        print(json.dumps(record), flush=True)
    return 0


def _typed(args: argparse.Namespace) -> int:
    from models.training.dice.domain_models import typed_pair

    held = args.held_out.split(",") if args.held_out else [*DOMAINS, "all"]
    for d in held:
        fold = RUNS / args.name / d
        if not (fold / "record.json").is_file():
            raise SystemExit(f"no pair in {fold}: train it first (train --name {args.name} "
                             f"--held-out {d})")
    for d in held:
        record = typed_pair(RUNS / args.name / d, RUNS / args.into / d, args.steps)
        print(json.dumps(record["typed_stage"]), flush=True)
    return 0


def _ship(args: argparse.Namespace) -> int:
    import hashlib
    import shutil

    from models.training.export import update_sha256sums

    src, dst = RUNS / args.name / "all", REPO / "models"
    files = (DETECTOR_FILE, CLASSIFIER_FILE)
    missing = [f for f in (*files, "record.json") if not (src / f).is_file()]
    if missing:
        raise SystemExit(f"{src} lacks {', '.join(missing)}: train it first "
                         f"(train --name {args.name} --held-out all)")
    digests = {}
    for f in files:
        shutil.copyfile(src / f, dst / f)
        digests[f] = hashlib.sha256((dst / f).read_bytes()).hexdigest()
    update_sha256sums(dst, digests)
    record = json.loads((src / "record.json").read_text())
    record["files"] = digests
    record["made_by"] = f"python -m models.training.dice.domains train --name {args.name} " \
                        "--held-out all"
    if "typed_stage" in record:
        record["made_by"] = (f"python -m models.training.dice.domains train --name "
                             f"{Path(record['typed_stage']['from']).parent.name} --held-out "
                             f"all, then typed --into {args.name} --held-out all")
    (dst / "dice_reader.json").write_text(json.dumps(record, indent=1) + "\n")
    print(json.dumps(digests, indent=1))
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("train", help="train a pair per held-out domain")
    t.add_argument("--name", required=True)
    t.add_argument("--held-out", help="domains to leave out, comma-separated, or 'all' for "
                                      "the pair trained on every domain (default: each)")
    for f in fields(Recipe):
        if f.type in ("int", "float", "str"):
            t.add_argument("--" + f.name.replace("_", "-"), dest=f.name,
                           type={"int": int, "float": float, "str": str}[f.type])
    tb = sub.add_parser("table", help="the leave-one-domain-out table")
    tb.add_argument("--name", help="the trained folds in runs/domains/NAME")
    tb.add_argument("--models", help="score this one pair on every domain instead")
    tb.add_argument("--domains", help="comma-separated (default: all four)")
    tb.add_argument("--k", default="1,2,5", help="photos to adapt to (comma-separated)")
    tb.add_argument("--seeds", type=int, default=5, help="draws of k photos per k")
    tb.add_argument("--out", help="write the table's JSON here")
    tb.add_argument("--adapt-threshold", type=float, default=ADAPTED_THRESHOLD,
                    help="the adapted detector's heat threshold (default: vision.dice.adapt's "
                         "ADAPTED_THRESHOLD)")
    tb.add_argument("--json", action="store_true")
    ty = sub.add_parser("typed", help="fine-tune trained folds' detectors on rendered custom "
                                      "dice (domain_models.typed_stage)")
    ty.add_argument("--name", required=True, help="the trained folds in runs/domains/NAME")
    ty.add_argument("--into", required=True, help="write the tuned folds to runs/domains/INTO")
    ty.add_argument("--held-out", help="which folds, comma-separated (default: every one)")
    ty.add_argument("--steps", type=int, default=3000)
    sp = sub.add_parser("ship", help="copy the pair trained on every domain into models/")
    sp.add_argument("--name", required=True)
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    if args.cmd == "table" and not (args.name or args.models):
        ap.error("table needs --name or --models")
    if args.cmd in ("train", "typed"):
        import cv2
        import torch

        torch.set_num_threads(1)
        cv2.setNumThreads(1)
        return _train(args) if args.cmd == "train" else _typed(args)
    if args.cmd == "ship":
        return _ship(args)
    return _table(args)


if __name__ == "__main__":
    raise SystemExit(main())
