"""The 53 Quarriors cards (data/base.json) and which of them the engine plays.

Every card's effect is code in ``effects.py``, ``attack.py`` and ``turn.py``, each branch
quoting the card text it follows. A card the engine does not play yet is listed in
``NOT_IMPLEMENTED`` with the reason: the random setup never deals it, and a setup the players
enter with it is refused with that reason (playing it without its effect would score a
different game than the one on the table).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.games.quarriors.dice import ASSISTANT, BASIC_QUIDDITY, PORTAL, data


@dataclass(frozen=True, slots=True)
class CardText:
    """One ability line: ``burst`` 0 always, 1 on *, 2 on **, None on * or **."""

    burst: int | None
    keyword: str
    text: str


@dataclass(frozen=True, slots=True)
class Card:
    name: str
    cls: str
    variant: str | None
    category: str  # basic, creature, spell
    cost: int
    glory: int
    die: str
    text: tuple[CardText, ...]
    provenance: str

    @property
    def keywords(self) -> frozenset[str]:
        return frozenset(t.keyword for t in self.text)


def _card(raw: dict[str, Any]) -> Card:
    return Card(raw["name"], raw["class"], raw["variant"], raw["category"], int(raw["cost"]),
                int(raw["glory"] or 0), raw["die"],
                tuple(CardText(t["burst"], t["keyword"], t["text"]) for t in raw["text"]),
                raw["provenance"])


CARDS: dict[str, Card] = {c["name"]: _card(c) for c in data()["cards"]}
BASIC_CARDS = ("Assistant", "Basic Quiddity", "Portal")
BASIC_DIE_CARD = {ASSISTANT: "Assistant", BASIC_QUIDDITY: "Basic Quiddity", PORTAL: "Portal"}
CREATURE_CLASSES = 7
SPELL_CLASSES = 3

NOT_IMPLEMENTED: dict[str, str] = {
    "Deathdealer": "its swap with a die of another player's Used Pile when it scores is not "
                   "modelled yet",
    "Strong Devotee of the Holy Query": "capturing a Spell die into the bag when it scores is "
                                        "not modelled yet",
    "Mighty Devotee of the Holy Query": "ignoring attached spells and untargetability are "
                                        "not modelled yet",
    "Ghostly Spirit": "culling a Basic Quiddity die to return it when destroyed is not "
                      "modelled yet",
    "Mighty Ghostly Spirit": "the die set aside until you destroy a creature is not "
                             "modelled yet",
    "Primordial Ooze": "its stats and destruction from the Basic Quiddity dice in play are "
                       "not modelled yet",
    "Strong Primordial Ooze": "copying an opponent's creature is not modelled yet",
    "Strong Questing Wizard": "culling Spell dice for glory when it scores is not modelled "
                              "yet",
    "Mighty Scavenging Goblin": "drawing dice during an opponent's attack is not modelled "
                                "yet",
    "Shaping Charm": "which face a creature turns to when two faces have the next level is "
                     "not settled",
    "Shaping Incantation": "the cull-and-capture when the creature scores is not modelled "
                           "yet",
}


def card(name: str) -> Card:
    return CARDS[name]


def implemented(name: str) -> bool:
    return name in CARDS and name not in NOT_IMPLEMENTED


def by_category(category: str) -> list[Card]:
    return [c for c in CARDS.values() if c.category == category]
