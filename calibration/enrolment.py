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
import re
import tomllib
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.atomicfile import write_atomic
from calibration.tomlwriter import dumps
from vision.faces.dietypes import DieTypeError, catalogue
from vision.faces.reading import EnrolledDie
from vision.imageio import header_size

logger = logging.getLogger(__name__)

_HEADER = "# dicetable calibration profile: `dicetable calibrate` and `dicetable enrol` write it\n"

NAME = re.compile(r"^[\w][\w .+-]{0,39}$")
"""Die names and face labels: what a player types, and safe as TOML keys and in a URL."""

# Every shot is a few kB and every enrolment rewrites the whole profile, so an unbounded
# profile makes each upload slower and the file larger without end (issue 29: 300 dice,
# 1.7 MB, 0.31 s an upload). More than ten shots of a face do not read better.
MAX_DICE = 40
MAX_SHOTS_PER_FACE = 10
MAX_SHOTS = 500
MAX_SHOT_SIDE = 256
"""A stored shot is a crop of about 48 pixels; a larger one is not ours (a damaged or
hostile profile) and is not decoded."""


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
    size = header_size(buf.tobytes()[:64]) if buf[:8].tobytes() == b"\x89PNG\r\n\x1a\n" \
        else None
    if size is None or max(size) > MAX_SHOT_SIDE:
        raise ValueError("a shot is not a small PNG picture")
    img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
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


def check_name(what: str, value: str) -> None:
    """EnrolmentError unless ``value`` is a usable die name or face label."""
    if not NAME.match(value):
        raise EnrolmentError(f"{what} {value!r}: use 1-40 letters, digits, spaces or . + - _")


def save_enrolled(path: str | Path, dice: dict[str, EnrolledDie]) -> None:
    """Write the enrolment table into the profile file, keeping everything else in it.
    The file is replaced whole (calibration.atomicfile): a crash leaves the old profile."""
    p = Path(path)
    if p.is_dir():
        raise EnrolmentError(f"{p} is a folder, not a profile file: give a file name "
                             "(e.g. --profile dicetable-profile.toml)")
    data = _raw(p)
    table: dict[str, Any] = {}
    for d in dice.values():
        if d.stale:  # kept as it was until enrolled again
            table[d.name] = data.get("enrolment", {}).get(d.name, {})
            continue
        table[d.name] = ({"base": d.base} if d.base else {}) | {
            "shots": {lb: [encode_shot(c) for c in v] for lb, v in d.shots.items()}}
    data["enrolment"] = table
    try:
        write_atomic(p, _HEADER + dumps(data))
    except OSError as exc:
        raise EnrolmentError(f"cannot write {p}: {exc.strerror or exc}") from None


def enrol(path: str | Path, die: str, label: str, crops: np.ndarray,
          base: str | None = None) -> EnrolledDie:
    """Add shots (uint8 crops of the die showing `label`) to a die, saved in the profile. A
    die an older version enrolled starts afresh."""
    if not label.strip():
        raise EnrolmentError("--face needs a label (what the rules should see, e.g. 1, skull)")
    check_name("die name", die)
    check_name("face label", label)
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
    _check_room(dice, entry, label, len(crops))
    entry.add(label, crops)
    dice[die] = entry
    save_enrolled(path, dice)
    return entry


def _check_room(dice: dict[str, EnrolledDie], entry: EnrolledDie, label: str, new: int) -> None:
    """EnrolmentError when ``new`` shots of ``label`` would take the profile over a limit."""
    if entry.name not in dice and len(dice) >= MAX_DICE:
        raise EnrolmentError(f"the profile holds {MAX_DICE} enrolled dice, the most it keeps; "
                             "enrol this die in another profile")
    have = len(entry.shots.get(label, []))
    if have + new > MAX_SHOTS_PER_FACE:
        raise EnrolmentError(f"{entry.name!r} face {label!r} has {have} shots; "
                             f"{MAX_SHOTS_PER_FACE} is the most kept (more do not read better)")
    total = sum(len(v) for d in dice.values() for v in d.shots.values())
    if total + new > MAX_SHOTS:
        raise EnrolmentError(f"the profile holds {total} shots; {MAX_SHOTS} is the most it "
                             "keeps: enrol further dice in another profile")


def base_of(name: str) -> str | None:
    """A catalogued type of that name, else None (a wholly new die)."""
    try:
        return catalogue()[name].name
    except (KeyError, DieTypeError):
        return None
