"""engine.recovery: the cheapest repair of a record the table no longer fits (issue 32, 2).

The rules involved are IceDice's own (each repair's actions are applied by Game.apply): "Choose
a piece of the size and color indicated, take it from the Bank, and place it on the Counter."
(icedice.take_rolled) is what a wrong answer breaks at the next reading."""

from __future__ import annotations

from engine import Violation, get_game, reconcile
from engine.observation import observe_view
from engine.recovery import find_repairs

GAME = get_game("icedice")


def history(texts: list[str], doubt: dict[int, float] | None = None
            ) -> list[tuple[object, str, float]]:
    """The live actions with the state before each and their doubt (5 % unless given)."""
    out, state = [], GAME.new_state(2)
    for i, text in enumerate(texts):
        out.append((state, text, (doubt or {}).get(i, 0.05)))
        state = GAME.play(state, [text])
    return out


def seen(texts: list[str]):  # type: ignore[no-untyped-def]
    return observe_view(GAME.expected_view(GAME.play(GAME.new_state(2), texts)))


def test_a_wrong_answer_is_taken_back_and_the_table_replayed() -> None:
    """The players answered "roll blue M" to "roll blue L or roll blue M?"; the player then
    took the blue L. From the record nothing fits (an alert); the repair takes the answer
    back and records what the table shows."""
    record = ["roll red S", "take red S", "stop", "roll blue M"]
    truth = ["roll red S", "take red S", "stop", "roll blue L", "take blue L"]
    obs = seen(truth)
    assert isinstance(reconcile(GAME, GAME.play(GAME.new_state(2), record), obs), Violation)
    repairs = find_repairs(GAME, history(record, {3: 0.88}), obs)
    assert repairs, "no repair found"
    best = repairs[0]
    assert best.undo == ("roll blue M",)
    assert [a.to_str() for a in best.actions] == ["roll blue L", "take blue L"]
    assert best.fits


def test_a_table_that_fits_no_repair_gives_none_unless_asked_for_the_nearest() -> None:
    """A table no legal record within reach explains (pieces from nowhere) has no repair
    that fits; "take the table as the camera sees it" (need_fit False) still returns the
    nearest legal record."""
    record = ["roll red S", "take red S"]
    far = ["roll red S", "take red S", "stop", "roll blue L", "take blue L", "stop",
           "roll green M", "take green M", "stop", "roll yellow L", "take yellow L"]
    obs = seen(far)
    assert find_repairs(GAME, history(record), obs, max_undo=2, depth=2) == []
    nearest = find_repairs(GAME, history(record), obs, max_undo=2, depth=2, need_fit=False)
    assert nearest and not nearest[0].fits


def test_a_repair_never_replays_what_it_takes_back_and_an_empty_history_has_none() -> None:
    record = ["roll red S", "take red S", "stop", "roll blue M"]
    obs = seen(["roll red S", "take red S", "stop", "roll blue L", "take blue L"])
    for r in find_repairs(GAME, history(record, {3: 0.88}), obs):
        assert tuple(a.to_str() for a in r.actions)[:len(r.undo)] != r.undo or not r.undo
    assert find_repairs(GAME, [], obs) == []


def test_an_action_in_little_doubt_is_not_the_first_taken_back() -> None:
    """The same table, but the last record was the camera's, 99.9 % sure: taking it back
    costs more than recording the moves it missed, when both explain the table."""
    record = ["roll red S", "take red S", "stop", "roll blue L"]
    obs = seen(["roll red S", "take red S", "stop", "roll blue L", "take blue L", "stop"])
    repairs = find_repairs(GAME, history(record, {3: 0.001}), obs)
    assert repairs and repairs[0].undo == ()
    assert [a.to_str() for a in repairs[0].actions] == ["take blue L", "stop"]
