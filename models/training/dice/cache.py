"""Reading the training caches in runs/cache (pickles of our own dataclasses and arrays).

The caches written before the training code moved into ``models.training.dice`` name their
classes by the old module paths (``models.training.dataset.Synthetic``...); they are read
with those paths mapped to the new ones rather than rendered again (hours of CPU)."""

from __future__ import annotations

import os
import pickle
import time
from collections.abc import Iterator
from contextlib import contextmanager
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


#: How often a process waiting for another's cache looks again, seconds.
POLL_S = 20.0


@contextmanager
def building(path: Path) -> Iterator[bool]:
    """Guard the making of cache ``path`` by folds trained side by side (one process each,
    ``domains train --held-out D`` run twice): yields True when this process is to make it,
    False when another made it meanwhile (it waited on ``path``'s ``.lock`` file, which the
    maker removes when done, or which a crashed maker left behind: then this one makes it)."""
    lock = path.with_name(path.name + ".lock")
    while True:
        if path.exists():
            yield False
            return
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            try:
                owner = int(lock.read_text() or 0)
                os.kill(owner, 0)
            except (ValueError, ProcessLookupError, FileNotFoundError):
                lock.unlink(missing_ok=True)  # its maker is gone
                continue
            except PermissionError:
                pass  # alive, another user's
            time.sleep(POLL_S)
            continue
        with os.fdopen(fd, "w") as f:
            f.write(str(os.getpid()))
        try:
            yield not path.exists()
        finally:
            lock.unlink(missing_ok=True)
        return
