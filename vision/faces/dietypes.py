"""Die types as data: each type names its faces and says how each face looks.

The catalogue lives in ``vision/data/dietypes/*.json`` (IceDice colour and size dice, the 18
Quarriors dice, ordinary d6 with and without a symbol face). A face has a ``label`` (what the
rules see: ``red``, ``SM``, ``Q2*``, ``3``) and a ``look`` (what :mod:`vision.faces.draw` draws:
``pips``, ``colour``, ``pictogram``, ``symbol`` or ``quarriors``). Faces that look the same
share a label. Enrolled dice (the players' own) are added at run time with :func:`custom`.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

DATA_DIR = Path(__file__).resolve().parents[1] / "data" / "dietypes"
LOOK_KINDS = ("pips", "colour", "pictogram", "symbol", "quarriors", "custom")


class DieTypeError(ValueError):
    """An unknown die type or a malformed catalogue entry."""


def hex_bgr(value: str) -> tuple[float, float, float]:
    """``#rrggbb`` -> BGR floats in [0, 255]."""
    v = value.lstrip("#")
    if len(v) != 6:
        raise DieTypeError(f"bad colour {value!r}: expected #rrggbb")
    r, g, b = (int(v[i:i + 2], 16) for i in (0, 2, 4))
    return float(b), float(g), float(r)


@dataclass(frozen=True, slots=True)
class Face:
    """One face of a die type."""

    label: str
    """What the rules see."""
    look: tuple[tuple[str, Any], ...]
    """How it is drawn (sorted key/value pairs of the catalogue's ``look``)."""
    attrs: tuple[tuple[str, Any], ...] = ()
    """Game facts of the face (Quarriors kind, numbers, burst), as the source gives them."""

    def look_dict(self) -> dict[str, Any]:
        return dict(self.look)


@dataclass(frozen=True, slots=True)
class DieType:
    """A kind of die: its body and ink colours and its six faces."""

    name: str
    title: str
    body: str
    """Body colour, #rrggbb."""
    ink: str
    """Colour of pips, symbols and numbers, #rrggbb."""
    faces: tuple[Face, ...]
    provenance: str = ""

    @property
    def labels(self) -> tuple[str, ...]:
        """Distinct face labels in face order."""
        return tuple(dict.fromkeys(f.label for f in self.faces))

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "title": self.title, "body": self.body, "ink": self.ink,
                "provenance": self.provenance,
                "faces": [{"label": f.label, "look": f.look_dict(), "attrs": dict(f.attrs)}
                          for f in self.faces]}


def _freeze(d: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in d.items()))


def parse_type(entry: dict[str, Any], source: str = "catalogue") -> DieType:
    """One catalogue entry -> DieType, with a clear error on a malformed one."""
    try:
        faces = tuple(Face(str(f["label"]), _freeze(f["look"]), _freeze(f.get("attrs", {})))
                      for f in entry["faces"])
        dt = DieType(str(entry["name"]), str(entry.get("title", entry["name"])),
                     str(entry["body"]), str(entry["ink"]), faces,
                     str(entry.get("provenance", "")))
    except (KeyError, TypeError) as exc:
        raise DieTypeError(f"{source}: malformed die type entry ({exc})") from None
    if len(dt.faces) != 6:
        raise DieTypeError(f"{source}: die type {dt.name} has {len(dt.faces)} faces, not 6")
    for f in dt.faces:
        if f.look_dict().get("kind") not in LOOK_KINDS:
            raise DieTypeError(f"{source}: {dt.name} face {f.label}: look kind must be one "
                               f"of {', '.join(LOOK_KINDS)}")
    hex_bgr(dt.body), hex_bgr(dt.ink)
    return dt


@cache
def catalogue() -> dict[str, DieType]:
    """Every shipped die type by name."""
    out: dict[str, DieType] = {}
    for path in sorted(DATA_DIR.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for entry in data["types"]:
            dt = parse_type(entry, path.name)
            if dt.name in out:
                raise DieTypeError(f"{path.name}: die type {dt.name} defined twice")
            out[dt.name] = dt
    return out


def get_type(name: str) -> DieType:
    """A shipped die type by name, or DieTypeError listing the names."""
    types = catalogue()
    if name not in types:
        raise DieTypeError(f"unknown die type {name!r}; known: {', '.join(sorted(types))}")
    return types[name]


def all_labels() -> tuple[str, ...]:
    """The face classifier's vocabulary: every distinct label of every shipped type, sorted."""
    return tuple(sorted({f.label for t in catalogue().values() for f in t.faces}))


def game_types(game: str) -> tuple[str, ...]:
    """Names of the shipped die types made for a game: the catalogue names them after it
    (``icedice-size``, ``quarriors-assistant``). Which of them a table has in play is the
    game's perception spec's (calibration.games)."""
    return tuple(n for n in catalogue() if n.startswith(f"{game}-"))


def custom(name: str, labels: list[str], body: str = "#ececec", ink: str = "#141414",
           seeds: list[int] | None = None, bold: bool = False) -> DieType:
    """A die type made in code: random glyph faces (training) or enrolled faces (whose look
    is only known from the players' shots; drawn as a glyph of the label's seed)."""
    seeds = seeds if seeds is not None else [abs(hash((name, lb))) % 2**31 for lb in labels]
    faces = tuple(Face(lb, (("bold", bold), ("kind", "custom"), ("seed", sd)))
                  for lb, sd in zip(labels, seeds, strict=True))
    return DieType(name, name, body, ink, faces, "user-defined")


def die_of(type_name: str) -> str:
    """The die a type is, either edition: IceDice's two colour dice share their red, yellow
    and green faces, which no reader can tell apart by edition (the live table knows its
    edition; `read --game` does not)."""
    return type_name.removesuffix("-rainbow").removesuffix("-suits")
