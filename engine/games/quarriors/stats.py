"""What a die is worth in play: cost, a creature's attack, defense and glory, with every card
effect that changes them (each quoting its card text from data/base.json)."""

from __future__ import annotations

from engine.games.quarriors import state as st
from engine.games.quarriors.cards import BASIC_DIE_CARD, CARDS, Card
from engine.games.quarriors.dice import BASIC_QUIDDITY, DICE, Face
from engine.games.quarriors.state import QuarriorsState, ReadyDie, Seat


def card_of(state: QuarriorsState, die: str) -> Card:
    """The Power Card of a die in this game (each die type has one card in the Wilds)."""
    name = BASIC_DIE_CARD.get(die)
    if name is None:
        name = next(c for c in state.cards if CARDS[c].die == die)
    return CARDS[name]


def cost(state: QuarriorsState, die: str) -> int:
    """RULES capture_cost, with the Strong Quake Dragon option (cost 9 or 8)."""
    c = card_of(state, die)
    if c.name == "Strong Quake Dragon":
        return int(str(state.option("strong_quake_dragon")).split("/")[0])
    return c.cost


def _card_glory(state: QuarriorsState, c: Card) -> int:
    if c.name == "Strong Quake Dragon":
        return int(str(state.option("strong_quake_dragon")).split("/")[1])
    return c.glory


def card_glory(state: QuarriorsState, die: str) -> int:
    return _card_glory(state, card_of(state, die))


def face(rd: ReadyDie) -> Face:
    return DICE[rd.die].face(rd.face)


def is_creature(rd: ReadyDie) -> bool:
    return face(rd).kind == "creature"


def identity(state: QuarriorsState, rd: ReadyDie) -> tuple[Card, Face]:
    """The card and face a die in a Ready Area plays as: its own, or what a Strong
    Primordial Ooze copies ("copies exactly one creature in an opponent's Ready Area";
    shared/data/games/README.md, the FAQ: it "copies everything including glory, but not
    attached spells", so its own attached spells count and the copied one's do not)."""
    if rd.copy is not None:
        c = CARDS[rd.copy[0]]
        return c, DICE[c.die].face(rd.copy[1])
    return card_of(state, rd.die), face(rd)


def creatures(state: QuarriorsState, player: int) -> list[int]:
    """Indices of the creatures in a player's Ready Area."""
    return [i for i, rd in enumerate(state.seats[player].ready) if is_creature(rd)]


def named(state: QuarriorsState, player: int, name: str) -> list[ReadyDie]:
    """The player's creatures playing as the card ``name`` in their Ready Area (identity)."""
    return [rd for rd in state.seats[player].ready
            if is_creature(rd) and identity(state, rd)[0].name == name]


def basic_quiddity_in(seat: Seat, zones: tuple[str, ...]) -> int:
    """The player's Basic Quiddity dice in these zones (``active``, ``spent``, ``used``)."""
    n = 0
    if "active" in zones:
        n += sum(1 for d, _ in seat.active if d == BASIC_QUIDDITY)
    if "spent" in zones:
        n += sum(1 for d, _ in seat.spent if d == BASIC_QUIDDITY)
    if "used" in zones:
        n += st.count(seat.used, BASIC_QUIDDITY)
    return n


def _variable(state: QuarriorsState, player: int, c: Card) -> tuple[int, int]:
    """The attack and defense of a face printing "?" (the Primordial Ooze die)."""
    if c.name == "Primordial Ooze":
        # Primordial Ooze: "? (attack and defense) = number of your Basic Quiddity dice in
        # Used Pile + Active Pool"
        n = basic_quiddity_in(state.seats[player], ("used", "active"))
        return n, n
    if c.name == "Strong Primordial Ooze":
        # Strong Primordial Ooze: "with nothing to copy it is attack 0 / defense 5"
        return 0, 5
    # Mighty Primordial Ooze: "? (attack and defense) = number of creatures in all Ready Areas"
    n = sum(len(creatures(state, p)) for p in range(state.players))
    return n, n


def shielded(state: QuarriorsState, owner: int, rd: ReadyDie, caster: int) -> bool:
    """Mighty Devotee of the Holy Query (*): "cannot be targeted by opposing spells"."""
    c, f = identity(state, rd)
    return caster != owner and c.name == "Mighty Devotee of the Holy Query" and f.burst >= 1


def _attached_ignored(state: QuarriorsState, player: int) -> bool:
    """Mighty Devotee of the Holy Query (*): "when it attacks ignore spells attached to
    opposing creatures" (the attack being resolved is its owner's and ``player`` defends)."""
    if state.attack is None or player == state.current:
        return False
    return any(identity(state, rd)[1].burst >= 1
               for rd in named(state, state.current, "Mighty Devotee of the Holy Query"))


def _attached(state: QuarriorsState, rd: ReadyDie, name: str) -> list[tuple[int, str, str]]:
    return [a for a in rd.attached if card_of(state, a[1]).name == name]


def _charm(state: QuarriorsState, rd: ReadyDie) -> int:
    # Death Charm: "creature gets +3 attack and +3 defense" (*), "+5 attack and +5 defense" (**)
    return sum(5 if DICE[d].face(f).burst >= 2 else 3
               for _, d, f in _attached(state, rd, "Death Charm"))


def level(state: QuarriorsState, rd: ReadyDie) -> int:
    """A creature's level as it plays (a Strong Primordial Ooze copies the level too)."""
    return identity(state, rd)[1].level


def _strong_warriors(state: QuarriorsState, player: int, rd: ReadyDie) -> int:
    # Strong Warrior of the Quay: "all your other Ready Area creatures get +1 attack and +1
    # defense while it is there"
    mine = named(state, player, "Strong Warrior of the Quay")
    return len(mine) - (1 if rd in mine else 0)


def base_attack(state: QuarriorsState, player: int, rd: ReadyDie) -> int:
    """A creature's attack before anything about the defending player."""
    c, f = identity(state, rd)
    if rd.zeroed:
        return 0  # Life Incantation: "reduce one creature's attack to 0 (against all players)"
    attack = _variable(state, player, c)[0] if f.attack is None else f.attack
    attack += _charm(state, rd) + _strong_warriors(state, player, rd)
    if player == state.current:
        attack += state.turn.attack_bonus  # Death Cantrip: "all your Ready Area creatures +2"
    return attack


def attack_against(state: QuarriorsState, player: int, rd: ReadyDie, defender: int) -> int:
    """A creature's attack against one defending player (RULES attack_all)."""
    c, f = identity(state, rd)
    if named(state, defender, "Strong Quake Dragon") and f.level <= 2:
        # Strong Quake Dragon: "creatures of level 2 or less cannot attack you while it is in
        # your Ready Area"
        return 0
    attack = base_attack(state, player, rd)
    if rd.zeroed:
        return 0
    if c.name == "Warrior of the Quay" and len(creatures(state, defender)) == 1:
        # Warrior of the Quay: "+3 attack against a defending player who has exactly 1
        # creature in their Ready Area"
        attack += 3
    if named(state, defender, "Mighty Witching Hag"):
        # Mighty Witching Hag: "while it is in your Ready Area, any creature attacking you with
        # attack above 3 has its attack reduced to 3"
        attack = min(attack, 3)
    return attack


def attack_total(state: QuarriorsState, attacker: int, defender: int) -> int:
    """RULES attack_all: the attack values of all the attacker's creatures added together."""
    return sum(attack_against(state, attacker, state.seats[attacker].ready[i], defender)
               for i in creatures(state, attacker))


def defense(state: QuarriorsState, player: int, rd: ReadyDie) -> int:
    c, f = identity(state, rd)
    name = c.name
    value = _variable(state, player, c)[1] if f.defense is None else f.defense
    if name == "Devotee of the Holy Query" and f.burst >= 1:
        value += 2  # Devotee of the Holy Query (*): "+2 defense"
    if name == "Mighty Devotee of the Holy Query" and f.burst >= 1:
        value += 3  # Mighty Devotee of the Holy Query (*): "+3 defense"
    if name == "Mighty Quake Dragon" and f.burst:
        # Mighty Quake Dragon: "+1 defense" (*), "+2 defense and +2 glory when it scores" (**)
        value += 2 if f.burst >= 2 else 1
    if name == "Questing Wizard" and f.burst >= 2:
        value += 1  # Questing Wizard (**): "+1 defense and +1 glory when it scores"
    if name == "Strong Scavenging Goblin" and f.burst >= 1:
        # Strong Scavenging Goblin (*): "+1 defense for each other creature in your Ready Area"
        value += len(creatures(state, player)) - 1
    value += _strong_warriors(state, player, rd)
    if not _attached_ignored(state, player):
        # Life Cantrip: "creature gets +4 defense"
        value += _charm(state, rd) + 4 * len(_attached(state, rd, "Life Cantrip"))
    if state.turn.defense_bonus:
        # Life Spell: "all your Ready Area creatures +4 defense for the rest of the turn"
        value += state.turn.defense_bonus[player]
    return value


def glory(state: QuarriorsState, player: int, rd: ReadyDie,
          scoring: int) -> list[tuple[str, int]]:
    """The glory a creature scores, by scoring rule (``scoring``: creatures scoring now)."""
    c, f = identity(state, rd)
    out = [(f"creature: {c.name}", _card_glory(state, c))]
    if c.name == "Mighty Quake Dragon" and f.burst >= 2:
        out.append((f"creature: {c.name}", 2))
    if c.name == "Questing Wizard" and f.burst >= 2:
        out.append((f"creature: {c.name}", 1))
    if c.name == "Defender of the Pale":
        # Defender of the Pale: "when it scores, +1 glory for each other creature that scores
        # this turn (with * or **)"
        out.append((f"creature: {c.name}", scoring - 1))
    for _ in _attached(state, rd, "Victory Cantrip"):
        out.append(("spell: Victory Cantrip", 2))  # "creature gives +2 glory when it scores"
    return [(k, v) for k, v in out if v]


def summon_cost(state: QuarriorsState, rd_face: Face) -> int:
    """RULES summon: the level, plus Mighty Defender of the Pale's toll."""
    toll = 0
    for p in range(state.players):
        if p == state.current:
            continue
        for rd in named(state, p, "Mighty Defender of the Pale"):
            # Mighty Defender of the Pale: "while in your Ready Area opponents pay +1 quiddity
            # to summon each creature" (*), "+2 quiddity" (**)
            toll += 2 if identity(state, rd)[1].burst >= 2 else 1
    return rd_face.level + toll
