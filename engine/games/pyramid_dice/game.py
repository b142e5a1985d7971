"""Pyramid Dice (ピラミッド・ダイス, でじ / decoct design 2023), per
shared/rules/pyramid-dice-rules-en.md checked against the Japanese original beside it.

A turn: the ``roll`` (chance), then any god abilities (a re-roll is one action with its
outcome, because the camera sees both at once), then ``take`` one card the dice make, or
give up (``remove`` a card to the side area; ``pass`` when the pyramid is empty; ``give up``
in solo play). With the snatch rule on, a ``snatch`` by another player stands for the active
player giving up; a snatch by a later player than the next names who passed before it (the
camera cannot see that: reconcile asks). The stall rule's ``end`` needs the last card (option
stall_cards) to have been out of everyone's reach for about two rounds. See ``rules.py`` for
every rule and option, ``cards.py`` for the player-entered card set and layout.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from dataclasses import replace
from itertools import combinations_with_replacement, permutations
from typing import Any

from engine.core import (
    Candidate,
    Event,
    Game,
    GameInfo,
    Outcome,
    Score,
    options_tuple,
)
from engine.errors import EngineError, InvalidStateError
from engine.games.pyramid_dice import table as t
from engine.games.pyramid_dice.cards import (
    EXAMPLE_PROVENANCE,
    CardSetError,
    check_placement,
    default_layout,
    example_cards,
    parse_cards,
    parse_layout,
    place,
)
from engine.games.pyramid_dice.checks import check
from engine.games.pyramid_dice.rules import EN, OPTIONS, RULES
from engine.games.pyramid_dice.solver import change_die, gains
from engine.games.pyramid_dice.state import (
    END,
    GIVE_UP,
    PASS,
    PyramidAction,
    PyramidState,
    Remove,
    Reroll,
    Roll,
    Snatch,
    Strengthen,
    Take,
    Use,
    Word,
    parse,
    target_text,
)
from engine.games.pyramid_dice.view import expected_view, load_state
from engine.observation import View
from engine.registry import register

INFO = GameInfo(name="pyramid_dice", title="Pyramid Dice", min_players=1, max_players=5,
                rules_source=EN, aliases=("pyramid dice", "pyramid-dice", "ピラミッド・ダイス"),
                options=OPTIONS)

#: every roll of three d6 as a sorted multiset, with its probability
ROLLS: tuple[tuple[tuple[int, int, int], float], ...] = tuple(
    (roll, len(set(permutations(roll))) / 216)
    for roll in combinations_with_replacement(range(1, 7), 3))
ROLL_ACTIONS: tuple[Roll, ...] = tuple(Roll(v) for v, _ in ROLLS)
_REROLLS: dict[str, tuple[Reroll, ...]] = {}


def _rerolls(source: str) -> tuple[Reroll, ...]:
    if source not in _REROLLS:
        _REROLLS[source] = tuple(Reroll(v, source) for v, _ in ROLLS)
    return _REROLLS[source]


def _provenance(entered: Any) -> str:
    """The provenance of entered data (the shipped example/default when none was entered)."""
    if entered is None:
        return EXAMPLE_PROVENANCE
    if isinstance(entered, Mapping) and isinstance(entered.get("provenance"), str):
        return str(entered["provenance"])
    return "entered by the players"


_SETUP_KEYS = {"cards", "card_counts", "layout", "placement", "first_player"}


@register
class PyramidDice(Game[PyramidState, PyramidAction]):
    info = INFO
    rules = RULES

    # --- setup -------------------------------------------------------------------------
    def new_state(self, players: int, options: Mapping[str, object] | None = None, *,
                  setup: Mapping[str, Any] | None = None,
                  seed: int | None = None) -> PyramidState:
        """A new game. ``setup`` (all optional): ``cards`` (a card set, default the EXAMPLE
        set), ``card_counts`` ({"treasure": 21, "god": 7}), ``layout`` (default: the 7-row
        default), ``placement`` (slot -> card id; default a seeded shuffle that lays the
        "2" cards from the apex), ``first_player`` (0-based, default 0)."""
        if isinstance(players, bool) or not isinstance(players, int) or not 1 <= players <= 5:
            raise InvalidStateError(f"Pyramid Dice is for 1 to 5 players (5 Ra cards), not "
                                    f"{players!r}")
        values = INFO.resolve_options(options)
        setup = dict(setup or {})
        unknown = set(setup) - _SETUP_KEYS
        if unknown:
            raise CardSetError(f"unknown setup field(s): {', '.join(sorted(unknown))} "
                               f"(known: {', '.join(sorted(_SETUP_KEYS))})")
        try:
            cards = parse_cards(setup["cards"], setup.get("card_counts")) if "cards" in setup \
                else example_cards()
        except EngineError as exc:
            raise exc.at("cards") from None
        try:
            slots, order = parse_layout(setup["layout"]) if "layout" in setup \
                else default_layout()
        except EngineError as exc:
            raise exc.at("layout") from None
        if len(slots) != len(cards):
            raise CardSetError(f"the layout has {len(slots)} slots for {len(cards)} cards")
        try:
            placement = check_placement(setup["placement"], cards, order) \
                if "placement" in setup else place(cards, order, random.Random(seed))
        except EngineError as exc:
            raise exc.at("placement") from None
        first = setup.get("first_player", 0)
        if isinstance(first, bool) or not isinstance(first, int) or not 0 <= first < players:
            raise CardSetError(f"first_player must be 0..{players - 1}, not {first!r}").at(
                "first_player")
        names = [s.slot for s in slots]
        return PyramidState(
            players, options_tuple(values), cards, slots,
            tuple((s, placement[s]) for s in names),
            areas=((),) * players, hidden=((),) * players,
            strengthened=(False,) * players, got_god=(False,) * players, current=first,
            provenance=(_provenance(setup.get("cards")), _provenance(setup.get("layout"))))

    def state_from_dict(self, data: Mapping[str, Any]) -> PyramidState:
        return load_state(data)

    # --- moves ---------------------------------------------------------------------------
    def parse_action(self, text: str) -> PyramidAction:
        return parse(text)

    def legal_actions(self, state: PyramidState) -> list[PyramidAction]:
        if state.phase == "over":
            return []
        out: list[PyramidAction] = []
        if state.phase == "roll":
            out += ROLL_ACTIONS
            if t.may_end_stalled(state):
                out.append(END)
        else:
            me = state.current
            sources = ["ra"] if state.ra_used < t.ra_max(state, me) else []
            gods = t.held_gods(state, me)
            sources += [c.id for c in gods if c.ability == "reroll"]
            for source in sources:
                out += _rerolls(source)
            for c in gods:
                if c.ability != "reroll":
                    out += [Use(str(c.ability), v, c.id) for v in sorted(set(state.values))
                            if not (c.ability == "flip" and v > 6)]
            made = t.makeable(state)
            targets = [(x, c) for x, c in t.takeable(state) if c.number in made]
            out += [Take(x) for x, _ in targets]
            if t.may_give_up(state) or not targets:
                if state.players == 1:
                    out.append(GIVE_UP)
                elif state.pyramid:
                    out += [Remove(s) for s, _ in t.uncovered(state)]
                else:
                    out.append(PASS)
            if state.option("snatch") and state.players > 1:
                ok = [x for x, c in targets
                      if c.kind != "god" or state.option("snatch_god_cards")]
                for k in range(1, state.players):
                    who = (me + k) % state.players
                    out += [Snatch(who, x, t.snatch_order(state, who)) for x in ok]
        out += [Strengthen(p) for p in range(state.players) if t.may_strengthen(state, p)]
        return out

    def chance_outcomes(self, state: PyramidState) -> list[tuple[PyramidAction, float]]:
        if state.phase != "roll":
            return []
        return [(a, p) for a, (_, p) in zip(ROLL_ACTIONS, ROLLS, strict=True)]

    def check(self, state: PyramidState, action: PyramidAction) -> None:
        check(state, action)

    def _apply(self, state: PyramidState,
               action: PyramidAction) -> tuple[PyramidState, tuple[Event, ...]]:
        me = state.current
        if isinstance(action, Roll):
            return replace(state, dice=tuple((v, v) for v in action.values), phase="act"), ()
        if isinstance(action, Strengthen):
            flags = list(state.strengthened)
            flags[action.player] = True
            return replace(state, strengthened=tuple(flags)), (Event(
                "strengthen", f"P{action.player + 1} turns their Ra card to its strengthened "
                "side", action.player),)
        if isinstance(action, Word) and action.word == "end":
            return replace(state, phase="over", ended="stall"), (Event(
                "end", "nobody could take a card for a while: the players end the game"),)
        if isinstance(action, Reroll | Use):
            return self._use(state, action)
        if isinstance(action, Take | Snatch):
            return self._take(state, action)
        # a turn without a take: could a card be taken with the dice as they lie? (judged
        # before a removal uncovers another card; RULES stall)
        stuck = not t.can_take(state)
        if isinstance(action, Remove):
            cid = t.in_slot(state, action.slot) or ""
            after = replace(state, pyramid=tuple(x for x in state.pyramid if x[0] != action.slot),
                            side=state.side + (cid,) if cid else state.side)
            return self._next(after, took=False, stuck=stuck, events=(Event(
                "remove", f"P{me + 1} takes no card and moves {cid} from {action.slot} to the "
                "side area", me),))
        if action.word == "give up":
            left = len(state.pyramid)
            return replace(state, phase="over", ended="solo_failed"), (Event(
                "solo_end", f"the expedition ends with {left} card(s) left: "
                f"{t.solo_rank(left)}", me),)
        return self._next(state, took=False, stuck=stuck, events=(Event(
            "pass", f"P{me + 1} takes no card (the pyramid is empty)", me),))

    def _use(self, state: PyramidState,
             action: Reroll | Use) -> tuple[PyramidState, tuple[Event, ...]]:
        me = state.current
        if isinstance(action, Reroll):
            dice = tuple((v, v) for v in action.values)
            what = f"re-rolls {' '.join(map(str, action.values))}"
        else:
            i = next((k for k, (v, _) in enumerate(state.dice) if v == action.die), 0)
            value, face = state.dice[i]
            new = change_die(action.ability, value) if not (
                action.ability == "flip" and value > 6) else value
            turned = action.ability.startswith("set") or action.ability == "flip" or (
                state.option("plus_turns_die") and new <= 6)
            dice = tuple(sorted(state.dice[:i] + ((new, new if turned else face),)
                                + state.dice[i + 1:]))
            what = f"turns a {value} into {new} ({action.ability})"
        after = replace(state, dice=dice)
        if action.card == "ra":
            counts = bool(state.option("ra_counts_toward_limit"))
            return replace(after, ra_used=state.ra_used + 1,
                           god_uses=state.god_uses + int(counts)), (Event(
                               "ability", f"P{me + 1} {what} with the Ra card", me),)
        if action.card is None or action.card not in state.areas[me]:
            return after, ()  # a physical change without a card (illegal; view only)
        boxed = t.hard(state) or state.god_uses >= 1  # RULES god_limit, god_reuse, hard_mode
        events = [Event("ability", f"P{me + 1} {what} with {action.card}", me)]
        if boxed:
            after = replace(after, areas=tuple(
                tuple(c for c in a if c != action.card) if p == me else a
                for p, a in enumerate(state.areas)), boxed=state.boxed + (action.card,))
            why = "hard mode" if t.hard(state) else "second ability this turn"
            events.append(Event("boxed", f"{action.card} goes back to the box ({why})", me))
        return replace(after, god_uses=state.god_uses + 1), tuple(events)

    def _take(self, state: PyramidState,
              action: Take | Snatch) -> tuple[PyramidState, tuple[Event, ...]]:
        me = state.current
        cid = t.target_card(state, action.target)
        if cid is None:
            return state, ()
        pyramid = tuple(x for x in state.pyramid if x[0] != action.target)
        side = tuple(c for c in state.side if c != cid)
        card = t.card(state, cid)
        expr = t.makeable(state).get(card.number, "?")
        if isinstance(action, Snatch):
            who = action.player
            hidden = tuple(h + (cid,) if p == who else h for p, h in enumerate(state.hidden))
            after = replace(state, pyramid=pyramid, side=side, hidden=hidden)
            return self._next(after, took=True, events=(Event(
                "snatch", f"P{who + 1} snatches {cid} ({card.number} = {expr}); face down it "
                f"scores {card.back}", who),))
        areas = tuple(a + (cid,) if p == me else a for p, a in enumerate(state.areas))
        got = tuple(g or (p == me and card.kind == "god") for p, g in enumerate(state.got_god))
        after = replace(state, pyramid=pyramid, side=side, areas=areas, got_god=got)
        return self._next(after, took=True, events=(Event(
            "take", f"P{me + 1} takes {cid} ({card.number} = {expr})", me),))

    def _next(self, state: PyramidState, *, took: bool, events: tuple[Event, ...],
              stuck: bool = False) -> tuple[PyramidState, tuple[Event, ...]]:
        """End the turn: the game's end (RULES end), else the next player clockwise.
        ``stuck``: the turn took no card and the dice made none that could be taken (counted
        toward the stall rule; any other turn starts the count again)."""
        count = state.stuck_turns + 1 if stuck and not took else 0
        state = replace(state, stuck_turns=count, ra_used=0, god_uses=0)
        if not state.pyramid and (not state.side or state.option("end_when") == "pyramid_empty"
                                  or state.players == 1):
            reason = "all_taken" if not state.side else "pyramid_empty"
            return replace(state, phase="over", ended=reason), events + (Event(
                "end", "no pyramid cards remain: the game ends"),)
        return replace(state, phase="roll", current=(state.current + 1) % state.players,
                       turn=state.turn + 1), events

    # --- results ------------------------------------------------------------------------
    def score(self, state: PyramidState) -> tuple[Score, ...]:
        out = []
        for p in range(state.players):
            treasure, gods, snatched = t.points(state, p)
            out.append(Score(p, treasure + gods + snatched, (
                ("treasure cards", treasure), ("god cards", gods),
                ("snatched cards (back numbers)", snatched))))
        return tuple(out)

    def outcome(self, state: PyramidState) -> Outcome | None:
        if state.phase != "over":
            return None
        if state.players == 1:  # RULES solo, solo_ranks
            left = len(state.pyramid)
            return Outcome((0,), f"{t.solo_rank(left)} ({left} card(s) left in the pyramid)")
        scores = self.score(state)
        treasures = [sum(1 for c in state.areas[p] if t.card(state, c).kind == "treasure")
                     for p in range(state.players)]
        key = [(s.total, treasures[s.player]) for s in scores]  # RULES winner
        best = max(s.total for s in scores)
        top = max(k for k in key if k[0] == best)
        winners = tuple(p for p, k in enumerate(key) if k == top)
        tied = sum(1 for s in scores if s.total == best) > 1
        why = "most points" if not tied else (
            "most points, shared" if len(winners) > 1 else "most points, then most treasure "
            "cards")
        if state.ended == "stall":
            why += " (ended by the stall rule)"
        return Outcome(winners, f"{why}: {best}")

    def to_move(self, state: PyramidState) -> int | None:
        return None if state.phase == "over" else state.current

    # --- what the camera sees -------------------------------------------------------------
    def expected_view(self, state: PyramidState) -> View:
        return expected_view(state)

    def candidates(self, state: PyramidState) -> Iterator[Candidate[PyramidAction]]:
        """Legal actions, plus the physical moves players get wrong: taking a covered card or
        a card the dice do not make, taking before the roll, removing a covered card (or any
        card when one must be taken), changing a die without the god card."""
        seen: set[PyramidAction] = set()
        for action in self.legal_actions(state):
            seen.add(action)
            yield Candidate(action)
        if state.phase == "over":
            return
        wrong: list[PyramidAction] = [Take(s) for s, _ in state.pyramid]
        wrong += [Take(f"side:{c}") for c in state.side]
        if state.phase == "act" and state.players > 1:
            wrong += [Remove(s) for s, _ in state.pyramid]
        if state.phase == "act":  # a die turned by hand: one candidate per visible change
            changes: set[tuple[int, int]] = set()
            for a in ("flip", "+1", "+2", "set3", "set4", "set5", "set6"):
                for v in sorted(set(state.values)):
                    if a == "flip" and v > 6:
                        continue
                    change = (v, change_die(a, v))
                    if change[0] != change[1] and change not in changes:
                        changes.add(change)
                        wrong.append(Use(a, v, None))
        for action in wrong:
            if action not in seen:
                error = self.why_illegal(state, action)
                if error is not None:
                    yield Candidate(action, error)

    def view_after(self, state: PyramidState, action: PyramidAction) -> View:
        """The physical result of a move, legal or not."""
        if self.is_legal(state, action):
            return expected_view(self._apply(state, action)[0])
        if isinstance(action, Roll | Reroll):
            return expected_view(replace(state, dice=tuple((v, v) for v in action.values)))
        if isinstance(action, Take) and state.phase == "roll":
            state = replace(state, phase="act")
        if isinstance(action, Take | Snatch | Remove | Use):
            return expected_view(self._apply(state, action)[0])
        return expected_view(state)

    # --- playouts and hints ------------------------------------------------------------------
    def random_action(self, state: PyramidState, rng: random.Random) -> PyramidAction:
        """A random legal action: first a kind of action (roll, re-roll with one card, an
        ability, take, give up, snatch...) uniformly, then one of that kind; rolls and
        re-rolls are drawn with their real probabilities."""
        legal = self.legal_actions(state)
        if not legal:
            return super().random_action(state, rng)
        kinds: dict[str, list[PyramidAction]] = {}
        for a in legal:
            key = type(a).__name__ + (f":{a.card}" if isinstance(a, Reroll) else "")
            kinds.setdefault(key, []).append(a)
        group = kinds[rng.choice(sorted(kinds))]
        if isinstance(group[0], Roll | Reroll):
            odds = dict(ROLLS)
            weights = [odds[a.values] for a in group if isinstance(a, Roll | Reroll)]
            return rng.choices(group, weights=weights, k=1)[0]
        return rng.choice(group)

    def hints(self, state: PyramidState) -> dict[str, Any]:
        """For the phone: what the dice make now, and per ability the current player holds,
        which takeable cards it would newly bring within reach."""
        if state.phase != "act":
            return {"makeable": {}, "gains": {}}
        targets = {target_text(x): c.number for x, c in t.takeable(state)}
        made = t.makeable(state)
        abilities = [str(c.ability) for c in t.held_gods(state, state.current)]
        if state.ra_used < t.ra_max(state, state.current):
            abilities.append("reroll")
        opts = {"whole_steps": bool(state.option("whole_steps")),
                "negative_steps": bool(state.option("negative_steps"))}
        found = gains(state.values, abilities, targets, **opts)
        return {"makeable": {x: made[n] for x, n in targets.items() if n in made},
                "gains": {a: [(g.target, g.number, g.how) for g in gs]
                          for a, gs in found.items()}}

