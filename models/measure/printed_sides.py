"""Face accuracy per die type on box crops whose sides are wide and printed with the die's
other faces (``vision.synth.facecrops.WIDE``), as a wide camera's photo shows a typed die.

Usage::

    python -m models.measure.printed_sides [--per-face N] [--seed S] [--models DIR] [--no-experts]
                                   [--cond wide|oblique|train|top] [--photos N] [--json]

``--models DIR`` reads with the face model and experts in DIR (a copy of ``models/`` with a
candidate in place) instead of the shipped ones. The render seeds are 15 000 + S (the
``pieces`` measurements use 10 000-13 999); validation renders use another seed (``--seed
763 000`` was used to look at the candidate before the measurement's seed 0).

``--photos N`` reads instead N rendered photos per game on the grey and the renderer's random
tables, unshifted and as taken, as ``read --game`` reads them
(``models.measure.light_faces.photos``, photo seed 1 + S: the squares of
``vision.faces.topface.top_candidates`` were chosen on seed 0), and the live IceDice throws
square-on (``light_faces.live``, N throws an edition).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

SEED_BASE = 15_000


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-face", type=int, default=60)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--models", type=Path, help="folder of the face model and its experts")
    ap.add_argument("--no-experts", action="store_true", help="the shared model alone")
    ap.add_argument("--cond", choices=("wide", "oblique", "train", "top"), default="wide")
    ap.add_argument("--photos", type=int, default=0, metavar="N",
                    help="read N light_faces photos per game and table instead of crops")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    from vision.faces.reading import DieFaceReader
    from vision.measure.faces import eval_types
    from vision.synth import facecrops

    cond = {"wide": facecrops.WIDE, "oblique": facecrops.OBLIQUE, "train": facecrops.TRAIN,
            "top": facecrops.TOP}[args.cond]
    path = args.models / "die_faces_202611.onnx" if args.models else None
    reader = DieFaceReader(path=path, experts=not args.no_experts)
    t0 = time.perf_counter()
    if args.photos:
        from models.measure.light_faces import live, photos

        got: dict[str, list[int]] = {}
        for game in ("icedice", "quarriors"):
            for table in ("grey", "random"):
                r = photos(reader, game, table, args.photos, 1 + args.seed, ("none",))["none"]
                got[f"photos {game} {table}"] = [r["a"], r["dice"]]
        for edition in ("rainbow", "suits"):
            r = live(reader, edition, args.photos, 1 + args.seed, ("none",))["none"]
            got[f"live icedice {edition}"] = [r["a"], r["dice"]]
        print(json.dumps({"models": str(args.models or "shipped"),
                          "experts": not args.no_experts, "right_of": got,
                          "seconds": round(time.perf_counter() - t0, 1)}, indent=1))
        return 0
    res = eval_types(reader, per_face=args.per_face, seed=SEED_BASE + args.seed, cond=cond)
    acc = {k: round(v["accuracy"], 4) for k, v in res.items()}
    out = {"cond": args.cond, "per_face": args.per_face, "seed": args.seed,
           "models": str(args.models or "shipped"), "experts": not args.no_experts,
           "accuracy": acc, "rejected": {k: round(v["rejected"], 4) for k, v in res.items()},
           "mean": round(sum(acc.values()) / len(acc), 4),
           "seconds": round(time.perf_counter() - t0, 1)}
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        for k, v in acc.items():
            print(f"{k:40s} {v:.4f}  rejected {out['rejected'][k]:.4f}")
        print(f"mean {out['mean']:.4f} ({out['seconds']} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
