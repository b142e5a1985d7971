"""Reading the training caches in runs/cache (pickles of our own dataclasses and arrays).

The caches written before the training code moved into ``models.training.dice`` name their
classes by the old module paths (``models.training.dataset.Synthetic``...); they are read
with those paths mapped to the new ones rather than rendered again (hours of CPU)."""

from __future__ import annotations

import os
import pickle
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

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


def detector_images(path: Path, make: Callable[[], tuple[list[np.ndarray], list[np.ndarray]]]
                    ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """(images, boxes) of a detector's training set kept at ``path`` (``.npy``: every image's
    bytes one after another, memory-mapped; ``.idx.npz``: their shapes, offsets and boxes),
    made by ``make`` the first time. The images are read-only views of the mapped file:
    folds trained side by side share its pages instead of each unpickling some GB of them
    (two folds of 11 GB each did not fit in 24 GB)."""
    data, index = path.with_suffix(".npy"), path.with_suffix(".idx.npz")
    with building(index) as make_it:
        if make_it:
            images, boxes = make()
            shapes = np.array([im.shape for im in images], np.int64).reshape(-1, 3)
            sizes = shapes.prod(axis=1)
            offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
            tmp = data.with_name(data.name + ".tmp")
            flat = np.lib.format.open_memmap(tmp, mode="w+", dtype=np.uint8,
                                             shape=(int(sizes.sum()),))
            for im, off, n in zip(images, offsets, sizes, strict=True):
                flat[off:off + n] = np.ascontiguousarray(im, np.uint8).reshape(-1)
            flat.flush()
            del flat, images
            tmp.replace(data)
            counts = np.array([len(b) for b in boxes], np.int64)
            allb = np.concatenate([np.asarray(b, np.float32).reshape(-1, 4) for b in boxes]) \
                if boxes else np.zeros((0, 4), np.float32)
            tmpi = index.with_name(index.name + ".tmp.npz")
            np.savez(tmpi, shapes=shapes, offsets=offsets, counts=counts, boxes=allb)
            tmpi.replace(index)
    z = np.load(index)
    flat = np.load(data, mmap_mode="r")
    views = [flat[o:o + int(np.prod(s))].reshape(tuple(s))
             for o, s in zip(z["offsets"], z["shapes"], strict=True)]
    ends = np.cumsum(z["counts"])
    starts = ends - z["counts"]
    return views, [z["boxes"][a:b] for a, b in zip(starts, ends, strict=True)]
