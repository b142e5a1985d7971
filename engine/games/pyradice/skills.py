"""Skill uses: the text form, which uses a skill definition allows, and what a use does to
the dice of a pyramid (see ``vocabulary.py`` for the shapes).

Text forms (spaces as in ``pyramid.py``; a re-roll carries its result, because the camera
sees the decision and its outcome at once, as Pyramid Dice's re-roll does)::

    use A3 rotate 1-2        use A2 +1 1-3         use A4 set 1-2 to 5
    use B3 reroll 1-2 to 4   use B4 swap 1-2 2-3   use A5 move 1-2 to 1-6
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import InvalidActionError
from engine.games.pyradice import pyramid as pm
from engine.games.pyradice.pyramid import Board
from engine.games.pyradice.vocabulary import SKILL_OPS, Definition


@dataclass(frozen=True, slots=True)
class Use:
    """One use of a skill token on the dice of the active player's pyramid.

    Attributes:
        token: the skill token's id (``A3``).
        op: ``rotate``, ``adjust``, ``set``, ``reroll``, ``swap`` or ``move``.
        target: the space of the die it changes (``1-2``).
        other: the second die of a swap, or a move's destination.
        value: the change of an adjust (+1, -1...), the value set, or the re-roll's result.
    """

    token: str
    op: str
    target: str
    other: str | None = None
    value: int | None = None

    def to_str(self) -> str:
        head = f"use {self.token}"
        if self.op == "adjust":
            return f"{head} {self.value:+d} {self.target}"
        if self.op in ("set", "reroll"):
            return f"{head} {self.op} {self.target} to {self.value}"
        if self.op == "swap":
            return f"{head} swap {self.target} {self.other}"
        if self.op == "move":
            return f"{head} move {self.target} to {self.other}"
        return f"{head} {self.op} {self.target}"

    def touches(self) -> tuple[str, ...]:
        """The spaces whose die the use changes or moves."""
        return (self.target, self.other) if self.op == "swap" and self.other else (self.target,)


_INTERNED: dict[tuple[str, str, str, str | None, int | None], Use] = {}


def interned(token: str, op: str, target: str, other: str | None = None,
             value: int | None = None) -> Use:
    """The one shared Use value for these fields (uses are listed hundreds of times per
    step). The number of distinct uses is bounded (tokens × spaces × spaces × values), so
    the table never needs clearing."""
    key = (token, op, target, other, value)
    hit = _INTERNED.get(key)
    if hit is None:
        hit = _INTERNED[key] = Use(token, op, target, other, value)
    return hit


def parse_use(words: list[str]) -> Use:
    """Read ``use TOKEN ...`` (the words after ``use``); raises InvalidActionError."""
    def space(word: str) -> str:
        if word not in pm.INDEX:
            raise InvalidActionError(f"{word!r} is not a pyramid space (1-1 … 6-1)")
        return word

    def die(word: str) -> int:
        if not word.isdigit() or not 1 <= int(word) <= 6:
            raise InvalidActionError(f"{word!r} is not a die value 1–6")
        return int(word)

    n = len(words)
    if n >= 3:
        token, op = words[0], words[1]
        if op == "rotate" and n == 3:
            return Use(token, "rotate", space(words[2]))
        if op[:1] in "+-" and op[1:].isdigit() and int(op[1:]) > 0 and n == 3:
            return Use(token, "adjust", space(words[2]), value=int(op))
        if op in ("set", "reroll") and n == 5 and words[3] == "to":
            return Use(token, op, space(words[2]), value=die(words[4]))
        if op == "swap" and n == 4:
            return Use(token, "swap", space(words[2]), space(words[3]))
        if op == "move" and n == 5 and words[3] == "to":
            return Use(token, "move", space(words[2]), space(words[4]))
    raise InvalidActionError(
        f"not a skill use: {'use ' + ' '.join(words)!r} (e.g. 'use A3 rotate 1-2', 'use A2 +1 "
        "1-3', 'use A4 set 1-2 to 5', 'use B3 reroll 1-2 to 4', 'use B4 swap 1-2 2-3', "
        "'use A5 move 1-2 to 1-6')")


def _in_scope(scope: str, placed: int, n: int) -> bool:
    if scope == "same_level":
        return pm.LEVEL[n] == pm.LEVEL[placed]
    if scope == "below":
        return pm.LEVEL[n] < pm.LEVEL[placed]
    return True


def _adjusted(defn: Definition, value: int, delta: int) -> int | None:
    new = value + delta
    if defn.get("wrap"):
        return (new - 1) % 6 + 1
    return new if 1 <= new <= 6 else None


def uses(defn: Definition, board: Board, placed: int, *, on_placed: bool = False) -> list[Use]:
    """Every use the definition allows on ``board`` (the placed die already on it), in a
    stable order. ``on_placed``: the uses on the die just placed instead (never legal)."""
    tok, shape, scope = defn.id, defn.shape, defn.word("scope", "any")
    dice = [n for n in range(pm.SIZE) if board[n] is not None]
    targets = [placed] if on_placed else [n for n in dice if n != placed]
    out: list[Use] = []
    if shape == "swap":
        pairs = [(placed, b) for b in dice if b != placed] if on_placed else \
            [(a, b) for a in targets for b in targets if a < b]
        for a, b in pairs:
            if scope == "same_level" and pm.LEVEL[a] != pm.LEVEL[b]:
                continue
            if scope == "adjacent" and b not in pm.ADJACENT[a]:
                continue
            first, second = (a, b) if a < b else (b, a)
            out.append(interned(tok, "swap", pm.NAMES[first], pm.NAMES[second]))
        return out
    for t in targets:
        if shape != "move" and not _in_scope(scope, placed, t):
            continue
        name = pm.NAMES[t]
        value = (board[t] or (0, ""))[0]
        if shape == "rotate180":
            out.append(interned(tok, "rotate", name))
        elif shape == "adjust":
            out += [interned(tok, "adjust", name, value=d) for d in defn.ints("by") or ()
                    if _adjusted(defn, value, d) is not None]
        elif shape == "set":
            out += [interned(tok, "set", name, value=v) for v in defn.ints("values") or ()]
        elif shape == "reroll":
            out += [interned(tok, "reroll", name, value=v) for v in range(1, 7)]
        elif shape == "move" and not any(board[c] is not None for c in pm.CARRIES[t]):
            out += [interned(tok, "move", name, pm.NAMES[d]) for d in range(pm.SIZE)
                    if board[d] is None and pm.supported(board, d, without=t)]
    return out


def why_not(defn: Definition, board: Board, placed: int, use: Use) -> str | None:
    """Why the sheet's definition does not allow ``use`` (None: it does). The die just
    placed is checked by the caller (RULES pyradice.not_placed_die)."""
    op = SKILL_OPS[defn.shape]
    if use.op != op:
        return f"{defn.id} is '{defn.text or defn.shape}' ({op}), not {use.op}"
    t = pm.INDEX[use.target]
    die = board[t]
    if die is None:
        return f"there is no die at {use.target}"
    scope = defn.word("scope", "any")
    if op == "swap":
        o = pm.INDEX[use.other or ""]
        if board[o] is None or o == t:
            return f"a swap needs two dice, not {use.target} and {use.other}"
        if scope == "same_level" and pm.LEVEL[t] != pm.LEVEL[o]:
            return f"{defn.id} swaps two dice of the same level"
        if scope == "adjacent" and o not in pm.ADJACENT[t]:
            return f"{defn.id} swaps two dice that touch"
        if o < t:
            return f"write the swap with the lower space first: swap {use.other} {use.target}"
        return None
    if op != "move" and not _in_scope(scope, placed, t):
        return f"{defn.id} only reaches dice {scope.replace('_', ' ')} of the placed die"
    if op == "adjust":
        if use.value not in (defn.ints("by") or ()):
            return f"{defn.id} changes a die by {defn.ints('by')}, not {use.value}"
        if _adjusted(defn, die[0], use.value or 0) is None:
            return f"{die[0]}{use.value:+d} is not a die value"
    if op == "set" and use.value not in (defn.ints("values") or ()):
        return f"{defn.id} sets a die to one of {defn.ints('values')}, not {use.value}"
    if op == "move":
        d = pm.INDEX[use.other or ""]
        if any(board[c] is not None for c in pm.CARRIES[t]):
            return f"a die rests on {use.target}: it cannot be moved"
        if board[d] is not None or not pm.supported(board, d, without=t):
            return f"{use.other} is not an empty space that can hold a die"
    return None


def apply_use(board: Board, use: Use) -> Board:
    """The pyramid after a use, done physically (whether or not it was allowed)."""
    out = list(board)
    t = pm.INDEX[use.target]
    die = out[t]
    if die is None:
        return board
    if use.op == "rotate":
        out[t] = (7 - die[0], die[1])
    elif use.op == "adjust":
        new = die[0] + (use.value or 0)
        out[t] = ((new - 1) % 6 + 1, die[1])
    elif use.op in ("set", "reroll"):
        out[t] = (use.value or die[0], die[1])
    elif use.op == "swap":
        o = pm.INDEX[use.other or ""]
        out[t], out[o] = out[o], die
    elif use.op == "move":
        d = pm.INDEX[use.other or ""]
        if out[d] is None:
            out[t], out[d] = None, die
    return tuple(out)
