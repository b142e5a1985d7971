"""Enrolled dice in the calibration profile: the players' shots of each face, as embeddings.

``dicetable enrol --die NAME --face LABEL IMAGE...`` adds shots to the ``[enrolment]`` table
of a profile file (created holding only that table when there is no profile yet, so a die can
be enrolled before the table is calibrated). The rest of the profile is kept as it is.
Embeddings, not pictures, are stored: a few hundred numbers per shot, and no photo of the
players' table leaves the file.
"""

from __future__ import annotations

import logging
import tomllib
from pathlib import Path
from typing import Any

import numpy as np

from calibration.tomlwriter import dumps
from vision.dietypes import DieTypeError, catalogue
from vision.faces import DieFaceReader, EnrolledDie

logger = logging.getLogger(__name__)

_HEADER = "# dicetable calibration profile: `dicetable calibrate` and `dicetable enrol` write it\n"


class EnrolmentError(ValueError):
    """Bad enrolment input or an unreadable profile; the message says what to do."""


def _raw(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise EnrolmentError(f"cannot read {path}: {exc}") from None


def load_enrolled(path: str | Path) -> dict[str, EnrolledDie]:
    """Every enrolled die of a profile file (none when the file has no enrolment)."""
    data = _raw(Path(path)).get("enrolment", {})
    out = {}
    try:
        for name, entry in data.items():
            faces = {str(k): [[float(x) for x in e] for e in v]
                     for k, v in entry.get("faces", {}).items()}
            out[name] = EnrolledDie(name, faces, entry.get("base") or None)
    except (AttributeError, TypeError, ValueError) as exc:
        raise EnrolmentError(f"{path}: malformed [enrolment] table ({exc})") from None
    return out


def save_enrolled(path: str | Path, dice: dict[str, EnrolledDie]) -> None:
    """Write the enrolment table into the profile file, keeping everything else in it."""
    p = Path(path)
    data = _raw(p)
    data["enrolment"] = {d.name: ({"base": d.base} if d.base else {}) | {"faces": d.shots}
                         for d in dice.values()}
    p.write_text(_HEADER + dumps(data), encoding="utf-8")


def enrol(path: str | Path, die: str, label: str, crops: np.ndarray, reader: DieFaceReader,
          base: str | None = None) -> EnrolledDie:
    """Add shots (uint8 crops of the die showing `label`) to a die, saved in the profile."""
    if not label.strip():
        raise EnrolmentError("--face needs a label (what the rules should see, e.g. 1, skull)")
    if base is not None and base not in catalogue():
        raise EnrolmentError(f"unknown --base {base!r}; known: {', '.join(sorted(catalogue()))}")
    dice = load_enrolled(path)
    entry = dice.get(die) or EnrolledDie(die, base=base)
    if base is not None:
        entry.base = base
    entry.add(label, reader.embed(crops))
    dice[die] = entry
    save_enrolled(path, dice)
    return entry


def base_of(name: str) -> str | None:
    """A catalogued type of that name, else None (a wholly new die)."""
    try:
        return catalogue()[name].name
    except (KeyError, DieTypeError):
        return None
