"""Pyradice (André Silva, MEBO Games / Arcane Wonders 2025), per
shared/rules/pyradice-rulebook.txt and the deductions of shared/data/games/README.md.

Each turn is one action (``state.py``): take an available die from the quarry, place it on
your pyramid with its value unchanged, and use the skill of the level it went to (at most
one, on another die). The game ends when every pyramid holds 21 dice. Tokens and objective
cards are definitions the players enter (``tokens.py``, ``vocabulary.py``); the quarry's
shape and the dice colours are named options (``rules.py``).

There are no chance actions. The quarry's random dice are setup data (a seeded draw, or the
dice the players built, read as the layers went down); a re-roll's result is part of its
turn (the camera sees the decision and the outcome at once, as with Pyramid Dice's re-roll):
reconcile explains one observation by a chance outcome followed by a decision, never by a
decision followed by its chance outcome.

What is verified and what is not: the rule text (``rules.py``: every rule quoted with its
source); A3 and C6 (``data/sheet.json``, provenance VERIFIED). INFERRED: the pyramid's
6-5-4-3-2-1 levels, skills on levels 2–6, objectives on levels 1–5 (option), the quarry's
centred layers and which faces count. UNKNOWN, so configuration: the quarry's layer sizes
and the dice colours (options). Player-defined: every other token and every objective card
(setup ``sheet``; the shipped ones are EXAMPLES marked unverified).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

from engine.core import Candidate, Event, Game, Outcome, Score, options_tuple
from engine.errors import EngineError, InvalidOptionError, InvalidStateError
from engine.games.pyradice import pyramid as pm
from engine.games.pyradice import quarry as qy
from engine.games.pyradice.checks import check_turn, physical
from engine.games.pyradice.errors import SetupError
from engine.games.pyradice.pyramid import Board, Die
from engine.games.pyradice.rules import INFO, RULES
from engine.games.pyradice.scoring import outcome, score
from engine.games.pyradice.skills import Use, uses
from engine.games.pyradice.state import PyradiceAction, PyradiceState, Turn, parse
from engine.games.pyradice.tokens import (
    check_boards,
    check_cards,
    check_objectives,
    check_skills,
    example_sheet,
    in_use,
    parse_sheet,
)
from engine.games.pyradice.view import load_state, parse_die, view_of
from engine.games.pyradice.vocabulary import Definition
from engine.observation import View
from engine.registry import register

_SETUP_KEYS = {"sheet", "skills", "objectives", "boards", "cards", "quarry", "first_player"}


@contextmanager
def _field(key: str) -> Iterator[None]:
    """An engine error raised inside is about the setup field ``key``."""
    try:
        yield
    except EngineError as exc:
        raise exc.at(key) from None
#: about how many "two skills in one turn" candidates reconcile weighs in one state (shared
#: out over the placements on skill levels, at least one each)
TWO_SKILL_BUDGET = 240


def parse_colours(text: object) -> tuple[str, ...]:
    colours = tuple(c.strip().lower() for c in str(text).split(",") if c.strip())
    if not colours or len(set(colours)) != len(colours) or any(" " in c for c in colours):
        raise InvalidOptionError(f"option 'colours' lists different one-word colours, not "
                                 f"{text!r}")
    return colours


@register
class Pyradice(Game[PyradiceState, PyradiceAction]):
    info = INFO
    rules = RULES

    # --- setup ---------------------------------------------------------------------------
    def new_state(self, players: int, options: Mapping[str, object] | None = None, *,
                  setup: Mapping[str, Any] | None = None,
                  seed: int | None = None) -> PyradiceState:
        """A new game. ``setup`` (all optional; what is not given is chosen at random from
        ``seed``, as the rulebook allows): ``sheet`` (the players' token and card
        definitions, replacing the shipped examples by id), ``skills`` (5 ids, levels 2..6),
        ``objectives`` (5 ids, lowest objective level first), ``boards`` (per player
        ``{"skills", "objectives"}``, which must be identical), ``cards`` ([[id, disc colour]]
        ×4), ``quarry`` (slot → "VALUE COLOUR" for every slot), ``first_player`` (0-based)."""
        if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 4:
            raise InvalidStateError(f"Pyradice is for 2 to 4 players, not {players!r} "
                                    f"({RULES['pyradice.players'].text})")
        values = INFO.resolve_options(options)
        colours = parse_colours(values["colours"])
        key = "quarry_2p" if players == 2 else "quarry_3_4p"
        try:
            dims = qy.parse_dims(str(values[key]))
        except SetupError as exc:
            raise InvalidOptionError(f"option {key!r}: {exc}") from None
        geo = qy.geometry(dims)
        if geo.size < pm.SIZE * players:
            raise SetupError(f"option {key} gives a quarry of {geo.size} dice; {players} "
                             f"pyramids need {pm.SIZE * players}",
                             RULES[f"pyradice.{key}"])
        setup = dict(setup or {})
        unknown = set(setup) - _SETUP_KEYS
        if unknown:
            raise SetupError(f"unknown setup field(s) {', '.join(sorted(unknown))} (known: "
                             f"{', '.join(sorted(_SETUP_KEYS))})")
        rng = random.Random(seed)
        with _field("sheet"):
            sheet = parse_sheet(setup["sheet"], example_sheet()) if "sheet" in setup \
                else example_sheet()
        skills_raw, objectives_raw = setup.get("skills"), setup.get("objectives")
        if "boards" in setup:
            with _field("boards"):
                if len(setup["boards"]) != players:
                    raise SetupError(f"setup 'boards' gives {len(setup['boards'])} boards for "
                                     f"{players} players")
                skills_raw, objectives_raw = check_boards(setup["boards"])
        # RULES token_side: "Or, choose randomly."
        with _field("skills" if "boards" not in setup else "boards"):
            skills = check_skills(skills_raw, sheet) if skills_raw is not None else tuple(
                f"{rng.choice('AB')}{level}" for level in range(2, 7))
        with _field("objectives" if "boards" not in setup else "boards"):
            objectives = check_objectives(objectives_raw, sheet) \
                if objectives_raw is not None \
                else tuple(f"{rng.choice('CD')}{n}" for n in rng.sample(range(1, 8), 5))
        if "cards" in setup:
            with _field("cards"):
                cards = check_cards(setup["cards"], sheet, colours)
        else:  # RULES objective_cards, discs
            ids = rng.sample(sorted(sheet.cards), 4)
            discs = rng.sample(colours, 4) if len(colours) >= 4 else \
                [rng.choice(colours) for _ in range(4)]
            cards = tuple(zip(ids, discs, strict=True))
        defs = in_use(sheet, skills, objectives, cards, colours)
        if "quarry" in setup:
            with _field("quarry"):
                quarry = self._entered_quarry(setup["quarry"], geo, colours)
        else:  # RULES random_dice
            quarry = tuple(tuple((rng.randint(1, 6), rng.choice(colours))
                                 for _ in range(r * c)) for r, c in dims)
        first = setup.get("first_player", 0)
        if isinstance(first, bool) or not isinstance(first, int) or not 0 <= first < players:
            raise SetupError(f"first_player must be 0..{players - 1}, not {first!r}",
                             RULES["pyradice.first_player"]).at("first_player")
        return PyradiceState(players, options_tuple(values), colours, dims, quarry, skills,
                             objectives, cards, defs, (pm.EMPTY,) * players, first, 1, first)

    @staticmethod
    def _entered_quarry(raw: Any, geo: qy.Geometry, colours: tuple[str, ...]
                        ) -> tuple[tuple[Die | None, ...], ...]:
        if not isinstance(raw, Mapping):
            raise SetupError("setup 'quarry' maps every slot (L1-1…) to 'VALUE COLOUR'")
        slots = {s for layer in geo.names for s in layer}
        if set(raw) != slots:
            missing = sorted(slots - set(raw))[:3]
            extra = sorted(set(raw) - slots)[:3]
            raise SetupError(f"setup 'quarry' must give exactly the {len(slots)} slots of the "
                             f"quarry (missing {missing}, unknown {extra})",
                             RULES["pyradice.quarry_layers"])
        try:
            return tuple(tuple(parse_die(raw[s], colours, f"quarry slot {s}") for s in layer)
                         for layer in geo.names)
        except InvalidStateError as exc:
            raise SetupError(str(exc)) from None

    def state_from_dict(self, data: Mapping[str, Any]) -> PyradiceState:
        return load_state(data, INFO)

    # --- moves ---------------------------------------------------------------------------
    def parse_action(self, text: str) -> PyradiceAction:
        return parse(text)

    def check(self, state: PyradiceState, action: PyradiceAction) -> None:
        check_turn(state, action)

    def after(self, state: PyradiceState, action: PyradiceAction) -> PyradiceState:
        me = state.current
        quarry, board = physical(state, action)
        boards = state.boards[:me] + (board,) + state.boards[me + 1:]
        # (made field by field, not by dataclasses.replace: reconcile makes one state per
        # legal candidate turn, thousands per reading late in a match)
        return PyradiceState(state.players, state.options, state.colours, state.dims, quarry,
                             state.skills, state.objectives, state.cards, state.defs, boards,
                             (me + 1) % state.players, state.turn + 1, state.first)

    def _apply(self, state: PyradiceState,
               action: PyradiceAction) -> tuple[PyradiceState, tuple[Event, ...]]:
        me = state.current
        after = self.after(state, action)
        events = [Event("place", f"P{me + 1} takes {action.take} and places it on "
                        f"{action.to}", me)]
        events += [Event("skill", f"P{me + 1} {u.to_str()}", me) for u in action.skills]
        if after.over:
            events.append(Event("end", "every pyramid holds 21 dice: the game ends"))
        return after, tuple(events)

    def _open(self, state: PyradiceState) -> tuple[list[tuple[int, int]], list[int],
                                                   dict[int, list[Use]]]:
        """Available quarry dice, placeable spaces, and the legal skill uses per space
        (remembered for the last state asked: legal_actions, random_action and candidates
        ask in turn about the same state)."""
        last = _LAST_OPEN.get("last")
        if last is not None and last[0] is state:
            return last[1]
        found = self._find_open(state)
        _LAST_OPEN["last"] = (state, found)
        return found

    def _find_open(self, state: PyradiceState) -> tuple[list[tuple[int, int]], list[int],
                                                        dict[int, list[Use]]]:
        geo = qy.geometry(state.dims)
        present = qy.presence(state.quarry)
        board = state.boards[state.current]
        spaces = pm.placeable(board)
        skill_uses: dict[int, list[Use]] = {}
        for n in spaces:
            defn = state.skill_at(pm.LEVEL[n])
            skill_uses[n] = [] if defn is None else _uses(defn, _put(board, n, (1, "")), n)
        return qy.available(geo, present), spaces, skill_uses

    def legal_actions(self, state: PyradiceState) -> list[PyradiceAction]:
        """Every legal turn (the lists of the last few states asked are remembered by the
        state's identity: a reading weighs them, and the phone's view of the state after it
        and of the move it made lists them again, thousands late in a match)."""
        hit = _LEGAL.get(id(state))
        if hit is not None and hit[0] is state:
            return list(hit[1])
        found = self._legal_actions(state)
        if len(_LEGAL) >= 8:
            _LEGAL.clear()
        _LEGAL[id(state)] = (state, tuple(found))
        return found

    def _legal_actions(self, state: PyradiceState) -> list[PyradiceAction]:
        if state.over:
            return []
        avail, spaces, skill_uses = self._open(state)
        names = qy.geometry(state.dims).names
        rows = [(pm.NAMES[n], [(u,) for u in skill_uses[n]]) for n in spaces]
        out: list[Turn] = []
        for k, i in avail:
            take = names[k][i]
            for to, singles in rows:
                out.append(Turn(take, to))
                out += [Turn(take, to, None, one) for one in singles]
        return list(out)

    def random_action(self, state: PyradiceState, rng: random.Random) -> PyradiceAction:
        """A random legal turn: a random available die, a random space, then no skill or a
        random use of the level's skill (even odds), without listing every turn."""
        if state.over:
            return super().random_action(state, rng)
        avail, spaces, skill_uses = self._open(state)
        k, i = rng.choice(avail)
        n = rng.choice(spaces)
        take, to = qy.geometry(state.dims).names[k][i], pm.NAMES[n]
        if skill_uses[n] and rng.random() < 0.5:
            return Turn(take, to, None, (rng.choice(skill_uses[n]),))
        return Turn(take, to)

    # --- results --------------------------------------------------------------------------
    def score(self, state: PyradiceState) -> tuple[Score, ...]:
        return score(state)

    def outcome(self, state: PyradiceState) -> Outcome | None:
        return outcome(state)

    def to_move(self, state: PyradiceState) -> int | None:
        return None if state.over else state.current

    # --- what the camera sees ------------------------------------------------------------------
    def expected_view(self, state: PyradiceState) -> View:
        return view_of(state)

    def view_after(self, state: PyradiceState, action: PyradiceAction) -> View:
        """The physical result of a turn, legal or not."""
        quarry, board = physical(state, action)
        me = state.current
        return view_of(state, state.boards[:me] + (board,) + state.boards[me + 1:], quarry)

    def candidates(self, state: PyradiceState) -> Iterator[Candidate[PyradiceAction]]:
        """Legal turns, then the physical moves the rules forbid: a die that is not
        available, a die turned when placed, a die on a space without two dice under it, a
        skill on the die just placed, two skills in one turn (at most TWO_SKILL_BUDGET)."""
        legal = self.legal_actions(state)
        for action in legal:
            yield Candidate(action)
        if state.over:
            return
        geo = qy.geometry(state.dims)
        present = qy.presence(state.quarry)
        avail, spaces, skill_uses = self._open(state)
        board = state.boards[state.current]
        wrong: list[Turn] = []
        for k, layer in enumerate(state.quarry):
            for i, die in enumerate(layer):
                if die is not None and (k, i) not in avail \
                        and qy.top_uncovered(geo, present, k, i):
                    wrong += [Turn(geo.names[k][i], pm.NAMES[n]) for n in spaces]
        unsupported = [n for n in range(pm.SIZE) if board[n] is None and n not in spaces]
        skill_spaces = sum(1 for n in spaces if skill_uses[n])
        per_turn = TWO_SKILL_BUDGET // max(1, len(avail) * skill_spaces)
        for k, i in avail:
            take = geo.names[k][i]
            value = (state.quarry[k][i] or (0, ""))[0]
            wrong += [Turn(take, pm.NAMES[n]) for n in unsupported]
            for n in spaces:
                to = pm.NAMES[n]
                defn = state.skill_at(pm.LEVEL[n])
                # a skill on the die just placed first: where it looks the same as a die
                # turned when placed, on a level with that skill, it is the likelier story
                if defn is not None:
                    wrong += [Turn(take, to, None, (u,)) for u in
                              uses(defn, _put(board, n, (value, "")), n, on_placed=True)]
                wrong += [Turn(take, to, v) for v in range(1, 7) if v != value]
                if defn is None:
                    continue
                wrong += _two_skills(take, to, skill_uses[n], max(per_turn, 1))
        for action in wrong:
            error = self.why_illegal(state, action)
            if error is not None:
                yield Candidate(action, error)


_Open = tuple[list[tuple[int, int]], list[int], dict[int, list[Use]]]
_LAST_OPEN: dict[str, tuple[PyradiceState, _Open]] = {}
_LEGAL: dict[int, tuple[PyradiceState, tuple[PyradiceAction, ...]]] = {}


@lru_cache(maxsize=256)
def _uses(defn: Definition, board: Board, n: int) -> list[Use]:
    return uses(defn, board, n)


def _put(board: Board, n: int, die: Die) -> Board:
    return board[:n] + (die,) + board[n + 1:]


def _two_skills(take: str, to: str, options: list[Use], limit: int) -> list[Turn]:
    """Turns using two of the level's skill uses on different dice: every pair when there
    are at most ``limit``, else ``limit`` pairs spread over the uses."""
    def apart(a: Use, b: Use) -> bool:
        return not set(a.touches()) & set(b.touches())

    size = len(options)
    if size * (size - 1) // 2 <= limit:
        return [Turn(take, to, None, (a, b)) for i, a in enumerate(options)
                for b in options[i + 1:] if apart(a, b)]
    out: list[Turn] = []
    for t in range(limit):
        i = t * size // limit
        j = (i + 1 + t) % size
        if i != j and apart(options[i], options[j]):
            out.append(Turn(take, to, None, (options[min(i, j)], options[max(i, j)])))
    return out
