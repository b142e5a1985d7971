"""Pyramid Dice arithmetic: which whole numbers three dice can make.

Rule (shared/rules/pyramid-dice-rules-ja.txt, 遊び方): combine ALL three results with
+ − × ÷ ("3つの出目すべてを1回ずつ使わなくてはなりません"), in any order of calculation
("計算する順番は自由です"). Every ordering of the three dice and both bracketings are tried,
computed exactly with :class:`fractions.Fraction`.

Each reachable value comes with one readable expression. An expression is written so that it
means the same thing read left to right (the rule text's style: "2+4×3 = 18") and read with
the usual school precedence: ``4÷2×3``, ``2+3+4``, ``(2+4)×3``, ``(3−2)×4``. Among the
expressions that make a value we prefer fewer brackets, whole-number steps, non-negative
steps and small intermediate results.

Options the rule text leaves open (the sheet says nothing about them):

* ``whole_steps``: every intermediate result must be a whole number (``3÷2×4`` no longer
  counts as a way to make 6). Default off: the sheet only asks that the answer is a card's
  number.
* ``negative_steps``: intermediate results may be negative. Default on.

With three dice neither option changes WHICH numbers are reachable, only which calculations
count: a fractional step ``(x÷y)×z`` is also ``(x×z)÷y`` with a whole step, ``x÷(y÷z)`` is
``x×z÷y``, and any other use of a fraction or a negative step gives a fractional or
negative answer (``x−(y−z)`` is ``x+z−y``). The tests check this on every roll up to 14.
Where the options do matter is :func:`evaluate`, which checks a calculation a player states.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import permutations, product

PLUS, MINUS, TIMES, DIVIDE = "+", "−", "×", "÷"
OPERATORS = (PLUS, MINUS, TIMES, DIVIDE)
_ASCII = {"+": PLUS, "-": MINUS, "*": TIMES, "x": TIMES, "/": DIVIDE}


def _calc(a: Fraction, op: str, b: Fraction) -> Fraction | None:
    if op == PLUS:
        return a + b
    if op == MINUS:
        return a - b
    if op == TIMES:
        return a * b
    return None if b == 0 else a / b


@dataclass(frozen=True, slots=True, order=True)
class _Candidate:
    key: tuple[int, int, int, Fraction, str]
    text: str


def _render_left(x: int, op1: str, y: int, op2: str, z: int) -> tuple[str, int]:
    """``(x op1 y) op2 z``: brackets only where school precedence would read it otherwise."""
    if op1 in (PLUS, MINUS) and op2 in (TIMES, DIVIDE):
        return f"({x}{op1}{y}){op2}{z}", 1
    return f"{x}{op1}{y}{op2}{z}", 0


def _render_right(x: int, op1: str, y: int, op2: str, z: int) -> tuple[str, int]:
    """``x op1 (y op2 z)``: always bracketed (left to right would read it otherwise)."""
    return f"{x}{op1}({y}{op2}{z})", 1


@lru_cache(maxsize=4096)
def _solve(dice: tuple[int, int, int], whole_steps: bool,
           negative_steps: bool) -> tuple[tuple[int, str], ...]:
    best: dict[int, _Candidate] = {}
    for x, y, z in set(permutations(dice)):
        fx, fy, fz = Fraction(x), Fraction(y), Fraction(z)
        for op1, op2 in product(OPERATORS, repeat=2):
            for shape in ("left", "right"):
                if shape == "left":
                    step = _calc(fx, op1, fy)
                    value = None if step is None else _calc(step, op2, fz)
                    text, brackets = _render_left(x, op1, y, op2, z)
                else:
                    step = _calc(fy, op2, fz)
                    value = None if step is None else _calc(fx, op1, step)
                    text, brackets = _render_right(x, op1, y, op2, z)
                if step is None or value is None:
                    continue  # division by zero
                if value <= 0 or value.denominator != 1:
                    continue
                if whole_steps and step.denominator != 1:
                    continue
                if not negative_steps and step < 0:
                    continue
                key = (brackets, int(step.denominator != 1), int(step < 0), abs(step), text)
                cand = _Candidate(key, text)
                n = int(value)
                if n not in best or cand < best[n]:
                    best[n] = cand
    return tuple((n, best[n].text) for n in sorted(best))


def check_dice(dice: Iterable[int]) -> tuple[int, int, int]:
    """The three dice values as a sorted tuple; raises ValueError when they are not three
    positive whole numbers (after god abilities a value may exceed 6)."""
    values = tuple(dice)
    if len(values) != 3:
        raise ValueError(f"three dice values are needed, not {len(values)}")
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"a die value is a positive whole number, not {v!r}")
    a, b, c = sorted(values)
    return (a, b, c)


def reachable(dice: Iterable[int], *, whole_steps: bool = False,
              negative_steps: bool = True) -> dict[int, str]:
    """Every positive whole number the three dice make, with one readable expression.

    Args:
        dice: three positive whole numbers (die values, possibly above 6).
        whole_steps: require every intermediate result to be a whole number.
        negative_steps: allow negative intermediate results.

    Returns:
        value -> expression, in increasing order of value.

    Raises:
        ValueError: the dice are not three positive whole numbers.
    """
    return dict(_solve(check_dice(dice), whole_steps, negative_steps))


@lru_cache(maxsize=4096)
def reachable_map(dice: tuple[int, ...], whole_steps: bool = False,
                  negative_steps: bool = True) -> Mapping[int, str]:
    """Like :func:`reachable`, cached per sorted dice tuple; the result is shared, read it
    only (the rules engine asks this for every state)."""
    return reachable(dice, whole_steps=whole_steps, negative_steps=negative_steps)


def expression_for(dice: Iterable[int], number: int, *, whole_steps: bool = False,
                   negative_steps: bool = True) -> str | None:
    """One expression making ``number`` from the dice, or None when it cannot be made."""
    return reachable(dice, whole_steps=whole_steps, negative_steps=negative_steps).get(number)


def evaluate(text: str, *, whole_steps: bool = False, negative_steps: bool = True) -> Fraction:
    """Evaluate an expression of this module (or with ASCII ``+ - * /``) exactly, with the
    usual precedence and brackets. Used by tests and the phone to check what a player says.

    Raises:
        ValueError: malformed text, or a step the options forbid (a fractional step with
            ``whole_steps``, a negative one without ``negative_steps``).
        ZeroDivisionError: a division by zero.
    """
    tokens: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch.isdigit():
            j = i
            while j < len(text) and text[j].isdigit():
                j += 1
            tokens.append(text[i:j])
            i = j
        elif ch in OPERATORS or ch in _ASCII or ch in "()":
            tokens.append(_ASCII.get(ch, ch))
            i += 1
        else:
            raise ValueError(f"unexpected {ch!r} in {text!r}")
    pos = 0

    def step(value: Fraction) -> Fraction:
        if whole_steps and value.denominator != 1:
            raise ValueError(f"{text!r}: the step giving {value} is not a whole number")
        if not negative_steps and value < 0:
            raise ValueError(f"{text!r}: the step giving {value} is negative")
        return value

    def peek() -> str | None:
        return tokens[pos] if pos < len(tokens) else None

    def take() -> str:
        nonlocal pos
        if pos >= len(tokens):
            raise ValueError(f"unexpected end of {text!r}")
        pos += 1
        return tokens[pos - 1]

    def atom() -> Fraction:
        tok = take()
        if tok == "(":
            value = expr()
            if take() != ")":
                raise ValueError(f"unbalanced brackets in {text!r}")
            return value
        if not tok.isdigit():
            raise ValueError(f"a number was expected in {text!r}, not {tok!r}")
        return Fraction(int(tok))

    def term() -> Fraction:
        value = atom()
        while peek() in (TIMES, DIVIDE):
            op = take()
            rhs = atom()
            out = _calc(value, op, rhs)
            if out is None:
                raise ZeroDivisionError(f"division by zero in {text!r}")
            value = step(out)
        return value

    def expr() -> Fraction:
        value = term()
        while peek() in (PLUS, MINUS):
            op = take()
            value = step(value + term() if op == PLUS else value - term())
        return value

    result = expr()
    if pos != len(tokens):
        raise ValueError(f"unexpected {tokens[pos]!r} in {text!r}")
    return result


# --- which cards a god ability brings within reach -------------------------------------------
DIE_ABILITIES = ("flip", "+1", "+2", "set3", "set4", "set5", "set6")
ABILITIES = ("reroll", *DIE_ABILITIES)


def change_die(ability: str, value: int) -> int:
    """A die's value after a die-changing ability (flip: 1⇔6 2⇔5 3⇔4; +1/+2 may exceed 6).

    A die above 6 has no opposite face; flipping it is not defined and raises ValueError.
    """
    if ability == "flip":
        if not 1 <= value <= 6:
            raise ValueError(f"a die showing {value} cannot be turned upside down")
        return 7 - value
    if ability in ("+1", "+2"):
        return value + int(ability[1])
    if ability in ("set3", "set4", "set5", "set6"):
        return int(ability[3])
    raise ValueError(f"not a die-changing ability: {ability!r}")


@dataclass(frozen=True, slots=True)
class Gain:
    """A card an ability brings within reach.

    Attributes:
        ability: the ability (``reroll``, ``flip``, ``+1``, ``+2``, ``set3``...).
        target: the card's key as given (a pyramid slot such as ``r6c3``, or a card id).
        number: the card's number.
        how: a readable way to make it, e.g. ``+1 on 3 → 4: 4÷2×4``, or for ``reroll``
            the chance that a re-roll makes it.
        probability: 1.0 for a die change; for ``reroll`` the chance that a new roll makes it.
    """

    ability: str
    target: str
    number: int
    how: str
    probability: float = 1.0


def _roll_odds(whole_steps: bool, negative_steps: bool) -> dict[int, float]:
    """number -> probability that a fresh roll of three d6 can make it."""
    odds: dict[int, float] = {}
    for roll in product(range(1, 7), repeat=3):
        for n in reachable(roll, whole_steps=whole_steps, negative_steps=negative_steps):
            odds[n] = odds.get(n, 0.0) + 1 / 216
    return odds


_ODDS: dict[tuple[bool, bool], dict[int, float]] = {}


def gains(dice: Sequence[int], abilities: Iterable[str], targets: Mapping[str, int], *,
          whole_steps: bool = False, negative_steps: bool = True) -> dict[str, tuple[Gain, ...]]:
    """Per ability, the target cards it newly brings within reach of these dice.

    Args:
        dice: the three current values.
        abilities: the abilities the player could use (duplicates are ignored).
        targets: the cards that may be taken, key (slot or id) -> number.
        whole_steps, negative_steps: as for :func:`reachable`.

    Returns:
        ability -> the cards not makeable now that the ability makes makeable, by number.
    """
    now = reachable(dice, whole_steps=whole_steps, negative_steps=negative_steps)
    out: dict[str, tuple[Gain, ...]] = {}
    for ability in dict.fromkeys(abilities):
        found: dict[str, Gain] = {}
        if ability == "reroll":
            key = (whole_steps, negative_steps)
            if key not in _ODDS:
                _ODDS[key] = _roll_odds(*key)
            for target, number in targets.items():
                p = _ODDS[key].get(number, 0.0)
                if number not in now and p > 0:
                    found[target] = Gain(ability, target, number,
                                         f"re-roll: {p:.0%} chance", p)
        else:
            for i, value in enumerate(dice):
                try:
                    new = change_die(ability, value)
                except ValueError:
                    continue
                changed = [*dice[:i], new, *dice[i + 1:]]
                made = reachable(changed, whole_steps=whole_steps,
                                 negative_steps=negative_steps)
                for target, number in targets.items():
                    if number in made and number not in now and target not in found:
                        found[target] = Gain(ability, target, number,
                                             f"{ability} on {value} → {new}: {made[number]}")
        if ability not in DIE_ABILITIES and ability != "reroll":
            raise ValueError(f"unknown ability {ability!r} (known: {', '.join(ABILITIES)})")
        out[ability] = tuple(sorted(found.values(), key=lambda g: (g.number, g.target)))
    return out
