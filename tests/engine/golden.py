"""Golden transcripts: a text the test makes must equal the file kept beside the tests."""

from __future__ import annotations

import os
from pathlib import Path


def check_golden(path: Path, text: str) -> None:
    """Assert `text` equals the golden file; DICETABLE_REGENERATE=1 rewrites it first
    (review the diff before committing it)."""
    if os.environ.get("DICETABLE_REGENERATE"):
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path} is missing: regenerate it (DICETABLE_REGENERATE=1)"
    assert text == path.read_text(encoding="utf-8")
