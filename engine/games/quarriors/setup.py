"""Setting up the Wilds and the bags (RULES setup_basic, setup_classes, setup_dice,
setup_bags), dealt at random or as the players' own table shows."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from engine.errors import InvalidStateError
from engine.games.quarriors import state as st
from engine.games.quarriors.cards import (
    CARDS,
    CREATURE_CLASSES,
    NOT_IMPLEMENTED,
    SPELL_CLASSES,
    by_category,
)
from engine.games.quarriors.dice import ASSISTANT, BASIC_QUIDDITY, DICE, PORTAL
from engine.games.quarriors.rules import RULES

DICE_PER_CARD = 5
#: every die of the base set (shared/data/games/README.md: "130 dice"): 5 of each of the 15
#: Quarry dice, 5 Portals, 18 Assistants (2 in the Wilds + 4 for each of 4 players) and 32
#: Basic Quiddity (8 for each of 4 players)
BOX: st.Counts = st.counts([(BASIC_QUIDDITY, 32), (ASSISTANT, 18), (PORTAL, 5)] + [
    (key, DICE_PER_CARD) for key in DICE if key not in (BASIC_QUIDDITY, ASSISTANT, PORTAL)])


class SetupError(InvalidStateError):
    """A table setup the players entered that the rules (or this engine) cannot play."""

    code = "setup/invalid"


def deal(rng: random.Random) -> tuple[str, ...]:
    """RULES setup_classes: creature cards turned over until 7 classes, then spells until 3,
    a card of a class already out going back to the box. A card this engine cannot play yet
    (cards.NOT_IMPLEMENTED) goes back to the box too, so a dealt table is always played by
    its real rules."""
    chosen: list[str] = []
    for category, wanted in (("creature", CREATURE_CLASSES), ("spell", SPELL_CLASSES)):
        deck = [c.name for c in by_category(category)]
        rng.shuffle(deck)
        classes: set[str] = set()
        for name in deck:
            if len(classes) == wanted:
                break
            if CARDS[name].cls in classes or name in NOT_IMPLEMENTED:
                continue
            classes.add(CARDS[name].cls)
            chosen.append(name)
    return tuple(sorted(chosen))


def check_cards(raw: Any) -> tuple[str, ...]:
    """The players' own table: 7 creature cards and 3 spell cards, no class twice, each a
    card this engine plays (SetupError at ``cards`` or the card's index, with the reason)."""
    if not isinstance(raw, list | tuple) or not all(isinstance(c, str) for c in raw):
        raise SetupError("setup 'cards' is a list of the 10 Power Card names in the "
                         "Wilds").at("cards")
    seen: dict[str, int] = {}
    for i, name in enumerate(raw):
        if name not in CARDS or CARDS[name].category == "basic":
            raise SetupError(f"{name!r} is not a creature or spell card of the base set",
                             ).at("cards", i, message="not a base-set creature or spell card")
        if name in NOT_IMPLEMENTED:
            why = f"{name} is not implemented yet: {NOT_IMPLEMENTED[name]}"
            raise SetupError(why).at("cards", i, message=why)
        cls = CARDS[name].cls
        if cls in seen:
            why = f"{name} repeats the class {cls} ({RULES['quarriors.setup_classes'].text})"
            raise SetupError(why).at("cards", i, message=why)
        seen[cls] = i
    for category, wanted in (("creature", CREATURE_CLASSES), ("spell", SPELL_CLASSES)):
        have = sum(1 for n in raw if CARDS[n].category == category)
        if have != wanted:
            raise SetupError(f"{have} {category} cards, the Wilds hold {wanted} "
                             f"({RULES['quarriors.setup_classes'].text})").at("cards")
    return tuple(sorted(raw))


def wilds_and_box(cards: tuple[str, ...], players: int) -> tuple[st.Counts, st.Counts]:
    """RULES setup_basic, basic_quiddity_empty, setup_dice; the rest stays in the box."""
    wilds = st.counts([(ASSISTANT, 2), (PORTAL, 5)]
                      + [(CARDS[c].die, DICE_PER_CARD) for c in cards])
    bags = [(BASIC_QUIDDITY, 8 * players), (ASSISTANT, 4 * players)]  # RULES setup_bags
    box = st.counts([*BOX, *((d, -n) for d, n in wilds), *((d, -n) for d, n in bags)])
    return wilds, box


def first_player(setup: Mapping[str, Any], players: int) -> int:
    first = setup.get("first_player", 0)
    if isinstance(first, bool) or not isinstance(first, int) or not 0 <= first < players:
        raise SetupError(f"first_player must be 0..{players - 1}, not {first!r}").at(
            "first_player")
    return first
