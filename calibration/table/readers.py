"""The dice reader and the die-face reader, loaded once per process: a process that reads
many tables (the simulator plays many matches) would otherwise spend its time loading the
ONNX sessions again for each."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vision.dice.reader import DiceReader
    from vision.faces.reading import DieFaceReader

_READERS: dict[bool, tuple[DiceReader, DieFaceReader | None]] = {}


def shared_readers(typed: bool) -> tuple[DiceReader, DieFaceReader | None]:
    """(DiceReader, DieFaceReader or None): the face reader for tables whose dice are of
    catalogued types (``typed``), none for plain d6."""
    if typed not in _READERS:
        from vision.dice.reader import DiceReader

        faces = None
        if typed:
            from vision.faces.reading import DieFaceReader

            faces = DieFaceReader()
        # The table's scale is known from the mat: its dice are at the main pass's sizes.
        _READERS[typed] = (DiceReader(any_scale=False), faces)
    return _READERS[typed]
