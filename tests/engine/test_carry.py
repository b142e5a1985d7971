"""What a "no change" reading hands on (engine.carry): the quiet explanations' posteriors,
and the next reading's explanations from each carried state weighed by them."""

from __future__ import annotations

import math

from engine.carry import carry_on, combine
from engine.resolution import Explanation


def test_the_quiet_chains_as_posteriors_among_themselves() -> None:
    quiet = [((), math.log(0.02)), (("attack",), math.log(0.49)),
             (("attack",), math.log(0.49)), (("other",), math.log(0.0001))]
    kept = carry_on(quiet, floor=0.01, most=4)
    # the same chain met twice is one, its weights summed; under the floor: dropped
    assert [c for c, _ in kept] == [("attack",), ()]
    assert abs(dict(kept)[("attack",)] - 0.98) < 1e-3
    assert abs(sum(w for _, w in kept) - 1) < 1e-9
    assert carry_on([((), 0.0)], 0.01, 4) == ()  # nothing happened unseen: nothing carried
    assert [c for c, _ in carry_on(quiet, 0.01, 1)] == [("attack",)]


def test_each_root_weighs_its_explanations_by_its_chain() -> None:
    # root "as recorded" (weight 0.1): the attack, unseen, or a spend; root "after the
    # attack" (weight 0.9): nothing more, or the capture phase's spend
    recorded = [Explanation(("attack",), 0.5, -1.0, unseen=True, hands_on=True),
                Explanation(("spend",), 0.5, -1.0)]
    attacked = [Explanation((), 0.2, -1.0), Explanation(("spend",), 0.8, -1.0)]
    out = combine([((), math.log(0.1), recorded, 0.0, True),
                   (("attack",), math.log(0.9), attacked, 0.0, True)])
    got = {e.actions: e.posterior for e in out}
    assert abs(got[("attack", "spend")] - 0.72) < 1e-9
    assert abs(got[("spend",)] - 0.05) < 1e-9
    # the attack from the recorded state and nothing after the carried one are one
    assert abs(got[("attack",)] - (0.05 + 0.18)) < 1e-9
    alone = next(e for e in out if e.actions == ("attack",))
    assert alone.unseen and alone.hands_on
    assert out[0].actions == ("attack", "spend") and abs(sum(got.values()) - 1) < 1e-9
