"""One test per Quarriors card the engine plays, each quoting its card text (the shared
file's restatement, data/base.json 'text'); a card the engine does not play is never dealt
and is refused when entered, with its reason."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from quarriors_table import GAME, arrange, at, index, legal, play, ready_die, table

from engine import IllegalActionError
from engine.errors import InvalidStateError
from engine.games.quarriors import stats
from engine.games.quarriors.cards import CARDS, NOT_IMPLEMENTED
from engine.games.quarriors.state import QuarriorsState

TESTS: dict[str, Callable[[], None]] = {}


def card(name: str) -> Callable[[Callable[[], None]], Callable[[], None]]:
    def wrap(fn: Callable[[], None]) -> Callable[[], None]:
        TESTS[name] = fn
        return fn
    return wrap


def attack(state: QuarriorsState) -> QuarriorsState:
    return play(state, "attack")


# --- basic cards ----------------------------------------------------------------------------
@card("Basic Quiddity")
def _basic_quiddity() -> None:
    """card starts empty in the Wilds; culled Basic Quiddity dice are placed here and can be
    captured for 0 (the card's note: it has no ability)."""
    s = table()
    assert dict(s.wilds).get("basic_quiddity", 0) == 0
    s = arrange(at(s, "cull", culls=1), 0, used={"basic_quiddity": 1})
    s = play(s, "cull basic_quiddity")
    assert dict(s.wilds)["basic_quiddity"] == 1
    s = at(s, "capture", quiddity=0, captures=1)
    assert "capture basic_quiddity" in legal(s)


@card("Assistant")
def _assistant() -> None:
    """re-roll this die and one other die"""
    s = arrange(at(table()), 0, active=["assistant reroll*", "basic_quiddity Q2"])
    s = play(s, "reroll assistant reroll* and basic_quiddity Q2")
    assert s.me.active == (("assistant", ""), ("basic_quiddity", ""))
    outcomes = GAME.chance_outcomes(s)
    assert {a.to_str() for a, _ in outcomes} == {"roll assistant Q1", "roll assistant reroll*",
                                                  "roll assistant L1-1/2"}
    assert abs(sum(p for _, p in outcomes) - 1) < 1e-9


@card("Portal")
def _portal() -> None:
    """draw-1 face: draw and roll 1 die; draw-2 face: draw and roll 2 dice"""
    s = arrange(at(table()), 0, active=["portal draw2"], bag={"basic_quiddity": 3,
                                                              "assistant": 1})
    s = play(s, "spend portal draw2")
    assert s.turn.draws == 2 and s.me.spent == (("portal", "draw2"),)
    assert {a.to_str(): p for a, p in GAME.chance_outcomes(s)} == {
        "draw assistant": 0.25, "draw basic_quiddity": 0.75}
    s = play(s, "draw assistant", "draw basic_quiddity")
    assert [a.to_str().split()[0] for a, _ in GAME.chance_outcomes(s)] == ["roll"] * 3


# --- creatures ------------------------------------------------------------------------------
def _duel(mine: list[str], theirs: list[str], *names: str) -> QuarriorsState:
    s = table(*names)
    s = arrange(at(s), 0, ready=[ready_die(t) for t in mine])
    return arrange(s, 1, ready=[ready_die(t) for t in theirs])


@card("Strong Deathdealer")
def _strong_deathdealer() -> None:
    """when you destroy a creature, immediately score Deathdealer (to Used Pile) without
    reducing your attack total"""
    s = _duel(["deathdealer L1-3/2", "warrior_of_the_quay L1-2/3"],
              ["scavenging_goblin L1-2/2", "ghostly_spirit L1-2/2"], "Strong Deathdealer")
    s = attack(s)
    assert s.attack is not None and s.attack.total == 5
    s = play(s, f"defend r{index(s, 1, 'scavenging_goblin')}")
    assert s.seats[0].glory == 2 and dict(s.seats[0].used) == {"deathdealer": 1}
    assert s.attack is not None and s.attack.total == 3  # 5 - 2: the total not reduced
    s = play(s, "defend r1")
    assert s.phase == "capture" and not stats.creatures(s, 1)


@card("Mighty Deathdealer")
def _mighty_deathdealer() -> None:
    """the first time a creature is destroyed while it attacks a given opponent, add
    Deathdealer's attack again to your total against that opponent (once per attack per
    player)"""
    s = _duel(["deathdealer L1-3/2"], ["scavenging_goblin L1-2/2", "warrior_of_the_quay L1-2/3",
                                       "witching_hag L2-4/5"], "Mighty Deathdealer")
    s = attack(s)
    s = play(s, f"defend r{index(s, 1, 'scavenging_goblin')}")
    assert s.attack is not None and s.attack.total == 1 + 3
    s = play(s, f"defend r{index(s, 1, 'warrior_of_the_quay')}")
    assert s.attack is not None and s.attack.total == 1  # no second bonus
    s = play(s, "defend r1")  # 1 against defense 5: holds
    assert s.attack is None and [r.die for r in s.seats[1].ready] == ["witching_hag"]


@card("Defender of the Pale")
def _defender_of_the_pale() -> None:
    """when it scores, +1 glory for each other creature that scores this turn (with * or
    **)"""
    s = arrange(at(table("Defender of the Pale"), "score"), 0,
                ready=[ready_die("defender_of_the_pale L1-1/5*"), ready_die("assistant L1-1/2"),
                       ready_die("assistant L1-1/2")])
    s = play(s, "score")
    assert s.seats[0].glory == 2 + 2 + 1 + 1  # its glory 2, +1 for each of the 2 others
    assert dict(s.seats[0].breakdown) == {"creature: Defender of the Pale": 4,
                                          "creature: Assistant": 2}
    assert s.turn.culls == 3


@card("Strong Defender of the Pale")
def _strong_defender() -> None:
    """when it scores, draw 1 extra die into your Active Pool / when it scores, draw 2
    extra dice into your Active Pool"""
    for face, extra in (("L1-1/5*", 1), ("L3-2/8**", 2)):
        s = arrange(at(table("Strong Defender of the Pale"), "score"), 0,
                    ready=[ready_die(f"defender_of_the_pale {face}")],
                    bag={"basic_quiddity": 10})
        s = play(s, "score", "done")
        assert s.turn.draws == 6 + extra


@card("Mighty Defender of the Pale")
def _mighty_defender() -> None:
    """while in your Ready Area opponents pay +1 quiddity to summon each creature / while in
    your Ready Area opponents pay +2 quiddity to summon each creature"""
    for face, toll in (("L1-1/5*", 1), ("L3-2/8**", 2)):
        s = arrange(at(table("Mighty Defender of the Pale"), quiddity=1 + toll), 0,
                    active=["assistant L1-1/2"])
        s = arrange(s, 1, ready=[ready_die(f"defender_of_the_pale {face}")])
        assert "summon assistant L1-1/2" in legal(s)
        s = at(s, quiddity=toll)
        s = arrange(s, 0, active=["assistant L1-1/2"])
        assert "summon assistant L1-1/2" not in legal(s)


@card("Devotee of the Holy Query")
def _devotee() -> None:
    """+2 defense"""
    s = table("Devotee of the Holy Query")
    assert stats.defense(s, 0, ready_die("devotee_of_the_holy_query L2-2/4*")) == 6
    assert stats.defense(s, 0, ready_die("devotee_of_the_holy_query L2-2/4")) == 4


@card("Strong Ghostly Spirit")
def _strong_ghostly_spirit() -> None:
    """when destroyed, put it in your Active Pool"""
    s = _duel(["witching_hag L2-4/5"], ["ghostly_spirit L2-3/3"], "Strong Ghostly Spirit")
    s = play(attack(s), "defend r1")
    assert s.seats[1].active == (("ghostly_spirit", "L2 3/3"),) and not s.seats[1].used


@card("Mighty Primordial Ooze")
def _mighty_ooze() -> None:
    """? (attack and defense) = number of creatures in all Ready Areas"""
    s = _duel(["primordial_ooze L2-?/?", "assistant L1-1/2"], ["assistant L1-1/2"],
              "Mighty Primordial Ooze")
    ooze = s.seats[0].ready[index(s, 0, "primordial_ooze") - 1]
    assert stats.base_attack(s, 0, ooze) == 3 and stats.defense(s, 0, ooze) == 3


@card("Quake Dragon")
def _quake_dragon() -> None:
    """when it attacks, destroy all level-1 creatures in the opponent's Ready Area before
    defenders are chosen"""
    s = _duel(["quake_dragon L1-4/4"], ["assistant L1-1/2", "witching_hag L1-3/3",
                                        "witching_hag L2-4/5"], "Quake Dragon")
    s = attack(s)
    assert [r.face for r in s.seats[1].ready] == ["L2 4/5"]
    assert s.attack is not None and s.attack.total == 4


@card("Strong Quake Dragon")
def _strong_quake_dragon() -> None:
    """creatures of level 2 or less cannot attack you while it is in your Ready Area"""
    s = _duel(["witching_hag L2-4/5", "quake_dragon L3-8/7**"], ["quake_dragon L1-4/4"],
              "Strong Quake Dragon")
    s = attack(s)
    assert s.attack is not None and s.attack.total == 8
    assert stats.cost(s, "quake_dragon") == 9 and stats.card_glory(s, "quake_dragon") == 3
    other = table("Strong Quake Dragon", strong_quake_dragon="8/4")
    assert stats.cost(other, "quake_dragon") == 8 and stats.card_glory(other, "quake_dragon") == 4


@card("Mighty Quake Dragon")
def _mighty_quake_dragon() -> None:
    """+1 defense / +2 defense and +2 glory when it scores"""
    s = table("Mighty Quake Dragon")
    assert stats.defense(s, 0, ready_die("quake_dragon L2-6/6*")) == 7
    assert stats.defense(s, 0, ready_die("quake_dragon L3-8/7**")) == 9
    s = arrange(at(s, "score"), 0, ready=[ready_die("quake_dragon L3-8/7**")])
    assert play(s, "score").seats[0].glory == 4 + 2


@card("Questing Wizard")
def _questing_wizard() -> None:
    """(on the Q2* face) instead of gaining quiddity, draw and roll 1 more die and re-roll the
    Wizard / +1 defense and +1 glory when it scores"""
    s = arrange(at(table("Questing Wizard")), 0, active=["questing_wizard Q2*"],
                bag={"basic_quiddity": 2})
    s = play(s, "use questing_wizard Q2*")
    assert s.turn.quiddity == 0 and s.turn.draws == 1
    assert s.me.active == (("questing_wizard", ""),)
    assert stats.defense(s, 0, ready_die("questing_wizard L3-4/8**")) == 9
    s = arrange(at(s, "score"), 0, ready=[ready_die("questing_wizard L3-4/8**")])
    assert play(s, "score").seats[0].glory == 3 + 1


@card("Mighty Questing Wizard")
def _mighty_questing_wizard() -> None:
    """when it scores, Quarry dice cost you 2 less this turn and you may capture 1 extra die /
    (on the Q2* face) spend it to draw and roll 2 dice instead of gaining quiddity / no extra
    ability"""
    s = arrange(at(table("Mighty Questing Wizard"), "score"), 0,
                ready=[ready_die("questing_wizard L1-2/5")], bag={"basic_quiddity": 8})
    s = play(s, "score")
    assert s.turn.discount == 2 and s.turn.captures == 2
    s = arrange(at(s), 0, active=["questing_wizard Q2*"], bag={"basic_quiddity": 2})
    s = play(s, "use questing_wizard Q2*")
    assert s.turn.draws == 2 and s.me.spent == (("questing_wizard", "Q2*"),)


@card("Scavenging Goblin")
def _scavenging_goblin() -> None:
    """gain +1 quiddity when you summon it"""
    s = arrange(at(table("Scavenging Goblin"), quiddity=1), 0,
                active=["scavenging_goblin L1-2/2*", "scavenging_goblin L1-2/2"])
    assert play(s, "summon scavenging_goblin L1-2/2*").turn.quiddity == 1
    assert play(s, "summon scavenging_goblin L1-2/2").turn.quiddity == 0


@card("Strong Scavenging Goblin")
def _strong_goblin() -> None:
    """+1 defense for each other creature in your Ready Area"""
    s = _duel(["scavenging_goblin L1-2/2*", "assistant L1-1/2", "assistant L1-1/2"], [],
              "Strong Scavenging Goblin")
    goblin = s.seats[0].ready[index(s, 0, "scavenging_goblin") - 1]
    assert stats.defense(s, 0, goblin) == 4


@card("Warrior of the Quay")
def _warrior() -> None:
    """+3 attack against a defending player who has exactly 1 creature in their Ready Area"""
    s = _duel(["warrior_of_the_quay L1-2/3"], ["assistant L1-1/2"], "Warrior of the Quay")
    assert stats.attack_total(s, 0, 1) == 5
    s = arrange(s, 1, ready=[ready_die("assistant L1-1/2"), ready_die("assistant L1-1/2")])
    assert stats.attack_total(s, 0, 1) == 2


@card("Strong Warrior of the Quay")
def _strong_warrior() -> None:
    """all your other Ready Area creatures get +1 attack and +1 defense while it is there"""
    s = _duel(["warrior_of_the_quay L1-2/3", "assistant L1-1/2"], ["assistant L1-1/2",
                                                                  "assistant L1-1/2"],
              "Strong Warrior of the Quay")
    assistant = s.seats[0].ready[index(s, 0, "assistant") - 1]
    assert stats.defense(s, 0, assistant) == 3 and stats.attack_total(s, 0, 1) == 2 + 2


@card("Mighty Warrior of the Quay")
def _mighty_warrior() -> None:
    """when summoned, destroy all Warriors of the Quay in all other players' Ready Areas; you
    may summon only one per turn"""
    s = table("Mighty Warrior of the Quay", players=3)
    s = arrange(at(s, quiddity=4), 0, active=["warrior_of_the_quay L1-2/3",
                                              "warrior_of_the_quay L1-2/3"])
    s = arrange(s, 1, ready=[ready_die("warrior_of_the_quay L2-3/4"), ready_die(
        "assistant L1-1/2")])
    s = arrange(s, 2, ready=[ready_die("warrior_of_the_quay L1-2/3")])
    s = play(s, "summon warrior_of_the_quay L1-2/3")
    assert [r.die for r in s.seats[1].ready] == ["assistant"] and not s.seats[2].ready
    assert "summon warrior_of_the_quay L1-2/3" not in legal(s)


@card("Witching Hag")
def _witching_hag() -> None:
    """+1 quiddity for each creature you destroy while it is in your Ready Area"""
    s = _duel(["witching_hag L2-4/5"], ["assistant L1-1/2", "assistant L1-1/2"],
              "Witching Hag")
    s = play(attack(s), "defend r1", "defend r1")
    assert s.turn.quiddity == 2


@card("Strong Witching Hag")
def _strong_witching_hag() -> None:
    """when it scores you may move one other Creature die from your Used Pile to your Active
    Pool"""
    s = arrange(at(table("Strong Witching Hag"), "score"), 0,
                ready=[ready_die("witching_hag L1-3/3")], used={"scavenging_goblin": 1,
                                                                "basic_quiddity": 2})
    s = play(s, "score")
    assert "recall scavenging_goblin" in legal(s) and "recall witching_hag" not in legal(s)
    assert "recall basic_quiddity" not in legal(s)
    s = play(s, "recall scavenging_goblin")
    assert s.me.active == (("scavenging_goblin", ""),)


@card("Mighty Witching Hag")
def _mighty_witching_hag() -> None:
    """while it is in your Ready Area, any creature attacking you with attack above 3 has its
    attack reduced to 3"""
    s = _duel(["quake_dragon L3-8/7**", "assistant L1-1/2"], ["witching_hag L1-3/3"],
              "Mighty Witching Hag")
    assert stats.attack_total(s, 0, 1) == 3 + 1


# --- spells ---------------------------------------------------------------------------------
def _with_spell(spell: str, face: str = "spell", **turn: int) -> QuarriorsState:
    die = CARDS[spell].die
    s = table(spell)
    return arrange(at(s, **turn), 0, ready=[ready_die(f"{die} {face}")])


@card("Death Spell")
def _death_spell() -> None:
    """destroy one creature with defense 6 or less in each opponent's Ready Area (same with *
    or **)"""
    s = table("Death Spell", players=3)
    s = arrange(at(s), 0, ready=[ready_die("death spell*")])
    s = arrange(s, 1, ready=[ready_die("assistant L1-1/2"), ready_die(
        "quake_dragon L3-8/7**")])
    s = arrange(s, 2, ready=[ready_die("witching_hag L2-4/5")])
    assert legal(s).count("cast death spell* on P2 r1, P3 r1") == 1
    assert not any("P2 r2" in a for a in legal(s))  # defense 7
    s = play(s, "cast death spell* on P2 r1, P3 r1")
    assert [r.die for r in s.seats[1].ready] == ["quake_dragon"] and not s.seats[2].ready


@card("Death Cantrip")
def _death_cantrip() -> None:
    """all your Ready Area creatures +2 attack this turn / all your Ready Area creatures +3
    attack this turn"""
    for face, bonus in (("spell*", 2), ("spell**", 3)):
        s = _with_spell("Death Cantrip", face)
        s = arrange(s, 0, ready=[ready_die(f"death {face}"), ready_die("assistant L1-1/2")])
        s = arrange(s, 1, ready=[ready_die("assistant L1-1/2")])
        s = play(s, f"cast death {face}")
        assert stats.attack_total(s, 0, 1) == 1 + bonus


@card("Death Charm")
def _death_charm() -> None:
    """creature gets +3 attack and +3 defense / creature gets +5 attack and +5 defense"""
    for face, bonus in (("spell*", 3), ("spell**", 5)):
        s = table("Death Charm")
        s = arrange(at(s), 0, ready=[ready_die(f"death {face}"), ready_die("assistant L1-1/2")])
        s = arrange(s, 1, ready=[ready_die("assistant L1-1/2")])
        s = play(s, f"attach death {face} to P1 r{index(s, 0, 'assistant')}")
        creature = s.seats[0].ready[0]
        assert creature.attached == ((0, "death", face),)
        assert stats.defense(s, 0, creature) == 2 + bonus
        assert stats.attack_total(s, 0, 1) == 1 + bonus
    s = arrange(at(table("Death Charm"), "cull"), 0,
                ready=[ready_die("death spell*"), ready_die("assistant L1-1/2")])
    with pytest.raises(IllegalActionError, match="quarriors.no_attach_phase1"):
        play(s, "attach death spell* to P1 r1")


@card("Death Incantation")
def _death_incantation() -> None:
    """destroy one creature of level 2 or less / destroy one creature of any level"""
    s = _with_spell("Death Incantation", "spell*")
    s = arrange(s, 1, ready=[ready_die("quake_dragon L3-8/7**"), ready_die("assistant L1-1/2")])
    assert legal(s).count("cast death spell* on P2 r1") == 1  # the assistant (sorted first)
    assert "cast death spell* on P2 r2" not in legal(s)
    s = _with_spell("Death Incantation", "spell**")
    s = arrange(s, 1, ready=[ready_die("quake_dragon L3-8/7**")])
    s = play(s, "cast death spell** on P2 r1")
    assert not s.seats[1].ready and dict(s.seats[1].used) == {"quake_dragon": 1}


@card("Growth Spell")
def _growth_spell() -> None:
    """gain 2 quiddity; draw and roll 1 die"""
    s = arrange(at(table("Growth Spell")), 0, active=["growth spell"], bag={"assistant": 1})
    s = play(s, "ready growth spell")
    assert s.turn.quiddity == 2 and s.turn.draws == 1 and s.me.spent == (("growth", "spell"),)


@card("Growth Cantrip")
def _growth_cantrip() -> None:
    """gain 2 quiddity; you may capture 1 additional Quarry die this turn"""
    s = arrange(at(table("Growth Cantrip")), 0, active=["growth spell"])
    s = play(s, "ready growth spell")
    assert s.turn.quiddity == 2 and s.turn.captures == 2


@card("Growth Charm")
def _growth_charm() -> None:
    """gain 3 quiddity (may be kept and cast on a later turn)"""
    s = arrange(at(table("Growth Charm")), 0, active=["growth spell"])
    s = play(s, "ready growth spell")
    assert s.me.ready == (ready_die("growth spell"),) and s.turn.quiddity == 0
    assert play(s, "cast growth spell").turn.quiddity == 3


@card("Growth Incantation")
def _growth_incantation() -> None:
    """gain 2 quiddity; you may re-roll any 2 other dice"""
    s = arrange(at(table("Growth Incantation")), 0,
                active=["growth spell", "basic_quiddity Q1", "assistant Q1", "portal Q1"])
    assert "ready growth spell reroll assistant Q1 and basic_quiddity Q1" in legal(s)
    s = play(s, "ready growth spell reroll assistant Q1 and basic_quiddity Q1")
    assert s.turn.quiddity == 2
    assert s.me.active == (("assistant", ""), ("basic_quiddity", ""), ("portal", "Q1"))


def _defending(spell: str, attacker: list[str], defender: list[str]) -> QuarriorsState:
    die = CARDS[spell].die
    s = table(spell)
    s = arrange(at(s), 0, ready=[ready_die(t) for t in attacker])
    s = arrange(s, 1, ready=[ready_die(f"{die} spell"), *(ready_die(t) for t in defender)])
    return attack(s)


@card("Life Spell")
def _life_spell() -> None:
    """all your Ready Area creatures +4 defense for the rest of the turn"""
    s = _defending("Life Spell", ["witching_hag L2-4/5"], ["assistant L1-1/2"])
    assert GAME.to_move(s) == 1 and "cast life spell" in legal(s)
    s = play(s, "cast life spell", f"defend r{index(s, 1, 'assistant')}")
    assert [r.die for r in s.seats[1].ready] == ["assistant"]  # defense 6 holds against 4
    own = arrange(at(table("Life Spell")), 0, ready=[ready_die("life spell")])
    assert "cast life spell" not in legal(own)  # RULES reaction: not on your own turn


@card("Life Cantrip")
def _life_cantrip() -> None:
    """creature gets +4 defense"""
    s = _with_spell("Life Cantrip")
    s = arrange(s, 0, ready=[ready_die("life spell"), ready_die("assistant L1-1/2")])
    s = play(s, f"attach life spell to P1 r{index(s, 0, 'assistant')}")
    assert stats.defense(s, 0, s.seats[0].ready[0]) == 6


@card("Life Charm")
def _life_charm() -> None:
    """for the rest of the turn your destroyed creatures go to your Active Pool instead of
    the Used Pile"""
    s = _defending("Life Charm", ["witching_hag L2-4/5"], ["assistant L1-1/2"])
    s = play(s, "cast life spell", "defend r1")
    assert s.seats[1].active == (("assistant", "L1 1/2"),)


@card("Life Incantation")
def _life_incantation() -> None:
    """reduce one creature's attack to 0 (against all players) for the rest of the turn"""
    s = _defending("Life Incantation", ["witching_hag L2-4/5", "assistant L1-1/2"],
                   ["assistant L1-1/2"])
    assert s.attack is not None and s.attack.total == 5
    s = play(s, f"cast life spell on P1 r{index(s, 0, 'witching_hag')}")
    assert s.attack is not None and s.attack.total == 1


@card("Shaping Spell")
def _shaping_spell() -> None:
    """destroy one spell in any player's Ready Area"""
    s = table("Shaping Spell", "Death Charm")
    s = arrange(at(s), 0, ready=[ready_die("shaping spell")])
    s = arrange(s, 1, ready=[ready_die("death spell*")])
    s = play(s, "cast shaping spell on P2 r1")
    assert not s.seats[1].ready and dict(s.seats[1].used) == {"death": 1}


@card("Shaping Cantrip")
def _shaping_cantrip() -> None:
    """return one of your just-destroyed creatures to your Ready Area at the same level
    instead of the Used Pile"""
    s = _defending("Shaping Cantrip", ["witching_hag L2-4/5"],
                   ["assistant L1-1/2", "witching_hag L2-4/5"])
    s = play(s, f"defend r{index(s, 1, 'assistant')}")
    s = play(s, "cast shaping spell")
    hag = [r for r in s.seats[1].ready if r.die == "assistant"]
    assert hag and hag[0].face == "L1 1/2" and hag[0].damaged
    assert f"defend r{index(s, 1, 'assistant')}" not in legal(s)  # RULES damaged_once


@card("Victory Spell")
def _victory_spell() -> None:
    """after your attack: +1 glory per opponent who lost a creature to your attack this turn
    (max 1 per player)"""
    s = table("Victory Spell", players=3)
    s = arrange(at(s), 0, ready=[ready_die("victory spell"), ready_die("witching_hag L2-4/5")])
    s = arrange(s, 1, ready=[ready_die("assistant L1-1/2"), ready_die("assistant L1-1/2")])
    s = arrange(s, 2, ready=[ready_die("quake_dragon L3-8/7**")])
    assert "cast victory spell" not in legal(s)  # only after the attack
    s = play(attack(s), "defend r1", "defend r1", "defend r1")  # P2 loses 2, P3 holds
    s = play(s, "cast victory spell")
    assert s.seats[0].glory == 1 and dict(s.seats[0].breakdown) == {"spell: Victory Spell": 1}


@card("Victory Cantrip")
def _victory_cantrip() -> None:
    """creature gives +2 glory when it scores"""
    s = arrange(at(table("Victory Cantrip"), "score"), 0, ready=[ready_die(
        "assistant L1-1/2", [(0, "victory spell")])])
    s = play(s, "score")
    assert dict(s.seats[0].breakdown) == {"creature: Assistant": 1, "spell: Victory Cantrip": 2}
    assert dict(s.seats[0].used) == {"assistant": 1, "victory": 1}


@card("Victory Charm")
def _victory_charm() -> None:
    """+1 glory per creature that scored this turn; only if 2 or more creatures scored this
    turn"""
    s = _with_spell("Victory Charm", scored=(("assistant", 0),))
    assert "cast victory spell" not in legal(s)
    s = _with_spell("Victory Charm", scored=(("assistant", 0), ("assistant", 0)))
    assert play(s, "cast victory spell").seats[0].glory == 2


@card("Victory Incantation")
def _victory_incantation() -> None:
    """gain 3 glory"""
    s = _with_spell("Victory Incantation")
    assert play(s, "cast victory spell").seats[0].glory == 3


@pytest.mark.parametrize("name", sorted(TESTS))
def test_card(name: str) -> None:
    TESTS[name]()


def test_every_card_played_has_a_test_quoting_its_text() -> None:
    for name, c in CARDS.items():
        if name in NOT_IMPLEMENTED:
            assert name not in TESTS
            continue
        assert name in TESTS, f"{name} has no test"
        doc = " ".join((TESTS[name].__doc__ or "").split())
        for line in c.text:
            if line.keyword != "note":
                assert " ".join(line.text.split()) in doc, f"{name}: {line.text!r}"


def test_cards_not_played_are_never_dealt_and_refused_with_their_reason() -> None:
    assert len(NOT_IMPLEMENTED) == 11 and len(CARDS) - len(NOT_IMPLEMENTED) == 42
    for seed in range(200):
        cards = GAME.new_state(2, seed=seed).cards
        assert not set(cards) & set(NOT_IMPLEMENTED)
    for name, why in NOT_IMPLEMENTED.items():
        cards = [c for c in table().cards if CARDS[c].cls != CARDS[name].cls][:9] + [name]
        if len([c for c in cards if CARDS[c].category == CARDS[name].category]) > \
                (7 if CARDS[name].category == "creature" else 3):
            continue
        with pytest.raises(InvalidStateError, match="not implemented yet") as exc:
            GAME.new_state(2, setup={"cards": cards})
        assert why in str(exc.value) and exc.value.path[0] == "cards"
