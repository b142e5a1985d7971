"""Pyradice state and actions (values), with their text forms.

A turn is one action, because the camera sees it at once: the die that left the quarry,
where it went, and the die the skill changed::

    take L3-1 to 1-4                    take a die, place it on level 1
    take L3-9 to 2-3 use A2 +1 1-3      place it on level 2 and use that level's skill
    take L2-7 to 1-1 as 5               (illegal) the die was turned when placed

Quarry slots are ``L{layer}-{index}`` (``quarry.py``), pyramid spaces ``{level}-{index}``
(``pyramid.py``), skill uses as in ``skills.py``. Players are 0-based inside, ``P1``… in text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.core import Decision, OptionValue, option_of
from engine.errors import InvalidActionError
from engine.games.pyradice import pyramid as pm
from engine.games.pyradice.pyramid import Board, Die
from engine.games.pyradice.quarry import Dims
from engine.games.pyradice.skills import Use, parse_use
from engine.games.pyradice.vocabulary import Definition


@dataclass(frozen=True, slots=True)
class PyradiceState:
    """The quarry, every pyramid, the tokens and cards in play, and whose turn it is.

    Attributes:
        colours: the dice colours (option ``colours``).
        dims: the quarry's layers, bottom first, (rows, cols).
        quarry: per layer, row-major, the die in each slot (value, colour) or None once taken.
        skills: the skill token of levels 2..6 (identical on every board).
        objectives: the objective token of each objective level, lowest level first.
        cards: the 4 objective cards in play, (card id, disc colour).
        defs: the definitions of those tokens and cards (from the sheet the players entered,
            or the shipped examples), each with its provenance.
        boards: each player's pyramid (``pyramid.py``).
        current: whose turn it is (0-based).
        turn: turns played so far plus one.
        first: the first player.
    """

    players: int
    options: tuple[tuple[str, OptionValue], ...]
    colours: tuple[str, ...]
    dims: Dims
    quarry: tuple[tuple[Die | None, ...], ...]
    skills: tuple[str, ...]
    objectives: tuple[str, ...]
    cards: tuple[tuple[str, str], ...]
    defs: tuple[Definition, ...]
    boards: tuple[Board, ...]
    current: int = 0
    turn: int = 1
    first: int = 0

    def option(self, name: str) -> OptionValue:
        return option_of(self.options, name)

    @property
    def objective_levels(self) -> tuple[int, ...]:
        low = 1 if self.option("objective_levels") == "1-5" else 2
        return tuple(range(low, low + 5))

    @property
    def over(self) -> bool:
        """Every pyramid holds 21 dice (one die is placed per turn: RULES pyradice.end)."""
        return self.turn > pm.SIZE * self.players

    def definition(self, kind: str, ident: str) -> Definition:
        for d in self.defs:
            if d.kind == kind and d.id == ident:
                return d
        raise KeyError(f"{kind} {ident}")

    def skill_at(self, level: int) -> Definition | None:
        """The skill of a level (None on level 1: RULES pyradice.no_skill_level1)."""
        if not 2 <= level <= pm.LEVELS:
            return None
        return self.definition("skill", self.skills[level - 2])

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": "pyradice", "players": self.players, "options": dict(self.options),
            "colours": list(self.colours),
            "quarry": {"layers": [f"{r}x{c}" for r, c in self.dims],
                       "dice": [texts(layer) for layer in self.quarry]},
            "skills": list(self.skills), "objectives": list(self.objectives),
            "cards": [[c, colour] for c, colour in self.cards],
            "definitions": _definitions(self.defs),
            "boards": [texts(board) for board in self.boards],
            "current": self.current, "turn": self.turn, "first": self.first,
        }


_DEFS_JSON: dict[int, tuple[tuple[Definition, ...], list[dict[str, Any]]]] = {}


def _definitions(defs: tuple[Definition, ...]) -> list[dict[str, Any]]:
    """The definitions as JSON values, built once per match (its states share ``defs``);
    each call gets its own dicts and lists."""
    hit = _DEFS_JSON.get(id(defs))
    if hit is None or hit[0] is not defs:
        if len(_DEFS_JSON) > 64:
            _DEFS_JSON.clear()
        hit = _DEFS_JSON[id(defs)] = (defs, [d.to_dict() | {"kind": d.kind} for d in defs])
    return [{k: list(v) if isinstance(v, list) else v for k, v in d.items()} for d in hit[1]]


def die_text(die: Die | None) -> str | None:
    return None if die is None else f"{die[0]} {die[1]}"


_TEXTS: dict[int, tuple[tuple[Die | None, ...], list[str | None]]] = {}


def texts(row: tuple[Die | None, ...]) -> list[str | None]:
    """A quarry layer's or a pyramid's dice as text (cached by the tuple's identity: the
    states of a match share every row a turn did not change)."""
    hit = _TEXTS.get(id(row))
    if hit is None or hit[0] is not row:
        if len(_TEXTS) > 1024:
            _TEXTS.clear()
        hit = _TEXTS[id(row)] = (row, [die_text(d) for d in row])
    return list(hit[1])


@dataclass(frozen=True, slots=True)
class Turn(Decision):
    """One turn: the die taken from quarry slot ``take``, placed on space ``to`` (showing
    ``face`` when it was turned, which is illegal), and the skills used (at most one is
    legal)."""

    take: str
    to: str
    face: int | None = None
    skills: tuple[Use, ...] = ()

    def to_str(self) -> str:
        text = f"take {self.take} to {self.to}"
        if self.face is not None:
            text += f" as {self.face}"
        return "".join([text] + [" " + u.to_str() for u in self.skills])


PyradiceAction = Turn


def parse(text: str) -> Turn:
    words = text.split()
    if len(words) < 4 or words[0] != "take" or words[2] != "to" or words[3] not in pm.INDEX:
        raise InvalidActionError(
            f"not a Pyradice action: {text!r} (expected 'take L3-1 to 1-4', optionally "
            "followed by a skill use such as 'use A3 rotate 1-2')")
    face = None
    rest = words[4:]
    if rest[:1] == ["as"]:
        if len(rest) < 2 or not rest[1].isdigit() or not 1 <= int(rest[1]) <= 6:
            raise InvalidActionError(f"'as' takes a die value 1–6 in {text!r}")
        face, rest = int(rest[1]), rest[2:]
    uses: list[Use] = []
    while rest:
        if rest[0] != "use":
            raise InvalidActionError(f"unexpected {rest[0]!r} in {text!r} (a skill use starts "
                                     "with 'use')")
        end = next((i for i in range(1, len(rest)) if rest[i] == "use"), len(rest))
        uses.append(parse_use(rest[1:end]))
        rest = rest[end:]
    take = words[1]
    if not take.startswith("L") or "-" not in take:
        raise InvalidActionError(f"{take!r} is not a quarry slot (L1-1, L3-4…)")
    return Turn(take, words[3], face, tuple(uses))
