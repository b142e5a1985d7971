"""A table's adaptation (``vision.dice.adapt``) kept in its profile file, in ``[adaptation]``.

The live table writes there what it learnt of its dice from confirmed moves, and starts from
it the next time; ``dicetable adapt --profile`` writes what it learnt from labelled photos.
The file is replaced whole (``calibration.atomicfile``): a crash leaves the old profile.
"""

from __future__ import annotations

import logging
import tomllib
from pathlib import Path

from calibration.atomicfile import write_atomic
from calibration.tomlwriter import dumps
from vision.dice.adapt import Adaptation, AdaptationError

logger = logging.getLogger(__name__)

SECTION = "adaptation"
_HEADER = ("# dicetable table profile: `dicetable calibrate`, `enrol` and `adapt` and the live "
           "table write it\n")


def _raw(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise AdaptationError(f"cannot read {path}: {exc}") from None


def save_to_profile(path: str | Path, adaptation: Adaptation) -> None:
    """Write ``adaptation`` into the profile file ``path``, keeping everything else."""
    p = Path(path)
    if p.is_dir():
        raise AdaptationError(f"{p} is a folder, not a profile file")
    data = _raw(p)
    data[SECTION] = adaptation.to_json()
    try:
        write_atomic(p, _HEADER + dumps(data))
    except OSError as exc:
        raise AdaptationError(f"cannot write {p}: {exc.strerror or exc}") from None


def load_from_profile(path: str | Path) -> Adaptation | None:
    """The adaptation kept in the profile file ``path``, None when it holds none."""
    data = _raw(Path(path))
    if SECTION not in data:
        return None
    return Adaptation.from_json(data[SECTION])
