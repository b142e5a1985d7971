"""Reading the training caches in runs/cache (pickles of our own dataclasses and arrays).

The caches written before the training code moved into ``models.training.dice`` name their
classes by the old module paths (``models.training.dataset.Synthetic``...); they are read
with those paths mapped to the new ones rather than rendered again (hours of CPU)."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

MOVED = "models.training."
HERE = "models.training.dice."


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if module.startswith(MOVED) and module.count(".") == 2:
            try:
                return super().find_class(HERE + module[len(MOVED):], name)
            except (ImportError, AttributeError):
                pass
        return super().find_class(module, name)


def load(path: Path) -> Any:
    """The object pickled in ``path`` (one of our caches: never a file from elsewhere)."""
    with path.open("rb") as f:
        return _Unpickler(f).load()
