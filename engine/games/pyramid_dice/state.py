"""Pyramid Dice state and actions (values), with their text forms.

Action text forms (players are ``P1``.. in text, 0-based inside)::

    roll 2 3 4                 the turn's roll (chance; the camera supplies it)
    reroll 1 5 6 by ra         a re-roll with the Ra card, or ``by g3`` with a god card
    flip 2 by g1               turn a die showing 2 upside down (→ 5)
    +1 3 by g2   +2 3 by g3    add to a die showing 3
    set 2 to 5 by g7           set a die showing 2 to 5
    take r6c3  |  take side t5 take an uncovered pyramid card, or a card of the side area
    remove r7c1                give up: an uncovered pyramid card goes to the side area
    pass                       give up when the pyramid is empty (side-area cards remain)
    give up                    solo play: the game ends
    snatch P2 r6c3             optional rule: P2 (next after P1) takes a card the unchanged
                               dice make
    snatch P3 r6c3 after P2 passed   P3 snatches, P2 (the next player) having said nothing
    ra strengthen P2           P2 turns their Ra card to the strengthened side
    end                        the stall rule: the players end the game

A die is named by its value; dice with equal values are interchangeable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.core import ChanceOutcome, Decision, OptionValue, ThrowDecision, option_of
from engine.errors import InvalidActionError
from engine.games.pyramid_dice.cards import Card, Slot

PHASES = ("roll", "act", "over")
Die = tuple[int, int]  # (value, face): the face the die shows; the value after abilities


@dataclass(frozen=True, slots=True)
class PyramidState:
    """Where every card is, whose turn it is and what the dice show.

    Attributes:
        cards: the card set the players entered (or the example set).
        layout: the pyramid's slots and what covers what.
        pyramid: (slot, card id) for every slot still holding a card, in layout order.
        side: card ids in the side area, in the order they were put there.
        areas: per player, the face-up cards in front of them, in the order taken.
        hidden: per player, the face-down (snatched) cards in front of them.
        boxed: god cards returned to the box.
        strengthened: per player, whether the Ra card is on its strengthened side.
        got_god: per player, whether they ever took a god card face up.
        current: whose turn it is (0-based).
        phase: ``roll`` (the turn's roll is due), ``act`` (abilities, then take or give
            up), ``over``.
        dice: (value, face) of the three dice, sorted; empty before the first roll.
        ra_used: re-rolls made with the current player's Ra card this turn.
        god_uses: god abilities used this turn that count toward the per-turn limit.
        stuck_turns: turns in a row in which nobody could take a card: each ended without a
            take while the dice, as they lay then, made no takeable card (the stall rule).
        turn: turns started so far (1 at the first turn).
        ended: why the game ended (``all_taken``, ``pyramid_empty``, ``stall``,
            ``solo_failed``), None while it goes on.
        provenance: where the card set and the layout come from: the ``provenance`` of the
            files the players entered (``entered by the players`` when they gave none), or
            ``EXAMPLE — not the box's contents`` for the shipped example and default.
    """

    players: int
    options: tuple[tuple[str, OptionValue], ...]
    cards: tuple[Card, ...]
    layout: tuple[Slot, ...]
    pyramid: tuple[tuple[str, str], ...]
    side: tuple[str, ...] = ()
    areas: tuple[tuple[str, ...], ...] = ()
    hidden: tuple[tuple[str, ...], ...] = ()
    boxed: tuple[str, ...] = ()
    strengthened: tuple[bool, ...] = ()
    got_god: tuple[bool, ...] = ()
    current: int = 0
    phase: str = "roll"
    dice: tuple[Die, ...] = ()
    ra_used: int = 0
    god_uses: int = 0
    stuck_turns: int = 0
    turn: int = 1
    ended: str | None = None
    provenance: tuple[str, str] = ("", "")

    def option(self, name: str) -> OptionValue:
        return option_of(self.options, name)

    @property
    def values(self) -> tuple[int, ...]:
        """The three dice values (after abilities), sorted."""
        return tuple(v for v, _ in self.dice)

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": "pyramid_dice", "players": self.players, "options": dict(self.options),
            "cards": _dicts(self.cards), "layout": _dicts(self.layout),
            "pyramid": dict(self.pyramid),
            "side": list(self.side), "areas": [list(a) for a in self.areas],
            "hidden": [list(h) for h in self.hidden], "boxed": list(self.boxed),
            "strengthened": list(self.strengthened), "got_god": list(self.got_god),
            "current": self.current, "phase": self.phase,
            "dice": [[v, f] for v, f in self.dice], "ra_used": self.ra_used,
            "god_uses": self.god_uses, "stuck_turns": self.stuck_turns, "turn": self.turn,
            "ended": self.ended,
            "provenance": {"cards": self.provenance[0], "layout": self.provenance[1]},
        }


_DICTS: dict[int, tuple[Any, list[dict[str, Any]]]] = {}


def _dicts(items: tuple[Card, ...] | tuple[Slot, ...]) -> list[dict[str, Any]]:
    """``to_dict`` of a card set or layout, cached by identity (states of a match share
    them); a fresh list of fresh dicts each time is not needed, callers do not mutate."""
    hit = _DICTS.get(id(items))
    if hit is None or hit[0] is not items:
        if len(_DICTS) > 256:
            _DICTS.clear()
        hit = _DICTS[id(items)] = (items, [x.to_dict() for x in items])
    return [dict(d) for d in hit[1]]


# --- actions ------------------------------------------------------------------------------
def _dice_text(values: tuple[int, ...]) -> str:
    return " ".join(str(v) for v in values)


@dataclass(frozen=True, slots=True)
class Roll(ChanceOutcome):
    """The turn's roll of the three dice (chance), as a sorted multiset."""

    values: tuple[int, int, int]

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", tuple(sorted(self.values)))

    def to_str(self) -> str:
        return f"roll {_dice_text(self.values)}"


@dataclass(frozen=True, slots=True)
class Reroll(ThrowDecision):
    """A re-roll of all three dice with a card (``ra`` or a god card's id) and its result.

    The decision and its outcome are one action: the camera sees both at once."""

    values: tuple[int, int, int]
    card: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", tuple(sorted(self.values)))

    @property
    def decision(self) -> str:
        return f"reroll by {self.card}"

    @property
    def outcome_probability(self) -> float:
        """Three fair d6 showing these values in any order."""
        a, b, c = self.values
        orders = 6 if a != b != c != a else (1 if a == b == c else 3)
        return orders / 216

    def to_str(self) -> str:
        return f"reroll {_dice_text(self.values)} by {self.card}"


@dataclass(frozen=True, slots=True)
class Use(Decision):
    """A die-changing god ability on the die showing ``die`` (``card`` None: no card, a
    physical change the rules do not allow)."""

    ability: str  # flip, +1, +2, set3..set6
    die: int
    card: str | None

    def to_str(self) -> str:
        if self.ability.startswith("set"):
            text = f"set {self.die} to {self.ability[3:]}"
        else:
            text = f"{self.ability} {self.die}"
        return text if self.card is None else f"{text} by {self.card}"


@dataclass(frozen=True, slots=True)
class Take(Decision):
    """Take a card: ``target`` is a pyramid slot or ``side:<card id>``."""

    target: str

    def to_str(self) -> str:
        return f"take {target_text(self.target)}"


@dataclass(frozen=True, slots=True)
class Remove(Decision):
    """Give up: move an uncovered pyramid card to the side area."""

    slot: str

    def to_str(self) -> str:
        return f"remove {self.slot}"


@dataclass(frozen=True, slots=True)
class Snatch(Decision):
    """Optional rule: ``player`` takes a card the unchanged dice make, face down.

    ``passed``: the players between the active player and the snatcher, who said nothing
    (the right passes on only then: rules ``snatch``); empty for the next player."""

    player: int
    target: str
    passed: tuple[int, ...] = ()

    def to_str(self) -> str:
        text = f"snatch P{self.player + 1} {target_text(self.target)}"
        if self.passed:
            text += f" after {' '.join(f'P{p + 1}' for p in self.passed)} passed"
        return text

    @property
    def unseen_claim(self) -> str | None:
        """Saying nothing shows nothing on the table: the players are asked."""
        if not self.passed:
            return None
        who = " and ".join(f"P{p + 1}" for p in self.passed)
        return (f"Did {who} say nothing (pass) before P{self.player + 1} snatched "
                f"{target_text(self.target)}?")


@dataclass(frozen=True, slots=True)
class Strengthen(Decision):
    """``player`` turns their Ra card to its strengthened side."""

    player: int

    def to_str(self) -> str:
        return f"ra strengthen P{self.player + 1}"


@dataclass(frozen=True, slots=True)
class Word(Decision):
    """``pass``, ``give up`` or ``end``."""

    word: str

    def to_str(self) -> str:
        return self.word


PASS, GIVE_UP, END = Word("pass"), Word("give up"), Word("end")
PyramidAction = Roll | Reroll | Use | Take | Remove | Snatch | Strengthen | Word


def target_text(target: str) -> str:
    return f"side {target[5:]}" if target.startswith("side:") else target


_USAGE = ("expected e.g. 'roll 2 3 4', 'reroll 1 5 6 by ra', 'flip 2 by g1', '+1 3 by g2', "
          "'set 2 to 5 by g7', 'take r6c3', 'take side t5', 'remove r7c1', 'pass', "
          "'give up', 'snatch P2 r6c3', 'snatch P3 r6c3 after P2 passed', "
          "'ra strengthen P2' or 'end'")


def _int(word: str, text: str) -> int:
    if not word.isdigit():
        raise InvalidActionError(f"not a die value: {word!r} in {text!r} ({_USAGE})")
    return int(word)


def _player(word: str, text: str) -> int:
    if len(word) < 2 or word[0] not in "Pp" or not word[1:].isdigit() or int(word[1:]) < 1:
        raise InvalidActionError(f"not a player (P1, P2…): {word!r} in {text!r}")
    return int(word[1:]) - 1


def _target(words: list[str], text: str) -> str:
    if len(words) == 1 and words[0].lower() != "side":
        return words[0]
    if len(words) == 2 and words[0].lower() == "side":
        return f"side:{words[1]}"
    raise InvalidActionError(f"not a card place: {text!r} (a slot like r6c3, or 'side t5')")


def _three(words: list[str], text: str) -> tuple[int, int, int]:
    if len(words) != 3:
        raise InvalidActionError(f"three dice values are needed in {text!r} ({_USAGE})")
    a, b, c = (_int(w, text) for w in words)
    return (a, b, c)


def parse(text: str) -> PyramidAction:
    """Read an action's text form; raises InvalidActionError."""
    words = text.strip().split()
    if not words:
        raise InvalidActionError(f"empty action ({_USAGE})")
    head = words[0].lower()
    rest = words[1:]
    if text.strip().lower() in ("pass", "end", "give up"):
        return Word(" ".join(w.lower() for w in words))
    if head == "roll":
        return Roll(_three(rest, text))
    if head == "reroll" and len(rest) == 5 and rest[3].lower() == "by":
        source = rest[4].lower() if rest[4].lower() == "ra" else rest[4]
        return Reroll(_three(rest[:3], text), source)
    card: str | None = None
    if len(rest) >= 3 and rest[-2].lower() == "by":
        card, rest = rest[-1], rest[:-2]
    if head in ("flip", "+1", "+2") and len(rest) == 1:
        return Use(head, _int(rest[0], text), card)
    if head == "set" and len(rest) == 3 and rest[1].lower() == "to" \
            and rest[2] in ("3", "4", "5", "6"):
        return Use(f"set{rest[2]}", _int(rest[0], text), card)
    if card is None:
        if head == "take" and rest:
            return Take(_target(rest, text))
        if head == "remove" and len(rest) == 1:
            return Remove(rest[0])
        if head == "snatch" and len(rest) >= 2:
            passed: tuple[int, ...] = ()
            lowered = [w.lower() for w in rest]
            if "after" in lowered:
                at = lowered.index("after")
                if at + 2 > len(rest) or lowered[-1] != "passed":
                    raise InvalidActionError(f"expected 'snatch P3 r6c3 after P2 passed', "
                                             f"not {text!r}")
                passed = tuple(_player(w, text) for w in rest[at + 1:-1])
                if not passed:
                    raise InvalidActionError(f"who passed? e.g. 'snatch P3 r6c3 after P2 "
                                             f"passed', not {text!r}")
                rest = rest[:at]
            return Snatch(_player(rest[0], text), _target(rest[1:], text), passed)
        if head == "ra" and len(rest) == 2 and rest[0].lower() == "strengthen":
            return Strengthen(_player(rest[1], text))
    raise InvalidActionError(f"not a Pyramid Dice action: {text!r} ({_USAGE})")
