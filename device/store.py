"""The match store: SQLite in WAL mode, one transaction per event, recorded migrations.

A match is its header (game, players, options, seed, initial state, versions) plus its
entries in order, exactly the engine's match record; loading replays the entries through
the rules, so a stored match can never reach a state the rules do not allow. An event is
acknowledged only after its transaction committed with ``synchronous=FULL``: killing the
process at any moment loses nothing that was acknowledged.

``Store`` is the interface the runtime and the server use; a club's central PostgreSQL
would be a second class with the same methods.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from engine import EngineError, Match
from engine.match import Entry

logger = logging.getLogger(__name__)


class StoreError(Exception):
    """The store cannot do what was asked (unknown match, unreadable database...)."""


@dataclass(frozen=True, slots=True)
class MatchSummary:
    id: str
    game: str
    players: int
    created: float
    updated: float
    entries: int
    finished: bool
    title: str

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "game": self.game, "players": self.players,
                "created": self.created, "updated": self.updated, "entries": self.entries,
                "finished": self.finished, "title": self.title}


class Store(Protocol):
    def create_match(self, match: Match, *, title: str = "",
                     match_id: str | None = None) -> str: ...

    def append(self, match_id: str, entry: Entry, *, thumbnail: bytes | None = None,
               finished: bool = False) -> None: ...

    def append_all(self, match_id: str, entries: Sequence[Entry], *,
                   thumbnails: Mapping[int, bytes] | None = None,
                   finished: bool = False) -> None: ...

    def load(self, match_id: str) -> Match: ...

    def matches(self) -> list[MatchSummary]: ...

    def thumbnail(self, match_id: str, seq: int) -> bytes | None: ...

    def evidence(self, match_id: str) -> set[int]: ...

    def close(self) -> None: ...


# Ordered, append-only: a shipped migration is never edited, only followed by a new one.
MIGRATIONS: Sequence[tuple[str, str]] = (
    ("create matches and events", """
        CREATE TABLE matches (
            id TEXT PRIMARY KEY,
            game TEXT NOT NULL,
            players INTEGER NOT NULL,
            title TEXT NOT NULL DEFAULT '',
            header TEXT NOT NULL,          -- the match record without entries (JSON)
            created REAL NOT NULL,
            updated REAL NOT NULL,
            finished INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE events (
            match_id TEXT NOT NULL REFERENCES matches(id),
            seq INTEGER NOT NULL,
            entry TEXT NOT NULL,           -- one engine.match.Entry (JSON)
            created REAL NOT NULL,
            PRIMARY KEY (match_id, seq)
        );
        CREATE TABLE thumbnails (
            match_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            jpeg BLOB NOT NULL,
            PRIMARY KEY (match_id, seq),
            FOREIGN KEY (match_id, seq) REFERENCES events(match_id, seq)
        );
    """),
)


class SQLiteStore:
    """The store of one table, in one SQLite file (``:memory:`` for tests)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False,
                                       isolation_level=None, timeout=10)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._migrate()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: not a usable dicetable database ({exc})") from None
        self._lock = threading.Lock()

    # --- schema -------------------------------------------------------------------------
    def _migrate(self) -> None:
        self._db.execute("CREATE TABLE IF NOT EXISTS migrations (version INTEGER PRIMARY KEY, "
                         "name TEXT NOT NULL, applied REAL NOT NULL)")
        done = {row[0] for row in self._db.execute("SELECT version FROM migrations")}
        if done - set(range(1, len(MIGRATIONS) + 1)):
            raise StoreError(f"{self.path} was written by a newer dicetable "
                             f"(schema {max(done)}); upgrade dicetable to open it")
        for version, (name, sql) in enumerate(MIGRATIONS, start=1):
            if version in done:
                continue
            self._db.execute("BEGIN IMMEDIATE")
            try:
                for statement in sql.split(";"):
                    if statement.strip():
                        self._db.execute(statement)
                self._db.execute("INSERT INTO migrations VALUES (?, ?, ?)",
                                 (version, name, time.time()))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            logger.info("store %s: applied migration %d (%s)", self.path, version, name)

    def schema_version(self) -> int:
        row = self._db.execute("SELECT MAX(version) FROM migrations").fetchone()
        return int(row[0] or 0)

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    # --- writing --------------------------------------------------------------------------
    def create_match(self, match: Match, *, title: str = "",
                     match_id: str | None = None) -> str:
        """Store a new match with its entries so far; returns its id."""
        match_id = match_id or uuid.uuid4().hex[:12]
        record = match.to_dict()
        entries = record.pop("entries")
        record.pop("final_state")
        now = time.time()
        with self._transaction() as db:
            try:
                db.execute("INSERT INTO matches VALUES (?, ?, ?, ?, ?, ?, ?, 0)",
                           (match_id, match.game.info.name, match.initial.players, title,
                            json.dumps(record), now, now))
            except sqlite3.IntegrityError:
                raise StoreError(f"a match {match_id!r} already exists") from None
            for raw in entries:
                db.execute("INSERT INTO events VALUES (?, ?, ?, ?)",
                           (match_id, raw["seq"], json.dumps(raw), now))
        return match_id

    def append(self, match_id: str, entry: Entry, *, thumbnail: bytes | None = None,
               finished: bool = False) -> None:
        """Store one entry (and its evidence) in one transaction; returns once durable."""
        self.append_all(match_id, [entry], finished=finished,
                        thumbnails=None if thumbnail is None else {entry.seq: thumbnail})

    def append_all(self, match_id: str, entries: Sequence[Entry], *,
                   thumbnails: Mapping[int, bytes] | None = None,
                   finished: bool = False) -> None:
        """Store entries that belong together (a correction: its note, the undos and the
        corrected actions) in one transaction: all of them are durable, or none."""
        now = time.time()
        with self._transaction() as db:
            count = db.execute("UPDATE matches SET updated = ?, finished = ? WHERE id = ?",
                               (now, int(finished), match_id)).rowcount
            if count == 0:
                raise StoreError(f"no match {match_id!r}")
            for entry in entries:
                try:
                    db.execute("INSERT INTO events VALUES (?, ?, ?, ?)",
                               (match_id, entry.seq, json.dumps(entry.to_dict()), now))
                    jpeg = (thumbnails or {}).get(entry.seq)
                    if jpeg is not None:
                        db.execute("INSERT INTO thumbnails VALUES (?, ?, ?)",
                                   (match_id, entry.seq, jpeg))
                except sqlite3.IntegrityError as exc:
                    if "UNIQUE" in str(exc):
                        raise StoreError(f"match {match_id!r} already has entry "
                                         f"{entry.seq}") from None
                    raise StoreError(f"cannot record entry {entry.seq}: {exc}") from None
                except sqlite3.Error as exc:  # disk full, read-only file...
                    raise StoreError(f"cannot record entry {entry.seq}: {exc}") from None

    # --- reading --------------------------------------------------------------------------
    def load(self, match_id: str) -> Match:
        """The match, replayed through the rules from its stored entries."""
        return Match.from_dict(self.record(match_id))

    def record(self, match_id: str) -> dict[str, Any]:
        """The engine's match record (without final_state) as stored."""
        with self._lock:
            row = self._db.execute("SELECT header FROM matches WHERE id = ?",
                                   (match_id,)).fetchone()
            if row is None:
                raise StoreError(f"no match {match_id!r}")
            rows = self._db.execute("SELECT entry FROM events WHERE match_id = ? ORDER BY seq",
                                    (match_id,)).fetchall()
        record: dict[str, Any] = json.loads(row[0])
        record["entries"] = [json.loads(r[0]) for r in rows]
        return record

    def matches(self) -> list[MatchSummary]:
        with self._lock:
            rows = self._db.execute(
                "SELECT m.id, m.game, m.players, m.created, m.updated, "
                "(SELECT COUNT(*) FROM events e WHERE e.match_id = m.id), m.finished, m.title "
                "FROM matches m ORDER BY m.created DESC").fetchall()
        return [MatchSummary(r[0], r[1], r[2], r[3], r[4], r[5], bool(r[6]), r[7]) for r in rows]

    def thumbnail(self, match_id: str, seq: int) -> bytes | None:
        with self._lock:
            row = self._db.execute("SELECT jpeg FROM thumbnails WHERE match_id = ? AND seq = ?",
                                   (match_id, seq)).fetchone()
        return bytes(row[0]) if row else None

    def evidence(self, match_id: str) -> set[int]:
        """The seqs of the entries that have a picture as evidence."""
        with self._lock:
            rows = self._db.execute("SELECT seq FROM thumbnails WHERE match_id = ?",
                                    (match_id,)).fetchall()
        return {int(r[0]) for r in rows}

    def close(self) -> None:
        with self._lock:
            self._db.close()


def open_store(path: str | Path) -> SQLiteStore:
    """Open (creating if needed) the store at ``path``; StoreError with a clear message."""
    if str(path) != ":memory:":
        parent = Path(path).expanduser().resolve().parent
        if not parent.is_dir():
            raise StoreError(f"cannot create the database: folder {parent} does not exist")
    return SQLiteStore(path)


def load_checked(store: Store, match_id: str) -> Match:
    """``store.load`` with engine errors turned into StoreError (a corrupt record)."""
    try:
        return store.load(match_id)
    except EngineError as exc:
        raise StoreError(f"match {match_id!r} does not replay: {exc}") from None
