"""What the camera should see in a Pyradice state, and loading a state from JSON.

Zones and slots (kind ``die``, attributes ``type`` = ``d6``, ``face`` = the value shown,
``colour`` = the colour name):

* ``quarry``, slot ``L{layer}-{index}`` (layer 1 at the bottom, index row-major from 1):
  only the dice whose top face is uncovered — the camera looks down on the top of the
  quarry; a die under another die is not seen.
* ``board:{player}`` (0-based), slot ``{level}-{index}`` (level 1 at the bottom with 6
  spaces, index from the left): every die of that player's pyramid.

Tokens, cards and discs are not dice and are not listed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from engine.core import GameInfo, options_tuple
from engine.errors import InvalidStateError
from engine.games.pyradice import pyramid as pm
from engine.games.pyradice import quarry as qy
from engine.games.pyradice.errors import SetupError
from engine.games.pyradice.pyramid import Board, Die
from engine.games.pyradice.state import PyradiceState
from engine.games.pyradice.tokens import check_objectives, check_skills
from engine.games.pyradice.vocabulary import Definition, parse_definition
from engine.observation import Expected, View, join_parts, part_view


@lru_cache(maxsize=4096)
def _die(zone: str, slot: str, value: int, colour: str) -> Expected:
    return Expected.make("die", zone, slot, type="d6", face=str(value), colour=colour)


@lru_cache(maxsize=4096)
def board_view(player: int, board: Board) -> View:
    """A pyramid's dice, one part of a view (remembered: a reading's candidate turns
    give the acting player's pyramid a few thousand ways, each met again and again)."""
    zone = f"board:{player}"
    # (already in a view's order: the spaces' names sort as the board lists them)
    return tuple([_die(zone, pm.NAMES[n], d[0], d[1]) for n, d in enumerate(board)
                  if d is not None])


@lru_cache(maxsize=512)
def quarry_view(dims: qy.Dims, quarry: tuple[tuple[Die | None, ...], ...]) -> View:
    geo = qy.geometry(dims)
    present = tuple(tuple(d is not None for d in layer) for layer in quarry)
    return part_view(_die("quarry", geo.names[k][i], d[0], d[1])
                     for k, layer in enumerate(quarry) for i, d in enumerate(layer)
                     if d is not None and qy.top_uncovered(geo, present, k, i))


_PARTS: list[dict[int, tuple[object, View]]] = [{} for _ in range(5)]
"""Parts of views remembered by the identity of the quarry (the last) or the pyramid (by
player) they show: a turn's states share every row it did not change, and the candidate
turns of one reading share the quarry left by each die taken (checks.physical)."""


def _remember(memo: dict[int, tuple[object, View]], row: object, part: View) -> View:
    if len(memo) > 4096:
        memo.clear()
    memo[id(row)] = (row, part)
    return part


def view_of(state: PyradiceState, boards: tuple[Board, ...] | None = None,
            quarry: tuple[tuple[Die | None, ...], ...] | None = None) -> View:
    """The view of a state, or of its quarry and pyramids replaced, joined from the
    remembered parts of each (engine.observation.join_parts), given in the view's order."""
    parts = []
    for p, board in enumerate(state.boards if boards is None else boards):
        memo = _PARTS[p]
        hit = memo.get(id(board))
        parts.append(hit[1] if hit is not None and hit[0] is board else
                     _remember(memo, board, board_view(p, board)))
    q = state.quarry if quarry is None else quarry
    memo = _PARTS[-1]
    hit = memo.get(id(q))
    parts.append(hit[1] if hit is not None and hit[0] is q else
                 _remember(memo, q, quarry_view(state.dims, q)))
    return join_parts(parts)


# --- loading ----------------------------------------------------------------------------
_DICE: dict[tuple[str, tuple[str, ...]], Die] = {}


def parse_die(text: Any, colours: tuple[str, ...], where: str) -> Die | None:
    if text is None:
        return None
    hit = _DICE.get((text, colours)) if isinstance(text, str) else None
    if hit is not None:
        return hit
    parts = text.split() if isinstance(text, str) else []
    if len(parts) != 2 or not parts[0].isdigit() or not 1 <= int(parts[0]) <= 6 \
            or parts[1] not in colours:
        raise InvalidStateError(f"Pyradice state: {where} must be 'VALUE COLOUR' (1–6, one of "
                                f"{', '.join(colours)}) or null, not {text!r}")
    if len(_DICE) > 4096:
        _DICE.clear()
    die = _DICE[(text, colours)] = (int(parts[0]), parts[1])
    return die


_ROWS: dict[tuple[tuple[Any, ...], tuple[str, ...]], tuple[Die | None, ...]] = {}


def _row(raw: Any, colours: tuple[str, ...], where: str) -> tuple[Die | None, ...]:
    """A quarry layer or a pyramid from JSON (cached: a match repeats most of them)."""
    if not isinstance(raw, list):
        raise InvalidStateError(f"Pyradice state: {where}s must be listed")
    key = (tuple(raw), colours)
    try:
        hit = _ROWS.get(key)
    except TypeError:  # something unhashable in the list: not a die anyway
        hit = None
    if hit is None:
        hit = tuple(parse_die(d, colours, where) for d in raw)
        if len(_ROWS) > 4096:
            _ROWS.clear()
        _ROWS[key] = hit
    return hit


_DEFS: list[tuple[list[Any], tuple[Definition, ...]]] = []


def _defs(raw: Any) -> tuple[Definition, ...]:
    """The definitions of a state, checked once per distinct content (a few recent ones are
    remembered; comparing JSON lists is much cheaper than checking them again)."""
    for known, defs in _DEFS:
        if known == raw:
            return defs
    if not isinstance(raw, list) or not all(isinstance(e, Mapping) for e in raw):
        raise InvalidStateError("Pyradice state: definitions must be a list of objects")
    defs = tuple(parse_definition(str(e.get("kind")), {k: v for k, v in e.items()
                                                       if k != "kind"})
                 for e in raw if e.get("kind") in ("skill", "objective", "card"))
    if len(defs) != len(raw):
        raise InvalidStateError("Pyradice state: a definition's kind must be skill, "
                                "objective or card")
    _DEFS.insert(0, (json.loads(json.dumps(raw)), defs))
    del _DEFS[8:]
    return defs


_BUILT: dict[int, tuple[tuple[Die | None, ...], bool]] = {}


def _well_built(board: tuple[Die | None, ...]) -> bool:
    """``pyramid.well_built``, remembered by identity (``_row`` hands out one tuple per
    content, so a match's unchanged pyramids are checked once)."""
    hit = _BUILT.get(id(board))
    if hit is None or hit[0] is not board:
        if len(_BUILT) > 4096:
            _BUILT.clear()
        hit = _BUILT[id(board)] = (board, pm.well_built(board))
    return hit[1]


@lru_cache(maxsize=1024)
def _supported(geo: qy.Geometry, present: tuple[tuple[bool, ...], ...]) -> bool:
    return qy.supported(geo, present)


def load_state(data: Mapping[str, Any], info: GameInfo) -> PyradiceState:
    """A state from ``PyradiceState.to_dict()`` output, checked; raises InvalidStateError."""
    if not isinstance(data, Mapping) or data.get("game", "pyradice") != "pyradice":
        raise InvalidStateError("not a Pyradice state")
    try:
        players = data["players"]
        if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 4:
            raise InvalidStateError(f"Pyradice state: players must be 2..4, not {players!r}")
        values = info.resolve_options(data.get("options"))
        colours = tuple(str(c) for c in data["colours"])
        raw_q = data["quarry"]
        dims = qy.parse_dims(",".join(raw_q["layers"]))
        key = "quarry_2p" if players == 2 else "quarry_3_4p"
        if dims != qy.parse_dims(str(values[key])):
            raise InvalidStateError(f"Pyradice state: the quarry's layers are not option {key}")
        if ",".join(colours) != ",".join(c.strip().lower()
                                         for c in str(values["colours"]).split(",")):
            raise InvalidStateError("Pyradice state: the colours are not option 'colours'")
        layers = raw_q["dice"]
        if len(layers) != 3 or any(len(layer) != r * c
                                   for layer, (r, c) in zip(layers, dims, strict=True)):
            raise InvalidStateError("Pyradice state: the quarry's dice do not fit its layers")
        quarry = tuple(_row(layer, colours, "a quarry die") for layer in layers)
        boards = tuple(_row(b, colours, "a pyramid die") for b in data["boards"])
        if len(boards) != players or any(len(b) != pm.SIZE for b in boards):
            raise InvalidStateError(f"Pyradice state: {players} pyramids of {pm.SIZE} spaces "
                                    "are needed")
        defs = _defs(data["definitions"])
        from engine.games.pyradice.tokens import Sheet
        sheet = Sheet({d.id: d for d in defs if d.kind == "skill"},
                      {d.id: d for d in defs if d.kind == "objective"},
                      {d.id: d for d in defs if d.kind == "card"})
        skills = check_skills(data["skills"], sheet)
        objectives = check_objectives(data["objectives"], sheet)
        cards = tuple((str(c), str(colour)) for c, colour in data["cards"])
        if len(cards) != 4 or any(c not in sheet.cards or colour not in colours
                                  for c, colour in cards):
            raise InvalidStateError("Pyradice state: 4 cards on the sheet, each with a disc "
                                    "of a dice colour")
        current, turn, first = data["current"], data["turn"], data["first"]
        if not all(isinstance(x, int) and not isinstance(x, bool)
                   for x in (current, turn, first)) or not 0 <= current < players \
                or not 0 <= first < players or turn < 1:
            raise InvalidStateError("Pyradice state: current/first must be players, turn ≥ 1")
    except SetupError as exc:
        raise InvalidStateError(f"Pyradice state: {exc}") from None
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        if isinstance(exc, InvalidStateError):
            raise
        raise InvalidStateError(f"Pyradice state lacks or mangles a field: {exc!r}") from None
    present = qy.presence(quarry)
    if not _supported(qy.geometry(dims), present):
        raise InvalidStateError("Pyradice state: a quarry die does not rest on 4 dice")
    if not all(_well_built(b) for b in boards):
        raise InvalidStateError("Pyradice state: a pyramid die does not rest on 2 dice")
    placed = sum(1 for b in boards for d in b if d is not None)
    taken = qy.geometry(dims).size - sum(sum(layer) for layer in present)
    counts = [sum(1 for d in b if d is not None) for b in boards]
    # turns 1..turn-1 went to first, first+1, ... in a cycle
    due = [max(0, (turn - 1 - (p - first) % players + players - 1) // players)
           for p in range(players)]
    if placed != taken or counts != due or current != (first + turn - 1) % players:
        raise InvalidStateError(f"Pyradice state: {placed} dice placed do not fit turn {turn} "
                                f"and current player P{current + 1}")
    return PyradiceState(players, options_tuple(values), colours, dims, quarry, skills,
                         objectives, cards, defs, boards, current, turn, first)
