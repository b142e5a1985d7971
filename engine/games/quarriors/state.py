"""The Quarriors state: where each of the 130 dice is, and what the turn has done so far.

Dice of one type showing one face are alike (the camera cannot tell them apart, and the rules
do not), so zones hold counts or sorted (die, face) pairs, never die identities. The box
holds the dice not in play (RULES setup: "Any leftover cards and dice can be returned to the
box"), so every state accounts for all 130 dice of the base set.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from engine.core import OptionValue, option_of

Counts = tuple[tuple[str, int], ...]
"""die key -> how many (sorted, no zero)."""
Dice = tuple[tuple[str, str], ...]
"""(die key, face label) pairs, sorted; face "" = not yet rolled."""
TOTAL_DICE = 130
"""VERIFIED (shared/data/games/README.md): '130 dice and 53 cards'."""


def counts(items: Iterable[tuple[str, int]]) -> Counts:
    out: dict[str, int] = {}
    for key, n in items:
        out[key] = out.get(key, 0) + n
    return tuple(sorted((k, v) for k, v in out.items() if v))


def add(c: Counts, key: str, n: int = 1) -> Counts:
    return counts((*c, (key, n)))


def take(c: Counts, key: str, n: int = 1) -> Counts:
    have = dict(c).get(key, 0)
    if have < n:
        raise ValueError(f"no {key} to take")
    return counts((*c, (key, -n)))


def count(c: Counts, key: str) -> int:
    return dict(c).get(key, 0)


def size(c: Counts) -> int:
    return sum(n for _, n in c)


def dice_add(d: Dice, *items: tuple[str, str]) -> Dice:
    return tuple(sorted((*d, *items)))


def dice_take(d: Dice, item: tuple[str, str]) -> Dice:
    i = d.index(item)
    return d[:i] + d[i + 1:]


@dataclass(frozen=True, slots=True, order=True)
class ReadyDie:
    """A die in a Ready Area: a Creature, or a Spell readied to cast later.

    Attributes:
        die, face: the die and the face it shows (a creature face or a spell face).
        attached: spells attached to this creature: (owner, die, face) (RULES attach).
        damaged: it took damage in the current attack (RULES damaged_once).
        zeroed: Life Incantation made its attack 0 for the rest of the turn.
        copy: what a Strong Primordial Ooze copies: (card name, face label) of the creature
            it copied, as that creature was then (the Card Reference's note: "If the copied
            creature then goes away it does not impact the ooze as it remains the creature it
            copied"); None: it copies nothing (attack 0 / defense 5).
        recopied: its copy was changed during this player turn ("You may change the
            Creature being copied once during each player's turn").
    """

    die: str
    face: str
    attached: tuple[tuple[int, str, str], ...] = ()
    damaged: bool = False
    zeroed: bool = False
    copy: tuple[str, str] | None = None
    recopied: bool = False

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"die": self.die, "face": self.face}
        if self.attached:
            out["attached"] = [list(a) for a in self.attached]
        if self.damaged:
            out["damaged"] = True
        if self.zeroed:
            out["zeroed"] = True
        if self.copy is not None:
            out["copy"] = list(self.copy)
        if self.recopied:
            out["recopied"] = True
        return out


@dataclass(frozen=True, slots=True)
class Seat:
    """One player's collection, zone by zone, and glory with its breakdown."""

    bag: Counts = ()
    used: Counts = ()
    active: Dice = ()
    spent: Dice = ()
    ready: tuple[ReadyDie, ...] = ()
    glory: int = 0
    breakdown: Counts = ()
    """glory per scoring rule (``creature: Strong Witching Hag``, ``spell: Victory Cantrip``)"""
    aside: Counts = ()
    """dice set aside off the mat (Mighty Ghostly Spirit: "when destroyed, set it aside until
    you destroy any creature"): still this player's, in no other zone"""

    def dice(self) -> int:
        return (size(self.bag) + size(self.used) + len(self.active) + len(self.spent)
                + sum(1 + len(r.attached) for r in self.ready) + size(self.aside))

    def to_dict(self) -> dict[str, Any]:
        return {"bag": dict(self.bag), "used": dict(self.used),
                "active": [f"{d} {f}" if f else d for d, f in self.active],
                "spent": [f"{d} {f}" for d, f in self.spent],
                "ready": [r.to_dict() for r in self.ready],
                "glory": self.glory, "breakdown": dict(self.breakdown),
                "aside": dict(self.aside)}


@dataclass(frozen=True, slots=True)
class Attack:
    """An attack being resolved (phase 3).

    Attributes:
        order: the defending players, clockwise from the attacker's left (RULES attack_order).
        totals: the attack total against each of them, counted when the attack is declared
            (step 1: "each opponent receives the same attack total", then each defender's own
            protection, step 2a, acts on theirs).
        index: which of them is defending now.
        total: the attack total left against that defender.
        destroyed: creatures destroyed by this attack so far (Mighty Deathdealer: the first
            time against each defender).
        last: the defender's creature destroyed last (die, face, where it went), for a
            Shaping Cantrip.
    """

    order: tuple[int, ...]
    totals: tuple[int, ...]
    index: int = 0
    total: int = 0
    destroyed: int = 0
    last: tuple[str, str, str] | None = None

    @property
    def defender(self) -> int:
        return self.order[self.index]

    def to_dict(self) -> dict[str, Any]:
        return {"order": list(self.order), "totals": list(self.totals), "index": self.index,
                "total": self.total,
                "destroyed": self.destroyed, "last": list(self.last) if self.last else None}


PHASES = ("score", "cull", "main", "attack", "capture", "over")


@dataclass(frozen=True, slots=True)
class Turn:
    """What the current turn has done and may still do (reset at each turn)."""

    quiddity: int = 0
    draws: int = 0
    """dice still to draw (chance) before the Active Pool is rolled"""
    culls: int = 0
    scored: tuple[tuple[str, int], ...] = ()
    """creatures scored this turn: (die, glory held back under expert culling, else 0)"""
    recall: int = 0
    """Strong Witching Hag: creature dice that may still move from Used Pile to Active Pool"""
    captures: int = 1
    discount: int = 0
    attack_bonus: int = 0
    defense_bonus: tuple[int, ...] = ()
    life_charm: tuple[int, ...] = ()
    mighty_warrior: bool = False
    lost: tuple[int, ...] = ()
    """opponents who lost a creature to this turn's attack (Victory Spell)"""
    victory_spell: bool = False
    trades: tuple[str, ...] = ()
    """dice of scored Deathdealers that may still be traded (Deathdealer)"""
    free_spells: int = 0
    """Strong Devotee of the Holy Query (*): free Spell dice still to capture into the bag"""
    spell_culls: bool = False
    """Strong Questing Wizard scored: Spell dice may be culled for 1 glory each"""
    reshapes: int = 0
    """Shaping Incantation: culls-to-capture still allowed this phase"""

    def to_dict(self) -> dict[str, Any]:
        return {"quiddity": self.quiddity, "draws": self.draws, "culls": self.culls,
                "scored": [list(s) for s in self.scored], "recall": self.recall,
                "captures": self.captures, "discount": self.discount,
                "attack_bonus": self.attack_bonus, "defense_bonus": list(self.defense_bonus),
                "life_charm": list(self.life_charm), "mighty_warrior": self.mighty_warrior,
                "lost": list(self.lost), "victory_spell": self.victory_spell,
                "trades": list(self.trades), "free_spells": self.free_spells,
                "spell_culls": self.spell_culls, "reshapes": self.reshapes}


PROMPTS = ("draw", "roll", "ghost", "copy")


@dataclass(frozen=True, slots=True)
class Prompt:
    """Something a card makes happen outside the turn's order, resolved before any other
    action (prompts.py), for ``player`` (who need not be the current player).

    kind ``draw``: ``n`` dice drawn out of the player's bag into their Active Pool (chance;
    Mighty Scavenging Goblin); ``roll``: ``n`` of the player's set-aside dice rolled (chance;
    Mighty Ghostly Spirit); ``ghost``: the player may cull a Basic Quiddity die to return
    the destroyed ``die`` showing ``face`` from ``zone`` (``used`` or ``active``) to the
    Ready Area (Ghostly Spirit); ``copy``: the player's Strong Primordial Ooze ``die`` just
    entered the Ready Area and must copy a creature of an opponent's.
    """

    kind: str
    player: int
    n: int = 0
    die: str = ""
    face: str = ""
    zone: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "player": self.player, "n": self.n, "die": self.die,
                "face": self.face, "zone": self.zone}


@dataclass(frozen=True, slots=True)
class QuarriorsState:
    """The whole table.

    Attributes:
        cards: the 10 Power Cards dealt (7 creature and 3 spell classes), by name; the 3
            basic cards are always in the Wilds.
        wilds: dice on each die's Power Card (die key -> count).
        box: dice not in play.
        seats: each player's collection.
        current: whose turn it is; phase: see PHASES; turn: turns started so far.
        attack: the attack being resolved in phase 3.
        winners / reason: set when the match is over.
        prompts: card effects waiting to be resolved before anything else (Prompt).
    """

    players: int
    options: tuple[tuple[str, OptionValue], ...]
    cards: tuple[str, ...]
    wilds: Counts
    box: Counts
    seats: tuple[Seat, ...]
    current: int = 0
    phase: str = "main"
    turn_no: int = 1
    turn: Turn = Turn()
    attack: Attack | None = None
    winners: tuple[int, ...] = ()
    reason: str = ""
    prompts: tuple[Prompt, ...] = ()

    def option(self, name: str) -> OptionValue:
        return option_of(self.options, name)

    @property
    def me(self) -> Seat:
        return self.seats[self.current]

    def seat(self, player: int, new: Seat) -> QuarriorsState:
        return replace(self, seats=self.seats[:player] + (new,) + self.seats[player + 1:])

    def total_dice(self) -> int:
        return size(self.wilds) + size(self.box) + sum(s.dice() for s in self.seats)

    def to_dict(self) -> dict[str, Any]:
        return {"game": "quarriors", "players": self.players, "options": dict(self.options),
                "cards": list(self.cards), "wilds": dict(self.wilds), "box": dict(self.box),
                "seats": [s.to_dict() for s in self.seats], "current": self.current,
                "phase": self.phase, "turn_no": self.turn_no, "turn": self.turn.to_dict(),
                "attack": self.attack.to_dict() if self.attack else None,
                "winners": list(self.winners), "reason": self.reason,
                "prompts": [p.to_dict() for p in self.prompts]}
