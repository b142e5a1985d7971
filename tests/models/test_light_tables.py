"""models.training.dice.light_tables: the pip reader with and without the light balance on
rendered tables (the shipped models; no torch)."""

from __future__ import annotations

from math import comb

from models.training.dice.light_tables import WAYS, measure, sign_p
from vision.dice.reader import DiceReader


def test_sign_p_is_the_two_sided_exact_binomial() -> None:
    assert sign_p(0, 0) == 1.0
    assert sign_p(5, 0) == sign_p(0, 5) == 2 / 32
    assert abs(sign_p(3, 7) - 2 * sum(comb(10, k) for k in range(4)) / 2 ** 10) < 1e-12
    assert sign_p(10, 10) == 1.0


def test_a_grey_table_is_read_alike_every_way_and_a_cast_is_balanced() -> None:
    # The renders' grey table is neutral and bright: the balance leaves it alone, so the
    # three ways must read the same dice; under a warm cast the grey world changes every
    # photo, and the lift alone (c) none of them (the cast does not darken it enough).
    res = measure(DiceReader(any_scale=True), "grey", 3, 0, ("none", "warm cast"))
    none, warm = res["none"], res["warm cast"]
    assert none["changed"] == 0
    assert len({none[f"right_{w}"] for w in WAYS}) == 1
    assert none["a_not_b"] == none["b_not_a"] == 0
    assert warm["changed"] == warm["photos"] == 3
    assert warm["right_b"] == warm["right_c"] and warm["c_not_b"] == warm["b_not_c"] == 0
    for v in res.values():
        for w in WAYS:
            assert v[f"right_{w}"] <= v[f"found_{w}"] <= v["dice"]
