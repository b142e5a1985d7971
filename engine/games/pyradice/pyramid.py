"""A player's pyramid: 21 spaces on 6 levels (6, 5, 4, 3, 2, 1), INFERRED from
"21 dice" and "a free space immediately above 2 dice".

Spaces are named ``{level}-{index}``: level 1 is the bottom (6 spaces), index counts from 1
at the left. Space ``L-i`` (L ≥ 2) rests on ``(L-1)-i`` and ``(L-1)-(i+1)``. Inside, a board
is a tuple of 21 entries in that order (level 1 left to right, then level 2...), each a die
``(value, colour)`` or None.
"""

from __future__ import annotations

from collections.abc import Sequence

Die = tuple[int, str]
Board = tuple[Die | None, ...]

LEVELS = 6
SIZE = 21
#: (level, index) of each space, 1-based, in board order
SPACES: tuple[tuple[int, int], ...] = tuple(
    (level, i) for level in range(1, LEVELS + 1) for i in range(1, LEVELS + 2 - level))
NAMES: tuple[str, ...] = tuple(f"{lv}-{i}" for lv, i in SPACES)
INDEX: dict[str, int] = {name: n for n, name in enumerate(NAMES)}
LEVEL: tuple[int, ...] = tuple(lv for lv, _ in SPACES)
#: board positions of each level
ON_LEVEL: dict[int, tuple[int, ...]] = {
    lv: tuple(n for n, (level, _) in enumerate(SPACES) if level == lv)
    for lv in range(1, LEVELS + 1)}
#: the two spaces each space rests on (empty on level 1)
RESTS_ON: tuple[tuple[int, ...], ...] = tuple(
    () if lv == 1 else (INDEX[f"{lv - 1}-{i}"], INDEX[f"{lv - 1}-{i + 1}"])
    for lv, i in SPACES)
#: the spaces resting on each space
CARRIES: tuple[tuple[int, ...], ...] = tuple(
    tuple(m for m in range(SIZE) if n in RESTS_ON[m]) for n in range(SIZE))
#: spaces next to each other: side by side on a level, or one resting on the other
ADJACENT: tuple[frozenset[int], ...] = tuple(
    frozenset([m for m in ON_LEVEL[LEVEL[n]] if abs(m - n) == 1]
              + list(RESTS_ON[n]) + list(CARRIES[n]))
    for n in range(SIZE))

EMPTY: Board = (None,) * SIZE


def supported(board: Sequence[Die | None], n: int, without: int | None = None) -> bool:
    """Space ``n`` can take a die: level 1, or both spaces under it hold a die (not
    counting the die at ``without``)."""
    return all(board[m] is not None and m != without for m in RESTS_ON[n])


def placeable(board: Sequence[Die | None]) -> list[int]:
    """Empty spaces where a die may be placed (RULES place_level1, place_above)."""
    return [n for n in range(SIZE) if board[n] is None and supported(board, n)]


def complete(board: Sequence[Die | None]) -> bool:
    return all(d is not None for d in board)


def level_dice(board: Sequence[Die | None], level: int) -> list[Die]:
    return [d for n in ON_LEVEL[level] if (d := board[n]) is not None]


def level_complete(board: Sequence[Die | None], level: int) -> bool:
    return all(board[n] is not None for n in ON_LEVEL[level])


def well_built(board: Sequence[Die | None]) -> bool:
    """Every die above level 1 rests on two dice."""
    return all(d is None or supported(board, n) for n, d in enumerate(board))
