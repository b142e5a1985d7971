"""Pyramid Dice: one test per rule sentence of shared/rules/pyramid-dice-rules-en.md (quoted;
checked against the Japanese original), plus the named options.

The fixed table used here (example cards, default 7-row layout): the front row r7c1..r7c7
holds t6 (6), t9 (9), t13 (13), g1 (14, flip), t7 (7), t12 (12), g2 (15, +1); row 6 holds
t1..t5 (1..5) and t8 (8); row 5 t10, t11, g3 (16, set3), g4 (18, set4), g5 (19, set5).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from pyramid_dice_table import holding, new, placement, play

from engine import IllegalActionError, InvalidActionError, InvalidStateError, get_game
from engine.games.pyramid_dice import PyramidState
from engine.games.pyramid_dice import table as t
from engine.games.pyramid_dice.cards import default_layout

GAME = get_game("pyramid dice")


def legal(state: PyramidState) -> list[str]:
    return [a.to_str() for a in GAME.legal_actions(state)]


def rule_of(state: PyramidState, text: str) -> str:
    with pytest.raises(IllegalActionError) as info:
        GAME.apply(state, GAME.parse_action(text))
    return info.value.rule.id


# --- setup ---------------------------------------------------------------------------------
def test_players_one_to_five() -> None:
    """pyramid_dice.players: 'A turn (2–5 players; solo rules below)' and 5 Ra cards."""
    for n in range(1, 6):
        assert GAME.new_state(n).players == n
    for n in (0, 6):
        with pytest.raises(InvalidStateError, match="1 to 5"):
            GAME.new_state(n)


def test_setup_ra_single_icon_side_up() -> None:
    """pyramid_dice.setup_ra: 'Each player takes one Ra card and lays it with the single-icon
    side up.'"""
    s = new(3)
    assert s.strengthened == (False, False, False)
    ras = [e for e in GAME.expected_view(s) if e.attr("card") == "ra"]
    assert sorted(e.zone for e in ras) == ["area:0", "area:1", "area:2"]
    assert {e.attr("side") for e in ras} == {"single"}


def test_setup_pyramid_twos_from_the_apex() -> None:
    """pyramid_dice.setup_pyramid: 'Lay the "2" cards face up starting at the apex of the
    pyramid, overlapping as in the (missing) picture; when the "2" cards run out, continue
    with the "1" cards until the pyramid is complete.'"""
    order = default_layout()[1]
    for seed in range(5):
        s = GAME.new_state(2, seed=seed)
        slot_card = dict(s.pyramid)
        backs = [t.card(s, slot_card[x]).back for x in order]
        assert backs == [2] * 10 + [1] * 18
    assert GAME.new_state(2, seed=1) == GAME.new_state(2, seed=1)
    assert GAME.new_state(2, seed=1).pyramid != GAME.new_state(2, seed=2).pyramid
    bad = placement()
    bad["r1c1"], bad["r7c1"] = bad["r7c1"], bad["r1c1"]
    with pytest.raises(InvalidStateError, match="'2' cards are laid from the apex"):
        GAME.new_state(2, setup={"placement": bad})


def test_first_player_is_chosen() -> None:
    s = GAME.new_state(3, setup={"first_player": 2})
    assert GAME.to_move(s) == 2
    with pytest.raises(InvalidStateError):
        GAME.new_state(2, setup={"first_player": 2})


# --- a turn --------------------------------------------------------------------------------
def test_dice_are_six_sided() -> None:
    """pyramid_dice.dice: '3 ordinary six-sided dice.' A roll is one of 56 multisets with
    its multinomial probability."""
    s = new()
    outcomes = GAME.chance_outcomes(s)
    assert len(outcomes) == 56 and abs(sum(p for _, p in outcomes) - 1) < 1e-12
    odds = {a.to_str(): p for a, p in outcomes}
    assert odds["roll 1 1 1"] == pytest.approx(1 / 216)
    assert odds["roll 1 2 3"] == pytest.approx(6 / 216)
    assert odds["roll 1 1 2"] == pytest.approx(3 / 216)
    assert rule_of(s, "roll 0 3 4") == "pyramid_dice.dice"
    assert rule_of(s, "roll 2 3 7") == "pyramid_dice.dice"


def test_roll_all_three_first() -> None:
    """pyramid_dice.roll: 'Roll all 3 dice.' Nothing else comes first, and once only."""
    s = new()
    assert rule_of(s, "take r7c1") == "pyramid_dice.roll"
    assert rule_of(s, "remove r7c1") == "pyramid_dice.roll"
    s = play(s, "roll 4 2 3")
    assert s.values == (2, 3, 4) and s.phase == "act"
    assert rule_of(s, "roll 1 1 1") == "pyramid_dice.roll"


def test_take_one_card_whose_number_is_the_answer() -> None:
    """pyramid_dice.number: 'Combine ALL three results with + − × ÷ and take exactly ONE
    pyramid card whose number equals the answer.'"""
    s = play(new(), "roll 2 3 4")
    assert rule_of(s, "take r7c3") == "pyramid_dice.number"  # 13 cannot be made
    s2 = play(s, "take r7c1")  # 6 = 4÷2×3
    assert s2.areas[0] == ("t6",) and s2.current == 1 and s2.phase == "roll"
    assert rule_of(s2, "take r7c2") == "pyramid_dice.roll"  # one card, then the turn passes


def test_each_result_used_exactly_once() -> None:
    """pyramid_dice.use_all: 'Each of the three results must be used exactly once.'"""
    s = play(new(), "roll 2 3 4")
    assert rule_of(s, "take r7c5") == "pyramid_dice.use_all"  # 7 = 3+4 leaves the 2 out
    assert rule_of(s, "take r7c6") == "pyramid_dice.use_all"  # 12 = 3×4 leaves the 2 out


def test_order_of_calculation_is_free() -> None:
    """pyramid_dice.free_order: 'The order of calculation is free: no "multiplication first"
    precedence.' 2+4×3 read left to right is 18: the card 18 may be taken."""
    s = play(holding(new(), 1, "t6", "t9", "t13", "g1", "t7", "t12", "g2", "t4", "t5"),
             "roll 2 3 4")
    assert t.is_uncovered(s, "r5c4") and t.in_slot(s, "r5c4") == "g4"  # number 18
    assert "take r5c4" in legal(s)
    events = GAME.apply(s, GAME.parse_action("take r5c4"))[1]
    assert "18 = (2+4)×3" in events[0].text


def test_only_uncovered_cards() -> None:
    """pyramid_dice.uncovered: 'Only cards not hidden by other cards can be taken.'"""
    s = play(new(), "roll 1 1 1")  # makes 1 (t1, in r6c1) and 3
    assert rule_of(s, "take r6c1") == "pyramid_dice.uncovered"
    s = play(holding(new(), 1, "t6", "t9"), "roll 1 1 1")
    assert "take r6c1" in legal(s)  # both cards in front of it are gone
    assert rule_of(s, "take r6c2") == "pyramid_dice.uncovered"  # t9 gone, t13 still there


def test_abilities_need_the_god_card() -> None:
    """pyramid_dice.abilities: 'God-card abilities may be used to change dice results
    (below).' Only with a god card in front of you."""
    s = play(new(), "roll 2 3 4")
    assert rule_of(s, "+1 3") == "pyramid_dice.abilities"
    assert rule_of(s, "+1 3 by g2") == "pyramid_dice.abilities"  # g2 lies in the pyramid
    s = play(holding(new(), 0, "g2"), "roll 2 3 4")
    assert rule_of(s, "+1 5 by g2") == "pyramid_dice.abilities"  # no die shows 5
    s = play(s, "+1 3 by g2")
    assert s.values == (2, 4, 4)


def test_taken_cards_go_in_front_of_the_player() -> None:
    """pyramid_dice.take: 'If you take a card: a treasure card goes in front of you,
    overlapped so that its points stay visible to everyone; a god card goes in front of you
    with its ability visible. Play passes clockwise.'"""
    s = play(new(3), "roll 2 3 4", "take r7c4")  # 14 = 3×4+2: g1 (flip)
    assert s.areas[0] == ("g1",) and s.got_god[0] and s.current == 1
    s = play(s, "roll 1 2 3", "take r7c1")  # 6
    assert s.areas[1] == ("t6",) and s.current == 2
    view = GAME.expected_view(s)
    assert any(e.zone == "area:1" and e.attr("card") == "t6" for e in view)
    s = play(s, "roll 1 1 1", "remove r7c7")
    assert s.current == 0  # clockwise, back to P1
    assert "flip 1 by g1" in legal(play(s, "roll 1 1 2"))  # usable from the next turn on


def test_cannot_take_remove_one_to_the_side() -> None:
    """pyramid_dice.fail_remove: 'If you cannot take a card: take one card that is currently
    takeable in the pyramid, remove it from the pyramid and put it in an empty place beside
    it.'"""
    s = play(new(), "roll 1 1 1")  # makes 1, 2 and 3: no front-row card
    assert not any(a.startswith("take") for a in legal(s))
    assert rule_of(s, "remove r6c1") == "pyramid_dice.fail_remove"  # covered
    assert rule_of(s, "remove r9c9") == "pyramid_dice.fail_remove"  # no such card
    assert rule_of(s, "pass") == "pyramid_dice.fail_remove"  # the pyramid has cards
    assert rule_of(s, "give up") == "pyramid_dice.fail_remove"  # that is for solo play
    s2 = play(s, "remove r7c3")
    assert s2.side == ("t13",) and t.in_slot(s2, "r7c3") is None and s2.current == 1


def test_side_area_cards_are_takeable_by_anyone() -> None:
    """pyramid_dice.side_area: 'Anyone may take that card later (with the right number).'"""
    s = play(new(), "roll 1 1 1", "remove r7c3")  # 13 to the side
    assert rule_of(play(s, "roll 2 3 4"), "take side t13") == "pyramid_dice.number"
    s = play(s, "roll 1 3 4", "take side t13")  # 13 = 3×4+1
    assert s.side == () and s.areas[1] == ("t13",)


def test_ability_is_the_icon_on_the_card() -> None:
    """pyramid_dice.icon: 'God-card abilities (the icon on the card)'"""
    s = play(holding(new(), 0, "g1"), "roll 2 3 4")
    assert rule_of(s, "+1 3 by g1") == "pyramid_dice.icon"
    assert rule_of(s, "reroll 1 2 3 by g1") == "pyramid_dice.icon"


def test_flip_turns_a_die_upside_down() -> None:
    """pyramid_dice.flip: 'turn one die upside down (1⇔6, 2⇔5, 3⇔4)'"""
    s = play(holding(new(), 0, "g1", "g6"), "roll 2 3 4", "flip 2 by g1")
    assert s.values == (3, 4, 5) and [f for _, f in s.dice] == [3, 4, 5]
    s = play(s, "+2 5 by g6")  # 7: a die above 6 has no opposite face
    assert rule_of(s, "flip 7") == "pyramid_dice.flip"


def test_one_ability_per_turn_any_number_of_times() -> None:
    """pyramid_dice.god_any_times: 'A god card's ability may be used any number of times over
    the game, if you use one per turn.'"""
    s = play(holding(new(), 0, "g2"), "roll 2 3 4", "+1 2 by g2", "take r7c2")  # 9 = 3×4−3
    assert "g2" in s.areas[0]
    s = play(s, "roll 6 6 6", "remove r7c3", "roll 1 1 2", "+1 2 by g2")
    assert "g2" in s.areas[0] and s.boxed == ()


def test_second_ability_in_a_turn_goes_to_the_box() -> None:
    """pyramid_dice.god_limit: 'To use two or more abilities in one turn: from the second one
    on, return that card to the box after using it.'"""
    s = play(holding(new(), 0, "g1", "g2"), "roll 2 3 4", "flip 2 by g1")
    assert "g1" in s.areas[0]
    s2, events = GAME.apply(s, GAME.parse_action("+1 5 by g2"))
    assert s2.boxed == ("g2",) and "g2" not in s2.areas[0] and s2.values == (3, 4, 6)
    assert any(e.kind == "boxed" for e in events)
    assert rule_of(s2, "+1 3 by g2") == "pyramid_dice.abilities"  # it is in the box now
    assert not any(e.zone == "box" or e.attr("card") == "g2" for e in GAME.expected_view(s2))


def test_first_card_reused_then_boxed() -> None:
    """pyramid_dice.god_reuse: 'The card used first may also be used again in the same turn
    if you then return it to the box.'"""
    s = play(holding(new(), 0, "g2"), "roll 2 3 4", "+1 2 by g2")
    s = play(s, "+1 3 by g2")
    assert s.values == (3, 4, 4) and s.boxed == ("g2",) and s.areas[0] == ()


def test_ra_rerolls_once_per_turn() -> None:
    """pyramid_dice.ra_reroll: Ra is also a god card (ラーカードも神カードです); its
    single-icon side re-rolls all three dice once per turn (INFERRED, option ra_rerolls)."""
    s = play(new(), "roll 6 6 6")
    assert sum(1 for a in legal(s) if a.endswith("by ra")) == 56
    s = play(s, "reroll 2 3 4 by ra")
    assert s.values == (2, 3, 4) and s.ra_used == 1
    assert rule_of(s, "reroll 1 1 1 by ra") == "pyramid_dice.ra_reroll"
    s = play(s, "take r7c1", "roll 6 6 6", "remove r7c3", "roll 6 6 6")
    assert "reroll 1 1 1 by ra" in legal(s)  # a new turn
    s0 = play(new(ra_rerolls=0), "roll 6 6 6")
    assert rule_of(s0, "reroll 1 1 1 by ra") == "pyramid_dice.ra_reroll"


def _all_gods_taken(state: PyramidState, by: int) -> PyramidState:
    gods = tuple(c.id for c in state.cards if c.kind == "god")
    return holding(state, by, *gods)


def test_ra_strengthens_when_all_gods_are_taken_and_you_have_none() -> None:
    """pyramid_dice.ra_strengthen: 'If all god cards in the pyramid have been taken and a
    player obtained none, that player may turn their Ra card to its strengthened side'"""
    s = new(3)
    assert rule_of(s, "ra strengthen P2") == "pyramid_dice.ra_strengthen"
    s = _all_gods_taken(s, 0)
    assert rule_of(s, "ra strengthen P1") == "pyramid_dice.ra_strengthen"  # P1 has gods
    assert "ra strengthen P2" in legal(s) and "ra strengthen P3" in legal(s)
    s2 = play(s, "ra strengthen P3")
    assert s2.strengthened == (False, False, True)
    assert rule_of(s2, "ra strengthen P3") == "pyramid_dice.ra_strengthen"
    side = replace(s, areas=(tuple(c for c in s.areas[0] if c != "g7"), (), ()),
                   side=("g7",))
    assert rule_of(side, "ra strengthen P2") == "pyramid_dice.ra_strengthen"  # g7 not taken


def test_strengthened_ra_rerolls_twice() -> None:
    """pyramid_dice.ra_two: 'it then allows two re-rolls per turn (rotate the card 90° at
    each use to keep track).'"""
    s = play(_all_gods_taken(new(), 1), "ra strengthen P1", "roll 6 6 6",
             "reroll 5 5 5 by ra")
    view = {e.attr("card"): e for e in GAME.expected_view(s) if e.zone == "area:0"}
    assert view["ra"].attr("side") == "strengthened" and view["ra"].attr("turned") == "1"
    s = play(s, "reroll 4 5 5 by ra")
    assert rule_of(s, "reroll 1 1 1 by ra") == "pyramid_dice.ra_two"


def test_ra_counts_toward_limit_option() -> None:
    s = play(holding(new(ra_counts_toward_limit=True), 0, "g2"), "roll 6 6 6",
             "reroll 2 3 4 by ra", "+1 2 by g2")
    assert s.boxed == ("g2",)
    s = play(holding(new(), 0, "g2"), "roll 6 6 6", "reroll 2 3 4 by ra", "+1 2 by g2")
    assert s.boxed == ()


# --- end ---------------------------------------------------------------------------------
def _only(state: PyramidState, slot: str | None, side: tuple[str, ...] = ()) -> PyramidState:
    """Everything but the card in ``slot`` (and ``side``) goes to P2's area."""
    keep = {c for s, c in state.pyramid if s == slot} | set(side)
    rest = tuple(c for _, c in state.pyramid if c not in keep)
    s = holding(state, 1, *rest)
    return replace(s, pyramid=tuple(x for x in state.pyramid if x[0] == slot), side=side)


def test_game_ends_when_no_pyramid_cards_remain() -> None:
    """pyramid_dice.end: 'The game ends when no pyramid cards remain.' The side area's cards
    are pyramid cards too (ピラミッドカードが全てなくなったら; option end_when)."""
    s = _only(new(), "r7c1")  # t6 (6)
    s2, events = GAME.apply(play(s, "roll 2 3 4"), GAME.parse_action("take r7c1"))
    assert s2.phase == "over" and s2.ended == "all_taken" and events[-1].kind == "end"
    assert legal(s2) == []
    s3 = play(s, "roll 6 6 6", "remove r7c1")  # the pyramid is empty, t6 is in the side area
    assert s3.phase == "roll" and "pass" in legal(play(s3, "roll 6 6 6"))
    assert play(s3, "roll 2 3 4", "take side t6").ended == "all_taken"
    s4 = play(replace(s, options=tuple(
        (k, "pyramid_empty" if k == "end_when" else v) for k, v in s.options)),
        "roll 6 6 6", "remove r7c1")
    assert s4.ended == "pyramid_empty"


def test_game_over_allows_nothing() -> None:
    """pyramid_dice.game_over: 'No action is possible once the game is over.'"""
    s = play(_only(new(), "r7c1"), "roll 2 3 4", "take r7c1")
    assert rule_of(s, "roll 1 2 3") == "pyramid_dice.game_over"
    assert GAME.to_move(s) is None


def _final(areas: tuple[tuple[str, ...], ...],
           hidden: tuple[tuple[str, ...], ...] | None = None) -> PyramidState:
    s = new(len(areas))
    used = {c for a in areas for c in a} | {c for h in hidden or () for c in h}
    box = tuple(c.id for c in s.cards if c.id not in used)
    return replace(s, pyramid=(), areas=areas, hidden=hidden or ((),) * len(areas),
                   boxed=box, phase="over", ended="all_taken")


def test_highest_points_then_more_treasure_cards_then_shared() -> None:
    """pyramid_dice.winner: 'Highest total of points on acquired cards wins. Tie: more
    treasure cards wins; still tied: shared victory.'"""
    # t18 is 5 points; t14 3; t1..t7 1 each; t8 2
    s = _final((("t18",), ("t14",)))
    assert GAME.outcome(s).winners == (0,)  # type: ignore[union-attr]
    assert [x.total for x in GAME.score(s)] == [5, 3]
    s = _final((("t14", "t1", "t2"), ("t18",)))  # 5 points each, 3 treasure cards vs 1
    out = GAME.outcome(s)
    assert out is not None and out.winners == (0,) and "treasure" in out.reason
    s = _final((("t14", "t8"), ("t18",), ("t1", "t2", "t3", "t4", "t5")))
    assert GAME.outcome(s).winners == (2,)  # type: ignore[union-attr]
    s = _final((("t14", "t1", "t2"), ("t16", "t3", "t4")))  # 5 points, 3 treasures each
    out = GAME.outcome(s)
    assert out is not None and out.winners == (0, 1) and "shared" in out.reason


JA_SHEET = Path(__file__).resolve().parents[3] / "shared/rules/pyramid-dice-rules-ja.txt"
STALL_JA = ("※まれに最後の1枚が誰も取れない状態が長く続く場合があります。"
            "2周くらいして誰も取れなければ終了しても良いでしょう。")
SNATCH_JA = "次のプレイヤーが何も言わなければその次のプレイヤーに権利があります。"


def test_the_stall_and_snatch_sentences_are_the_sheets() -> None:
    """The Japanese sentences the stall and snatch tests below quote are the sheet's."""
    if not JA_SHEET.is_file():
        pytest.skip(f"{JA_SHEET} is not here (../shared is absent): cannot check the quotes")
    sheet = "".join(JA_SHEET.read_text(encoding="utf-8").split())
    assert STALL_JA in sheet and SNATCH_JA in sheet


def test_stall_rule_ends_after_two_rounds_nobody_could_take_the_last_card() -> None:
    """pyramid_dice.stall: 'Rarely the last card stays untakeable for a long time; if nobody
    takes it in about two rounds, the players may end the game.' (JA: 「※まれに最後の1枚が
    誰も取れない状態が長く続く場合があります。2周くらいして誰も取れなければ終了しても良いで
    しょう。」; options stall_rounds=2, stall_cards=1)"""
    s = _only(new(), None, side=("t21",))  # 36: only 6 6 1, 4 3 3…
    assert rule_of(s, "end") == "pyramid_dice.stall"
    for _ in range(3):
        s = play(s, "roll 1 1 1", "pass")
    assert s.stuck_turns == 3 and rule_of(s, "end") == "pyramid_dice.stall"
    s = play(s, "roll 1 1 1", "pass")
    assert "end" in legal(s)
    assert rule_of(play(s, "roll 1 1 1"), "end") == "pyramid_dice.stall"  # at a turn's start
    done = play(s, "end")
    assert done.ended == "stall" and "stall" in GAME.outcome(done).reason  # type: ignore
    off = replace(s, options=tuple((k, 0 if k == "stall_rounds" else v)
                                   for k, v in s.options))
    assert rule_of(off, "end") == "pyramid_dice.stall"


def test_stall_rule_is_about_the_last_card_only() -> None:
    """pyramid_dice.stall, 最後の1枚 (the LAST card): four give-ups at the start, nobody able
    to take a card (1 1 1 makes 1, 2 and 3 only, none of them takeable here), leave 28 cards
    in play: the stall rule does not apply, however long nobody can take a card (the
    referee's probe: 'end' was legal with 24 cards in the pyramid and 4 in the side area)."""
    s = new()
    for slot in ("r7c7", "r7c6", "r7c5", "r7c4"):
        s = play(s, "roll 1 1 1", f"remove {slot}")
    assert s.stuck_turns == 4 and len(s.pyramid) == 24 and len(s.side) == 4
    assert "end" not in legal(s)
    with pytest.raises(IllegalActionError, match="28 cards are left"):
        GAME.apply(s, GAME.parse_action("end"))
    # the option for "the last N cards": with 28 allowed, four stuck turns suffice
    many = replace(s, options=tuple((k, 28 if k == "stall_cards" else v)
                                    for k, v in s.options))
    assert "end" in legal(many)


def test_stall_rule_counts_only_turns_nobody_could_take_a_card() -> None:
    """pyramid_dice.stall, 誰も取れなければ (if nobody COULD take it): a give-up while the dice
    made the last card's number is no stalled turn; it starts the count again. The last card
    is t6 (6) in the side area; 1 1 1 makes 3 at most, 2 2 2 makes 6."""
    s = _only(new(), None, side=("t6",))
    s = play(s, "roll 1 1 1", "pass", "roll 1 1 1", "pass", "roll 1 1 1", "pass")
    assert s.stuck_turns == 3
    s = play(s, "roll 2 2 2", "pass")  # 2+2+2 = 6: it could have been taken
    assert s.stuck_turns == 0 and "end" not in legal(s)
    for _ in range(4):
        assert "end" not in legal(s)
        s = play(s, "roll 1 1 1", "pass")
    assert "end" in legal(s)
    # a turn is judged on the table before its removal: 1 1 1 makes 1, which the second
    # removal uncovers (t1 in r6c1), too late for that turn
    s = play(new(), "roll 1 1 1", "remove r7c1", "roll 1 1 1", "remove r7c2")
    assert t.is_uncovered(s, "r6c1") and s.stuck_turns == 2


def test_stall_rule_with_a_card_set_no_roll_can_make() -> None:
    """pyramid_dice.stall: with cards whose numbers no roll makes, 'end' still waits for the
    last card (the referee's probe: 'end' was legal with all 28 cards in play)."""
    cards = [{"id": f"t{i}", "kind": "treasure", "number": 500 + i, "points": 1,
              "back": 2 if i <= 10 else 1} for i in range(1, 22)]
    cards += [{"id": f"g{i}", "kind": "god", "number": 600 + i, "points": 0, "back": 1,
               "ability": "flip"} for i in range(1, 8)]
    s = GAME.new_state(2, setup={"cards": {"provenance": "test", "cards": cards}}, seed=1)
    slots = [slot for slot, _ in t.uncovered(s)]
    for i in range(8):
        s = play(s, "roll 1 2 3", f"remove {slots[i % len(slots)]}")
        slots = [slot for slot, _ in t.uncovered(s)]
    assert s.stuck_turns == 8 and t.cards_left(s) == 28
    assert "end" not in legal(s) and rule_of(s, "end") == "pyramid_dice.stall"


# --- optional rules ------------------------------------------------------------------------
def test_hard_mode_boxes_every_god_card_after_one_use() -> None:
    """pyramid_dice.hard_mode: 'Hard mode: every god card except the Ra cards goes back to
    the box after one use.'"""
    s = play(holding(new(hard_mode=True), 0, "g2"), "roll 6 6 6", "reroll 2 3 4 by ra",
             "+1 2 by g2")
    assert s.boxed == ("g2",) and s.ra_used == 1
    s = play(s, "take r7c2", "roll 6 6 6", "remove r7c3", "roll 6 6 6")
    assert "reroll 1 1 1 by ra" in legal(s)  # Ra stays


def test_snatch_takes_a_card_from_the_same_dice() -> None:
    """pyramid_dice.snatch: 'Snatch (横取り): when the active player gives up taking a card,
    the next player may take ONE card that can be made from the same dice results without
    changing them; if that player says nothing the right passes to the following player.'"""
    s = play(new(3, snatch=True), "roll 2 3 4")
    assert "snatch P2 r7c2" in legal(s) and "snatch P3 r7c2 after P2 passed" in legal(s)
    assert rule_of(s, "snatch P1 r7c2") == "pyramid_dice.snatch"  # not the active player
    assert rule_of(s, "snatch P2 r7c3") == "pyramid_dice.snatch"  # 13 not from 2 3 4
    assert rule_of(s, "snatch P2 r6c1") == "pyramid_dice.uncovered"
    s2 = play(s, "snatch P3 r7c2 after P2 passed")  # P2 said nothing; P3 snatches
    assert s2.hidden == ((), (), ("t9",)) and s2.areas == ((), (), ())
    off = play(new(3), "roll 2 3 4")
    assert rule_of(off, "snatch P2 r7c2") == "pyramid_dice.snatch"


def test_the_next_player_has_the_right_to_snatch_first() -> None:
    """pyramid_dice.snatch: 'the next player may take ONE card …; if that player says nothing
    the right passes to the following player.' (JA: 「次のプレイヤーが何も言わなければその次の
    プレイヤーに権利があります。」) A later player's snatch states that the players between
    said nothing; without it, it is refused (the camera cannot see 'saying nothing': the
    phone asks, engine.reconcile)."""
    s = play(new(4, snatch=True), "roll 2 3 4")
    assert "snatch P3 r7c2" not in legal(s)
    with pytest.raises(IllegalActionError, match="P2 had the right first") as info:
        GAME.apply(s, GAME.parse_action("snatch P3 r7c2"))
    assert info.value.rule.id == "pyramid_dice.snatch"
    assert rule_of(s, "snatch P4 r7c2 after P2 passed") == "pyramid_dice.snatch"  # and P3?
    assert rule_of(s, "snatch P2 r7c2 after P4 passed") == "pyramid_dice.snatch"  # next
    after = play(s, "snatch P4 r7c2 after P2 P3 passed")
    assert after.hidden[3] == ("t9",) and after.current == 1
    action = GAME.parse_action("snatch P4 side t9 after P2 P3 passed")
    assert action.to_str() == "snatch P4 side t9 after P2 P3 passed"
    assert action.unseen_claim == "Did P2 and P3 say nothing (pass) before P4 snatched side t9?"
    assert GAME.parse_action("snatch P2 r7c2").unseen_claim is None
    for bad in ("snatch P3 r7c2 after passed", "snatch P3 after P2 passed",
                "snatch P3 r7c2 after P2"):
        with pytest.raises(InvalidActionError):
            GAME.parse_action(bad)


def test_snatch_cannot_use_god_cards() -> None:
    """pyramid_dice.snatch_no_gods: 'God cards cannot be used for this.' The snatcher's god
    cards do not change the dice: 13 needs +1 on the 2 (3×3+4); P2's +1 card does not help."""
    s = play(holding(new(3, snatch=True), 1, "g2"), "roll 2 3 4")
    assert rule_of(s, "snatch P2 r7c3") == "pyramid_dice.snatch"  # 13 = 3×3+4 only with +1
    assert not any(a.startswith(("+1", "flip")) for a in legal(s))  # P1 holds no god card


def test_snatched_card_scores_its_back_number() -> None:
    """pyramid_dice.snatch_score: 'A card taken this way is turned face down and the number on
    its back is its score.'"""
    s = play(new(2, snatch=True), "roll 2 3 4", "snatch P2 r7c4")  # g1, back 1
    assert GAME.score(s)[1].total == 1 and s.got_god == (False, False)
    view = [e for e in GAME.expected_view(s) if e.zone == "area:1" and e.attr("card") != "ra"]
    assert [e.attr("card") for e in view] == ["back:1"]


def test_snatch_god_cards_option() -> None:
    s = play(new(2, snatch=True, snatch_god_cards=False), "roll 2 3 4")
    assert rule_of(s, "snatch P2 r7c4") == "pyramid_dice.snatch_god_cards"


def test_play_resumes_after_the_previous_active_player() -> None:
    """pyramid_dice.snatch_restart: 'Play then resumes with the player after the previous
    active player.'"""
    s = play(new(3, snatch=True), "roll 2 3 4", "snatch P3 r7c2 after P2 passed")
    assert s.current == 1 and s.phase == "roll"


def test_must_take_option() -> None:
    """Option may_give_up=false (pyramid_dice.must_take): a player whose dice make a
    takeable card may not give up."""
    s = play(new(may_give_up=False), "roll 2 3 4")
    assert rule_of(s, "remove r7c3") == "pyramid_dice.must_take"
    assert not any(a.startswith("remove") for a in legal(s))
    assert play(new(), "roll 2 3 4", "remove r7c3").side == ("t13",)  # default: allowed


# --- solo --------------------------------------------------------------------------------
def test_solo_hard_mode_and_ends_at_the_first_failure() -> None:
    """pyramid_dice.solo: 'Set up as usual and play with Hard mode. The game ends the moment
    you fail to take a card; count the cards left in the pyramid'"""
    s = play(holding(new(1), 0, "g2"), "roll 2 3 4", "+1 2 by g2")
    assert s.boxed == ("g2",)  # hard mode although the option is off
    assert rule_of(s, "remove r7c3") == "pyramid_dice.solo"
    s = play(s, "take r7c2")
    assert s.current == 0 and s.phase == "roll"
    s = play(s, "roll 6 6 6", "give up")
    out = GAME.outcome(s)
    assert s.ended == "solo_failed" and out is not None and out.winners == (0,)
    assert "26 card(s) left" in out.reason and "beginner" in out.reason


def test_solo_ranks() -> None:
    """pyramid_dice.solo_ranks: '28–16: beginner explorer; 15–7: intermediate; 6–4:
    advanced; 3–1: veteran; 0: professional.'"""
    ranks = {n: t.solo_rank(n) for n in range(29)}
    assert {ranks[n] for n in range(16, 29)} == {"beginner explorer"}
    assert {ranks[n] for n in range(7, 16)} == {"intermediate explorer"}
    assert {ranks[n] for n in range(4, 7)} == {"advanced explorer"}
    assert {ranks[n] for n in range(1, 4)} == {"veteran explorer"}
    assert ranks[0] == "professional explorer"
    s = play(_only(new(1), "r7c1"), "roll 2 3 4", "take r7c1")
    assert "professional" in GAME.outcome(s).reason  # type: ignore[union-attr]


# --- options, text, data -------------------------------------------------------------------
def test_plus_turns_die_option() -> None:
    s = play(holding(new(), 0, "g2"), "roll 2 3 6", "+1 6 by g2")
    assert s.dice == ((2, 2), (3, 3), (7, 6))  # worth 7, still shows 6
    s = play(holding(new(), 0, "g2"), "roll 2 3 6", "+1 3 by g2")
    assert (4, 4) in s.dice  # turned to 4
    s = play(holding(new(plus_turns_die=False), 0, "g2"), "roll 2 3 6", "+1 3 by g2")
    assert (4, 3) in s.dice  # worth 4, still shows 3
    s = play(holding(new(), 0, "g5"), "roll 2 3 6", "set 2 to 5 by g5")
    assert s.values == (3, 5, 6)


def test_hints_per_ability() -> None:
    s = play(holding(new(), 0, "g2"), "roll 2 3 4")
    hints = GAME.hints(s)  # type: ignore[attr-defined]
    assert hints["makeable"]["r7c1"] == "4÷2×3"
    assert {x for x, _, _ in hints["gains"]["+1"]} >= {"r7c3"}  # 13 after +1 on 2
    assert "reroll" in hints["gains"]


def test_bad_text_options_and_states() -> None:
    for text in ("", "roll 1 2", "roll a b c", "take", "snatch Q2 r7c1", "set 2 to 7 by g1",
                 "flip by g1", "ra strengthen", "jump"):
        with pytest.raises(InvalidActionError):
            GAME.parse_action(text)
    with pytest.raises(ValueError, match="end_when"):
        new(end_when="never")
    with pytest.raises(ValueError, match="no option"):
        new(colour="red")
    good = play(new(), "roll 2 3 4", "take r7c1").to_dict()
    assert GAME.state_from_dict(good).to_dict() == good
    for broken in (dict(good, side=["t6"]), dict(good, players=7), dict(good, phase="dance"),
                   dict(good, dice=[[1, 9], [2, 2], [3, 3]]), {"players": "two"},
                   dict(good, boxed=["t1"]), dict(good, ended="stall")):
        with pytest.raises(InvalidStateError):
            GAME.state_from_dict(broken)


def test_every_rule_has_a_test() -> None:
    """Each rule id of the game is named in this file, which quotes the rule's sentence."""
    text = " ".join(open(__file__, encoding="utf-8").read().split())
    missing = [rid for rid in GAME.rules if rid not in text]
    assert missing == []
    unquoted = [rid for rid, rule in GAME.rules.items()
                if rule.source.startswith("shared/rules") and rule.text[:40] not in text]
    assert unquoted == []


def test_example_data_is_marked_as_example() -> None:
    """The shipped card file and layout are examples, never the box's contents."""
    import json
    from importlib import resources

    from engine.games.pyramid_dice.cards import EXAMPLE_PROVENANCE

    for name in ("example_cards.json", "default_layout.json"):
        data = json.loads(resources.files("engine.games.pyramid_dice").joinpath(
            f"data/{name}").read_text("utf-8"))
        assert data["provenance"] == EXAMPLE_PROVENANCE == "EXAMPLE — not the box's contents"
    s = GAME.new_state(2, seed=0)
    assert s.to_dict()["provenance"] == {"cards": EXAMPLE_PROVENANCE,
                                         "layout": EXAMPLE_PROVENANCE}
    entered = GAME.new_state(2, setup={"cards": [c.to_dict() for c in s.cards]}, seed=0)
    assert entered.provenance == ("entered by the players", EXAMPLE_PROVENANCE)


def test_entered_card_sets_are_validated() -> None:
    from engine.games.pyramid_dice.cards import CardSetError

    good = [c.to_dict() for c in GAME.new_state(2, seed=0).cards]

    def fails(cards: object, match: str, **setup: object) -> None:
        with pytest.raises(CardSetError, match=match):
            GAME.new_state(2, setup={"cards": cards, **setup})

    fails(good[:-1], "6 god cards, not 7")
    fails(good + [dict(good[0], id="extra")], "22 treasure cards")
    fails([dict(good[0], number=0)] + good[1:], "positive whole number")
    fails([dict(good[0], number=2.5)] + good[1:], "positive whole number")
    fails([dict(good[0], points=-1)] + good[1:], "whole number ≥ 0")
    fails([dict(good[0], back=3)] + good[1:], "'back' must be 1 or 2")
    fails([good[0], dict(good[1], id=good[0]["id"])] + good[2:], "used twice")
    fails([dict(good[0], id="ra")] + good[1:], "'id' must be")
    fails([dict(good[0], kind="joker")] + good[1:], "'kind'")
    gods = [i for i, c in enumerate(good) if c["kind"] == "god"]
    fails([dict(c, ability="fly") if i == gods[0] else c for i, c in enumerate(good)],
          "ability")
    fails([dict(good[0], ability="flip")] + good[1:], "treasure card has no ability")
    fails("cards", "list of cards")
    fails(good, "treasure' and 'god'", card_counts={"treasure": 21})
    fails(good, "card counts", card_counts={"treasure": "21", "god": 7})
    # the players say their box differs: 20 treasure + 8 god cards
    eight = [dict(c, kind="god", ability="+1", points=0) if c["id"] == "t1" else c
             for c in good]
    s = GAME.new_state(2, setup={"cards": eight, "card_counts": {"treasure": 20, "god": 8}},
                       seed=0)
    assert sum(1 for c in s.cards if c.kind == "god") == 8
    with pytest.raises(CardSetError, match="unknown setup"):
        GAME.new_state(2, setup={"card": good})


def test_entered_layouts_are_validated() -> None:
    from engine.games.pyramid_dice.cards import CardSetError, triangle_layout

    def fails(layout: object, match: str) -> None:
        with pytest.raises(CardSetError, match=match):
            GAME.new_state(2, setup={"layout": layout})

    fails(triangle_layout(6), "21 slots for 28 cards")
    loop = triangle_layout(7)
    loop["slots"][27]["covered_by"] = ["r1c1"]  # the front card covered by the apex
    fails(loop, "covered by itself")
    unknown = triangle_layout(7)
    unknown["slots"][0]["covered_by"] = ["r9c9"]
    fails(unknown, "unknown slot")
    twice = triangle_layout(7)
    twice["slots"][1]["slot"] = "r1c1"
    fails(twice, "used twice")
    order = triangle_layout(7)
    order["order"] = order["order"][:-1]
    fails(order, "every slot exactly once")
    fails({"rows": 7}, "a layout is")
    # a flat layout (nothing covers anything): every card is takeable from the start
    flat = {"slots": [{"slot": f"s{i}", "covered_by": []} for i in range(28)]}
    s = play(GAME.new_state(2, setup={"layout": flat}, seed=3), "roll 2 3 4")
    assert len(t.uncovered(s)) == 28


def test_scenario_with_exact_state_and_scores() -> None:
    """A short match on the fixed table, snatch on: take, removal, a side-area take, a god
    card, a snatch and a flip, with the state and scores after each step."""
    s = play(new(2, snatch=True), "roll 2 3 4", "take r7c1")  # 6 = 4÷2×3
    assert s.areas == (("t6",), ()) and s.current == 1
    s = play(s, "roll 1 1 1", "remove r7c3")  # nothing to take: 13 to the side area
    assert s.side == ("t13",) and s.stuck_turns == 1
    s = play(s, "roll 1 3 4", "take side t13", "roll 2 3 4", "take r7c4")  # 13, then g1 (14)
    assert s.areas == (("t6", "t13"), ("g1",)) and s.got_god == (False, True)
    assert t.is_uncovered(s, "r6c3")  # both cards in front of it are gone
    s = play(s, "roll 1 1 1", "snatch P2 r6c3")  # P1 gives up, P2 snatches t3 (3 = 1+1+1)
    assert s.hidden == ((), ("t3",)) and s.current == 1
    s = play(s, "roll 1 2 5", "flip 1 by g1")
    assert s.values == (2, 5, 6) and s.areas[1] == ("g1",)
    s = play(s, "take r7c2")  # 9 = 6+5−2
    assert [x.total for x in GAME.score(s)] == [4, 3]
    assert GAME.score(s)[1].breakdown == (("treasure cards", 2), ("god cards", 0),
                                          ("snatched cards (back numbers)", 1))
    assert GAME.outcome(s) is None and s.turn == 7 and s.current == 0


def test_state_from_dict_fails_cleanly_on_junk() -> None:
    """Every mangled field either still makes a valid state or gives InvalidStateError,
    never another exception; dropping a required field is always an error."""
    import random as _random

    good = play(new(3, snatch=True), "roll 2 3 4", "take r7c1", "roll 1 1 1").to_dict()
    junk: list[object] = [None, 7, -1, "x", [], {}, [1, 2], {"a": 1}, True, 2.5, [[9, 9]]]
    rng = _random.Random(5)

    def load(data: dict[str, object]) -> None:
        try:
            GAME.state_from_dict(data)
        except InvalidStateError:
            pass

    for key in good:
        for value in junk:
            load(dict(good, **{key: value}))
        bad = dict(good)
        del bad[key]
        if key in ("players", "cards", "layout", "pyramid", "side", "areas", "hidden",
                   "boxed", "strengthened", "got_god", "current", "phase"):
            with pytest.raises(InvalidStateError):
                GAME.state_from_dict(bad)
    for _ in range(100):
        bad = dict(good, cards=[dict(c) for c in good["cards"]])
        card = rng.choice(bad["cards"])
        card[rng.choice(sorted(card))] = rng.choice(junk)
        load(bad)
    assert GAME.state_from_dict(good).to_dict() == good


def test_new_state_fails_cleanly_on_junk_setup() -> None:
    junk: list[object] = [None, 7, "x", [], {}, [1, 2], {"a": [1]}, True, [{"id": [1]}]]
    for key in ("cards", "card_counts", "layout", "placement", "first_player"):
        for value in junk:
            try:
                GAME.new_state(2, setup={key: value}, seed=1)
            except InvalidStateError:
                pass
