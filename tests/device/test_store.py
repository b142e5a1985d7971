"""The SQLite store: migrations, one transaction per event, replay on load, and a process
killed at a random moment loses no acknowledged event."""

from __future__ import annotations

import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from device.store import MIGRATIONS, SQLiteStore, StoreError, open_store
from engine import Match, get_game

ROOT = Path(__file__).resolve().parents[2]


def started_match() -> Match:
    match = Match(get_game("icedice"), 2, seed=3)
    match.push_text("roll red S", source="camera", confidence=0.98)
    return match


def test_migrations_are_recorded_once(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    SQLiteStore(path).close()
    store = SQLiteStore(path)  # reopening applies nothing twice
    assert store.schema_version() == len(MIGRATIONS)
    rows = sqlite3.connect(path).execute("SELECT version, name FROM migrations").fetchall()
    assert [r[0] for r in rows] == list(range(1, len(MIGRATIONS) + 1))
    mode = sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    SQLiteStore(path).close()
    db = sqlite3.connect(path)
    db.execute("INSERT INTO migrations VALUES (99, 'future', 0)")
    db.commit()
    with pytest.raises(StoreError, match="newer dicetable"):
        SQLiteStore(path)


def test_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "junk.sqlite"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="not a usable dicetable database"):
        open_store(path)
    with pytest.raises(StoreError, match="does not exist"):
        open_store(tmp_path / "missing" / "x.sqlite")


def test_round_trip_with_thumbnails(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "t.sqlite")
    match = started_match()
    mid = store.create_match(match, title="club night")
    match.push_text("take red S", source="camera", confidence=0.95)
    store.append(mid, match.entries[-1], thumbnail=b"\xff\xd8jpeg")
    match.note("question", "red S or red M?", source="camera")
    store.append(mid, match.entries[-1])
    match.undo(source="phone")
    store.append(mid, match.entries[-1])
    loaded = store.load(mid)
    assert loaded.state == match.state and loaded.version == match.version
    assert [e.to_dict() for e in loaded.entries] == [e.to_dict() for e in match.entries]
    assert store.thumbnail(mid, 1) == b"\xff\xd8jpeg" and store.thumbnail(mid, 2) is None
    (summary,) = store.matches()
    assert summary.id == mid and summary.entries == 4 and summary.title == "club night"


def test_unknown_match_and_duplicates(tmp_path: Path) -> None:
    store = SQLiteStore(":memory:")
    with pytest.raises(StoreError, match="no match"):
        store.load("nope")
    match = started_match()
    mid = store.create_match(match, match_id="m1")
    with pytest.raises(StoreError, match="already exists"):
        store.create_match(match, match_id="m1")
    with pytest.raises(StoreError, match="already has entry 0"):
        store.append(mid, match.entries[0])
    with pytest.raises(StoreError, match="no match"):
        store.append("m2", match.entries[0])


WRITER = textwrap.dedent("""
    import sys
    from device.store import SQLiteStore
    from engine import Match, get_game
    import random
    store = SQLiteStore(sys.argv[1])
    game = get_game("icedice")
    match = Match(game, 2, seed=11)
    mid = store.create_match(match, match_id="live")
    rng = random.Random(11)
    print("ready", flush=True)
    while game.outcome(match.state) is None:
        match.push(game.random_action(match.state, rng), source="sim")
        store.append(mid, match.entries[-1], thumbnail=b"x" * 2000)
        print("ack", match.entries[-1].seq, flush=True)
""")


@pytest.mark.parametrize("kill_after", [1, 7, 40])
def test_kill_at_any_moment_loses_no_acknowledged_event(tmp_path: Path,
                                                        kill_after: int) -> None:
    path = tmp_path / "live.sqlite"
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"
    acked = -1
    for _ in range(kill_after + random.Random(kill_after).randint(0, 3)):
        line = proc.stdout.readline()
        if not line:
            break
        acked = int(line.split()[1])
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    store = SQLiteStore(path)  # restart
    match = store.load("live")
    assert len(match.entries) >= acked + 1  # every acknowledged event is there
    assert match.state == Match.from_dict(store.record("live")).state
    # and the match goes on after the restart
    game = match.game
    if game.outcome(match.state) is None:
        match.push(game.random_action(match.state, random.Random(0)))
        store.append("live", match.entries[-1])
        assert store.load("live").state == match.state
