"""Writes ``vision/data/dietypes/quarriors.json`` from the shared Quarriors data file.

Usage: ``python -m models.training.faces.make_dietypes [--source PATH/quarriors-base.json]``

The shipped die-type file carries each die's provenance (the source's verification field and
its list of sources); each face gets a label that names what the face shows, so two faces that
look the same share a label (the classifier cannot tell them apart, and need not).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

OUT = Path(__file__).resolve().parents[3] / "vision" / "data" / "dietypes" / "quarriors.json"
DEFAULT_SOURCE = Path(__file__).resolve().parents[4] / "shared" / "data" / "games" / \
    "quarriors-base.json"


def face_label(face: dict) -> str:
    """A short label naming what a Quarriors face shows (``Q2``, ``L1 3/2*``, ``spell**``)."""
    burst = "*" * int(face.get("burst") or 0)
    kind = face["kind"]
    if kind == "quiddity":
        base = f"Q{face['quiddity']}"
    elif kind == "creature":
        a, d = face.get("attack"), face.get("defense")
        stats = "?/?" if a is None or d is None else f"{a}/{d}"
        base = f"L{face['level']} {stats}"
    elif kind == "spell":
        base = "spell"
    elif kind == "draw":
        base = f"draw{face['draw']}"
    elif kind == "reroll":
        base = "reroll"
    elif kind == "quiddity_and_draw":
        base = f"Q{face['quiddity']}+draw{face['draw']}"
    elif kind == "reroll_and_draw":
        base = f"reroll+draw{face['draw']}"
    elif kind == "quiddity_or_reroll":
        base = f"Q{face['quiddity']}|reroll"
    else:
        raise ValueError(f"unknown Quarriors face kind {kind!r}")
    return base + burst


def convert(source: dict) -> dict:
    about = source["_about"]
    types = []
    for name, die in source["dice"].items():
        body, ink = die["hex_approx"]
        faces = []
        for f in die["faces"]:
            look = {"kind": "quarriors", "icon": f["kind"], "burst": int(f.get("burst") or 0)}
            for key in ("quiddity", "draw", "level", "attack", "defense"):
                if f.get(key) is not None:
                    look[key] = f[key]
            faces.append({"label": face_label(f), "look": look,
                          "attrs": {k: v for k, v in f.items() if k != "note"}})
        types.append({
            "name": f"quarriors-{name.replace('_', '-')}",
            "title": f"Quarriors {name.replace('_', ' ')} die",
            "body": body, "ink": ink, "colour_text": die["colour"],
            "provenance": f"VERIFIED ({die['verification']}) faces; colours approximate "
                          "(hex_approx of the source)",
            "faces": faces,
        })
    return {"about": "Quarriors! base set dice, converted by "
                     "models/training/faces/make_dietypes.py "
                     f"from shared/data/games/quarriors-base.json ({about['game']}).",
            "sources": about["sources"], "types": types}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    args = ap.parse_args()
    data = convert(json.loads(args.source.read_text()))
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {OUT}: {len(data['types'])} die types")


if __name__ == "__main__":
    main()
