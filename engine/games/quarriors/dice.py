"""The 18 Quarriors dice: their faces, read from ``data/base.json``, and the face labels the
camera and the action texts use.

A face label names what a face shows (``Q1``, ``L1 2/2*``, ``spell**``, ``draw2``,
``reroll*``, ``Q1+draw1``, ``reroll+draw1``, ``Q3|reroll``), the same labels as the vision
die types (models/training/faces/make_dietypes.py): two faces that look alike share a label, so a
roll's outcome is a label with the chance of its faces (``Die.odds``). Action texts write the
label without its space (``L1-2/2*``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

#: faces whose symbols can be spent or used (the kinds of shared/data/games' face schema)
KINDS = ("quiddity", "creature", "spell", "draw", "reroll", "quiddity_and_draw",
         "reroll_and_draw", "quiddity_or_reroll")


@dataclass(frozen=True, slots=True)
class Face:
    """One face of a die. ``attack``/``defense`` None: variable (Primordial Ooze's ?)."""

    kind: str
    burst: int = 0
    quiddity: int = 0
    draw: int = 0
    level: int = 0
    attack: int | None = None
    defense: int | None = None

    @property
    def label(self) -> str:
        stars = "*" * self.burst
        if self.kind == "quiddity":
            base = f"Q{self.quiddity}"
        elif self.kind == "creature":
            stats = "?/?" if self.attack is None or self.defense is None \
                else f"{self.attack}/{self.defense}"
            base = f"L{self.level} {stats}"
        elif self.kind == "spell":
            base = "spell"
        elif self.kind == "draw":
            base = f"draw{self.draw}"
        elif self.kind == "reroll":
            base = "reroll"
        elif self.kind == "quiddity_and_draw":
            base = f"Q{self.quiddity}+draw{self.draw}"
        elif self.kind == "reroll_and_draw":
            base = f"reroll+draw{self.draw}"
        else:
            base = f"Q{self.quiddity}|reroll"
        return base + stars

    @property
    def token(self) -> str:
        """The label as one word, for action texts."""
        return self.label.replace(" ", "-")


@dataclass(frozen=True, slots=True)
class Die:
    """A die type: its key (``scavenging_goblin``), its six faces and their provenance."""

    key: str
    faces: tuple[Face, ...]
    provenance: str

    @property
    def view_type(self) -> str:
        """The die type's name in vision's catalogue (``quarriors-scavenging-goblin``)."""
        return "quarriors-" + self.key.replace("_", "-")

    @property
    def labels(self) -> tuple[str, ...]:
        """Distinct face labels, in face order."""
        return tuple(dict.fromkeys(f.label for f in self.faces))

    def face(self, label: str) -> Face:
        """The face with this label (or token); KeyError when the die has none."""
        label = label.replace("-", " ") if label.startswith("L") else label
        for f in self.faces:
            if f.label == label:
                return f
        raise KeyError(f"the {self.key} die has no face {label!r}")

    def odds(self) -> tuple[tuple[str, float], ...]:
        """Each label with its chance on a roll (faces are equally likely)."""
        counts: dict[str, int] = {}
        for f in self.faces:
            counts[f.label] = counts.get(f.label, 0) + 1
        return tuple((label, n / len(self.faces)) for label, n in counts.items())


@lru_cache(maxsize=1)
def data() -> dict[str, Any]:
    """The package's Quarriors data (data/base.json: see make_data.py for its provenance)."""
    text = resources.files("engine.games.quarriors").joinpath("data/base.json").read_text(
        "utf-8")
    out: dict[str, Any] = json.loads(text)
    return out


def _die(key: str, raw: dict[str, Any]) -> Die:
    faces = tuple(Face(f["kind"], int(f.get("burst", 0)), int(f.get("quiddity", 0)),
                       int(f.get("draw", 0)), int(f.get("level", 0)), f.get("attack"),
                       f.get("defense")) for f in raw["faces"])
    return Die(key, faces, str(raw["provenance"]))


DICE: dict[str, Die] = {key: _die(key, raw) for key, raw in data()["dice"].items()}
BASIC_QUIDDITY, ASSISTANT, PORTAL = "basic_quiddity", "assistant", "portal"
UNROLLED = ""
"""The face of a die drawn but not yet rolled (in the hand, or back in the Active Pool to be
rolled at the owner's next draw)."""


def die(key: str) -> Die:
    return DICE[key]


def face_of(key: str, label: str) -> Face:
    return DICE[key].face(label)


def token(label: str) -> str:
    return label.replace(" ", "-")


def label_of(text: str) -> str:
    """An action text's face token back to its label (``L1-2/2*`` -> ``L1 2/2*``)."""
    return text.replace("-", " ", 1) if text.startswith("L") else text
