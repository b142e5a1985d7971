"""IceDice pieces, dice faces (from data/icedice.json), the state and the actions."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

from engine.core import (
    ChanceOutcome,
    Decision,
    OptionValue,
    option_of,
)

SIZES = ("S", "M", "L")


@dataclass(frozen=True, slots=True)
class ColourFace:
    face: str
    colour: str | None  # None: wild


def _load_data() -> dict[str, Any]:
    text = resources.files("engine.games").joinpath("data/icedice.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


_DATA = _load_data()
SIZE_FACES: dict[str, tuple[str, ...]] = {
    f["face"]: tuple(f["sizes"]) for f in _DATA["size_die"]["faces"]}
COLOUR_DICE: dict[str, tuple[ColourFace, ...]] = {
    name: tuple(ColourFace(f["face"], f["colour"]) for f in edition["faces"])
    for name, edition in _DATA["colour_dice"].items()}


def colour_faces(state: IceDiceState) -> tuple[ColourFace, ...]:
    return COLOUR_DICE[str(state.option("colour_die"))]


# --- state ------------------------------------------------------------------------------
Piece = tuple[str, str]  # (colour, size)

PHASES = ("roll", "choose", "decide", "bust", "rainbow", "over")


@dataclass(frozen=True, slots=True)
class IceDiceState:
    """Where every pyramid is, whose turn it is and what the dice show.

    Attributes:
        colours: the pyramid colours of this edition, in die order.
        bank: pieces in the Bank, sorted.
        counter: pieces on the Counter, in the order they were placed.
        vaults: each player's Vault, sorted.
        current: whose turn it is (0-based).
        phase: ``roll`` (must roll), ``choose`` (take the rolled piece), ``decide`` (roll
            again or stop), ``bust`` (return the Counter), ``rainbow`` (move the Rainbow to
            the Vault), ``over``.
        dice: the faces the dice show (colour face, size face), None before the first roll.
        winner: the winner once the match is over.
        turn: turns started so far (1 at the first turn).
    """

    players: int
    options: tuple[tuple[str, OptionValue], ...]
    colours: tuple[str, ...]
    bank: tuple[Piece, ...]
    counter: tuple[Piece, ...]
    vaults: tuple[tuple[Piece, ...], ...]
    current: int = 0
    phase: str = "roll"
    dice: tuple[str, str] | None = None
    winner: int | None = None
    turn: int = 1

    def option(self, name: str) -> OptionValue:
        return option_of(self.options, name)

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": "icedice", "players": self.players, "options": dict(self.options),
            "colours": list(self.colours),
            "bank": [f"{c} {s}" for c, s in self.bank],
            "counter": [f"{c} {s}" for c, s in self.counter],
            "vaults": [[f"{c} {s}" for c, s in v] for v in self.vaults],
            "current": self.current, "phase": self.phase,
            "dice": list(self.dice) if self.dice else None,
            "winner": self.winner, "turn": self.turn,
        }


def sort_pieces(pieces: Any) -> tuple[Piece, ...]:
    return tuple(sorted(pieces, key=lambda p: (p[0], SIZES.index(p[1]))))


def remove_piece(pieces: tuple[Piece, ...], piece: Piece) -> tuple[Piece, ...]:
    i = pieces.index(piece)
    return pieces[:i] + pieces[i + 1:]


def trios(vault: tuple[Piece, ...], per_set: bool = True) -> int:
    """Monochrome trios (Small + Medium + Large of one colour) in a Vault."""
    total = 0
    for colour in {c for c, _ in vault}:
        n = min(sum(1 for p in vault if p == (colour, s)) for s in SIZES)
        total += n if per_set else min(n, 1)
    return total


# --- actions ------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Roll(ChanceOutcome):
    """Both dice rolled, showing these faces (a chance action)."""

    colour: str
    size: str

    def to_str(self) -> str:
        return f"roll {self.colour} {self.size}"


@dataclass(frozen=True, slots=True)
class Take(Decision):
    """A piece moved to the Counter, from the Bank or (``source``) from a player's Vault."""

    colour: str
    size: str
    source: int | None = None  # None: the Bank

    @property
    def piece(self) -> Piece:
        return (self.colour, self.size)

    def to_str(self) -> str:
        if self.source is None:
            return f"take {self.colour} {self.size}"
        return f"steal {self.colour} {self.size} from P{self.source + 1}"


@dataclass(frozen=True, slots=True)
class Simple(Decision):
    """``stop``, ``bust`` (return the Counter) or ``rainbow`` (Rainbow to the Vault)."""

    word: str

    def to_str(self) -> str:
        return self.word


STOP, BUST, RAINBOW = Simple("stop"), Simple("bust"), Simple("rainbow")
IceDiceAction = Roll | Take | Simple


# --- the game -------------------------------------------------------------------------------
