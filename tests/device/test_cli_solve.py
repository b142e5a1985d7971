"""`dicetable solve A B C [--json] [--whole-steps]`: exactly the reachable positive whole
numbers (checked against an independent brute force), one clear line for bad numbers."""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction
from itertools import permutations, product

import pytest

from engine.games.pyramid_dice.solver import evaluate

Cli = Callable[..., tuple[int, str, str]]  # the `cli` fixture (tests/device/conftest.py)


def brute_force(dice: tuple[int, ...]) -> list[int]:
    found: set[int] = set()
    ops = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
           "/": lambda a, b: a / b if b else None}
    for x, y, z in permutations(Fraction(d) for d in dice):
        for f, g in product(ops.values(), repeat=2):
            left = f(x, y)
            right = g(y, z)
            for value in (None if left is None else g(left, z),
                          None if right is None else f(x, right)):
                if value is not None and value > 0 and value.denominator == 1:
                    found.add(int(value))
    return sorted(found)


def test_solve_2_3_4_json_lists_exactly_the_reachable_numbers(
        cli: Cli) -> None:
    code, out, err = cli("solve", "2", "3", "4", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["dice"] == [2, 3, 4]
    values = [r["value"] for r in data["reachable"]]
    assert values == brute_force((2, 3, 4)) and {6, 9, 18} <= set(values)
    for r in data["reachable"]:
        assert evaluate(r["expression"]) == r["value"]
    assert {r["value"]: r["expression"] for r in data["reachable"]}[6] == "4÷2×3"


@pytest.mark.parametrize("dice", [("1", "1", "1"), ("6", "6", "6"), ("5", "3", "1"),
                                  ("8", "2", "7")])
def test_solve_text_mode(cli: Cli, dice: tuple[str, ...]) -> None:
    code, out, _ = cli("solve", *dice)
    assert code == 0
    lines = out.splitlines()
    values = [int(line.split(" = ")[0]) for line in lines]
    assert values == brute_force(tuple(int(d) for d in dice))
    for line in lines:
        value, expression = line.split(" = ")
        assert evaluate(expression) == int(value)


def test_whole_steps_flag(cli: Cli) -> None:
    code, out, _ = cli("solve", "3", "2", "4", "--json", "--whole-steps")
    assert code == 0
    data = json.loads(out)
    assert data["whole_steps"] is True
    assert [r["value"] for r in data["reachable"]] == brute_force((3, 2, 4))
    for r in data["reachable"]:  # every step of every expression is whole
        assert evaluate(r["expression"], whole_steps=True) == r["value"]


@pytest.mark.parametrize("args", [("2", "3"), ("2", "3", "4", "5"), ("2", "x", "4"),
                                  ("2", "3.5", "4"), ("0", "3", "4"), ("--", "-1", "3", "4"),
                                  ("2", "3", "99999")])
def test_bad_numbers_give_one_line_and_status_2(cli: Cli,
                                                args: tuple[str, ...]) -> None:
    code, out, err = cli("solve", *args)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("dicetable: error:")
    assert "Traceback" not in err
