"""Pyramid Dice card sets and pyramid layouts: player-entered data, validated.

The sheet we have gives neither the number and points printed on each of the 28 pyramid
cards, nor which god card has which ability, nor how many cards have "1" or "2" on the back,
nor the overlap picture (its images are missing; shared/data/games/README.md lists them as
UNKNOWN). So all of it is data the players enter. The package ships an EXAMPLE card file
(``data/example_cards.json``) and a DEFAULT layout (``data/default_layout.json``: 7 rows of
1+2+…+7 cards, apex far, each card covered by the two in front of it, pyramid-solitaire
style, cards taken from the front); both carry ``"provenance": "EXAMPLE — not the box's
contents"`` and are never presented as the box's contents.

Card file::

    {"provenance": "...", "cards": [
        {"id": "t1", "kind": "treasure", "number": 7, "points": 1, "back": 1},
        {"id": "g1", "kind": "god", "number": 14, "points": 0, "back": 1, "ability": "flip"},
        ...]}

Layout file::

    {"provenance": "...", "slots": [{"slot": "r1c1", "covered_by": ["r2c1", "r2c2"]}, ...],
     "order": ["r1c1", "r2c1", ...]}

``order`` is the order the cards are laid (from the apex: the "2" cards first, then the
"1" cards); it defaults to the order of ``slots``.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from engine.errors import EngineError, InvalidStateError
from engine.games.pyramid_dice.solver import ABILITIES

EXAMPLE_PROVENANCE = "EXAMPLE — not the box's contents"
#: the sheet's component list ("ピラミッドカード 28枚 … 宝物カード21枚 … 神カード7枚")
DEFAULT_COUNTS: Mapping[str, int] = {"treasure": 21, "god": 7}
KINDS = ("treasure", "god")
_NAME = re.compile(r"^[A-Za-z0-9_]{1,24}$")
_RESERVED = {"ra", "side", "by", "to", "box"}


class CardSetError(InvalidStateError):
    """A card set, layout or placement the players entered is not usable."""

    code = "setup/invalid"


@dataclass(frozen=True, slots=True)
class Card:
    """One pyramid card.

    Attributes:
        id: the players' name for it (``t1``, ``g3``...), unique in the set.
        kind: ``treasure`` or ``god``.
        number: the number to make with the dice (a positive whole number).
        points: its points (god cards: usually 0; unknown for the real box).
        back: the number on its back, 1 or 2 (the laying order; the score of a snatched card).
        ability: a god card's ability (``flip``, ``+1``, ``+2``, ``set3``..``set6``,
            ``reroll``); None for a treasure card.
    """

    id: str
    kind: str
    number: int
    points: int
    back: int
    ability: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "kind": self.kind, "number": self.number,
                               "points": self.points, "back": self.back}
        if self.ability is not None:
            out["ability"] = self.ability
        return out


@dataclass(frozen=True, slots=True)
class Slot:
    """A place in the pyramid and the slots whose cards cover it."""

    slot: str
    covered_by: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"slot": self.slot, "covered_by": list(self.covered_by)}


def _whole(entry: Mapping[str, Any], key: str, where: str, minimum: int) -> int:
    value = entry.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        rule = "a positive whole number" if minimum == 1 else "a whole number ≥ 0"
        message = f"'{key}' must be {rule}, not {value!r}"
        raise CardSetError(f"{where}: {message}").at(key, message=message)
    return value


def _card(entry: Any, i: int, seen: set[str]) -> Card:
    """The ``i``-th card of a set (``seen``: the ids before it); CardSetError at its field."""

    def bad(where: str, field: str | None, message: str) -> EngineError:
        error = CardSetError(f"{where}: {message}")
        return error.at(field, message=message) if field else error.at(message=message)

    where = f"card {i + 1}"
    if not isinstance(entry, Mapping):
        raise bad(where, None, "must be an object with id, kind, number, points, back")
    cid = entry.get("id")
    if not isinstance(cid, str) or not _NAME.match(cid) or cid.lower() in _RESERVED \
            or cid.lower().startswith("back"):
        raise bad(where, "id", "'id' must be a short name of letters, digits or _ "
                               f"(not ra/side/by/to/box/back…), not {cid!r}")
    where = f"card {cid!r}"
    if cid in seen:
        raise CardSetError(f"{where}: the id is used twice").at(
            "id", message="this id is used twice")
    seen.add(cid)
    kind = entry.get("kind")
    if kind not in KINDS:
        raise bad(where, "kind", f"'kind' must be 'treasure' or 'god', not {kind!r}")
    number = _whole(entry, "number", where, 1)
    points = _whole(entry, "points", where, 0) if "points" in entry or kind == "treasure" \
        else 0
    back = entry.get("back")
    if back not in (1, 2) or isinstance(back, bool):
        raise bad(where, "back", f"'back' must be 1 or 2, not {back!r}")
    ability = entry.get("ability")
    if kind == "god" and ability not in ABILITIES:
        raise bad(where, "ability", f"a god card's 'ability' is one of "
                                    f"{', '.join(ABILITIES)}, not {ability!r}")
    if kind == "treasure" and ability is not None:
        raise bad(where, "ability", "a treasure card has no ability")
    unknown = set(entry) - {"id", "kind", "number", "points", "back", "ability", "note"}
    if unknown:
        raise bad(where, None, f"unknown field(s) {', '.join(sorted(unknown))}")
    return Card(cid, str(kind), number, points, int(back), ability)


def parse_cards(data: Any, counts: Mapping[str, int] | None = None) -> tuple[Card, ...]:
    """Validate a card set (a card file's dict or its ``cards`` list).

    Args:
        data: ``{"cards": [...]}`` or the list itself.
        counts: how many treasure and god cards the set must have (default 21 and 7, the
            sheet's component list; players with another printing may say otherwise).

    Raises:
        CardSetError: with the first problem found, naming the card.
    """
    want = dict(DEFAULT_COUNTS if counts is None else counts)
    if set(want) != set(KINDS) or any(not isinstance(v, int) or v < 0 for v in want.values()):
        raise CardSetError(f"card counts must give 'treasure' and 'god' as whole numbers, "
                           f"not {counts!r}")
    items = data.get("cards") if isinstance(data, Mapping) else data
    if not isinstance(items, list):
        raise CardSetError("a card set is a list of cards (or {'cards': [...]})")
    cards: list[Card] = []
    seen: set[str] = set()
    for i, entry in enumerate(items):
        try:
            cards.append(_card(entry, i, seen))
        except EngineError as exc:
            raise exc.at(i) from None
    for kind in KINDS:
        n = sum(1 for c in cards if c.kind == kind)
        if n != want[kind]:
            raise CardSetError(f"the card set has {n} {kind} cards, not {want[kind]} "
                               f"({len(cards)} cards in all); give 'card_counts' if your box "
                               "differs")
    return tuple(cards)


def parse_layout(data: Any) -> tuple[tuple[Slot, ...], tuple[str, ...]]:
    """Validate a layout; returns (slots, laying order).

    Raises:
        CardSetError: unknown or repeated slot names, a slot covering itself (directly or
            through others), an order that is not every slot once.
    """
    if not isinstance(data, Mapping) or not isinstance(data.get("slots"), list):
        raise CardSetError("a layout is {'slots': [{'slot': 'r1c1', 'covered_by': [...]}...]}")
    slots: list[Slot] = []
    for i, entry in enumerate(data["slots"]):
        if not isinstance(entry, Mapping):
            raise CardSetError(f"layout slot {i + 1}: must be an object")
        name, cover = entry.get("slot"), entry.get("covered_by", [])
        if not isinstance(name, str) or not _NAME.match(name) or name.lower() in _RESERVED:
            raise CardSetError(f"layout slot {i + 1}: bad slot name {name!r}")
        if not isinstance(cover, list) or not all(isinstance(c, str) for c in cover):
            raise CardSetError(f"layout slot {name!r}: 'covered_by' must be a list of slots")
        slots.append(Slot(name, tuple(cover)))
    names = [s.slot for s in slots]
    if len(set(names)) != len(names):
        raise CardSetError("layout: a slot name is used twice")
    for s in slots:
        for c in s.covered_by:
            if c not in names:
                raise CardSetError(f"layout slot {s.slot!r} is covered by unknown slot {c!r}")
    covers = {s.slot: s.covered_by for s in slots}
    done: set[str] = set()
    for name in names:  # a slot must not be (even indirectly) covered by itself
        stack, path = [(name, iter(covers[name]))], {name}
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                path.discard(node)
                done.add(node)
            elif child in path:
                raise CardSetError(f"layout: slot {child!r} is covered by itself "
                                   "(through the cards in front of it)")
            elif child not in done:
                path.add(child)
                stack.append((child, iter(covers[child])))
    order = data.get("order", names)
    if not isinstance(order, list) or sorted(map(str, order)) != sorted(names):
        raise CardSetError("layout: 'order' must list every slot exactly once")
    return tuple(slots), tuple(str(o) for o in order)


def place(cards: Sequence[Card], order: Sequence[str], rng: random.Random) -> dict[str, str]:
    """A seeded shuffle that respects the backs: the "2" cards from the apex, then the "1"s.

    (RULES pyramid_dice.setup_pyramid.)
    """
    twos = [c.id for c in cards if c.back == 2]
    ones = [c.id for c in cards if c.back == 1]
    rng.shuffle(twos)
    rng.shuffle(ones)
    return dict(zip(order, twos + ones, strict=True))


def check_placement(placement: Mapping[str, Any], cards: Sequence[Card],
                    order: Sequence[str]) -> dict[str, str]:
    """Validate a placement the players entered (slot -> card id), backs in laying order."""
    if not isinstance(placement, Mapping):
        raise CardSetError("placement: must map each slot to a card id")
    by_id = {c.id: c for c in cards}
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in placement.items()):
        raise CardSetError("placement: slot names and card ids are text")
    if sorted(placement) != sorted(order):
        raise CardSetError("placement: every slot of the layout needs exactly one card")
    ids = [placement[s] for s in order]
    if any(i not in by_id for i in ids) or len(set(ids)) != len(ids):
        raise CardSetError("placement: each card of the set goes in exactly one slot")
    backs = [by_id[i].back for i in ids]
    if backs != sorted(backs, reverse=True):
        raise CardSetError("placement: the '2' cards are laid from the apex first, then the "
                           "'1' cards (the layout's 'order' says which slot comes when)")
    return {s: str(placement[s]) for s in order}


def _read(name: str) -> Any:
    text = resources.files("engine.games.pyramid_dice").joinpath(f"data/{name}").read_text(
        "utf-8")
    return json.loads(text)


@lru_cache(maxsize=1)
def example_cards() -> tuple[Card, ...]:
    """The EXAMPLE card set (not the box's contents)."""
    return parse_cards(_read("example_cards.json"))


@lru_cache(maxsize=1)
def default_layout() -> tuple[tuple[Slot, ...], tuple[str, ...]]:
    """The DEFAULT 7-row layout (an example, not the box's picture)."""
    return parse_layout(_read("default_layout.json"))


def triangle_layout(rows: int) -> dict[str, Any]:
    """A pyramid-solitaire layout: row 1 (the apex) is far, row ``rows`` is in front;
    card ``r{r}c{c}`` is covered by ``r{r+1}c{c}`` and ``r{r+1}c{c+1}``."""
    slots = []
    for r in range(1, rows + 1):
        for c in range(1, r + 1):
            cover = [f"r{r + 1}c{c}", f"r{r + 1}c{c + 1}"] if r < rows else []
            slots.append({"slot": f"r{r}c{c}", "covered_by": cover})
    return {"format": "pyramid-dice-layout/1", "provenance": EXAMPLE_PROVENANCE,
            "doc": f"Default layout: {rows} rows, apex far, each card covered by the two cards "
                   "in front of it (pyramid solitaire); cards are taken from the front. The "
                   "sheet's picture is missing, so this is a default, not the box's picture.",
            "slots": slots, "order": [s["slot"] for s in slots]}
