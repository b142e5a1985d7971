"""The shipped models' manifest (``models/manifest.json``): each model's role, its file,
the file's SHA-256, its model card and the training record it was made with. The one place
a model file is named: a reader asks for a role (``file_of("faces")``), never for a file.

The manifest lies beside the models (vision.onnx_models.models_dir: the installed ``models``
package, or ``DICETABLE_MODELS_DIR``); a models folder without one (a training run's output)
is read with the shipped manifest's names.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from vision.onnx_models import ModelNotFoundError, models_dir

MANIFEST = "manifest.json"
FORMAT = "dicetable-models/1"


@dataclass(frozen=True)
class ShippedModel:
    """One model of the manifest."""

    role: str
    """what it does: ``detector``, ``classifier``, ``faces``, ``faces_expert:<name>``,
    ``enrol``, ``top_face_choice``"""
    file: str
    sha256: str
    card: str
    """its model card (Markdown, beside it)"""
    record: str
    """the training record it was made with (JSON, beside it)"""

    def verify(self, folder: Path | None = None) -> bool:
        """Whether the file (in ``folder``, default the models folder) has the manifest's
        SHA-256."""
        path = (folder or models_dir()) / self.file
        return path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == self.sha256


def _manifest_path() -> Path:
    path = models_dir() / MANIFEST
    if path.is_file():
        return path
    spec = importlib.util.find_spec("models")  # the shipped one, beside the package's models
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations))) / MANIFEST
    return path


@cache
def _read(path: Path) -> dict[str, ShippedModel]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelNotFoundError(f"the models' manifest {path} cannot be read ({exc}); "
                                 "reinstall dicetable") from None
    if data.get("format") != FORMAT:
        raise ModelNotFoundError(f"{path} is not a {FORMAT} manifest; reinstall dicetable")
    return {role: ShippedModel(role, m["file"], m["sha256"], m["card"], m["record"])
            for role, m in data["models"].items()}


def manifest() -> dict[str, ShippedModel]:
    """Every shipped model by role."""
    return _read(_manifest_path())


def model(role: str) -> ShippedModel:
    """The shipped model of a role (ModelNotFoundError for a role the manifest lacks)."""
    models = manifest()
    if role not in models:
        raise ModelNotFoundError(f"no model for {role!r} in the manifest (roles: "
                                 f"{', '.join(sorted(models))})")
    return models[role]


def file_of(role: str) -> str:
    """The file name of a role's model."""
    return model(role).file
