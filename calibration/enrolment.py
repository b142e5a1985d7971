"""Enrolled dice in the calibration profile: the players' shots of each face.

``dicetable enrol --die NAME --face LABEL IMAGE...`` adds shots to the ``[enrolment]`` table
of a profile file (created holding only that table when there is no profile yet, so a die can
be enrolled before the table is calibrated). The rest of the profile is kept as it is.

A shot is stored as the small crop of the die the reader compares (PNG, base64; a few KB, the
die and a rim of table round it, not the photo), so a later face model or matcher reads the
same enrolment: nothing is tied to one model's embedding. Profiles written before
(``faces = {label = [embedding, ...]}``, embeddings of a model since replaced) cannot be read:
such a die is loaded as *stale*, reading refuses it with what to do, and enrolling it again
replaces it.
"""

from __future__ import annotations

import base64
import binascii
import logging
import tomllib
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.tomlwriter import dumps
from vision.dietypes import DieTypeError, catalogue
from vision.faces import EnrolledDie

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


def encode_shot(crop: np.ndarray) -> str:
    ok, buf = cv2.imencode(".png", np.ascontiguousarray(crop, np.uint8))
    if not ok:
        raise EnrolmentError("cannot encode a shot")
    return base64.b64encode(buf.tobytes()).decode("ascii")


def decode_shot(text: str) -> np.ndarray:
    try:
        buf = np.frombuffer(base64.b64decode(text, validate=True), np.uint8)
    except (binascii.Error, ValueError, TypeError):
        raise ValueError("a shot is not base64") from None
    img = cv2.imdecode(buf, cv2.IMREAD_COLOR) if len(buf) else None
    if img is None or img.shape[0] != img.shape[1]:
        raise ValueError("a shot is not a square picture")
    return img


def load_enrolled(path: str | Path) -> dict[str, EnrolledDie]:
    """Every enrolled die of a profile file (none when the file has no enrolment)."""
    data = _raw(Path(path)).get("enrolment", {})
    out = {}
    try:
        for name, entry in data.items():
            base = entry.get("base") or None
            if "shots" not in entry and "faces" in entry:
                out[name] = EnrolledDie(name, {}, base, stale=True)
                continue
            shots = {str(k): [decode_shot(s) for s in v] for k, v in entry["shots"].items()}
            out[name] = EnrolledDie(name, shots, base)
    except (AttributeError, TypeError, ValueError, KeyError) as exc:
        raise EnrolmentError(f"{path}: malformed [enrolment] table ({exc})") from None
    return out


def refuse_stale(path: str | Path, dice: dict[str, EnrolledDie]) -> None:
    """EnrolmentError naming the dice an older version enrolled (they cannot be read)."""
    stale = sorted(d.name for d in dice.values() if d.stale)
    if stale:
        names = ", ".join(repr(n) for n in stale)
        raise EnrolmentError(
            f"{path}: {names} enrolled by an older dicetable, whose shots cannot be read now; "
            f"enrol {'it' if len(stale) == 1 else 'them'} again (`dicetable enrol --die NAME "
            "--face LABEL PHOTO...` replaces the old shots)")


def save_enrolled(path: str | Path, dice: dict[str, EnrolledDie]) -> None:
    """Write the enrolment table into the profile file, keeping everything else in it."""
    p = Path(path)
    data = _raw(p)
    table: dict[str, Any] = {}
    for d in dice.values():
        if d.stale:  # kept as it was until enrolled again
            table[d.name] = data.get("enrolment", {}).get(d.name, {})
            continue
        table[d.name] = ({"base": d.base} if d.base else {}) | {
            "shots": {lb: [encode_shot(c) for c in v] for lb, v in d.shots.items()}}
    data["enrolment"] = table
    p.write_text(_HEADER + dumps(data), encoding="utf-8")


def enrol(path: str | Path, die: str, label: str, crops: np.ndarray,
          base: str | None = None) -> EnrolledDie:
    """Add shots (uint8 crops of the die showing `label`) to a die, saved in the profile. A
    die an older version enrolled starts afresh."""
    if not label.strip():
        raise EnrolmentError("--face needs a label (what the rules should see, e.g. 1, skull)")
    if base is not None and base not in catalogue():
        raise EnrolmentError(f"unknown --base {base!r}; known: {', '.join(sorted(catalogue()))}")
    dice = load_enrolled(path)
    entry = dice.get(die)
    if entry is None or entry.stale:
        if entry is not None:
            logger.warning("%s: the old shots of %r (an older version's) are replaced", path, die)
        entry = EnrolledDie(die, base=entry.base if entry is not None else None)
    if base is not None:
        entry.base = base
    entry.add(label, crops)
    dice[die] = entry
    save_enrolled(path, dice)
    return entry


def base_of(name: str) -> str | None:
    """A catalogued type of that name, else None (a wholly new die)."""
    try:
        return catalogue()[name].name
    except (KeyError, DieTypeError):
        return None
