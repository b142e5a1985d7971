"""The Token Reference Sheet and the Objective Cards as data, and the token setup checks.

The package ships ``data/sheet.json``: A3 and C6 with provenance ``VERIFIED`` (the rulebook
states them), every other skill token (A2..A6, B2..B6), objective token (C1..C7, D1..D7) and
an example set of objective cards (K1..K8) marked ``EXAMPLE — unverified, edit to match your
Token Reference Sheet``. Players enter their own definitions as setup ``sheet`` (same form:
``{"skills": [...], "objectives": [...], "cards": [...]}``); each entry replaces the shipped
one with its id, and is marked ``entered by the players`` unless it gives a provenance.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from engine.errors import EngineError
from engine.games.pyradice.errors import DefinitionError, SetupError
from engine.games.pyradice.rules import RULES
from engine.games.pyradice.vocabulary import Definition, parse_definition

EXAMPLE = "EXAMPLE — unverified, edit to match your Token Reference Sheet"
ENTERED = "entered by the players"
SKILL_ID = re.compile(r"^[AB][2-6]$")
OBJECTIVE_ID = re.compile(r"^[CD][1-7]$")
CARD_ID = re.compile(r"^[A-Za-z0-9_]{1,24}$")
_GROUPS = (("skills", "skill", SKILL_ID, "A2..A6 or B2..B6"),
           ("objectives", "objective", OBJECTIVE_ID, "C1..C7 or D1..D7"),
           ("cards", "card", CARD_ID, "a short name of letters, digits or _"))


@dataclass(frozen=True, slots=True)
class Sheet:
    """Every definition the players may choose from, by id."""

    skills: Mapping[str, Definition]
    objectives: Mapping[str, Definition]
    cards: Mapping[str, Definition]


def parse_sheet(data: Any, base: Sheet | None = None) -> Sheet:
    """A sheet from entered data; entries replace ``base``'s with the same id.

    Raises:
        DefinitionError: a bad entry (named), an unknown id, or an id given twice.
    """
    if not isinstance(data, Mapping):
        raise DefinitionError("a sheet is {'skills': [...], 'objectives': [...], 'cards': "
                              "[...]}")
    unknown = set(data) - {"format", "provenance", "doc", "skills", "objectives", "cards"}
    if unknown:
        raise DefinitionError(f"a sheet has no field {', '.join(sorted(unknown))}")
    default = data.get("provenance", ENTERED)
    if not isinstance(default, str):
        raise DefinitionError("a sheet's 'provenance' is text")
    out = []
    for key, kind, pattern, wanted in _GROUPS:
        defs = dict(getattr(base, key)) if base else {}
        entries = data.get(key, [])
        if not isinstance(entries, list):
            raise DefinitionError(f"the sheet's '{key}' must be a list of {kind} definitions"
                                  ).at(key)
        seen: set[str] = set()
        for i, entry in enumerate(entries):
            try:
                defn = parse_definition(kind, entry, default)
            except EngineError as exc:
                raise exc.at(key, i) from None
            if not pattern.match(defn.id):
                raise DefinitionError(f"{kind} {defn.id!r}: the id must be {wanted}").at(
                    key, i, "id", message=f"the id must be {wanted}")
            if defn.id in seen:
                raise DefinitionError(f"{kind} {defn.id}: defined twice").at(
                    key, i, "id", message="defined twice")
            seen.add(defn.id)
            defs[defn.id] = defn
        out.append(defs)
    return Sheet(*out)


@lru_cache(maxsize=1)
def example_sheet() -> Sheet:
    """The shipped sheet (A3 and C6 verified, the rest examples)."""
    text = resources.files("engine.games.pyradice").joinpath("data/sheet.json").read_text(
        "utf-8")
    return parse_sheet(json.loads(text))


def _ids(value: Any, what: str, n: int) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SetupError(f"setup '{what}' must be a list of token ids")
    if len(value) != n:
        raise SetupError(f"setup '{what}' gives {len(value)} tokens, not {n} (one per level)",
                         RULES["pyradice.matching_set"])
    return [v.strip().upper() for v in value]


def check_skills(value: Any, sheet: Sheet) -> tuple[str, ...]:
    """Skill tokens of levels 2..6, in level order: each A{level} or B{level}."""
    ids = _ids(value, "skills", 5)
    for level, tid in enumerate(ids, start=2):
        if not SKILL_ID.match(tid) or int(tid[1]) != level:
            raise SetupError(f"the level-{level} recess takes A{level} or B{level}, not {tid}",
                             RULES["pyradice.skill_recess"])
        if tid not in sheet.skills:
            raise SetupError(f"skill token {tid} is not on the sheet")
    return tuple(ids)


def check_objectives(value: Any, sheet: Sheet) -> tuple[str, ...]:
    """Objective tokens of the 5 objective levels, in level order: 5 of C1..C7/D1..D7 with
    5 different numbers (a token has one number and two sides)."""
    ids = _ids(value, "objectives", 5)
    for tid in ids:
        if not OBJECTIVE_ID.match(tid):
            raise SetupError(f"{tid} is not an objective token (C1..C7, D1..D7)",
                             RULES["pyradice.matching_set"])
        if tid not in sheet.objectives:
            raise SetupError(f"objective token {tid} is not on the sheet")
    numbers = [t[1] for t in ids]
    if len(set(numbers)) != len(numbers):
        raise SetupError(f"objective tokens {', '.join(ids)} repeat a number: each token is "
                         "one number with a C and a D side", RULES["pyradice.matching_set"])
    return tuple(ids)


def check_boards(boards: Any) -> tuple[Any, Any]:
    """Per-player boards ({'skills': [...], 'objectives': [...]}) must all be the same."""
    if not isinstance(boards, list) or not boards or not all(
            isinstance(b, Mapping) for b in boards):
        raise SetupError("setup 'boards' is a list of {'skills': [...], 'objectives': [...]}")
    first = boards[0]
    for p, board in enumerate(boards[1:], start=2):
        if board.get("skills") != first.get("skills"):
            raise SetupError(f"P{p}'s skill tokens differ from P1's",
                             RULES["pyradice.same_tokens"])
        if board.get("objectives") != first.get("objectives"):
            raise SetupError(f"P{p}'s objective tokens differ from P1's",
                             RULES["pyradice.identical_boards"])
    return first.get("skills"), first.get("objectives")


def check_cards(value: Any, sheet: Sheet, colours: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """The 4 objective cards in play, each with its disc's colour."""
    if not isinstance(value, list) or not all(
            isinstance(c, list | tuple) and len(c) == 2 and all(isinstance(x, str) for x in c)
            for c in value):
        raise SetupError("setup 'cards' is a list of [card id, disc colour]")
    if len(value) != 4:
        raise SetupError(f"{len(value)} objective cards, not 4", RULES["pyradice.objective_cards"])
    ids = [c for c, _ in value]
    if len(set(ids)) != 4:
        raise SetupError("an objective card is chosen twice", RULES["pyradice.objective_cards"])
    out = []
    for cid, colour in value:
        if cid not in sheet.cards:
            raise SetupError(f"objective card {cid} is not on the sheet (known: "
                             f"{', '.join(sorted(sheet.cards))})")
        if colour.lower() not in colours:
            raise SetupError(f"card {cid}'s disc is {colour!r}, not one of the dice colours "
                             f"{', '.join(colours)}", RULES["pyradice.discs"])
        out.append((cid, colour.lower()))
    return tuple(out)


def in_use(sheet: Sheet, skills: Sequence[str], objectives: Sequence[str],
           cards: Sequence[tuple[str, str]], colours: Sequence[str]) -> tuple[Definition, ...]:
    """The definitions a match uses, checked against the game's colours."""
    defs = [sheet.skills[t] for t in skills] + [sheet.objectives[t] for t in objectives] \
        + [sheet.cards[c] for c, _ in cards]
    from engine.games.pyradice.vocabulary import colours_named
    for defn in defs:
        for colour in colours_named(defn):
            if colour not in colours:
                raise SetupError(f"{defn.kind} {defn.id} names colour {colour!r}, not one of "
                                 f"the dice colours {', '.join(colours)}")
    return tuple(defs)
