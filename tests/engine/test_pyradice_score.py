"""Pyradice scoring: the score pad (each objective token, each objective card, Σ), the
rulebook's final-score example (Σ 49) from a constructed end state, and the tie-breaks."""

from __future__ import annotations

from dataclasses import replace

from pyradice_table import GAME, new, with_board

from engine.games.pyradice import PyradiceState
from engine.games.pyradice import pyramid as pm
from engine.games.pyradice.scoring import tokens_met

# Laura's pyramid (values and colour initials per level, level 1 first):
#   level 1: 1 1 1 1 1 2, all red          D1 all the same colour: met (5)
#   level 2: 2 3 5 1 3   b b b g r         D2 all odd: not met (0)
#   level 3: 1 2 3 4     b b g r           D3 sum at most 10: met (5)
#   level 4: 6 6 6       g b y             C5 all different colours: met (5)
#   level 5: 4 4         r r               C7 all the same value: met (5)
#   level 6: 6           r
# Cards: K8 red (sum of level 1) 7, K2 green (3 VP per level with green) 9,
#        K4 blue (6 blue dice: table) 12, K1 yellow (1 per die) 1.
LAURA = "111112 23513 1234 666 44 6"
LAURA_COLOURS = "rrrrrr bbbgr bbgr gby rr r"
NAMES = {"r": "red", "y": "yellow", "g": "green", "b": "blue"}


def pyramid(values: str, colours: str) -> dict[str, str]:
    out = {}
    for lv, (vals, cols) in enumerate(zip(values.split(), colours.split(), strict=True),
                                      start=1):
        for i, (v, c) in enumerate(zip(vals, cols, strict=True), start=1):
            out[f"{lv}-{i}"] = f"{v} {NAMES[c]}"
    return out


def end_state(david: dict[str, str] | None = None) -> PyradiceState:
    """The example's end: both pyramids full, 42 dice gone from the quarry (all of layers 3
    and 2, and 17 of layer 1), turn 43."""
    s = new(objectives=["D1", "D2", "D3", "C5", "C7"],
            cards=[["K8", "red"], ["K2", "green"], ["K4", "blue"], ["K1", "yellow"]])
    s = with_board(s, 0, pyramid(LAURA, LAURA_COLOURS))
    s = with_board(s, 1, david or pyramid("666666 66666 6666 666 66 6",
                                          "yyyyyy yyyyy yyyy yyy yy y"))
    quarry = (tuple(None if i < 17 else d for i, d in enumerate(s.quarry[0])),
              (None,) * 16, (None,) * 9)
    return replace(s, quarry=quarry, turn=43, current=0)


def test_the_rulebooks_final_score_is_49() -> None:
    """The rulebook's example of final score: Objective Tokens 5 + 5 + 5 + 0 + 5 (C7, C5, D3,
    D2, D1 from the top level down), Objective Cards 7, 9, 12, 1; Σ 49."""
    s = end_state()
    assert GAME.state_from_dict(s.to_dict()) == s  # a legal end state
    laura = GAME.score(s)[0]
    assert laura.breakdown == (
        ("C7 (level 5)", 5), ("C5 (level 4)", 5), ("D3 (level 3)", 5), ("D2 (level 2)", 0),
        ("D1 (level 1)", 5), ("K8 (red)", 7), ("K2 (green)", 9), ("K4 (blue)", 12),
        ("K1 (yellow)", 1))
    assert sum(p for _, p in laura.breakdown[:5]) == 20 and laura.total == 49
    assert GAME.outcome(s) is not None


def test_each_objective_token_checks_all_dice_of_its_level() -> None:
    """pyradice.objective_met: 'For each level of your Pyramid, check if all dice meet the
    requirements of the Objective Token'"""
    s = end_state()
    assert tokens_met(s, s.boards[0]) == [True, False, True, True, True]
    # one die of level 3 more makes the sum 11: D3 is no longer met
    s2 = with_board(s, 0, pyramid(LAURA.replace("1234", "1235"), LAURA_COLOURS))
    assert tokens_met(s2, s2.boards[0])[2] is False
    # a level not yet full is not met
    partial = with_board(new(objectives=["C6", "C1", "C2", "C3", "C4"]), 0,
                         {"1-1": "3 red", "1-2": "5 red"})
    assert tokens_met(partial, partial.boards[0])[0] is False


def test_each_objective_token_met_is_5_vp() -> None:
    """pyradice.objective_vp: 'Each Objective Token met is worth 5 Victory Points.'"""
    s = end_state()
    rows = dict(GAME.score(s)[0].breakdown)
    assert {rows[k] for k in ("C7 (level 5)", "C5 (level 4)", "D3 (level 3)",
                              "D1 (level 1)")} == {5}
    assert rows["D2 (level 2)"] == 0


def test_cards_score_only_their_discs_colour() -> None:
    """pyradice.card_colour: 'Objective Cards only score the dice matching the disc color on
    the card.'"""
    s = end_state()
    recoloured = replace(s, cards=(("K8", "blue"), ("K2", "green"), ("K4", "blue"),
                                   ("K1", "red")))
    rows = dict(GAME.score(recoloured)[0].breakdown)
    assert rows["K8 (blue)"] == 0  # no blue die on level 1
    assert rows["K1 (red)"] == 6 + 1 + 1 + 2 + 1  # 11 red dice


def test_the_card_says_how_its_dice_score() -> None:
    """pyradice.card_rule: 'The card describes how these dice are scored.' (a definition in the
    vocabulary: K4 scores by a table of counts, K2 per level, K1 per die)"""
    s = end_state()
    assert s.definition("card", "K4").shape == "count_table"
    assert dict(GAME.score(s)[0].breakdown)["K4 (blue)"] == 12
    fewer = with_board(s, 0, pyramid(LAURA, LAURA_COLOURS.replace("gby", "gry")))
    assert dict(GAME.score(fewer)[0].breakdown)["K4 (blue)"] == 9  # 5 blue dice


def test_sigma_and_the_most_vp_wins() -> None:
    """pyradice.total: 'Add the scores for each player together and place them in the (Σ) row.
    The player with the most Victory Points wins the game.'"""
    s = end_state()
    laura, david = GAME.score(s)
    assert laura.total == sum(p for _, p in laura.breakdown) == 49
    assert david.total < laura.total
    outcome = GAME.outcome(s)
    assert outcome is not None and outcome.winners == (0,) and "49" in outcome.reason


def test_ties_go_to_most_tokens_then_shared() -> None:
    """pyradice.tie: 'If there is a tie, the player with the most Objective Tokens completed
    is the winner. If the tie persists, the tied players share the victory.'"""
    same = end_state(pyramid(LAURA, LAURA_COLOURS))
    outcome = GAME.outcome(same)
    assert outcome is not None and outcome.winners == (0, 1) and "shared" in outcome.reason
    # David misses D3 (level 3 sums 11: -5) and has 5 more yellow dice for K1 (+5): 49 too.
    david = pyramid("111112 23513 1235 666 44 6", "rrrrrr bbbgy bbgy gby yy y")
    s = end_state(david)
    laura, dave = GAME.score(s)
    assert laura.total == dave.total == 49
    assert [sum(tokens_met(s, b)) for b in s.boards] == [4, 3]
    outcome = GAME.outcome(s)
    assert outcome is not None and outcome.winners == (0,) and "tokens" in outcome.reason


def test_score_mid_game() -> None:
    s = new()
    assert all(sc.total == 0 for sc in GAME.score(s))
    assert len(GAME.score(s)[0].breakdown) == 9
    assert pm.SIZE == 21
