"""Writes ``engine/games/quarriors/data/base.json`` from the shared Quarriors facts.

Usage: ``python -m engine.games.quarriors.make_data [--source PATH/quarriors-base.json]``

Why a generated file inside the package: the engine must run where ``../shared`` is absent
(a Pi at a club), and the project does not ship the shared research file as it is. This keeps
only what the rules need, in the engine's own structure: each die's faces (kind, numbers,
bursts) and each card's cost, glory, die, keywords and the one-line ability text the shared
file restates, with each entry's provenance (the source's verification or confidence). The
die colours and the list of web sources stay in ``shared/data/games/`` (the same precedent as
``vision/data/dietypes/quarriors.json``, written by ``models/training/faces/make_dietypes.py``).
``tests/engine/test_quarriors_data.py`` checks this file against the shared one when present.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "data" / "base.json"
DEFAULT_SOURCE = Path(__file__).resolve().parents[4] / "shared" / "data" / "games" / \
    "quarriors-base.json"
FACE_KEYS = ("kind", "quiddity", "draw", "level", "attack", "defense", "burst")
CONFIDENCE = {"high": "VERIFIED (two or more independent sources agree)",
              "medium": "SINGLE-SOURCE (one full source, partly corroborated)",
              "low": "CONFLICT (sources disagree)"}


def convert(source: dict[str, Any]) -> dict[str, Any]:
    dice = {}
    for key, die in source["dice"].items():
        faces = [{k: f[k] for k in FACE_KEYS if f.get(k) is not None} for f in die["faces"]]
        for face, raw in zip(faces, die["faces"], strict=True):
            face["burst"] = int(raw.get("burst") or 0)
        dice[key] = {"provenance": f"VERIFIED ({die['verification']})", "faces": faces}
    cards = []
    for card in source["cards"]:
        cards.append({
            "name": card["name"], "class": card["class"], "variant": card["variant"],
            "category": card["category"], "cost": card["cost"], "glory": card["glory"],
            "die": card["die"],
            "text": [{"burst": a["requires_burst"], "keyword": a["keyword"],
                      "text": a["summary"]} for a in card["abilities"]],
            "provenance": CONFIDENCE[card["confidence"]]
            + (f"; {card['notes']}" if card.get("notes") else ""),
        })
    return {
        "about": "Quarriors! base set (WizKids, 2011) dice faces and cards, converted by "
                 "engine/games/quarriors/make_data.py from shared/data/games/"
                 "quarriors-base.json (see shared/data/games/README.md for the sources). "
                 "Card 'text' is the shared file's one-line restatement of each ability, "
                 "not the printed wording; burst: 0 = always, 1 = face shows *, 2 = face "
                 "shows **, null = the same with * or **.",
        "dice": dice, "cards": cards}


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    args = ap.parse_args()
    data = convert(json.loads(args.source.read_text(encoding="utf-8")))
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    sys.stdout.write(f"wrote {OUT}: {len(data['dice'])} dice, {len(data['cards'])} cards\n")


if __name__ == "__main__":
    main()
