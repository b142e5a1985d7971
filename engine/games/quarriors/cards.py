"""The 53 Quarriors cards (data/base.json) and which of them the engine plays.

Every card's effect is code in ``stats.py`` (attack, defense, glory, what a Strong
Primordial Ooze copies), ``attack.py``, ``moves.py`` (what fires when a creature is
destroyed), ``prompts.py`` (effects resolved out of the turn's order), ``scoring.py`` (phase
1), ``spells.py`` and ``turn.py``, each branch quoting the card text it follows. A card the
engine does not play yet is listed in ``NOT_IMPLEMENTED`` with the reason: the random setup
never deals it, and a setup the players enter with it is refused with that reason (playing
it without its effect would score a different game than the one on the table).
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

NOT_IMPLEMENTED: dict[str, str] = {}
"""Cards the engine does not play yet, each with the reason (none: all 53 are played). The
mechanism stays: a card listed here is never dealt, and a table entered with it is refused
with its reason."""


def card(name: str) -> Card:
    return CARDS[name]


def implemented(name: str) -> bool:
    return name in CARDS and name not in NOT_IMPLEMENTED


def by_category(category: str) -> list[Card]:
    return [c for c in CARDS.values() if c.category == category]
