"""The Pyramid Dice solver: every positive whole number three dice make, checked against an
independent brute force, and the rule text's worked examples."""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations_with_replacement, permutations, product

import pytest

from engine.games.pyramid_dice.solver import (
    change_die,
    evaluate,
    expression_for,
    gains,
    reachable,
)


def brute_force(dice: tuple[int, int, int]) -> set[int]:
    """Every fully bracketed expression string, evaluated by Python on Fractions."""
    found: set[int] = set()
    for x, y, z in permutations(dice):
        for a, b in product("+-*/", repeat=2):
            for text in (f"((F({x}){a}F({y})){b}F({z}))", f"(F({x}){a}(F({y}){b}F({z})))"):
                try:
                    value = eval(text, {"F": Fraction})  # noqa: S307 - test oracle
                except ZeroDivisionError:
                    continue
                if value > 0 and value.denominator == 1:
                    found.add(int(value))
    return found


def left_to_right(text: str) -> Fraction:
    """The rule text's reading: no precedence, brackets first (e.g. "2+4×3 = 18")."""
    text = text.replace("−", "-").replace("×", "*").replace("÷", "/")
    x = Fraction(0)
    if "(" in text:
        inner = text[text.index("(") + 1:text.index(")")]
        x = _ltr_with(inner, x)
        text = text.replace(f"({inner})", "X")
    return _ltr_with(text, x)


def _ltr_with(text: str, x: Fraction) -> Fraction:
    tokens: list[str] = []
    num = ""
    for ch in text:
        if ch.isdigit() or ch == "X":
            num += ch
        else:
            tokens += [num, ch]
            num = ""
    tokens.append(num)
    vals = [x if t == "X" else Fraction(int(t)) for t in tokens[::2]]
    value = vals[0]
    for op, v in zip(tokens[1::2], vals[1:], strict=True):
        value = {"+": value + v, "-": value - v, "*": value * v,
                 "/": value / v if v else Fraction(10**9)}[op]
    return value


def test_rule_text_examples_2_3_4() -> None:
    """pyramid_dice.free_order: 'The order of calculation is free: no "multiplication first"
    precedence. Examples with 2,3,4: 4÷2×3 = 6, 2+3+4 = 9, 2+4×3 = 18 (i.e. (2+4)×3).'"""
    found = reachable([2, 3, 4])
    assert {6, 9, 18} <= set(found)
    assert found[6] == "4÷2×3" and found[9] == "2+3+4" and found[18] == "(2+4)×3"


def test_publisher_examples() -> None:
    """The publisher's listing: 2+3+4=9, 3−2×4=4, 2×4−3=5 (read left to right)."""
    found = reachable([2, 3, 4])
    assert left_to_right("3−2×4") == 4 and left_to_right("2×4−3") == 5
    assert {9, 4, 5} <= set(found)


def test_solve_2_3_4_is_exactly_the_brute_force() -> None:
    assert set(reachable([2, 3, 4])) == brute_force((2, 3, 4)) == {
        1, 2, 3, 4, 5, 6, 9, 10, 11, 14, 18, 20, 24}


@pytest.mark.parametrize("dice", list(combinations_with_replacement(range(1, 7), 3))
                         + [(7, 2, 3), (8, 8, 1), (6, 7, 8), (10, 3, 3)])
def test_every_roll_matches_the_brute_force(dice: tuple[int, int, int]) -> None:
    """pyramid_dice.use_all: 'Each of the three results must be used exactly once.'
    (values above 6 after +1/+2 too)"""
    found = reachable(dice)
    assert set(found) == brute_force(dice)
    for value, text in found.items():
        # the expression uses each die once, means its value with school precedence, and
        # means the same read left to right, as the rule text reads
        assert sorted(int(n) for n in text.replace("(", " ").replace(")", " ").replace(
            "+", " ").replace("−", " ").replace("×", " ").replace("÷", " ").split()) \
            == sorted(dice)
        assert evaluate(text) == value
        assert left_to_right(text) == value, text


def test_options_never_change_the_reachable_numbers_with_three_dice() -> None:
    for dice in combinations_with_replacement(range(1, 11), 3):
        plain = set(reachable(dice))
        assert set(reachable(dice, whole_steps=True)) == plain
        assert set(reachable(dice, negative_steps=False)) == plain


def test_whole_steps_matters_for_a_stated_calculation() -> None:
    """Option whole_steps: '3÷2×4' makes 6 only when fractional steps are allowed; the
    solver then offers a whole-step calculation for the same number."""
    assert evaluate("3÷2×4") == 6
    with pytest.raises(ValueError, match="not a whole number"):
        evaluate("3÷2×4", whole_steps=True)
    text = expression_for([3, 2, 4], 6, whole_steps=True)
    assert text is not None and evaluate(text, whole_steps=True) == 6
    assert evaluate("4−(2−3)") == 5
    with pytest.raises(ValueError, match="negative"):
        evaluate("4−(2−3)", negative_steps=False)


def test_bad_dice() -> None:
    for dice in ([1, 2], [1, 2, 3, 4], [0, 1, 2], [1, 2, -3], [1.5, 2, 3], [True, 2, 3]):
        with pytest.raises(ValueError):
            reachable(dice)  # type: ignore[arg-type]
    for text in ("2+", "(2+3", "2+a", "2 3"):
        with pytest.raises(ValueError):
            evaluate(text)
    with pytest.raises(ZeroDivisionError):
        evaluate("2÷(3−3)")


def test_die_changes() -> None:
    """pyramid_dice.flip: 'turn one die upside down (1⇔6, 2⇔5, 3⇔4)'; +1/+2 may exceed 6."""
    assert [change_die("flip", v) for v in range(1, 7)] == [6, 5, 4, 3, 2, 1]
    assert change_die("+1", 6) == 7 and change_die("+2", 6) == 8
    assert change_die("set5", 1) == 5
    with pytest.raises(ValueError):
        change_die("flip", 7)


def test_gains_per_ability() -> None:
    """Which takeable cards each held ability newly brings within reach."""
    targets = {"r7c1": 6, "r7c2": 13, "r7c3": 28, "side:t5": 7}
    found = gains([2, 3, 4], ["+1", "flip", "set6", "reroll"], targets)
    assert 6 not in [g.number for gs in found.values() for g in gs]  # already makeable
    plus = {g.target: g for g in found["+1"]}
    assert set(plus) == {"r7c2", "side:t5"}  # e.g. 13: +1 on 2 → 3, then 3×3+4
    for g in found["+1"] + found["flip"] + found["set6"]:
        assert evaluate(g.how.split(": ", 1)[1]) == g.number
    assert all(0 < g.probability < 1 for g in found["reroll"])
    with pytest.raises(ValueError):
        gains([2, 3, 4], ["fly"], targets)
