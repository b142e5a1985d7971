"""What a die is worth in play: cost, a creature's attack, defense and glory, with every card
effect that changes them (each quoting its card text from data/base.json)."""

from __future__ import annotations

from engine.games.quarriors.cards import BASIC_DIE_CARD, CARDS, Card
from engine.games.quarriors.dice import DICE, Face
from engine.games.quarriors.state import QuarriorsState, ReadyDie


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


def card_glory(state: QuarriorsState, die: str) -> int:
    c = card_of(state, die)
    if c.name == "Strong Quake Dragon":
        return int(str(state.option("strong_quake_dragon")).split("/")[1])
    return c.glory


def face(rd: ReadyDie) -> Face:
    return DICE[rd.die].face(rd.face)


def is_creature(rd: ReadyDie) -> bool:
    return face(rd).kind == "creature"


def creatures(state: QuarriorsState, player: int) -> list[int]:
    """Indices of the creatures in a player's Ready Area."""
    return [i for i, rd in enumerate(state.seats[player].ready) if is_creature(rd)]


def named(state: QuarriorsState, player: int, name: str) -> list[ReadyDie]:
    """The player's creatures of the card ``name`` in their Ready Area."""
    return [rd for rd in state.seats[player].ready
            if is_creature(rd) and card_of(state, rd.die).name == name]


def _ooze(state: QuarriorsState) -> int:
    # Mighty Primordial Ooze: "? (attack and defense) = number of creatures in all Ready Areas"
    return sum(len(creatures(state, p)) for p in range(state.players))


def _attached(state: QuarriorsState, rd: ReadyDie, name: str) -> list[tuple[int, str, str]]:
    return [a for a in rd.attached if card_of(state, a[1]).name == name]


def _charm(state: QuarriorsState, rd: ReadyDie) -> int:
    # Death Charm: "creature gets +3 attack and +3 defense" (*), "+5 attack and +5 defense" (**)
    return sum(5 if DICE[d].face(f).burst >= 2 else 3
               for _, d, f in _attached(state, rd, "Death Charm"))


def _strong_warriors(state: QuarriorsState, player: int, rd: ReadyDie) -> int:
    # Strong Warrior of the Quay: "all your other Ready Area creatures get +1 attack and +1
    # defense while it is there"
    mine = named(state, player, "Strong Warrior of the Quay")
    return len(mine) - (1 if rd in mine else 0)


def base_attack(state: QuarriorsState, player: int, rd: ReadyDie) -> int:
    """A creature's attack before anything about the defending player."""
    f = face(rd)
    if rd.zeroed:
        return 0  # Life Incantation: "reduce one creature's attack to 0 (against all players)"
    attack = _ooze(state) if f.attack is None else f.attack
    attack += _charm(state, rd) + _strong_warriors(state, player, rd)
    if player == state.current:
        attack += state.turn.attack_bonus  # Death Cantrip: "all your Ready Area creatures +2"
    return attack


def attack_against(state: QuarriorsState, player: int, rd: ReadyDie, defender: int) -> int:
    """A creature's attack against one defending player (RULES attack_all)."""
    f = face(rd)
    if named(state, defender, "Strong Quake Dragon") and f.level <= 2:
        # Strong Quake Dragon: "creatures of level 2 or less cannot attack you while it is in
        # your Ready Area"
        return 0
    attack = base_attack(state, player, rd)
    if rd.zeroed:
        return 0
    if card_of(state, rd.die).name == "Warrior of the Quay" \
            and len(creatures(state, defender)) == 1:
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
    f = face(rd)
    name = card_of(state, rd.die).name
    value = _ooze(state) if f.defense is None else f.defense
    if name == "Devotee of the Holy Query" and f.burst >= 1:
        value += 2  # Devotee of the Holy Query (*): "+2 defense"
    if name == "Mighty Quake Dragon" and f.burst:
        # Mighty Quake Dragon: "+1 defense" (*), "+2 defense and +2 glory when it scores" (**)
        value += 2 if f.burst >= 2 else 1
    if name == "Questing Wizard" and f.burst >= 2:
        value += 1  # Questing Wizard (**): "+1 defense and +1 glory when it scores"
    if name == "Strong Scavenging Goblin" and f.burst >= 1:
        # Strong Scavenging Goblin (*): "+1 defense for each other creature in your Ready Area"
        value += len(creatures(state, player)) - 1
    value += _charm(state, rd) + _strong_warriors(state, player, rd)
    # Life Cantrip: "creature gets +4 defense"
    value += 4 * len(_attached(state, rd, "Life Cantrip"))
    if state.turn.defense_bonus:
        # Life Spell: "all your Ready Area creatures +4 defense for the rest of the turn"
        value += state.turn.defense_bonus[player]
    return value


def glory(state: QuarriorsState, player: int, rd: ReadyDie,
          scoring: int) -> list[tuple[str, int]]:
    """The glory a creature scores, by scoring rule (``scoring``: creatures scoring now)."""
    f = face(rd)
    c = card_of(state, rd.die)
    out = [(f"creature: {c.name}", card_glory(state, rd.die))]
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
            toll += 2 if face(rd).burst >= 2 else 1
    return rd_face.level + toll
