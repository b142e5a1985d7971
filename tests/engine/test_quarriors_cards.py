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


# --- the cards played since NOT_IMPLEMENTED emptied ------------------------------------------
@card("Deathdealer")
def _deathdealer() -> None:
    """when it scores you may swap it for one die from another player's Used Pile"""
    s = arrange(at(table("Deathdealer", players=3), "score"), 0,
                ready=[ready_die("deathdealer L1-3/2")])
    s = arrange(s, 1, used={"portal": 1, "basic_quiddity": 2})
    s = play(s, "score")
    trades = [a for a in legal(s) if a.startswith("trade")]
    assert trades == ["trade deathdealer for basic_quiddity of P2",
                      "trade deathdealer for portal of P2"]  # P3's Used Pile is empty
    s = play(s, "trade deathdealer for portal of P2")
    assert dict(s.seats[0].used) == {"portal": 1} and s.seats[0].glory == 2
    assert dict(s.seats[1].used) == {"basic_quiddity": 2, "deathdealer": 1}
    assert not any(a.startswith("trade") for a in legal(s))  # one trade per Deathdealer
    assert s.total_dice() == 130


def test_deathdealer_culled_first_or_nothing_to_trade_for() -> None:
    """The trade is of the Deathdealer in the Used Pile: culled, it cannot be traded; with
    no die in another player's Used Pile there is nothing to trade for; 'done' ends it."""
    s = arrange(at(table("Deathdealer"), "score"), 0, ready=[ready_die("deathdealer L1-3/2")])
    s = play(s, "score")
    assert not any(a.startswith("trade") for a in legal(s))
    s = arrange(s, 1, used={"assistant": 1})
    s = play(s, "cull deathdealer")
    assert not any(a.startswith("trade") for a in legal(s))
    s = arrange(at(table("Deathdealer"), "score"), 0, ready=[ready_die("deathdealer L1-3/2")])
    s = arrange(s, 1, used={"assistant": 1})
    s = play(s, "score", "done")
    assert s.turn.trades == () and dict(s.seats[1].used) == {"assistant": 1}


@card("Strong Devotee of the Holy Query")
def _strong_devotee() -> None:
    """when it scores you may capture one Spell die costing 4 or less for free (into your
    bag)"""
    names = ("Strong Devotee of the Holy Query", "Death Cantrip", "Victory Incantation",
             "Growth Cantrip")
    s = arrange(at(table(*names), "score"), 0,
                ready=[ready_die("devotee_of_the_holy_query L2-2/4*")], bag={"assistant": 1})
    s = play(s, "score")
    captures = [a for a in legal(s) if a.startswith("capture")]
    assert captures == ["capture death", "capture growth"]  # cost 4 and 3; not 9, no creature
    s = play(s, "capture growth")
    assert dict(s.me.bag) == {"assistant": 1, "growth": 1} and dict(s.wilds)["growth"] == 4
    assert s.turn.quiddity == 0 and s.turn.captures == 1  # free; phase 4's capture is left
    assert not any(a.startswith("capture") for a in legal(s))
    s = arrange(at(table(*names), "score"), 0,
                ready=[ready_die("devotee_of_the_holy_query L2-2/4")])
    assert not any(a.startswith("capture") for a in legal(play(s, "score")))  # no *


@card("Mighty Devotee of the Holy Query")
def _mighty_devotee() -> None:
    """+3 defense; when it attacks ignore spells attached to opposing creatures; cannot be
    targeted by opposing spells"""
    s = table("Mighty Devotee of the Holy Query", "Life Cantrip", "Death Incantation")
    assert stats.defense(s, 0, ready_die("devotee_of_the_holy_query L2-2/4*")) == 7
    assert stats.defense(s, 0, ready_die("devotee_of_the_holy_query L2-2/4")) == 4
    for face, destroyed in (("L2-2/4*", True), ("L2-2/4", False)):
        d = arrange(at(s), 0, ready=[ready_die(f"devotee_of_the_holy_query {face}")])
        d = arrange(d, 1, ready=[ready_die("assistant L1-1/2", [(1, "life spell")])])
        d = play(d, "attack", "defend r1")  # attack 2 against defense 2 + 4 (Life Cantrip)
        assert (not d.seats[1].ready) is destroyed
    own = arrange(at(s, player=1), 1, ready=[ready_die("death spell*")])
    own = arrange(own, 0, ready=[ready_die("devotee_of_the_holy_query L2-2/4*"),
                                 ready_die("assistant L1-1/2")])
    assert [a for a in legal(own) if a.startswith("cast")] == ["cast death spell* on P1 r1"]
    plain = arrange(own, 0, ready=[ready_die("devotee_of_the_holy_query L2-2/4")])
    assert "cast death spell* on P1 r1" in legal(plain)
    mine = arrange(at(s), 0, ready=[ready_die("life spell"),
                                    ready_die("devotee_of_the_holy_query L2-2/4*")])
    assert f"attach life spell to P1 r{index(mine, 0, 'devotee_of_the_holy_query')}" in \
        legal(mine)  # its owner's own spells still may


@card("Ghostly Spirit")
def _ghostly_spirit() -> None:
    """when destroyed you may cull 1 Basic Quiddity die to return it to your Ready Area for
    free (same level)"""
    s = _duel(["witching_hag L2-4/5"], ["ghostly_spirit L2-3/3", "assistant L1-1/2"],
              "Ghostly Spirit")
    s = arrange(s, 1, ready=[ready_die("ghostly_spirit L2-3/3"), ready_die("assistant L1-1/2")],
                used={"basic_quiddity": 2})
    s = play(attack(s), f"defend r{index(s, 1, 'ghostly_spirit')}")
    assert GAME.to_move(s) == 1 and legal(s) == ["return ghostly_spirit L2-3/3", "decline"]
    s = play(s, "return ghostly_spirit L2-3/3")
    ghost = [r for r in s.seats[1].ready if r.die == "ghostly_spirit"]
    assert ghost and ghost[0].face == "L2 3/3" and ghost[0].damaged  # RULES damaged_once
    assert dict(s.seats[1].used) == {"basic_quiddity": 1} and dict(s.wilds)["basic_quiddity"] == 1
    assert s.attack is not None and s.attack.total == 1 and legal(s) == ["defend r1"]
    assert s.total_dice() == 130


def test_ghostly_spirit_declined_or_with_no_basic_quiddity_to_cull() -> None:
    """'decline' leaves it in the Used Pile; with no Basic Quiddity die in the Used Pile
    (RULES cull_used) there is no choice to make."""
    s = _duel(["witching_hag L2-4/5"], ["ghostly_spirit L2-3/3"], "Ghostly Spirit")
    s = arrange(s, 1, ready=[ready_die("ghostly_spirit L2-3/3")], used={"basic_quiddity": 1})
    s = play(attack(s), "defend r1", "decline")
    assert dict(s.seats[1].used) == {"basic_quiddity": 1, "ghostly_spirit": 1}
    assert s.phase == "capture" and not s.prompts
    s = _duel(["witching_hag L2-4/5"], ["ghostly_spirit L2-3/3"], "Ghostly Spirit")
    s = arrange(s, 1, ready=[ready_die("ghostly_spirit L2-3/3")], active=["basic_quiddity Q1"])
    s = play(attack(s), "defend r1")
    assert not s.prompts and s.phase == "capture" and GAME.to_move(s) == 0


@card("Mighty Ghostly Spirit")
def _mighty_ghostly_spirit() -> None:
    """when destroyed, set it aside until you destroy any creature, then roll it: creature
    face -> Ready Area for free, otherwise -> Used Pile"""
    s = _duel(["witching_hag L2-4/5"], ["ghostly_spirit L1-2/2"], "Mighty Ghostly Spirit",
              "Death Incantation")
    s = play(attack(s), "defend r1")
    assert dict(s.seats[1].aside) == {"ghostly_spirit": 1} and not s.seats[1].used
    assert s.total_dice() == 130 and s.to_dict()["seats"][1]["aside"] == {"ghostly_spirit": 1}
    assert GAME.state_from_dict(s.to_dict()) == s
    # P2's turn: their Death Incantation destroys P1's assistant, and the spirit rolls
    s = arrange(at(s, player=1), 1, ready=[ready_die("death spell*")],
                aside={"ghostly_spirit": 1})
    s = arrange(s, 0, ready=[ready_die("assistant L1-1/2")])
    s = play(s, "cast death spell* on P1 r1")
    assert {a.to_str(): p for a, p in GAME.chance_outcomes(s)} == pytest.approx({
        "roll ghostly_spirit Q1": 2 / 6, "roll ghostly_spirit Q2": 1 / 6,
        "roll ghostly_spirit L1-2/2": 2 / 6, "roll ghostly_spirit L2-3/3": 1 / 6})
    up = play(s, "roll ghostly_spirit L2-3/3")
    assert [r.face for r in up.seats[1].ready] == ["L2 3/3"] and not up.seats[1].aside
    down = play(s, "roll ghostly_spirit Q1")
    assert not down.seats[1].ready and dict(down.seats[1].used) == {"ghostly_spirit": 1}
    assert up.total_dice() == down.total_dice() == 130


def test_mighty_ghostly_spirit_waits_for_its_owner_to_destroy() -> None:
    """"until you destroy any creature": not when another player destroys one, and not the
    destruction that set it aside; a Shaping Cantrip may still return it from aside."""
    s = table("Mighty Ghostly Spirit", "Shaping Cantrip", players=3)
    s = arrange(at(s), 0, ready=[ready_die("witching_hag L2-4/5")])
    s = arrange(s, 1, ready=[ready_die("assistant L1-1/2")], aside={"ghostly_spirit": 1})
    s = arrange(s, 2, ready=[ready_die("ghostly_spirit L1-2/2")])
    s = play(attack(s), "defend r1")  # P1 destroys P2's assistant: P2's spirit waits
    assert dict(s.seats[1].aside) == {"ghostly_spirit": 1} and not GAME.chance_outcomes(s)
    s = play(s, "defend r1")  # P3's spirit is set aside; nothing of P3's rolls
    assert dict(s.seats[2].aside) == {"ghostly_spirit": 1} and not s.prompts
    c = table("Shaping Cantrip", "Mighty Ghostly Spirit")
    c = arrange(at(c), 0, ready=[ready_die("witching_hag L2-4/5")])
    c = arrange(c, 1, ready=[ready_die("shaping spell"), ready_die("ghostly_spirit L1-2/2"),
                             ready_die("assistant L1-1/2")])
    c = play(attack(c), f"defend r{index(c, 1, 'ghostly_spirit')}", "cast shaping spell")
    assert not c.seats[1].aside and [r.die for r in c.seats[1].ready] == ["assistant",
                                                                       "ghostly_spirit"]


@card("Primordial Ooze")
def _primordial_ooze() -> None:
    """? (attack and defense) = number of your Basic Quiddity dice in Used Pile + Active Pool;
    destroyed if you have none in play"""
    s = arrange(at(table("Primordial Ooze")), 0, ready=[ready_die("primordial_ooze L2-?/?")],
                used={"basic_quiddity": 2}, active=["basic_quiddity Q1", "basic_quiddity Q2"],
                spent=["basic_quiddity Q1"])
    ooze = s.me.ready[0]
    assert stats.base_attack(s, 0, ooze) == 4 and stats.defense(s, 0, ooze) == 4  # not spent
    # the last Basic Quiddity dice go into the bag (RULES refill): none in play
    s = arrange(at(table("Primordial Ooze"), draws=2), 0,
                ready=[ready_die("primordial_ooze L2-?/?")], bag={"portal": 1},
                used={"basic_quiddity": 1})
    s = play(s, "draw portal")
    assert not s.me.ready and dict(s.me.bag) == {"basic_quiddity": 1}
    assert dict(s.me.used) == {"primordial_ooze": 1}


def test_primordial_ooze_spent_dice_are_in_play_and_a_trade_can_take_the_last() -> None:
    """RULES in_play: a Basic Quiddity die spent is still in play (the ooze stays, its ?
    counts the Used Pile and Active Pool only); another player's Deathdealer trading for the
    last one leaves none in play: the ooze is destroyed."""
    s = arrange(at(table("Primordial Ooze")), 0, ready=[ready_die("primordial_ooze L2-?/?")],
                active=["basic_quiddity Q1"])
    s = play(s, "spend basic_quiddity Q1")
    assert s.me.ready and stats.defense(s, 0, s.me.ready[0]) == 0
    s = table("Primordial Ooze", "Deathdealer")
    s = arrange(at(s, "score"), 0, ready=[ready_die("deathdealer L1-3/2")])
    s = arrange(s, 1, ready=[ready_die("primordial_ooze L2-?/?")], used={"basic_quiddity": 1})
    s = play(s, "score", "trade deathdealer for basic_quiddity of P2")
    assert not s.seats[1].ready and dict(s.seats[1].used) == {"deathdealer": 1,
                                                              "primordial_ooze": 1}


@card("Strong Primordial Ooze")
def _strong_ooze() -> None:
    """copies exactly one creature in an opponent's Ready Area (your choice, may change once
    per player turn); with nothing to copy it is attack 0 / defense 5"""
    s = table("Strong Primordial Ooze", "Witching Hag")
    s = arrange(at(s, quiddity=2), 0, active=["primordial_ooze L2-?/?"])
    alone = play(s, "summon primordial_ooze L2-?/?")
    ooze = alone.me.ready[0]
    assert not alone.prompts and ooze.copy is None
    assert stats.base_attack(alone, 0, ooze) == 0 and stats.defense(alone, 0, ooze) == 5
    s = arrange(s, 1, ready=[ready_die("assistant L1-1/2", [(1, "death spell*")]),
                             ready_die("witching_hag L2-4/5")])
    s = play(s, "summon primordial_ooze L2-?/?")
    assert GAME.to_move(s) == 0 and legal(s) == ["copy r1 as P2 r1", "copy r1 as P2 r2"]
    s = play(s, "copy r1 as P2 r2")
    ooze = s.me.ready[0]
    assert ooze.copy == ("Witching Hag", "L2 4/5") and stats.defense(s, 0, ooze) == 5
    assert stats.attack_total(s, 0, 1) == 4
    s = play(s, "copy r1 as P2 r1")  # the one change of this turn: an Assistant, not its spell
    assert stats.attack_total(s, 0, 1) == 1 and stats.defense(s, 0, s.me.ready[0]) == 2
    assert not any(a.startswith("copy") for a in legal(s))
    s = arrange(s, 1, ready=[])  # "it remains the creature it copied" (Card Reference)
    assert stats.attack_total(s, 0, 1) == 1
    s = arrange(at(s, "score"), 0, ready=[ready_die("primordial_ooze L2-?/?",
                                                    copy=("Witching Hag", "L2 4/5"))])
    assert dict(play(s, "score").seats[0].breakdown) == {"creature: Witching Hag": 3}


def test_strong_ooze_changes_its_copy_when_defending_and_copies_through_an_ooze() -> None:
    """"may change once per player turn": also on an opponent's turn, while defending; an
    ooze copying an ooze that copies a creature becomes that creature (Card Reference)."""
    s = table("Strong Primordial Ooze", "Witching Hag")
    s = arrange(at(s), 0, ready=[ready_die("witching_hag L1-3/3"),
                                 ready_die("primordial_ooze L2-?/?",
                                           copy=("Witching Hag", "L2 4/5"))])
    s = arrange(s, 1, ready=[ready_die("primordial_ooze L2-?/?", copy=("Assistant", "L1 1/2"))])
    s = attack(s)
    assert GAME.to_move(s) == 1
    assert [a for a in legal(s) if a.startswith("copy")] == ["copy r1 as P1 r1",
                                                             "copy r1 as P1 r2"]
    s = play(s, "copy r1 as P1 r1")  # P1's ooze, which plays as a level-2 Witching Hag
    assert s.seats[1].ready[0].copy == ("Witching Hag", "L2 4/5")
    assert stats.defense(s, 1, s.seats[1].ready[0]) == 5
    assert not any(a.startswith("copy") for a in legal(s))


@card("Strong Questing Wizard")
def _strong_questing_wizard() -> None:
    """when it scores you may cull any number of Spell dice from your Active Pool or Ready
    Area for 1 glory each"""
    s = arrange(at(table("Strong Questing Wizard", "Death Cantrip"), "score"), 0,
                ready=[ready_die("questing_wizard L1-2/5"), ready_die("death spell*")],
                active=["death", "assistant"])
    s = play(s, "score")
    culls = [a for a in legal(s) if " from " in a]
    assert culls == ["cull death from active", "cull death spell* from ready"]
    s = play(s, *culls)
    assert s.seats[0].glory == 3 + 2 and dict(s.wilds)["death"] == 3 + 2  # 2 were in play
    assert dict(s.seats[0].breakdown) == {"creature: Strong Questing Wizard": 5}
    assert s.me.active == (("assistant", ""),) and not s.me.ready
    assert not any(" from " in a for a in legal(s)) and s.total_dice() == 130


@card("Mighty Scavenging Goblin")
def _mighty_goblin() -> None:
    """when destroyed, draw 2 dice into your Active Pool"""
    s = _duel(["witching_hag L2-4/5"], [], "Mighty Scavenging Goblin")
    s = arrange(s, 1, ready=[ready_die("scavenging_goblin L1-2/2*"),
                             ready_die("assistant L1-1/2")],
                bag={"portal": 1, "basic_quiddity": 2})
    s = play(attack(s), f"defend r{index(s, 1, 'scavenging_goblin')}")
    assert GAME.to_move(s) == 1 and {a.to_str(): p for a, p in GAME.chance_outcomes(s)} == \
        pytest.approx({"draw portal": 1 / 3, "draw basic_quiddity": 2 / 3})
    s = play(s, "draw portal", "draw basic_quiddity")
    assert s.seats[1].active == (("basic_quiddity", ""), ("portal", ""))
    assert legal(s) == ["defend r1"] and s.total_dice() == 130  # the attack goes on: 2 left
    plain = _duel(["witching_hag L2-4/5"], ["scavenging_goblin L1-2/2"],
                  "Mighty Scavenging Goblin")
    assert not play(attack(plain), "defend r1").prompts  # no *


def test_mighty_goblin_refills_from_the_used_pile_with_itself() -> None:
    """RULES refill when the bag is empty: the Used Pile, the goblin in it, goes into the bag
    (the Card Reference: "it is placed into the bag before drawing"); with nothing anywhere
    the draw stops."""
    s = _duel(["witching_hag L2-4/5"], [], "Mighty Scavenging Goblin")
    s = arrange(s, 1, ready=[ready_die("scavenging_goblin L1-2/2*")], used={"assistant": 1})
    s = play(attack(s), "defend r1")
    assert dict(s.seats[1].bag) == {"assistant": 1, "scavenging_goblin": 1}
    assert {a.to_str() for a, _ in GAME.chance_outcomes(s)} == {"draw assistant",
                                                                 "draw scavenging_goblin"}
    s = play(s, "draw assistant", "draw scavenging_goblin")
    assert not s.prompts and not s.seats[1].bag and s.phase == "capture"


@card("Shaping Charm")
def _shaping_charm() -> None:
    """turn every creature in your Ready Area up one level where possible"""
    s = table("Shaping Charm", "Deathdealer", "Devotee of the Holy Query", "Scavenging Goblin")
    s = arrange(at(s), 0, ready=[ready_die("shaping spell"), ready_die("deathdealer L1-3/2"),
                                 ready_die("devotee_of_the_holy_query L1-0/3"),
                                 ready_die("scavenging_goblin L1-2/2")])
    r_dd, r_dv = index(s, 0, "deathdealer"), index(s, 0, "devotee_of_the_holy_query")
    casts = [a for a in legal(s) if a.startswith("cast")]
    assert casts == [f"cast shaping spell turning r{r_dd} L2-4/4, r{r_dv} L2-2/4",
                     f"cast shaping spell turning r{r_dd} L2-4/4, r{r_dv} L2-2/4*"]
    s = play(s, casts[1])
    assert sorted(r.face for r in s.me.ready) == ["L1 2/2", "L2 2/4*", "L2 4/4"]
    assert s.me.spent == (("shaping", "spell"),)


def test_shaping_charm_with_nothing_to_turn_and_identical_creatures() -> None:
    """With no creature that can go up (the goblin's die has no level 2) it is cast for
    nothing; two alike creatures give each outcome once."""
    s = table("Shaping Charm", "Devotee of the Holy Query")
    s = arrange(at(s), 0, ready=[ready_die("shaping spell"), ready_die("assistant L1-1/2")])
    assert [a for a in legal(s) if a.startswith("cast")] == ["cast shaping spell"]
    s = arrange(s, 0, ready=[ready_die("shaping spell"),
                             ready_die("devotee_of_the_holy_query L1-0/3"),
                             ready_die("devotee_of_the_holy_query L1-0/3")])
    assert len([a for a in legal(s) if a.startswith("cast")]) == 3  # **, * and plain, plain


@card("Shaping Incantation")
def _shaping_incantation() -> None:
    """when this creature scores you may cull one die from your Used Pile to capture a Quarry
    die costing up to 3 more than the culled die"""
    s = arrange(at(table("Shaping Incantation"), "score"), 0,
                ready=[ready_die("assistant L1-1/2", [(0, "shaping spell")])])
    s = play(s, "score")
    offers = {a for a in legal(s) if " for " in a}
    want = {f"cull {give} for {take}" for give in ("assistant", "shaping")
            for take, _ in s.wilds if take != give
            and stats.cost(s, take) <= stats.cost(s, give) + 3}
    assert offers == want and "cull assistant for portal" in offers  # 1 + 3 = 4
    assert "cull assistant for shaping" in offers and "cull shaping for shaping" not in offers
    s = play(s, "cull shaping for portal")
    assert dict(s.me.used) == {"assistant": 1, "portal": 1} and dict(s.wilds)["shaping"] == 5
    assert not any(" for " in a for a in legal(s)) and s.turn.culls == 1


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


def test_every_card_is_played_and_dealt() -> None:
    """No card is left out: NOT_IMPLEMENTED is empty and random setups deal every card."""
    assert NOT_IMPLEMENTED == {} and len(CARDS) == 53
    dealt = {c for seed in range(300) for c in GAME.new_state(2, seed=seed).cards}
    assert dealt == {n for n, c in CARDS.items() if c.category != "basic"}


def test_a_card_listed_not_implemented_is_never_dealt_and_refused_with_its_reason(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The mechanism kept for a card the engine does not play: never dealt, and a table
    entered with it refused with the reason."""
    why = "a reason given for the test"
    monkeypatch.setitem(NOT_IMPLEMENTED, "Ghostly Spirit", why)
    for seed in range(100):
        assert "Ghostly Spirit" not in GAME.new_state(2, seed=seed).cards
    cards = [c for c in table().cards if CARDS[c].cls != "Ghostly Spirit"][:9]
    cards = [c for c in cards if CARDS[c].category == "spell"][:3] + [
        c for c in cards if CARDS[c].category == "creature"][:6] + ["Ghostly Spirit"]
    with pytest.raises(InvalidStateError, match="not implemented yet") as exc:
        GAME.new_state(2, setup={"cards": cards})
    assert why in str(exc.value) and exc.value.path[0] == "cards"
