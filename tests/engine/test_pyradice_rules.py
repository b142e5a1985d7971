"""Pyradice: one test per sentence of shared/rules/pyradice-rulebook.txt (quoted), plus the
deductions of shared/data/games/README.md (Pyradice) and the named options.

The table is fixed (see pyradice_table.py). The opening used by many tests: P1 takes the
four top corners' dice with P2 (L3-1 5 red, L3-3 1 green, L3-7 5 green, L3-9 1 red), so
P1's pyramid holds 1-1 (5 red) and 1-2 (5 green) and space 2-1 above them is open.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from pyradice_table import GAME, OBJECTIVES, SKILLS, legal, new, play, quarry_dice, setup

from engine import IllegalActionError, InvalidStateError
from engine.games.pyradice import RULES, PyradiceState, SetupError
from engine.games.pyradice import pyramid as pm
from engine.games.pyradice import quarry as qy
from engine.playout import playout

OPENING = ("take L3-1 to 1-1", "take L3-3 to 1-1", "take L3-7 to 1-2", "take L3-9 to 1-2")


def opened() -> PyradiceState:
    """P1 to move with 5 red on 1-1 and 5 green on 1-2; L3-2 (6 yellow) is available."""
    return play(new(), *OPENING)


def rule_of(state: PyradiceState, text: str) -> str:
    with pytest.raises(IllegalActionError) as info:
        GAME.apply(state, GAME.parse_action(text))
    return info.value.rule.id


def setup_rule(players: int = 2, options: dict[str, object] | None = None,
               **changes: object) -> str | None:
    with pytest.raises(SetupError) as info:
        GAME.new_state(players, options, setup=setup(**changes))
    return info.value.rule.id if info.value.rule else None


def board(state: PyradiceState, player: int = 0) -> dict[str, str]:
    return {pm.NAMES[n]: f"{d[0]} {d[1]}" for n, d in enumerate(state.boards[player]) if d}


# --- setup ---------------------------------------------------------------------------------
def test_two_to_four_players() -> None:
    """pyradice.players: 'To play with 3 or 4 players, a second copy of Pyradice is
    needed.'"""
    assert new(3).players == 3 and new(4).players == 4
    for bad in (1, 5):
        with pytest.raises(InvalidStateError, match="2 to 4 players"):
            GAME.new_state(bad)


def test_two_player_quarry_board() -> None:
    """pyradice.quarry_2p: 'Place the Quarry Board in the center of the table with the
    2-player symbol facing up.' (its shape is option quarry_2p, UNKNOWN)"""
    assert new().dims == ((5, 5), (4, 4), (3, 3))
    s = GAME.new_state(2, {"quarry_2p": "6x4,5x3,4x2"}, seed=1)
    assert s.dims == ((6, 4), (5, 3), (4, 2)) and qy.geometry(s.dims).size == 47
    assert setup_rule(options={"quarry_2p": "4x4,3x3,2x2"}, quarry=quarry_dice("4x4,3x3,2x2")
                      ) == "pyradice.quarry_2p"  # 29 dice cannot build two pyramids of 21


def test_three_layers() -> None:
    """pyradice.quarry_layers: 'Place the dice on the grid of the Quarry Board in 3 layers as
    shown in the image.'"""
    assert len(new().quarry) == 3
    with pytest.raises(SetupError, match="3 layers"):
        qy.parse_dims("5x5,4x4")
    with pytest.raises(SetupError, match="ROWSxCOLS"):
        qy.parse_dims("5x5,4,3x3")
    missing = quarry_dice()
    del missing["L1-1"]
    assert setup_rule(quarry=missing) == "pyradice.quarry_layers"


def test_values_and_colours_are_random() -> None:
    """pyradice.random_dice: 'The value and color of each die is determined randomly.'
    (a seeded draw, or the dice the players built as setup 'quarry')"""
    a, b = GAME.new_state(2, seed=1), GAME.new_state(2, seed=2)
    assert a.quarry != b.quarry and a.quarry == GAME.new_state(2, seed=1).quarry
    dice = [d for layer in a.quarry for d in layer if d]
    assert {v for v, _ in dice} == set(range(1, 7)) and {c for _, c in dice} == set(a.colours)
    assert new().quarry[2][0] == (5, "red")
    with pytest.raises(SetupError, match="VALUE COLOUR"):
        GAME.new_state(2, setup=setup(quarry=quarry_dice() | {"L1-1": "7 red"}))
    with pytest.raises(SetupError, match="VALUE COLOUR"):
        GAME.new_state(2, setup=setup(quarry=quarry_dice() | {"L1-1": "3 purple"}))


def test_each_die_on_four() -> None:
    """pyradice.rests_on_four: 'Each die must be on top of 4 other dice, except for the bottom
    layer.'"""
    geo = qy.geometry(((5, 5), (4, 4), (3, 3)))
    assert all(len(geo.below[k][i]) == (0 if k == 0 else 4)
               for k in range(3) for i in range(len(geo.names[k])))
    assert geo.below[2][0] == (0, 1, 4, 5)  # L3-1 rests on L2-1, L2-2, L2-5, L2-6
    with pytest.raises(SetupError, match="cannot rest centred"):
        qy.parse_dims("5x5,3x3,2x2")
    with pytest.raises(SetupError, match="cannot rest centred"):
        qy.parse_dims("5x5,5x5,3x3")
    data = new().to_dict()
    data["quarry"]["dice"][1][0] = None  # L2-1 gone under L3-1
    with pytest.raises(InvalidStateError, match="rest on 4"):
        GAME.state_from_dict(data)


def test_remaining_die_goes_back_to_the_box() -> None:
    """pyradice.remaining_die: 'Return the remaining die to the game box.' Only the quarry's
    dice are in play: 50 on the default 2-player board, 42 of them will be placed."""
    s = new()
    assert qy.geometry(s.dims).size == 50 >= 2 * pm.SIZE
    assert sum(1 for layer in s.quarry for d in layer if d) == 50


def test_three_four_player_quarry() -> None:
    """pyradice.quarry_3_4p: 'Place a Quarry Board (with the 3/4 player side facing up) in the
    center of the table.' (option quarry_3_4p, UNKNOWN)"""
    assert new(3).dims == new(4).dims == ((7, 6), (6, 5), (5, 4))
    s = GAME.new_state(4, {"quarry_3_4p": "8x6,7x5,6x4"}, seed=3)
    assert qy.geometry(s.dims).size == 48 + 35 + 24


def test_all_the_dice_of_two_games() -> None:
    """pyradice.two_copies_dice: 'Use all the dice from the two games.' The default 3/4
    quarry holds 92 dice: more than one box (51 with the returned die), enough for 4
    pyramids (84)."""
    size = qy.geometry(new(4).dims).size
    assert 51 < size <= 102 and size >= 4 * pm.SIZE


def test_three_and_four_players_play_the_same_game() -> None:
    """pyradice.rest_same: 'Only the preparation of the quarry is different, the rest of the
    game remains the same, with turns alternating between the players and ending when the
    pyramids are complete.'"""
    for players in (3, 4):
        match = playout(GAME, players, seed=players)
        assert len(match.actions) == pm.SIZE * players
        assert all(pm.complete(b) for b in match.state.boards)


def test_matching_set_without_duplicates() -> None:
    """pyradice.matching_set: 'All players take a matching set of 5 Skill Tokens (blue) and 7
    Objective Tokens (orange). A player may not have any duplicate tokens.'"""
    assert setup_rule(objectives=["C1", "D1", "C2", "C3", "C4"]) == "pyradice.matching_set"
    assert setup_rule(objectives=["C1", "C2", "C3", "C4"]) == "pyradice.matching_set"
    assert setup_rule(skills=["A2", "A3", "A4", "A5"]) == "pyradice.matching_set"
    assert setup_rule(objectives=["C1", "C2", "C3", "C4", "E5"]) == "pyradice.matching_set"


def test_skill_token_matches_its_recess() -> None:
    """pyradice.skill_recess: 'The letter and the number on the token must match the recess
    where it is placed.' (For example, token A6 has to be placed on the A6/B6 board
    recess.)"""
    assert setup_rule(skills=["A3", "A2", "A4", "A5", "A6"]) == "pyradice.skill_recess"
    assert setup_rule(skills=["A2", "B3", "C4", "A5", "A6"]) == "pyradice.skill_recess"
    assert new(skills=["B2", "B3", "A4", "B5", "A6"]).skills == ("B2", "B3", "A4", "B5", "A6")


def test_choose_each_side_or_randomly() -> None:
    """pyradice.token_side: 'Choose which side of each token you would like to play. Or,
    choose randomly.'"""
    seen = {GAME.new_state(2, seed=s).skills for s in range(12)}
    assert len(seen) > 1
    assert all(t[0] in "AB" and int(t[1]) == lv for sk in seen
               for lv, t in enumerate(sk, start=2))
    objectives = {GAME.new_state(2, seed=s).objectives for s in range(12)}
    assert all(len({t[1] for t in o}) == 5 and all(t[0] in "CD" for t in o)
               for o in objectives)


def test_objective_numbers_in_any_slot() -> None:
    """pyradice.objective_slots: 'The numbers can go in any of the available slots.'"""
    s = new(objectives=["C7", "D3", "C1", "D2", "C5"])
    assert s.objectives == ("C7", "D3", "C1", "D2", "C5")
    assert s.objective_levels == (1, 2, 3, 4, 5)


def test_two_objective_tokens_stay_in_the_box() -> None:
    """pyradice.objective_remaining: 'Return the 2 remaining Objective Tokens to the game
    box, they won't be needed.'"""
    assert len(new().objectives) == 5
    assert setup_rule(objectives=OBJECTIVES + ["C7"]) == "pyradice.matching_set"


def test_same_skill_tokens_in_the_same_order() -> None:
    """pyradice.same_tokens: 'Both players must place exactly the SAME tokens on their board
    in the same order.'"""
    good = {"skills": SKILLS, "objectives": OBJECTIVES}
    other = {"skills": ["A2", "A3", "A4", "A5", "B6"], "objectives": OBJECTIVES}
    assert setup_rule(boards=[good, other]) == "pyradice.same_tokens"


def test_all_boards_identical() -> None:
    """pyradice.identical_boards: 'All players' Pyramid Boards should be exactly the same.'
    The state keeps one set of tokens for every board."""
    good = {"skills": SKILLS, "objectives": OBJECTIVES}
    swapped = {"skills": SKILLS, "objectives": ["C1", "C6", "C2", "C3", "C4"]}
    assert setup_rule(boards=[good, swapped]) == "pyradice.identical_boards"
    s = GAME.new_state(2, setup=setup(boards=[good, good]))
    assert s.skills == tuple(SKILLS) and s.objectives == tuple(OBJECTIVES)


def test_four_objective_cards() -> None:
    """pyradice.objective_cards: 'Randomly choose 4 Objective Cards (or choose the ones you
    like best) and place them within view of all players.'"""
    assert [c for c, _ in new().cards] == ["K1", "K2", "K3", "K4"]
    assert setup_rule(cards=[["K1", "red"]] * 4) == "pyradice.objective_cards"
    assert setup_rule(cards=[["K1", "red"], ["K2", "red"]]) == "pyradice.objective_cards"
    drawn = GAME.new_state(2, seed=5).cards
    assert len({c for c, _ in drawn}) == 4


def test_a_coloured_disc_on_each_card() -> None:
    """pyradice.discs: 'Randomly place a colored disk on each Objective Card.'"""
    cards = [["K1", "red"], ["K2", "yellow"], ["K3", "green"], ["K4", "pink"]]
    assert setup_rule(cards=cards) == "pyradice.discs"
    s = GAME.new_state(2, seed=9)
    assert sorted(c for _, c in s.cards) == sorted(s.colours)  # 4 colours, one disc each


def test_highest_roll_goes_first() -> None:
    """pyradice.first_player: 'Each player rolls a die. Whoever gets the highest value is the
    first player.' (the players say who: setup first_player)"""
    s = new(3, first_player=2)
    assert GAME.to_move(s) == 2
    assert setup_rule(first_player=2) == "pyradice.first_player"


def test_pyramid_of_21() -> None:
    """pyradice.pyramid_shape: 'A pyramid holds 21 dice: levels of 6, 5, 4, 3, 2, 1 (INFERRED
    from 21 = 6+5+4+3+2+1 and "a free space immediately above 2 dice").'"""
    assert pm.SIZE == 21 and [len(pm.ON_LEVEL[lv]) for lv in range(1, 7)] == [6, 5, 4, 3, 2, 1]
    assert [pm.NAMES[m] for m in pm.RESTS_ON[pm.INDEX["2-1"]]] == ["1-1", "1-2"]
    assert [pm.NAMES[m] for m in pm.RESTS_ON[pm.INDEX["6-1"]]] == ["5-1", "5-2"]


def test_skill_tokens_on_levels_two_to_six() -> None:
    """pyradice.skill_levels: 'Skill tokens sit on levels 2–6 (none on level 1), one per
    level: ids A2..A6, the other side B2..B6.'"""
    s = new()
    assert s.skill_at(1) is None
    assert [s.skill_at(lv).id for lv in range(2, 7)] == SKILLS  # type: ignore[union-attr]


def test_objective_levels_option() -> None:
    """pyradice.objective_levels: 'Objective tokens: 5 of the 7 (C1..C7, other side D1..D7)
    are placed, one per level, apparently levels 1–5 (INFERRED: the example puts C6 on level
    1).' (option objective_levels)"""
    assert new().objective_levels == (1, 2, 3, 4, 5)
    assert new(options={"objective_levels": "2-6"}).objective_levels == (2, 3, 4, 5, 6)


# --- a turn -------------------------------------------------------------------------------------
def test_turns_alternate_from_the_first_player() -> None:
    """pyradice.turns: 'All players take alternating turns, starting with the 1st player,
    until the pyramids are fully built and the game ends'"""
    s = new(3, first_player=1)
    order = []
    for text in ("take L3-1 to 1-1", "take L3-4 to 1-1", "take L3-17 to 1-1",
                 "take L3-20 to 1-2"):
        order.append(s.current)
        s = play(s, text)
    assert order == [1, 2, 0, 1]
    assert [len([d for d in b if d]) for b in s.boards] == [1, 2, 1]


def test_take_a_die_from_the_quarry() -> None:
    """pyradice.take: 'Remove an available die from the Quarry Board.'"""
    s = play(new(), "take L3-1 to 1-1")
    assert s.quarry[2][0] is None and board(s) == {"1-1": "5 red"}
    assert rule_of(s, "take L3-1 to 1-1") == "pyradice.take"  # the slot is empty now
    assert rule_of(s, "take L9-1 to 1-1") == "pyradice.take"


def test_available_needs_three_visible_faces() -> None:
    """pyradice.available: 'A die is available when it has at least 3 visible faces (see below
    example).'"""
    s = new()
    with pytest.raises(IllegalActionError, match="2 visible faces"):
        GAME.apply(s, GAME.parse_action("take L3-2 to 1-1"))
    assert rule_of(s, "take L3-5 to 1-1") == "pyradice.available"  # the centre: its top only
    assert rule_of(s, "take L1-1 to 1-1") == "pyradice.available"  # under L2-1
    s = play(s, "take L3-1 to 1-1")
    assert "take L3-2 to 1-2" in legal(s) and "take L3-4 to 1-2" in legal(s)


def test_a_face_is_visible_when_no_die_covers_it() -> None:
    """pyradice.visible: 'A face is visible if it is not covered by another die.'"""
    geo = qy.geometry(((5, 5), (4, 4), (3, 3)))
    full = tuple(tuple(True for _ in layer) for layer in geo.names)
    assert qy.visible_faces(geo, full, 2, 0) == 3  # corner: top and two sides
    assert qy.visible_faces(geo, full, 2, 1) == 2  # edge: top and one side
    assert qy.visible_faces(geo, full, 2, 4) == 1  # centre: top only
    assert qy.visible_faces(geo, full, 1, 0) == 2  # middle layer corner: its top is covered


def test_bottom_never_counts_and_part_covered_is_covered() -> None:
    """pyradice.covered_faces: 'a die is available when at least 3 of its faces are not
    covered by another die (so at the start only the 4 corners of the top layer are
    available)'. The bottom face never counts; a partly covered face counts as covered."""
    geo = qy.geometry(((5, 5), (4, 4), (3, 3)))
    alone = (tuple(i == 12 for i in range(25)), (False,) * 16, (False,) * 9)
    assert qy.visible_faces(geo, alone, 0, 12) == 5  # top and four sides, not the bottom
    # L2-6 carries a quarter of each of L3-1, L3-2, L3-4, L3-5: with three of them gone, the
    # last quarter still covers its top.
    present = [list(layer) for layer in (tuple(True for _ in n) for n in geo.names)]
    for i in (0, 1, 3):
        present[2][i] = False
    frozen = tuple(tuple(row) for row in present)
    assert not qy.top_uncovered(geo, frozen, 1, 5)
    present[2][4] = False
    assert qy.top_uncovered(geo, tuple(tuple(row) for row in present), 1, 5)


def test_four_choices_at_the_start() -> None:
    """pyradice.start_choices: 'At the start of the game, the 1st player has only 4 choices
    to draw a die from the Pyramid (indicated in green).'"""
    for players in (2, 3, 4):
        s = GAME.new_state(players, seed=players)
        takes = {a.take for a in GAME.legal_actions(s)}
        geo = qy.geometry(s.dims)
        corners = {geo.names[2][0], geo.names[2][s.dims[2][1] - 1],
                   geo.names[2][-s.dims[2][1]], geo.names[2][-1]}
        assert takes == corners and len(takes) == 4


def test_place_without_changing_the_number() -> None:
    """pyradice.place_unchanged: 'Place the die you have taken (without changing its
    number!)'"""
    s = new()
    assert rule_of(s, "take L3-1 to 1-1 as 2") == "pyradice.place_unchanged"
    assert board(play(s, "take L3-1 to 1-1 as 5")) == {"1-1": "5 red"}


def test_place_on_an_empty_level_one_space() -> None:
    """pyradice.place_level1: 'either on an empty space on level 1 of your pyramid (the
    lowest level)'"""
    s = new()
    assert {a.to for a in GAME.legal_actions(s)} == {f"1-{i}" for i in range(1, 7)}
    s = play(s, "take L3-1 to 1-1", "take L3-3 to 1-1")
    assert rule_of(s, "take L3-7 to 1-1") == "pyradice.place_level1"


def test_place_above_two_placed_dice() -> None:
    """pyradice.place_above: 'in a free space immediately above 2 dice that have already
    been placed.'"""
    s = play(new(), "take L3-1 to 1-1", "take L3-3 to 1-1")
    assert rule_of(s, "take L3-7 to 2-1") == "pyradice.place_above"
    s = opened()
    assert "take L3-2 to 2-1" in legal(s) and "take L3-2 to 2-2" not in legal(s)
    assert rule_of(s, "take L3-2 to 2-2") == "pyradice.place_above"
    s = play(s, "take L3-2 to 2-1")
    assert board(s)["2-1"] == "6 yellow"


def test_no_skill_on_level_one() -> None:
    """pyradice.no_skill_level1: 'There are no Skills in the 1st level.'"""
    s = opened()
    assert rule_of(s, "take L3-2 to 1-3 use A2 +1 1-1") == "pyradice.no_skill_level1"
    assert all(not a.skills for a in GAME.legal_actions(s) if a.to.startswith("1-"))


def test_placing_on_a_skill_level_allows_its_skill() -> None:
    """pyradice.skill_level: 'When you place a die in your pyramid at a level that has a
    Skill, you can use that Skill on other dice in your pyramid.'"""
    s = opened()
    uses = {a.to_str() for a in GAME.legal_actions(s) if a.take == "L3-2" and a.to == "2-1"}
    assert uses == {"take L3-2 to 2-1", "take L3-2 to 2-1 use A2 +1 1-1",
                    "take L3-2 to 2-1 use A2 -1 1-1", "take L3-2 to 2-1 use A2 +1 1-2",
                    "take L3-2 to 2-1 use A2 -1 1-2"}
    after = play(s, "take L3-2 to 2-1 use A2 +1 1-1")
    assert board(after) == {"1-1": "6 red", "1-2": "5 green", "2-1": "6 yellow"}
    assert board(after, 1) == board(s, 1)  # only your own pyramid
    assert rule_of(s, "take L3-2 to 2-1 use B2 swap 1-1 1-2") == "pyradice.skill_level"


def test_another_levels_skill_breaks_the_level_rule() -> None:
    """pyradice.skill_level: 'When you place a die in your pyramid at a level that has a
    Skill, you can use that Skill on other dice in your pyramid.' Level 3's skill (A3) after
    placing on level 2 breaks this rule (the placed die's level gives the skill), not
    pyradice.skill_now ('…it must be done immediately'): nothing was saved or late."""
    s = opened()
    with pytest.raises(IllegalActionError) as info:
        GAME.apply(s, GAME.parse_action("take L3-2 to 2-1 use A3 rotate 1-1"))
    assert info.value.rule.id == "pyradice.skill_level"
    assert "A3 is the skill of level 3; the die went to level 2, whose skill is A2" \
        in str(info.value)


def test_the_sheet_says_how_each_skill_works() -> None:
    """pyradice.skill_sheet: 'The Token Reference Sheet has more details about how to use
    each Skill.' (the definitions the players entered)"""
    s = opened()
    assert rule_of(s, "take L3-2 to 2-1 use A2 +2 1-1") == "pyradice.skill_sheet"
    assert rule_of(s, "take L3-2 to 2-1 use A2 rotate 1-1") == "pyradice.skill_sheet"
    assert rule_of(s, "take L3-2 to 2-1 use A2 +1 1-3") == "pyradice.skill_sheet"  # no die
    s2 = play(s, "take L3-2 to 2-1 use A2 +1 1-1", "take L3-4 to 1-3", "take L3-6 to 1-3",
              "take L3-8 to 1-4", "take L2-1 to 1-4", "take L2-4 to 1-5")
    assert board(s2)["1-1"] == "6 red" and s2.current == 0
    with pytest.raises(IllegalActionError, match="6\\+1 is not a die value"):
        GAME.apply(s2, GAME.parse_action("take L2-13 to 2-2 use A2 +1 1-1"))


def test_never_on_the_die_just_placed() -> None:
    """pyradice.not_placed_die: 'You can never use a Skill on the die you have just placed.'"""
    s = opened()
    assert rule_of(s, "take L3-2 to 2-1 use A2 -1 2-1") == "pyradice.not_placed_die"


def test_skill_now_or_never() -> None:
    """pyradice.skill_now: 'You are not obliged to use the Skill, but if you do, it must be
    done immediately. It cannot be saved for a future turn.'"""
    s = opened()
    after = play(s, "take L3-2 to 2-1")  # not obliged
    assert board(after)["1-1"] == "5 red"
    # A2 was not used when the die went to level 2: it is not kept for a later turn
    later = play(after, "take L3-4 to 1-3")
    assert rule_of(later, "take L3-6 to 1-3 use A2 +1 1-1") == "pyradice.no_skill_level1"


def test_one_skill_per_turn() -> None:
    """pyradice.one_skill: 'You can only use ONE Skill per turn.'"""
    s = opened()
    assert rule_of(s, "take L3-2 to 2-1 use A2 +1 1-1 use A2 +1 1-2") == "pyradice.one_skill"


def test_a3_rotates_a_die_180() -> None:
    """pyradice.a3: 'The player has placed a die on the 3rd level, which allows them to use
    the Skill A3 - rotate a die 180°.'"""
    s = play(opened(), "take L3-2 to 2-1", "take L3-4 to 1-3", "take L3-6 to 1-3",
             "take L3-8 to 1-4", "take L2-1 to 2-2", "take L2-4 to 1-5", "take L2-13 to 1-4",
             "take L2-16 to 1-6")
    assert s.current == 0 and s.skill_at(3).id == "A3"  # type: ignore[union-attr]
    assert "3-1" in {a.to for a in GAME.legal_actions(s)}
    uses = {a.skills[0].to_str() for a in GAME.legal_actions(s) if a.to == "3-1" and a.skills}
    assert uses == {f"use A3 rotate {sp}" for sp in ("1-1", "1-2", "1-3", "1-4", "2-1",
                                                     "2-2")}


def test_rotating_turns_a_2_into_a_5() -> None:
    """pyradice.rotate: 'They choose a die that is on the 1st level, rotating it 180°. It
    changes from a value of 2 to a value of 5'"""
    from engine.games.pyradice.skills import Use, apply_use
    b = list(pm.EMPTY)
    for v in range(1, 7):
        b[v - 1] = (v, "red")
    for v in range(1, 7):
        after = apply_use(tuple(b), Use("A3", "rotate", f"1-{v}"))
        assert after[v - 1] == (7 - v, "red")
    assert apply_use(tuple(b), Use("A3", "rotate", "1-2"))[1] == (5, "red")


def test_c6_every_die_shows_3_or_5() -> None:
    """pyradice.c6: 'indicated by the Objective Token C6. In this case, to only have dice with
    a value of 3 and/or 5 on the 1st level.'"""
    from engine.games.pyradice import example_sheet
    from engine.games.pyradice.vocabulary import objective_met
    c6 = example_sheet().objectives["C6"]
    assert c6.provenance.startswith("VERIFIED")
    colours = ("red",)
    assert objective_met(c6, [(3, "red"), (5, "red"), (5, "red")] * 2, colours)
    assert objective_met(c6, [(3, "red")] * 6, colours)
    assert not objective_met(c6, [(3, "red"), (5, "red"), (2, "red")] * 2, colours)


# --- end and scoring ------------------------------------------------------------------------
def test_ends_when_every_pyramid_holds_21() -> None:
    """pyradice.end: 'When all the pyramids are complete (with 21 dice), the game ends.'"""
    match = playout(GAME, 2, seed=11)
    states = [match.initial]
    for text in match.actions:
        states.append(GAME.apply(states[-1], GAME.parse_action(text))[0])
    assert all(GAME.outcome(st) is None for st in states[:-1])
    end = states[-1]
    assert GAME.outcome(end) is not None and GAME.legal_actions(end) == []
    assert all(pm.complete(b) for b in end.boards) and GAME.to_move(end) is None


def test_game_over() -> None:
    """pyradice.game_over: 'No action is possible once the game is over.'"""
    end = playout(GAME, 2, seed=12).state
    assert rule_of(end, "take L1-1 to 1-1") == "pyradice.game_over"


def test_rules_are_quoted() -> None:
    assert all(r.text == " ".join(r.text.split()) for r in RULES.values())
    assert isinstance(replace(new(), turn=1), PyradiceState)


def test_a_turn_keeps_every_other_field_of_the_state() -> None:
    """A turn's state is made field by field (Pyradice._apply, for speed): it is the state
    before with the quarry, the pyramids, the player to move and the turn replaced, and a
    field added to the state must be added there too."""
    from dataclasses import fields

    s = play(new(), "take L3-1 to 1-1")
    after = GAME.apply(s, GAME.parse_action("take L3-3 to 1-1"))[0]
    changed = {"quarry", "boards", "current", "turn"}
    assert [f.name for f in fields(PyradiceState)] == [
        "players", "options", "colours", "dims", "quarry", "skills", "objectives", "cards",
        "defs", "boards", "current", "turn", "first"]
    assert after == replace(s, **{n: getattr(after, n) for n in changed})
    assert all(getattr(after, n) != getattr(s, n) for n in changed)
