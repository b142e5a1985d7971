"""Quarriors rules, one test per rule with the rulebook sentence it checks
(shared/rules/quarriors-rulebook.txt), and seeded playouts with the game's own invariants."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest
from quarriors_table import GAME, arrange, at, legal, play, ready_die, table

from engine import IllegalActionError, InvalidStateError
from engine.games.quarriors import state as st
from engine.games.quarriors.cards import CARDS
from engine.games.quarriors.state import QuarriorsState
from engine.match import Match


def test_setup() -> None:
    """"Put 2 Assistant Dice on the Assistant Card and 5 Portal Dice on the Portal Card."
    "Keep turning over cards until there are 7 different classes of Creature Cards ... 3
    different classes of Spell Cards"; "Find the 5 Quarry dice that match ... each Creature
    Card and Spell Card"; "Give each player 8 Basic Quiddity Dice and 4 Assistant Dice."
    The Basic Quiddity card starts empty; every one of the 130 dice is somewhere."""
    for seed in range(30):
        s = GAME.new_state(3, seed=seed)
        kinds = [CARDS[c].category for c in s.cards]
        assert kinds.count("creature") == 7 and kinds.count("spell") == 3
        assert len({CARDS[c].cls for c in s.cards}) == 10
        wilds = dict(s.wilds)
        assert wilds.pop("assistant") == 2 and wilds.pop("portal") == 5
        assert "basic_quiddity" not in wilds
        assert wilds == {CARDS[c].die: 5 for c in s.cards}
        assert all(seat.bag == (("assistant", 4), ("basic_quiddity", 8)) for seat in s.seats)
        assert s.total_dice() == 130 and dict(s.box)["basic_quiddity"] == 32 - 24


@pytest.mark.parametrize(("cards", "message"), [
    (["Quake Dragon", "Mighty Quake Dragon"], "repeats the class Quake Dragon"),
    (["Heavenly Seraph"], "not a creature or spell card of the base set"),
    (["Assistant"], "not a creature or spell card of the base set"),
])
def test_entered_cards_are_checked(cards: list[str], message: str) -> None:
    """The players may enter the cards their table shows; the engine checks them."""
    full = table().cards
    entered = [c for c in full if CARDS[c].cls not in {CARDS.get(x, CARDS["Assistant"]).cls
                                                       for x in cards}]
    entered = entered[:9 - len(cards) + 1] + cards
    with pytest.raises(InvalidStateError, match=message):
        GAME.new_state(2, setup={"cards": entered})
    with pytest.raises(InvalidStateError, match="0 spell cards, the Wilds hold 3"):
        GAME.new_state(2, setup={"cards": [c for c in full if CARDS[c].category == "creature"]})
    assert GAME.new_state(2, setup={"cards": list(full), "first_player": 1}).current == 1


def test_draw_six_and_refill_from_the_used_pile_mid_draw() -> None:
    """"If there are less than 6 dice left in your bag, draw all of the dice that are there
    ... Then take all of the dice in your Used Pile and return them to your bag, mix them, and
    continue drawing until you have drawn a total of 6 dice or until you have no dice left
    to draw." The bag is hidden: each die out of it is a chance outcome, its share of the
    bag."""
    s = arrange(at(table(), "cull"), 0, bag={"portal": 1, "assistant": 2},
                used={"basic_quiddity": 2})
    s = play(s, "done")
    assert {a.to_str(): p for a, p in GAME.chance_outcomes(s)} == pytest.approx(
        {"draw assistant": 2 / 3, "draw portal": 1 / 3})
    s, events = GAME.apply(s, GAME.parse_action("draw portal"))
    s = play(s, "draw assistant")
    s, events = GAME.apply(s, GAME.parse_action("draw assistant"))
    assert [e.kind for e in events] == ["refill"] and dict(s.me.bag) == {"basic_quiddity": 2}
    s = play(s, "draw basic_quiddity", "draw basic_quiddity")
    assert s.turn.draws == 0 and len(s.me.active) == 5  # no dice left to draw
    assert [a.to_str() for a, _ in GAME.chance_outcomes(s)] == [
        "roll assistant Q1", "roll assistant reroll*", "roll assistant L1-1/2"]


def test_summon_costs_its_level_in_quiddity() -> None:
    """"You must spend Quiddity equal to the Creature's level (in the upper left corner of the
    die face) to summon it." Spells are readied for free."""
    s = arrange(at(table("Witching Hag")), 0,
                active=["witching_hag L2-4/5", "basic_quiddity Q1", "basic_quiddity Q1"])
    assert "summon witching_hag L2-4/5" not in legal(s)
    with pytest.raises(IllegalActionError, match="quarriors.summon"):
        play(s, "summon witching_hag L2-4/5")
    s = play(s, "spend basic_quiddity Q1", "spend basic_quiddity Q1",
             "summon witching_hag L2-4/5")
    assert s.turn.quiddity == 0 and s.me.ready == (ready_die("witching_hag L2-4/5"),)


def test_quiddity_is_not_kept_and_the_turn_ends_in_the_used_pile() -> None:
    """"Any Quiddity that you do not spend is lost at the end of your turn!" "At the end of
    your turn, you must move all the dice from your Spent Pile and any dice left in your
    Active Pool to your Used Pile." "You may also choose to move any spells from your Ready
    Area to your Used Pile.\""""
    s = arrange(at(table("Growth Charm"), "capture", quiddity=4), 0,
                active=["basic_quiddity Q1"], spent=["portal draw1"],
                ready=[ready_die("growth spell")])
    s = play(s, "retire growth spell", "end")
    assert dict(s.seats[0].used) == {"basic_quiddity": 1, "growth": 1, "portal": 1}
    assert s.current == 1 and s.turn.quiddity == 0


def test_phase_one_scores_every_creature_and_culls_one_die_each() -> None:
    """"If you have any Creatures in your Ready Area, you must score them now." "Each
    Creature that scores allows you to cull any one die from your Used Pile." Spells stay."""
    s = arrange(at(table("Death Cantrip"), "score"), 0,
                ready=[ready_die("assistant L1-1/2"), ready_die("death spell*")],
                used={"basic_quiddity": 2})
    assert legal(s) == ["score"]
    s = play(s, "score")
    assert s.me.ready == (ready_die("death spell*"),) and s.turn.culls == 1
    s = play(s, "cull basic_quiddity")
    assert "cull assistant" not in legal(s) and legal(s) == ["done"]
    assert GAME.score(s)[0].breakdown == (("creature: Assistant", 1),)


def test_expert_culling() -> None:
    """Totally Expert Rule of Culling: "When you score a die, you can only cull the die that
    scored and you can only score the glory for that die if you cull it.\""""
    s = table("Witching Hag", expert_culling=True)
    s = arrange(at(s, "score"), 0, ready=[ready_die("witching_hag L1-3/3")],
                used={"basic_quiddity": 1})
    s = play(s, "score")
    assert s.seats[0].glory == 0 and legal(s) == ["cull witching_hag", "done"]
    assert play(s, "cull witching_hag").seats[0].glory == 3
    assert play(s, "done").seats[0].glory == 0


def test_capture_one_die_or_two_with_the_advanced_rule() -> None:
    """"you may spend any Quiddity you have left to capture one Quarry die from the Wilds."
    Advanced Capture Rule: "you may capture up to two dice (instead of only one)." A die
    costs its card's cost."""
    s = arrange(at(table(), "capture", quiddity=8, captures=1), 0)
    s = play(s, "capture portal")
    assert s.turn.quiddity == 4 and not any(a.startswith("capture") for a in legal(s))
    s = table(advanced_capture=True)
    s = play(arrange(at(s, "capture", quiddity=8, captures=2), 0), "capture portal")
    assert "capture portal" in legal(s)


def test_attack_one_defender_at_a_time_leftover_lost_in_clockwise_order() -> None:
    """"When you defend against an attack, you must choose your defending Creatures one at a
    time." "Each Creature in your Ready Area can only be damaged once per attack"; leftover
    damage is lost; "the players resolve the destruction of their Creatures in turn,
    clockwise around the table, starting with the player to the left of the attacker.\""""
    s = table(players=4)
    s = arrange(at(s, player=2), 2, ready=[ready_die("assistant L1-1/2")] * 3)
    for p in (0, 1, 3):
        s = arrange(s, p, ready=[ready_die("assistant L1-1/2")] * 2)
    s = play(s, "attack")
    assert s.attack is not None and s.attack.order == (3, 0, 1) and GAME.to_move(s) == 3
    assert legal(s) == ["defend r1", "defend r2"]
    s = play(s, "defend r1")  # 3 - 2 = 1 left: the second must defend
    assert legal(s) == ["defend r1"]
    s = play(s, "defend r1")  # holds: 1 < 2
    assert len(s.seats[3].ready) == 1 and GAME.to_move(s) == 0
    with pytest.raises(IllegalActionError, match="quarriors"):
        play(s, "end")


def test_glory_goal_ends_the_game_at_once() -> None:
    """"If any player earns enough Glory to reach the goal shown on the chart to the right,
    the game immediately ends and that player wins!" (2: 20, 3: 15, 4: 12)."""
    for players, goal in ((2, 20), (3, 15), (4, 12)):
        s = table("Victory Incantation", players=players)
        s = replace(s, seats=(replace(s.seats[0], glory=goal - 3), *s.seats[1:]))
        s = arrange(at(s), 0, ready=[ready_die("victory spell")])
        s = play(s, "cast victory spell")
        outcome = GAME.outcome(s)
        assert outcome is not None and outcome.winners == (0,) and legal(s) == []


def _emptied(s: QuarriorsState) -> QuarriorsState:
    creatures = [CARDS[c].die for c in s.cards if CARDS[c].category == "creature"]
    wilds = dict(s.wilds)
    box = dict(s.box)
    for die in creatures[:3]:
        box[die] = box.get(die, 0) + wilds.pop(die)
    box[creatures[3]] = box.get(creatures[3], 0) + wilds[creatures[3]] - 1
    wilds[creatures[3]] = 1
    return replace(s, wilds=st.counts(wilds.items()), box=st.counts(box.items()))


def test_four_empty_creature_cards_end_the_game_ties_by_ready_dice_then_shared() -> None:
    """"If there are four or more empty Creature Power Cards ... after a player captures a
    Quarry die the game immediately ends." "If there is a tie, the tied player with the most
    dice in his Ready Area wins. If they are still tied, they share the victory!\""""
    s = _emptied(table(players=3))
    last = next(d for d, n in s.wilds if n == 1 and d not in ("assistant", "portal"))
    s = arrange(at(s, "capture", quiddity=10), 0, ready=[ready_die("assistant L1-1/2")])
    s = arrange(s, 1, ready=[ready_die("assistant L1-1/2")])
    tied = play(s, f"capture {last}")
    outcome = GAME.outcome(tied)
    assert outcome is not None and outcome.winners == (0, 1) and "shared" in outcome.reason
    s = arrange(s, 1, ready=[ready_die("assistant L1-1/2")] * 2)
    outcome = GAME.outcome(play(s, f"capture {last}"))
    assert outcome is not None and outcome.winners == (1,)


def test_illegal_actions_name_their_rule() -> None:
    s = table()
    with pytest.raises(IllegalActionError, match="quarriors.draw"):
        play(s, "attack")
    with pytest.raises(IllegalActionError, match="quarriors.draw"):
        play(s, "draw portal")


def test_strong_quake_dragon_option_and_rule_quotes() -> None:
    opt = GAME.info.option("strong_quake_dragon")
    assert opt.default == "9/3" and opt.choices == ("9/3", "8/4")
    assert "CONFLICT" in opt.provenance


@pytest.mark.parametrize("players", [2, 3, 4])
def test_seeded_playouts_keep_every_die_in_one_place(players: int) -> None:
    """Every state of seeded random matches: the 130 dice all accounted for and none counted
    twice or below zero, chance outcomes summing to 1, the state round-tripping through
    JSON, and the record replaying to the same end."""
    for seed in range(3):
        rng = random.Random(seed)
        match = Match(GAME, players, seed=seed)
        steps = 0
        while GAME.outcome(match.state) is None:
            s = match.state
            assert s.total_dice() == 130
            for seat in s.seats:
                assert all(n > 0 for _, n in (*seat.bag, *seat.used, *seat.aside))
            assert all(n > 0 for _, n in (*s.wilds, *s.box))
            outcomes = GAME.chance_outcomes(s)
            if outcomes:
                assert sum(p for _, p in outcomes) == pytest.approx(1)
            assert GAME.state_from_dict(json.loads(json.dumps(s.to_dict()))) == s
            match.push(GAME.random_action(s, rng))
            steps += 1
            assert steps < 20000
        assert Match.from_json(match.to_json()).state == match.state


def test_states_that_do_not_add_up_are_refused() -> None:
    data = table().to_dict()
    data["wilds"]["portal"] = 4
    with pytest.raises(InvalidStateError, match="129 dice"):
        GAME.state_from_dict(data)
    with pytest.raises(InvalidStateError):
        GAME.state_from_dict({"players": 2})
