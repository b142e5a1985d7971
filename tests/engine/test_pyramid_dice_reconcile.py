"""reconcile on hand-made observations of Pyramid Dice tables (observe_view of the views
the game predicts, with misreads injected)."""

from __future__ import annotations

from dataclasses import replace

from pyramid_dice_table import holding, new, play

from engine import Accepted, Ambiguous, NoChange, Observation, Violation, get_game, reconcile
from engine.games.pyramid_dice import PyramidState
from engine.games.pyramid_dice.state import Take, Use
from engine.observation import observe_view
from engine.reconcile import explain

GAME = get_game("pyramid dice")


def texts(res: Accepted) -> list[str]:
    return [a.to_str() for a in res.actions]


def rolled(*extra: str) -> PyramidState:
    return play(new(), "roll 2 3 4", *extra)


def die_index(view, face: str) -> int:  # type: ignore[no-untyped-def]
    return next(i for i, e in enumerate(view) if e.kind == "die" and e.attr("face") == face)


def moved(obs: Observation) -> Observation:
    """The settler saw motion (a hand, a rolling die) since the last settled frame."""
    return replace(obs, moved=True)


def test_unchanged_table_is_no_change() -> None:
    s = rolled()
    res = reconcile(GAME, s, observe_view(GAME.expected_view(s)))
    assert isinstance(res, NoChange)


def test_a_roll_and_a_take_are_accepted() -> None:
    s = play(new(), "roll 1 1 1", "remove r7c3")  # P2's turn; the dice show 1 1 1
    res = reconcile(GAME, s, observe_view(GAME.expected_view(play(s, "roll 2 3 4"))))
    assert isinstance(res, Accepted) and texts(res) == ["roll 2 3 4"]
    res = reconcile(GAME, s, observe_view(GAME.expected_view(play(s, "roll 2 3 4",
                                                                   "take r7c1"))))
    assert isinstance(res, Accepted) and texts(res) == ["roll 2 3 4", "take r7c1"]


def test_a_legal_take_is_accepted() -> None:
    s = rolled()
    res = reconcile(GAME, s, observe_view(GAME.expected_view(play(s, "take r7c1"))))
    assert isinstance(res, Accepted) and texts(res) == ["take r7c1"]


def test_taking_a_covered_card_is_a_violation() -> None:
    s = play(new(), "roll 1 1 1")  # 1 is t1 in r6c1, behind r7c1 and r7c2
    res = reconcile(GAME, s, observe_view(GAME.view_after(s, Take("r6c1"))))
    assert isinstance(res, Violation) and res.rule.id == "pyramid_dice.uncovered"


def test_taking_an_unreachable_number_is_a_violation() -> None:
    s = rolled()
    res = reconcile(GAME, s, observe_view(GAME.view_after(s, Take("r7c3"))))  # 13
    assert isinstance(res, Violation) and res.rule.id == "pyramid_dice.number"


def test_a_misread_die_is_corrected_by_the_state() -> None:
    """The camera reads the 4 as a 1 (0.6 against 0.4) after a take; no move turns a die, so
    the state's 4 stands and the take is accepted."""
    s = rolled()
    view = GAME.expected_view(play(s, "take r7c1"))
    obs = observe_view(view, overrides={die_index(view, "4"): {"face": {"1": 0.6, "4": 0.4}}})
    res = reconcile(GAME, s, obs)
    assert isinstance(res, Accepted) and texts(res) == ["take r7c1"]


def test_an_ability_is_accepted_and_one_not_held_is_a_violation() -> None:
    s = play(holding(new(), 0, "g2"), "roll 2 3 4")
    res = reconcile(GAME, s, observe_view(GAME.expected_view(play(s, "+1 2 by g2"))))
    assert isinstance(res, Accepted) and texts(res) == ["+1 2 by g2"]
    s = rolled()
    res = reconcile(GAME, s, moved(observe_view(GAME.view_after(s, Use("+1", 2, None)))))
    assert isinstance(res, Violation) and res.rule.id == "pyramid_dice.abilities"


def test_a_ra_reroll_is_accepted() -> None:
    s = play(new(), "roll 1 1 1")
    res = reconcile(GAME, s, observe_view(GAME.expected_view(play(s, "reroll 2 5 6 by ra"))))
    assert isinstance(res, Accepted) and texts(res) == ["reroll 2 5 6 by ra"]


def test_candidates_are_labelled_as_check_says() -> None:
    for s in (new(), rolled(), play(holding(new(snatch=True), 0, "g1", "g2"), "roll 6 6 6")):
        for cand in GAME.candidates(s):
            assert cand.legal == GAME.is_legal(s, cand.action), cand.action.to_str()
            GAME.view_after(s, cand.action)  # never raises


def test_same_table_from_two_cards_is_one_explanation() -> None:
    """A 2 turned into a 5 while the player holds both the flip (g1) and the set-5 (g5) card:
    both explanations predict the same table and the same state (a first use boxes
    nothing), so reconcile keeps one of them."""
    s = play(holding(new(), 0, "g1", "g5"), "roll 2 3 4")
    assert play(s, "flip 2 by g1") == play(s, "set 2 to 5 by g5")
    res = reconcile(GAME, s, moved(observe_view(GAME.expected_view(play(s, "flip 2 by g1")))))
    assert isinstance(res, Accepted)
    assert texts(res)[0] in ("flip 2 by g1", "set 2 to 5 by g5")


def test_a_die_read_half_5_half_6_is_ambiguous() -> None:
    """Two rolls fit equally well (the reader cannot tell a 5 from a 6): ask the players."""
    s = play(new(), "roll 1 1 1", "remove r7c3")
    view = GAME.expected_view(play(s, "roll 2 3 5"))
    obs = observe_view(view, overrides={die_index(view, "5"): {"face": {"5": 0.5, "6": 0.5}}})
    res = reconcile(GAME, s, obs)
    assert isinstance(res, Ambiguous)
    assert {e.text() for e in res.candidates[:2]} == {"roll 2 3 5", "roll 2 3 6"}


def test_a_removal_and_the_next_players_snatch_are_accepted() -> None:
    s = play(new(), "roll 1 1 1")
    res = reconcile(GAME, s, observe_view(GAME.expected_view(play(s, "remove r7c3"))))
    assert isinstance(res, Accepted) and texts(res) == ["remove r7c3"]
    s = play(new(3, snatch=True), "roll 2 3 4")
    res = reconcile(GAME, s, observe_view(GAME.expected_view(play(s, "snatch P2 r7c2"))))
    assert isinstance(res, Accepted) and texts(res) == ["snatch P2 r7c2"]


def test_a_later_players_snatch_asks_whether_the_players_between_passed() -> None:
    """pyramid_dice.snatch: '…the next player may take ONE card …; if that player says nothing
    the right passes to the following player.' (次のプレイヤーが何も言わなければその次のプレイ
    ヤーに権利があります) The camera sees P3's card, not P2 saying nothing: one yes/no
    question, whose yes is the snatch as it will be recorded."""
    s = play(new(3, snatch=True), "roll 2 3 4")
    seen = observe_view(GAME.expected_view(play(s, "snatch P3 r7c2 after P2 passed")))
    res = reconcile(GAME, s, seen)
    assert isinstance(res, Ambiguous) and len(res.candidates) == 1
    assert res.candidates[0].text() == "snatch P3 r7c2 after P2 passed"
    assert res.confirm == "Did P2 say nothing (pass) before P3 snatched r7c2?"
    assert res.to_dict()["confirm"] == res.confirm
    assert "confirm" not in Ambiguous(res.candidates).to_dict()


def test_removing_a_covered_card_is_a_violation() -> None:
    s = play(new(), "roll 1 1 1")
    res = reconcile(GAME, s, observe_view(GAME.view_after(s, GAME.parse_action("remove r6c1"))))
    assert isinstance(res, Violation) and res.rule.id == "pyramid_dice.fail_remove"


def counted(obs: Observation, *, dice_moved: bool) -> Observation:
    """What the live camera gives: the cards of the players' areas counted, not read (so the
    Ra card's turns are not seen), the settler's motion and the die tracker's answer."""
    objects = tuple(replace(o, dists=()) if o.kind == "card" and (o.zone or "").startswith(
        "area:") else o for o in obs.objects)
    return replace(obs, objects=objects, moved=True, dice_moved=dice_moved)


def test_a_die_changed_by_hand_is_not_taken_for_a_reroll() -> None:
    """The 2 is turned to a 5 by hand, no card held: a Ra re-roll to 3 4 5 would show the
    same dice, but re-rolled dice are thrown and these did not leave their places."""
    s = rolled()
    obs = observe_view(GAME.view_after(s, Use("flip", 2, None)))
    res = reconcile(GAME, s, counted(obs, dice_moved=False))
    assert isinstance(res, Violation) and res.rule.id == "pyramid_dice.abilities"
    res = reconcile(GAME, s, counted(observe_view(GAME.expected_view(
        play(s, "reroll 4 5 5 by ra"))), dice_moved=True))
    assert isinstance(res, Accepted) and texts(res) == ["reroll 4 5 5 by ra"]


def test_a_set_by_a_god_card_is_not_taken_for_a_reroll() -> None:
    """g3 sets a die (it stays where it lay); a Ra re-roll to the same values would have
    thrown all three."""
    s = play(holding(new(), 0, "g5"), "roll 2 3 4")
    obs = observe_view(GAME.expected_view(play(s, "set 2 to 5 by g5")))
    res = reconcile(GAME, s, counted(obs, dice_moved=False))
    assert isinstance(res, Accepted) and texts(res) == ["set 2 to 5 by g5"]


def test_the_first_throw_is_accepted_over_no_change() -> None:
    """Before the first roll the dice's faces are unknown; "nothing happened" must not fit
    the thrown dice better than the throw that shows them."""
    s = new()
    obs = observe_view(GAME.expected_view(play(s, "roll 1 1 4")), confidence=0.95)
    res = reconcile(GAME, s, counted(obs, dice_moved=True))
    assert isinstance(res, Accepted) and texts(res) == ["roll 1 1 4"]




def test_a_move_nothing_read_tells_from_no_change_is_asked() -> None:
    """The pyramid is empty and the dice made no card: 'pass' changes nothing the camera
    reads (areas are counted, the Ra card's turns not seen). A hand was seen, so 'pass' is
    the likelier story, but the camera must ask, not record it."""
    s = play(new(), "roll 1 1 1")
    s = replace(s, side=s.side + tuple(c for _, c in s.pyramid), pyramid=())
    assert "pass" in [a.to_str() for a in GAME.legal_actions(s)]
    obs = counted(observe_view(GAME.expected_view(s)), dice_moved=False)
    res = reconcile(GAME, s, obs)
    assert isinstance(res, Ambiguous)
    assert "no change" in {e.text() for e in res.candidates}


def test_a_throw_to_the_same_values_is_seen_by_the_tracker() -> None:
    """The next player throws 2 3 4 again: the faces are as they were, but the dice left
    their places, so the throw shows itself and is recorded, not asked."""
    s = play(new(), "roll 2 3 4", "take r7c1")
    obs = observe_view(GAME.expected_view(play(s, "roll 2 3 4")))
    res = reconcile(GAME, s, counted(obs, dice_moved=True))
    assert isinstance(res, Accepted) and texts(res) == ["roll 2 3 4"]
    # still, the tracker's word is needed: without it the same table is asked about
    res = reconcile(GAME, s, counted(obs, dice_moved=False))
    assert not isinstance(res, Accepted)


def test_a_move_that_changes_only_what_is_not_read_is_asked() -> None:
    """After a Ra re-roll the Ra card lies turned; 'pass' rights it, but the players' areas
    are counted, not read: the camera sees the table as it was, so 'pass' is asked, never
    recorded (it was, on a table the players had put back after a foul)."""
    s = play(new(), "roll 1 1 1")
    s = replace(s, side=s.side + tuple(c for _, c in s.pyramid), pyramid=())
    s = play(s, "reroll 1 1 2 by ra")
    assert GAME.expected_view(play(s, "pass")) != GAME.expected_view(s)
    obs = counted(observe_view(GAME.expected_view(s)), dice_moved=False)
    res = reconcile(GAME, s, obs)
    assert isinstance(res, Ambiguous)
    assert {"pass", "no change"} <= {e.text() for e in res.candidates}


def test_a_foul_that_fits_better_than_an_unseen_move_is_flagged() -> None:
    """The pyramid is empty ('pass' shows the table as it was) and a 1 is raised to 2 by
    hand, no card held. The die reads 2 at 0.97 (1 at 0.03): 'pass' still has the larger
    posterior by its prior, but the foul fits the reading far better and holds more than
    half of the pass's share (Params.unseen_foul), so it is an alert, not 'pass or no
    change?' (simulated seed 103: '+1 1' asked as '+2 5 by g6 or no change?'). A reading
    that leans on the 2 only weakly leaves the foul under that share: still asked."""
    s = play(new(), "roll 1 1 5")
    s = replace(s, side=s.side + tuple(c for _, c in s.pyramid), pyramid=())
    view = GAME.view_after(s, Use("+1", 1, None))
    i = die_index(view, "2")
    sure = counted(observe_view(view, overrides={i: {"face": {"2": 0.97, "1": 0.03}}}),
                   dice_moved=False)
    best = explain(GAME, s, sure)[0]
    assert best.unseen and best.text() == "pass"
    res = reconcile(GAME, s, sure)
    assert isinstance(res, Violation) and res.rule.id == "pyramid_dice.abilities"
    assert [a.to_str() for a in res.actions] == ["+1 1"]
    unsure = counted(observe_view(view, overrides={i: {"face": {"2": 0.6, "1": 0.4}}}),
                     dice_moved=False)
    res = reconcile(GAME, s, unsure)
    assert isinstance(res, Ambiguous) and "pass" in {e.text() for e in res.candidates}
