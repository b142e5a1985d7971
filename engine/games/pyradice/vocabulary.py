"""The vocabulary of rule shapes that tokens and objective cards are written in.

The Token Reference Sheet is not public, so each token and card is a *definition*: an id,
a shape from this vocabulary, the shape's parameters, the players' wording and a provenance.
Players enter the definitions printed on their own sheet; ``tokens.py`` loads and checks
them. Shapes (parameters in brackets, ``?`` optional):

Skills (used on a die of your pyramid other than the one just placed):
    rotate180 [scope?]          turn a die upside down: 1⇔6, 2⇔5, 3⇔4 (A3, VERIFIED)
    adjust [by?, wrap?, scope?] add one of ``by`` (default [1, -1]) to a die; results stay
                                1–6 unless ``wrap`` (6+1 → 1)
    set [values?, scope?]       turn a die to one of ``values`` (default 1–6)
    reroll [scope?]             re-roll a die (the text form carries the result)
    swap [scope?]               exchange two dice (``scope``: any, same_level, adjacent)
    move                        move a die nothing rests on to an empty space that holds it
    ``scope`` of a one-die skill: any, same_level (as the placed die), below (lower levels).

Objectives (every die on the token's level must meet it):
    values_in [values]          each die shows one of ``values`` (C6: [3, 5], VERIFIED)
    parity [parity]             all even / all odd
    all_different [of?]         no two dice share a value (``of``: value or colour)
    all_equal [of?]             all dice share a value (or a colour)
    sum [min?, max?]            the sum of the values within bounds
    run [ordered?]              the values are consecutive (1-2-3…); ``ordered``: left to
                                right, rising or falling
    colours_in [colours]        each die is one of ``colours``
    colour_count [colour, min?, max?]   how many dice of one colour
    per_colour [min?, max?]     every colour of the game appears min..max times
    value_count [values, min?, max?]    how many dice show one of ``values``

Objective cards (score only the dice of their disc's colour, in the whole pyramid):
    count [points?, levels?, values?]   points per die (optionally only on some levels or
                                        with some values)
    sum_values [factor?, levels?]       the sum of their values, times ``factor``
    count_table [table]                 points by number of dice: table[n] (the last entry
                                        for more)
    levels_with [points, min?]          points per level holding at least ``min`` of them
    largest_group [points?]             points per die in the largest group of touching dice
    distinct_values [points?]           points per different value shown
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.errors import EngineError
from engine.games.pyradice import pyramid as pm
from engine.games.pyradice.errors import DefinitionError
from engine.games.pyradice.pyramid import Board, Die

Param = int | str | bool | tuple[int, ...] | tuple[str, ...]


_ANY_SCOPE = ("any", "same_level", "below")
#: kind -> shape -> parameter -> (type, default); default None: required; ... : optional
_REQ = None
_OPT = ...
SCHEMAS: dict[str, dict[str, dict[str, tuple[str, Any]]]] = {
    "skill": {
        "rotate180": {"scope": ("scope", "any")},
        "adjust": {"by": ("deltas", (1, -1)), "wrap": ("bool", False), "scope": ("scope", "any")},
        "set": {"values": ("values", (1, 2, 3, 4, 5, 6)), "scope": ("scope", "any")},
        "reroll": {"scope": ("scope", "any")},
        "swap": {"scope": ("swap_scope", "any")},
        "move": {},
    },
    "objective": {
        "values_in": {"values": ("values", _REQ)},
        "parity": {"parity": ("parity", _REQ)},
        "all_different": {"of": ("of", "value")},
        "all_equal": {"of": ("of", "value")},
        "sum": {"min": ("int", _OPT), "max": ("int", _OPT)},
        "run": {"ordered": ("bool", False)},
        "colours_in": {"colours": ("colours", _REQ)},
        "colour_count": {"colour": ("colour", _REQ), "min": ("int", _OPT),
                         "max": ("int", _OPT)},
        "per_colour": {"min": ("int", _OPT), "max": ("int", _OPT)},
        "value_count": {"values": ("values", _REQ), "min": ("int", _OPT),
                        "max": ("int", _OPT)},
    },
    "card": {
        "count": {"points": ("int", 1), "levels": ("levels", _OPT), "values": ("values", _OPT)},
        "sum_values": {"factor": ("int", 1), "levels": ("levels", _OPT)},
        "count_table": {"table": ("ints", _REQ)},
        "levels_with": {"points": ("int", _REQ), "min": ("int", 1)},
        "largest_group": {"points": ("int", 1)},
        "distinct_values": {"points": ("int", 1)},
    },
}
CHOICES = {"scope": _ANY_SCOPE, "swap_scope": ("any", "same_level", "adjacent"),
           "parity": ("even", "odd"), "of": ("value", "colour")}
"""The values a parameter of each choice type takes (the setup form offers them)."""
SKILL_OPS = {"rotate180": "rotate", "adjust": "adjust", "set": "set", "reroll": "reroll",
             "swap": "swap", "move": "move"}


@dataclass(frozen=True, slots=True)
class Definition:
    """One token or card as the players' sheet defines it.

    Attributes:
        kind: ``skill``, ``objective`` or ``card``.
        id: the printed id (``A3``, ``C6``; cards: the players' name for the card).
        shape: a shape of this module's vocabulary.
        params: the shape's parameters, sorted by name, defaults filled in.
        text: the sheet's wording (or the players' own).
        provenance: ``VERIFIED …`` or ``EXAMPLE — unverified …`` or ``entered by the
            players``.
    """

    kind: str
    id: str
    shape: str
    params: tuple[tuple[str, Param], ...]
    text: str
    provenance: str

    def get(self, name: str) -> Param | None:
        for key, value in self.params:
            if key == name:
                return value
        return None

    def ints(self, name: str) -> tuple[int, ...] | None:
        value = self.get(name)
        return value if isinstance(value, tuple) and all(
            isinstance(v, int) for v in value) else None  # type: ignore[return-value]

    def number(self, name: str, default: int | None = None) -> int | None:
        value = self.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) else default

    def word(self, name: str, default: str = "") -> str:
        value = self.get(name)
        return value if isinstance(value, str) else default

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "shape": self.shape}
        for key, value in self.params:
            out[key] = list(value) if isinstance(value, tuple) else value
        out["text"] = self.text
        out["provenance"] = self.provenance
        return out


def _param(kind: str, where: str, name: str, typ: str, value: Any) -> Param:
    def bad(expected: str) -> EngineError:
        message = f"'{name}' must be {expected}, not {value!r}"
        return DefinitionError(f"{where}: {message}").at(name, message=message)

    def whole(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    if typ == "bool":
        if not isinstance(value, bool):
            raise bad("true or false")
        return value
    if typ == "int":
        if not whole(value):
            raise bad("a whole number")
        return int(value)
    if typ in CHOICES:
        if value not in CHOICES[typ]:
            raise bad("one of " + ", ".join(CHOICES[typ]))
        return str(value)
    if typ == "colour":
        if not isinstance(value, str) or not value.strip():
            raise bad("a colour name")
        return value.strip().lower()
    if not isinstance(value, list) or not value:
        raise bad("a non-empty list")
    if typ == "colours":
        if not all(isinstance(v, str) and v.strip() for v in value):
            raise bad("a list of colour names")
        return tuple(dict.fromkeys(v.strip().lower() for v in value))
    if not all(whole(v) for v in value):
        raise bad("a list of whole numbers")
    if typ == "values" and not all(1 <= v <= 6 for v in value):
        raise bad("a list of die values 1–6")
    if typ == "levels" and not all(1 <= v <= pm.LEVELS for v in value):
        raise bad("a list of levels 1–6")
    if typ == "deltas" and (0 in value or not all(-5 <= v <= 5 for v in value)):
        raise bad("a list of changes like [1, -1] (not 0, at most ±5)")
    if typ == "ints" and not all(v >= 0 for v in value):
        raise bad("a list of points ≥ 0")
    if typ == "ints":
        return tuple(int(v) for v in value)
    return tuple(dict.fromkeys(int(v) for v in value))


def parse_definition(kind: str, entry: Any, provenance: str = "entered by the players"
                     ) -> Definition:
    """Check one definition the players entered and fill in its defaults.

    Args:
        kind: ``skill``, ``objective`` or ``card``.
        entry: ``{"id": "B4", "shape": "adjust", "by": [1, -1], "text": "...",
            "provenance": "..."}``.
        provenance: used when the entry gives none.

    Raises:
        DefinitionError: naming the entry and what is wrong with it.
    """
    def bad(where: str, field: str | None, message: str) -> EngineError:
        error = DefinitionError(f"{where}: {message}" if where else message)
        return error.at(field, message=message) if field else error.at(message=message)

    if not isinstance(entry, Mapping):
        raise bad("", None, f"a {kind} definition is an object with 'id' and 'shape', "
                            f"not {entry!r}")
    ident = entry.get("id")
    if not isinstance(ident, str) or not ident.strip() or " " in ident.strip():
        raise bad("", "id", f"a {kind} definition needs an 'id' without spaces, not "
                            f"{ident!r}")
    where = f"{kind} {ident}"
    shapes = SCHEMAS[kind]
    shape = entry.get("shape")
    if shape not in shapes:
        raise bad(where, "shape", f"'shape' must be one of {', '.join(shapes)}, not {shape!r}")
    schema = shapes[str(shape)]
    unknown = set(entry) - set(schema) - {"id", "shape", "text", "provenance", "note"}
    if unknown:
        allowed = ", ".join(schema) or "none"
        raise bad(where, None, f"shape {shape!r} has no parameter "
                               f"{', '.join(sorted(unknown))} (its parameters: {allowed})")
    params: list[tuple[str, Param]] = []
    for name, (typ, default) in sorted(schema.items()):
        if name in entry:
            params.append((name, _param(kind, where, name, typ, entry[name])))
        elif default is None:
            raise bad(where, name, f"shape {shape!r} needs '{name}'")
        elif default is not ...:
            params.append((name, default))
    got = dict(params)
    low, high = got.get("min"), got.get("max")
    if shape in ("sum", "colour_count", "per_colour", "value_count") and low is None \
            and high is None:
        raise bad(where, "min", f"shape {shape!r} needs 'min', 'max' or both")
    if isinstance(low, int) and isinstance(high, int) and low > high:
        raise bad(where, "min", f"'min' {low} is above 'max' {high}")
    text = entry.get("text", "")
    prov = entry.get("provenance", provenance)
    if not isinstance(text, str) or not isinstance(prov, str) or not prov.strip():
        raise bad(where, "text", "'text' and 'provenance' must be text")
    return Definition(kind, ident.strip(), str(shape), tuple(params), text, prov)


def colours_named(defn: Definition) -> tuple[str, ...]:
    """The colours a definition names (to check them against the game's colours)."""
    out = [defn.word("colour")] if defn.get("colour") is not None else []
    colours = defn.get("colours")
    if isinstance(colours, tuple):
        out += [str(c) for c in colours]
    return tuple(out)


# --- objectives -------------------------------------------------------------------------
def _within(n: int, defn: Definition) -> bool:
    low, high = defn.number("min"), defn.number("max")
    return (low is None or n >= low) and (high is None or n <= high)


def objective_met(defn: Definition, dice: Sequence[Die], colours: Sequence[str]) -> bool:
    """Whether the dice of one level (left to right) meet an objective token."""
    values = [v for v, _ in dice]
    shape = defn.shape
    if shape == "values_in":
        return all(v in (defn.ints("values") or ()) for v in values)
    if shape == "parity":
        want = 0 if defn.word("parity") == "even" else 1
        return all(v % 2 == want for v in values)
    if shape in ("all_different", "all_equal"):
        keys: list[object] = list(values) if defn.word("of") == "value" else [c for _, c in dice]
        return len(set(keys)) == len(keys) if shape == "all_different" else len(set(keys)) <= 1
    if shape == "sum":
        return _within(sum(values), defn)
    if shape == "run":
        ordered = sorted(values)
        if any(b - a != 1 for a, b in zip(ordered, ordered[1:], strict=False)):
            return False
        return not defn.get("ordered") or values in (ordered, ordered[::-1])
    if shape == "colours_in":
        allowed = defn.get("colours")
        return isinstance(allowed, tuple) and all(c in allowed for _, c in dice)
    if shape == "colour_count":
        return _within(sum(1 for _, c in dice if c == defn.word("colour")), defn)
    if shape == "per_colour":
        return all(_within(sum(1 for _, c in dice if c == colour), defn) for colour in colours)
    if shape == "value_count":
        return _within(sum(1 for v in values if v in (defn.ints("values") or ())), defn)
    raise DefinitionError(f"objective {defn.id}: unknown shape {shape!r}")


# --- objective cards ----------------------------------------------------------------------
def card_points(defn: Definition, board: Board, colour: str) -> int:
    """What one objective card scores for a pyramid: only the dice of ``colour`` count."""
    mine = [n for n, d in enumerate(board) if d is not None and d[1] == colour]
    levels = defn.ints("levels")
    if levels is not None:
        mine = [n for n in mine if pm.LEVEL[n] in levels]
    shape = defn.shape
    if shape == "count":
        wanted = defn.ints("values")
        n = sum(1 for m in mine if wanted is None or (board[m] or (0, ""))[0] in wanted)
        return n * (defn.number("points") or 0)
    if shape == "sum_values":
        return sum((board[m] or (0, ""))[0] for m in mine) * (defn.number("factor") or 0)
    if shape == "count_table":
        table = defn.ints("table") or (0,)
        return table[min(len(mine), len(table) - 1)]
    if shape == "levels_with":
        need = defn.number("min") or 1
        hits = sum(1 for lv in range(1, pm.LEVELS + 1)
                   if sum(1 for m in mine if pm.LEVEL[m] == lv) >= need)
        return hits * (defn.number("points") or 0)
    if shape == "largest_group":
        best, seen = 0, set()
        for start in mine:
            if start in seen:
                continue
            group, stack = 0, [start]
            seen.add(start)
            while stack:
                m = stack.pop()
                group += 1
                for k in pm.ADJACENT[m]:
                    if k in mine and k not in seen:
                        seen.add(k)
                        stack.append(k)
            best = max(best, group)
        return best * (defn.number("points") or 0)
    if shape == "distinct_values":
        return len({(board[m] or (0, ""))[0] for m in mine}) * (defn.number("points") or 0)
    raise DefinitionError(f"card {defn.id}: unknown shape {shape!r}")
