"""Where things live: CLI flag > environment (DICETABLE_*) > default."""

from __future__ import annotations

import os
from pathlib import Path


def default_db_path() -> Path:
    """The match database: $DICETABLE_DB, else ~/.local/share/dicetable/matches.sqlite."""
    env = os.environ.get("DICETABLE_DB")
    if env:
        return Path(env).expanduser()
    base = Path(os.environ.get("XDG_DATA_HOME", "~/.local/share")).expanduser()
    return base / "dicetable" / "matches.sqlite"
