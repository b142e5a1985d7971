"""Rewriting a file whole or not at all (calibration.atomicfile), and the profile kept whole
when the process writing it is killed mid-write (issue 29: 10 of 10 kills left it at 0
bytes)."""

from __future__ import annotations

import os
import random
import select
import signal
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from calibration.atomicfile import write_atomic
from calibration.enrolment import EnrolmentError, load_enrolled, save_enrolled
from calibration.profile import load, save
from vision.faces.reading import EnrolledDie

KILLS = 50


def _dice(tag: str, n: int) -> dict[str, EnrolledDie]:
    """n dice of one shot per face (random crops: incompressible, so the file is large)."""
    rng = np.random.default_rng(len(tag))
    dice = {}
    for i in range(n):
        die = EnrolledDie(f"{tag}{i}")
        die.add("1", rng.integers(0, 256, (4, 48, 48, 3)).astype(np.uint8))
        dice[die.name] = die
    return dice


def test_write_atomic_replaces_the_file_and_keeps_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    write_atomic(path, "one")
    path.chmod(0o640)
    write_atomic(path, b"two")
    assert path.read_text() == "two" and path.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.txt"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "f.txt"
    path.write_text("old")

    def full(_: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError, match="No space"):
        write_atomic(path, "new")
    assert path.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.txt"]
    with pytest.raises(IsADirectoryError):
        write_atomic(tmp_path, "x")


def test_profile_save_goes_through_the_atomic_write(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.calibration.test_profile import _profile

    path = tmp_path / "p.toml"
    save(_profile(), path)
    before = path.read_bytes()
    monkeypatch.setattr(os, "fsync", lambda _: (_ for _ in ()).throw(OSError(5, "I/O error")))
    with pytest.raises(OSError):
        save(_profile(), path)
    with pytest.raises(EnrolmentError, match="cannot write"):
        save_enrolled(path, _dice("a", 1))
    assert path.read_bytes() == before


def test_enrolling_into_a_folder_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(EnrolmentError, match="is a folder"):
        save_enrolled(tmp_path, _dice("a", 1))


def _child(path: Path, versions: list[dict[str, EnrolledDie]], signal_fd: int) -> None:
    """Rewrites the profile for ever, alternating versions; tells the parent through
    ``signal_fd`` each time it opens a file for writing in the profile's folder."""
    folder = str(path.parent)

    def hook(event: str, args: tuple) -> None:
        if event != "open" or not str(args[0]).startswith(folder):
            return
        mode, flags = args[1], args[2]
        writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            mode is None and isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR))
        if writing:
            os.write(signal_fd, b"w")

    sys.addaudithook(hook)
    i = 0
    while True:
        save_enrolled(path, versions[i % 2])
        i += 1


def test_a_profile_killed_mid_write_is_never_torn(tmp_path: Path) -> None:
    """KILLS child processes each killed with SIGKILL a random 0-3 ms after it opened a
    file for writing in the profile's folder (the write of a 0.6 MB profile with its
    fsync takes about as long): the profile must then hold one whole version, the old or the new."""
    from tests.calibration.test_profile import _profile

    path = tmp_path / "profile.toml"
    save(_profile(), path)
    versions = [_dice("a", 16), _dice("b", 17)]
    save_enrolled(path, versions[0])
    size = path.stat().st_size
    assert size > 400_000
    wanted = [sorted(v) for v in versions]
    rng = random.Random(0)
    torn, mid_write = [], 0
    kills = 0
    # at least KILLS kills, and more (up to 4 x KILLS) until a fifth of KILLS landed in a
    # write: a machine loaded by other work shifts the timing (9 of 50 landed once)
    for k in range(4 * KILLS):
        if k >= KILLS and mid_write >= KILLS // 5:
            break
        kills = k + 1
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns into pytest
            try:
                os.close(r)
                _child(path, versions, w)
            finally:
                os._exit(0)
        os.close(w)
        try:
            # a new child starts a save: its first open for writing is that save's write
            ready, _, _ = select.select([r], [], [], 30)
            assert ready, "the child never wrote"
            time.sleep(rng.uniform(0, 0.003))
            os.kill(pid, signal.SIGKILL)
        finally:
            os.waitpid(pid, 0)
            os.close(r)
        strays = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
        mid_write += bool(strays)
        for p in strays:
            p.unlink()
        try:
            names = sorted(load_enrolled(path))
            load(path)  # the calibration is whole too
            if names not in wanted:
                torn.append(f"kill {k}: dice {names[:3]}...")
        except Exception as exc:  # noqa: BLE001 - any failure to read is a torn profile
            torn.append(f"kill {k}: {path.stat().st_size} bytes: {exc}"[:200])
            path.unlink()  # start again from a whole profile
            save(_profile(), path)
            save_enrolled(path, versions[0])
    print(f"\n{kills} kills: {len(torn)} torn or empty profiles, {mid_write} landed mid-write")
    assert torn == [], f"{len(torn)} of {kills} kills tore the profile: {torn[:3]}"
    # the kills did land in the write: many left the temporary file behind, unrenamed (about
    # half of them here; a fifth is asked, as a loaded machine stretches the timing)
    assert mid_write >= KILLS // 5, f"only {mid_write} of {kills} kills landed mid-write"
