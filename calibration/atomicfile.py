"""Writing a file whole or not at all: the one way dicetable rewrites a file it keeps.

The text goes to a temporary file in the same folder (a rename is atomic only within one
file system), which is flushed and fsynced before it is renamed over the old file, and the
folder is fsynced after, so that the rename itself survives a power cut. A process killed at
any instant leaves the old file or the new one, never a short one: a profile written with
``Path.write_text`` (truncate, then write) was left at 0 bytes by a kill at the wrong moment,
losing a table's calibration and every enrolled die.

It lives in ``calibration`` because both the profile writers here and the device layer's
exports use it, and layers point one way (device may import calibration, not the reverse).
A kill leaves at most a stray ``.NAME.*.tmp`` file beside the target, never a damaged target.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import secrets
from pathlib import Path

logger = logging.getLogger(__name__)


def write_atomic(path: str | Path, data: bytes | str, *, encoding: str = "utf-8") -> None:
    """Replace ``path`` with ``data`` (text is encoded with ``encoding``), atomically.

    The new file keeps the old one's permission bits; a new file gets the usual ones
    (0666 less the umask).

    Raises:
        OSError: the folder is missing or read-only, the disk is full, ``path`` is a
            folder... The old file is then untouched and no temporary file is left.
    """
    target = Path(path)
    if target.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a folder, not a file", str(target))
    raw = data.encode(encoding) if isinstance(data, str) else bytes(data)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        with contextlib.suppress(FileNotFoundError):
            os.chmod(tmp, target.stat().st_mode & 0o7777)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _sync_folder(target.parent)


def _sync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # a folder that cannot be opened (some file systems): the data is safe
        return
    try:
        os.fsync(fd)
    except OSError as exc:
        logger.debug("cannot fsync folder %s: %s", folder, exc)
    finally:
        os.close(fd)
