"""Quarriors actions and their text forms.

Chance (the camera sees the outcome): ``draw DIE`` (one die out of the hidden bag) and
``roll DIE FACE`` (one die landing). Decisions: ``score``, ``cull DIE``, ``recall DIE``,
``done``, ``spend DIE FACE``, ``use DIE FACE`` (a Questing Wizard's Q2* face), ``reroll DIE
FACE [and DIE FACE]``, ``ready DIE FACE [reroll DIE FACE and DIE FACE]``, ``summon DIE
FACE``, ``cast DIE FACE [on P2 r1, P3 r2]``, ``attach DIE FACE to P1 r2``, ``attack``,
``defend r2``, ``capture DIE``, ``retire DIE FACE``, ``end``; the cards' own: ``cast DIE
FACE turning r1 FACE, r2 FACE`` (Shaping Charm), ``trade DIE for DIE of P2`` (Deathdealer),
``cull DIE [FACE] from active|ready`` (Strong Questing Wizard), ``cull DIE for DIE``
(Shaping Incantation), ``return DIE FACE`` and ``decline`` (Ghostly Spirit), ``copy rN as P2
rM`` (Strong Primordial Ooze). ``rN`` is the N-th die of that player's Ready Area in its
sorted order (state.ReadyDie). Faces are written as one word (``L1-2/2*``).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.core import ChanceOutcome, Decision
from engine.errors import InvalidActionError
from engine.games.quarriors.dice import DICE, label_of, token

DieFace = tuple[str, str]
Target = tuple[int, int]
"""(player, index in that player's Ready Area), both 0-based."""


def _df(d: DieFace) -> str:
    return f"{d[0]} {token(d[1])}"


def _target(t: Target) -> str:
    return f"P{t[0] + 1} r{t[1] + 1}"


@dataclass(frozen=True, slots=True)
class Draw(ChanceOutcome):
    """One die drawn out of the current player's bag (chance: its share of the bag)."""

    die: str

    def to_str(self) -> str:
        return f"draw {self.die}"


@dataclass(frozen=True, slots=True)
class Roll(ChanceOutcome):
    """The next unrolled die of the Active Pool lands on ``face`` (chance: its faces' share)."""

    die: str
    face: str

    def to_str(self) -> str:
        return f"roll {_df((self.die, self.face))}"


@dataclass(frozen=True, slots=True)
class Word(Decision):
    """``score``, ``done``, ``attack`` or ``end``."""

    word: str

    def to_str(self) -> str:
        return self.word


SCORE, DONE, ATTACK, END = Word("score"), Word("done"), Word("attack"), Word("end")
DECLINE = Word("decline")


@dataclass(frozen=True, slots=True)
class Pick(Decision):
    """A die named by type only: ``cull``, ``recall`` (Used Pile to Active Pool) or
    ``capture`` (from the Wilds)."""

    verb: str
    die: str

    def to_str(self) -> str:
        return f"{self.verb} {self.die}"


@dataclass(frozen=True, slots=True)
class Use(Decision):
    """A die of the Active Pool or Ready Area used for its face: ``spend``, ``summon``,
    ``retire`` (a spell to the Used Pile at the end of the turn); ``reroll`` (with ``also``
    another die of the Active Pool, the Assistant's burst); ``ready`` (with ``also`` the
    dice Growth Incantation re-rolls)."""

    verb: str
    die: str
    face: str
    also: tuple[DieFace, ...] = ()

    def to_str(self) -> str:
        text = f"{self.verb} {_df((self.die, self.face))}"
        if self.also:
            rest = " and ".join(_df(d) for d in self.also)
            text += (" and " if self.verb == "reroll" else " reroll ") + rest
        return text


@dataclass(frozen=True, slots=True)
class Cast(Decision):
    """A spell of the caster's Ready Area cast (``targets``: creatures or spells it acts on),
    or attached (``attach``: to the one target)."""

    die: str
    face: str
    targets: tuple[Target, ...] = ()
    attach: bool = False
    turns: tuple[tuple[int, str], ...] = ()
    """Shaping Charm: (index in the caster's Ready Area, the face it is turned to)"""

    def to_str(self) -> str:
        if self.attach:
            return f"attach {_df((self.die, self.face))} to {_target(self.targets[0])}"
        text = f"cast {_df((self.die, self.face))}"
        if self.targets:
            text += " on " + ", ".join(_target(t) for t in self.targets)
        if self.turns:
            text += " turning " + ", ".join(f"r{i + 1} {token(f)}" for i, f in self.turns)
        return text


@dataclass(frozen=True, slots=True)
class Trade(Decision):
    """Deathdealer: the scored die ``give`` from the Used Pile for one die ``take`` of player
    ``player``'s Used Pile (``trade deathdealer for assistant of P2``)."""

    give: str
    take: str
    player: int

    def to_str(self) -> str:
        return f"trade {self.give} for {self.take} of P{self.player + 1}"


@dataclass(frozen=True, slots=True)
class CullFrom(Decision):
    """Strong Questing Wizard: a Spell die culled from the Active Pool or the Ready Area
    (``zone``), for 1 glory (face "": a die not yet rolled)."""

    zone: str
    die: str
    face: str

    def to_str(self) -> str:
        shown = f"{self.die} {token(self.face)}" if self.face else self.die
        return f"cull {shown} from {self.zone}"


@dataclass(frozen=True, slots=True)
class Reshape(Decision):
    """Shaping Incantation: ``cull`` culled from the Used Pile to capture ``capture``."""

    cull: str
    capture: str

    def to_str(self) -> str:
        return f"cull {self.cull} for {self.capture}"


@dataclass(frozen=True, slots=True)
class Save(Decision):
    """Ghostly Spirit: a Basic Quiddity die of the Used Pile culled to return the destroyed
    die (showing ``face``) to the Ready Area."""

    die: str
    face: str

    def to_str(self) -> str:
        return f"return {_df((self.die, self.face))}"


@dataclass(frozen=True, slots=True)
class Copy(Decision):
    """Strong Primordial Ooze: the ooze at ``index`` of its owner's Ready Area copies the
    creature ``target``."""

    index: int
    target: Target

    def to_str(self) -> str:
        return f"copy r{self.index + 1} as {_target(self.target)}"


@dataclass(frozen=True, slots=True)
class Defend(Decision):
    """The defending player's next defender (0-based index in their Ready Area)."""

    index: int

    def to_str(self) -> str:
        return f"defend r{self.index + 1}"


QuarriorsAction = Draw | Roll | Word | Pick | Use | Cast | Defend | Trade | CullFrom | Reshape \
    | Save | Copy

_USAGE = ("expected 'draw DIE', 'roll DIE FACE', 'score', 'done', 'attack', 'end', "
          "'cull|recall|capture DIE', 'spend|summon|retire DIE FACE', 'reroll DIE FACE [and "
          "DIE FACE]', 'ready DIE FACE [reroll DIE FACE and DIE FACE]', 'cast DIE FACE [on P2 "
          "r1, ...]', 'cast DIE FACE turning r1 FACE, ...', 'attach DIE FACE to P1 r2', "
          "'defend r2', 'trade DIE for DIE of P2', 'cull DIE [FACE] from active|ready', 'cull "
          "DIE for DIE', 'return DIE FACE', 'decline' or 'copy r1 as P2 r1'")


def _bad(text: str, why: str = "") -> InvalidActionError:
    return InvalidActionError(f"not a Quarriors action: {text!r}{' (' + why + ')' if why else ''}"
                              f"; {_USAGE}")


def _die(text: str, word: str) -> str:
    if word not in DICE:
        raise _bad(text, f"no die {word!r}")
    return word


def _die_face(text: str, words: list[str]) -> DieFace:
    if len(words) != 2:
        raise _bad(text)
    key = _die(text, words[0])
    label = label_of(words[1])
    try:
        DICE[key].face(label)
    except KeyError:
        raise _bad(text, f"the {key} die has no face {words[1]!r}") from None
    return key, label


def _index(text: str, word: str) -> int:
    if len(word) < 2 or word[0] not in "rR" or not word[1:].isdigit() or int(word[1:]) < 1:
        raise _bad(text, f"{word!r} is not a Ready Area die (r1, r2...)")
    return int(word[1:]) - 1


def _player_target(text: str, words: list[str]) -> Target:
    if len(words) != 2 or words[0][:1] not in "Pp" or not words[0][1:].isdigit() \
            or int(words[0][1:]) < 1:
        raise _bad(text, "a target is 'P2 r1'")
    return int(words[0][1:]) - 1, _index(text, words[1])


def parse(text: str) -> QuarriorsAction:
    words = text.strip().split()
    if not words:
        raise _bad(text)
    verb, rest = words[0], words[1:]
    if verb in ("score", "done", "attack", "end", "decline") and not rest:
        return Word(verb)
    if verb == "cull" and len(rest) == 3 and rest[1] == "for":
        return Reshape(_die(text, rest[0]), _die(text, rest[2]))
    if verb == "cull" and len(rest) in (3, 4) and rest[-2] == "from" \
            and rest[-1] in ("active", "ready"):
        if len(rest) == 3:
            return CullFrom(rest[-1], _die(text, rest[0]), "")
        return CullFrom(rest[-1], *_die_face(text, rest[:2]))
    if verb == "trade" and len(rest) == 5 and rest[1] == "for" and rest[3] == "of":
        return Trade(_die(text, rest[0]), _die(text, rest[2]),
                     _player_target(text, [rest[4], "r1"])[0])
    if verb == "return":
        return Save(*_die_face(text, rest))
    if verb == "copy" and len(rest) == 4 and rest[1] == "as":
        return Copy(_index(text, rest[0]), _player_target(text, rest[2:]))
    if verb in ("draw", "cull", "recall", "capture") and len(rest) == 1:
        key = _die(text, rest[0])
        return Draw(key) if verb == "draw" else Pick(verb, key)
    if verb == "roll":
        return Roll(*_die_face(text, rest))
    if verb in ("spend", "summon", "retire", "use"):
        return Use(verb, *_die_face(text, rest))
    if verb in ("reroll", "ready"):
        sep = "and" if verb == "reroll" else "reroll"
        head, also = (rest[:rest.index(sep)], rest[rest.index(sep) + 1:]) if sep in rest \
            else (rest, [])
        others: list[DieFace] = []
        while also:
            others.append(_die_face(text, also[:2]))
            also = also[2:]
            if also:
                if also[0] != "and":
                    raise _bad(text)
                also = also[1:]
        return Use(verb, *_die_face(text, head), tuple(others))
    if verb == "cast":
        turns: tuple[tuple[int, str], ...] = ()
        if "turning" in rest:
            i = rest.index("turning")
            parts = [p.split() for p in " ".join(rest[i + 1:]).split(",")]
            if any(len(p) != 2 for p in parts):
                raise _bad(text, "turning is 'r1 FACE, r2 FACE'")
            turns = tuple((_index(text, p[0]), label_of(p[1])) for p in parts)
            rest = rest[:i]
        if "on" in rest:
            i = rest.index("on")
            parts_on = " ".join(rest[i + 1:]).split(",")
            targets = tuple(_player_target(text, p.split()) for p in parts_on)
            return Cast(*_die_face(text, rest[:i]), targets, turns=turns)
        return Cast(*_die_face(text, rest), turns=turns)
    if verb == "attach" and "to" in rest:
        i = rest.index("to")
        return Cast(*_die_face(text, rest[:i]), (_player_target(text, rest[i + 1:]),), True)
    if verb == "defend" and len(rest) == 1:
        return Defend(_index(text, rest[0]))
    raise _bad(text)
