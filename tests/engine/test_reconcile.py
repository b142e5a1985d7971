"""reconcile on hand-made observations of IceDice tables."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine import Accepted, Ambiguous, NoChange, Observation, Violation, get_game, reconcile
from engine.observation import Observed, observe_view

GAME = get_game("icedice")


def state_after(*texts: str):  # type: ignore[no-untyped-def]
    return GAME.play(GAME.new_state(2), list(texts))


def seen(state, **overrides) -> Observation:  # type: ignore[no-untyped-def]
    """A perfect observation of ``state``'s table, with attribute overrides by object."""
    view = GAME.expected_view(state)
    return observe_view(view, overrides=overrides.get("by_index"))


def index_of(view, kind: str, zone: str, **attrs: str) -> int:  # type: ignore[no-untyped-def]
    for i, exp in enumerate(view):
        if exp.kind == kind and exp.zone == zone and all(
                exp.attr(k) == v for k, v in attrs.items()):
            return i
    raise LookupError((kind, zone, attrs))


def test_unchanged_table_is_no_change() -> None:
    s = state_after("roll red S", "take red S")
    res = reconcile(GAME, s, seen(s))
    assert isinstance(res, NoChange) and res.confidence > 0.9


def test_a_roll_is_accepted() -> None:
    s = state_after("roll red S", "take red S")
    after = GAME.play(s, ["roll blue SM"])
    res = reconcile(GAME, s, seen(after))
    assert isinstance(res, Accepted) and [a.to_str() for a in res.actions] == ["roll blue SM"]


def test_roll_and_take_seen_together() -> None:
    s = state_after("roll red S", "take red S")
    after = GAME.play(s, ["roll blue SM", "take blue M"])
    res = reconcile(GAME, s, seen(after))
    assert isinstance(res, Accepted)
    assert [a.to_str() for a in res.actions] == ["roll blue SM", "take blue M"]


def test_uses_probabilities_not_only_the_top_guess() -> None:
    """A misread that the rules exclude is corrected by the state: the size die reads L
    (0.6) over M (0.4), but a blue M went to the Counter, which only M allows."""
    s = state_after("roll red S", "take red S")
    after = GAME.play(s, ["roll blue M", "take blue M"])
    view = GAME.expected_view(after)
    i = index_of(view, "die", "rolling", type="icedice-size")
    obs = observe_view(view, overrides={i: {"face": {"L": 0.6, "M": 0.4}}})
    res = reconcile(GAME, s, obs)
    assert isinstance(res, Accepted)
    assert [a.to_str() for a in res.actions] == ["roll blue M", "take blue M"]


def test_misread_piece_on_the_counter_is_corrected() -> None:
    s = state_after("roll red S", "take red S")
    view = GAME.expected_view(s)
    i = index_of(view, "piece", "counter")
    obs = observe_view(view, overrides={i: {"colour": {"yellow": 0.55, "red": 0.45}}})
    assert isinstance(reconcile(GAME, s, obs), NoChange)


def test_confident_illegal_reading_is_a_violation() -> None:
    """The roll says red M; a blue S is clearly moved from the Bank to the Counter."""
    s = state_after("roll red M")
    wrong = GAME.view_after(s, GAME.parse_action("take blue S"))
    res = reconcile(GAME, s, observe_view(wrong))
    assert isinstance(res, Violation) and res.rule.id == "icedice.take_rolled"
    assert "red M" in res.explanation and res.rule.text.startswith("Choose a piece")


def test_stealing_a_piece_the_bank_holds_is_a_violation() -> None:
    s = replace(state_after(), bank=state_after().bank[1:],
                vaults=(((), (("black", "L"),))))
    s = GAME.play(s, ["roll black SL"])
    wrong = GAME.view_after(s, GAME.parse_action("steal black L from P2"))
    res = reconcile(GAME, s, observe_view(wrong))
    assert isinstance(res, Violation) and res.rule.id == "icedice.steal_faq"


def test_a_likely_foul_is_an_alert_not_a_question() -> None:
    """The size die shows S/L and a green M goes to the Counter, read M at 0.99: the foul
    does not reach the accept threshold (the legal 'take green S' keeps a third), but it is
    the likeliest explanation, so the players are alerted, not asked."""
    s = state_after("roll green SL")
    wrong = GAME.view_after(s, GAME.parse_action("take green M"))
    i = index_of(wrong, "piece", "counter")
    obs = observe_view(wrong, overrides={i: {"size": {"M": 0.99, "S": 0.01}}})
    obs = replace(obs, zones_seen=frozenset({"counter", "rolling", "vault:0", "vault:1"}))
    res = reconcile(GAME, s, obs)
    assert isinstance(res, Violation) and res.rule.id == "icedice.pair"
    assert 0.5 <= res.confidence < 0.9


def test_a_foul_tied_with_a_legal_move_is_a_question() -> None:
    """Only a foul likelier than every legal explanation is an alert: a tie is asked."""
    from engine.errors import IllegalActionError
    from engine.reconcile import Params, decide
    from engine.resolution import Explanation

    error = IllegalActionError(GAME.rules["icedice.roll_again"], "no bust now")
    stop, bust = GAME.parse_action("stop"), GAME.parse_action("bust")
    tie = [Explanation((bust,), 0.49, -1.0, error), Explanation((stop,), 0.49, -1.0),
           Explanation((), 0.02, -5.0)]
    assert isinstance(decide(tie, Params(), -1.0), Ambiguous)
    ahead = [Explanation((bust,), 0.47, -1.0, error), Explanation((stop,), 0.2, -1.0),
             Explanation((), 0.33, -5.0)]
    res = decide(ahead, Params(), -1.0)
    assert isinstance(res, Violation) and res.rule.id == "icedice.roll_again"
    assert res.confidence == 0.47


def test_two_close_explanations_are_ambiguous() -> None:
    """A pair face S/L; the piece on the Counter reads S or L evenly; the Bank is hidden."""
    s = state_after("roll green SL")
    after = GAME.play(s, ["take green S"])
    view = GAME.expected_view(after)
    i = index_of(view, "piece", "counter")
    obs = observe_view(view, overrides={i: {"size": {"S": 0.5, "L": 0.5}}})
    obs = replace(obs, zones_seen=frozenset({"counter", "rolling", "vault:0", "vault:1"}))
    res = reconcile(GAME, s, obs)
    assert isinstance(res, Ambiguous)
    assert {c.text() for c in res.candidates[:2]} == {"take green S", "take green L"}
    assert all(c.legal for c in res.candidates[:2])


def test_what_no_move_explains_is_reported() -> None:
    """Three pieces appear on the Counter at once: no legal move or known mistake fits."""
    s = state_after("roll red S", "take red S")
    bank = list(s.bank)
    for p in (("blue", "S"), ("green", "M"), ("yellow", "L")):
        bank.remove(p)
    crazy = replace(s, bank=tuple(bank),
                    counter=s.counter + (("blue", "S"), ("green", "M"), ("yellow", "L")))
    res = reconcile(GAME, s, observe_view(GAME.expected_view(crazy)))
    assert isinstance(res, Violation) and res.rule.id == "core.unexplained"


def test_unknown_zone_objects_do_not_crash() -> None:
    s = state_after("roll red S")
    obs = seen(s)
    obs = replace(obs, objects=obs.objects + (Observed.make("die", None, face="red"),))
    res = reconcile(GAME, s, obs)
    assert isinstance(res, (NoChange, Ambiguous, Violation, Accepted))


def test_observation_json_round_trip() -> None:
    s = state_after("roll red S", "take red S")
    obs = seen(s)
    assert Observation.from_dict(obs.to_dict()) == obs


def test_objects_each_in_its_slot_are_matched_slot_to_slot_as_by_the_full_search(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """When every reading and every expected object has a slot of its own (Pyradice's dice,
    Pyramid Dice's pyramid cards), a reading can only be its slot's object: the quick path
    gives the very sum the full matching gives, bit for bit."""
    import importlib
    import random

    from engine.observation import Expected, Observed

    rc = importlib.import_module("engine.reconcile")  # (engine.reconcile is the function)

    rng = random.Random(7)
    for _ in range(200):
        slots = [f"s{i}" for i in range(12)]
        expected = [Expected.make("die", "z", s, face=str(rng.randint(1, 6)))
                    for s in rng.sample(slots, rng.randint(0, 12))]
        observed = [Observed.make("die", "z", s, confidence=rng.uniform(0.3, 0.999),
                                  face={str(rng.randint(1, 6)): rng.uniform(0.2, 1.0)})
                    for s in rng.sample(slots, rng.randint(0, 12))]
        quick = rc._assign(observed, expected, 0.02)
        with monkeypatch.context() as m:
            m.setattr(rc, "_by_slot", lambda o, e: None)
            assert rc._assign(observed, expected, 0.02) == quick


def test_reconcile_leaves_the_garbage_collector_as_it_found_it() -> None:
    """The cyclic collector is held off while one observation is explained, and on again
    after (off stays off), also when explaining raises."""
    import gc

    s = state_after("roll red S")
    was = gc.isenabled()
    try:
        gc.enable()
        reconcile(GAME, s, seen(s))
        assert gc.isenabled()
        with pytest.raises(KeyError):
            reconcile(GAME, s, replace(seen(s), moved="?"))  # type: ignore[arg-type]
        assert gc.isenabled()
        gc.disable()
        reconcile(GAME, s, seen(s))
        assert not gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()
