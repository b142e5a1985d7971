"""Quarriors! (WizKids 2011, Mike Elliott & Eric Lang), base set, per
shared/rules/quarriors-rulebook.txt and the card facts of shared/data/games/ (restated in
data/base.json, see make_data.py).

A turn is the rulebook's five phases: ``score`` (phase 1, only with creatures in the Ready
Area) then ``cull``/``recall``/``done``; the draw and roll as chance outcomes, one die at a
time (``draw DIE``: its share of the hidden bag; ``roll DIE FACE``: its faces' share);
immediate effects, readying and summoning (phase 2, in any order, more draws and rolls as
they come); ``attack`` (phase 3: each defending player's ``defend rN`` in turn and their
reaction spells); ``capture`` (phase 4) and ``end`` (phase 5). A card's effect that happens
outside that order (a Mighty Scavenging Goblin's draws during an attack, a set-aside Mighty
Ghostly Spirit's roll, a Ghostly Spirit's return, a Strong Primordial Ooze's copy) is a
prompt (state.Prompt, prompts.py): its player resolves it before any other action.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from typing import Any

from engine.core import Candidate, Event, Game, Outcome, Score, options_tuple
from engine.errors import IllegalActionError, InvalidStateError
from engine.games.quarriors import state as st
from engine.games.quarriors.actions import (
    Cast,
    Copy,
    CullFrom,
    Defend,
    Draw,
    Pick,
    QuarriorsAction,
    Reshape,
    Roll,
    Save,
    Trade,
    Use,
)
from engine.games.quarriors.actions import Word as WordAction
from engine.games.quarriors.actions import parse as parse_text
from engine.games.quarriors.dice import DICE
from engine.games.quarriors.load import load_state
from engine.games.quarriors.moves import new_seat, start_turn
from engine.games.quarriors.observe import observed_draw
from engine.games.quarriors.rules import INFO, RULES
from engine.games.quarriors.setup import (
    SetupError,
    check_cards,
    deal,
    first_player,
    wilds_and_box,
)
from engine.games.quarriors.state import QuarriorsState
from engine.games.quarriors.stats import cost, summon_cost
from engine.games.quarriors.turn import chance, legal, play
from engine.games.quarriors.view import expected_view
from engine.observation import Observation, View
from engine.registry import register

_LAST: dict[str, tuple[QuarriorsState, list[QuarriorsAction]]] = {}


@register
class Quarriors(Game[QuarriorsState, QuarriorsAction]):
    info = INFO
    rules = RULES

    # --- setup ------------------------------------------------------------------------------
    def new_state(self, players: int, options: Mapping[str, object] | None = None, *,
                  setup: Mapping[str, Any] | None = None,
                  seed: int | None = None) -> QuarriorsState:
        """``setup``: ``cards`` (the 7 creature and 3 spell cards the table shows; default a
        deal by the rulebook, seeded) and ``first_player`` (0-based, default 0)."""
        if isinstance(players, bool) or not isinstance(players, int) \
                or not INFO.seats(players):
            raise InvalidStateError(f"Quarriors is for 2 to 4 players, not {players!r} "
                                    f"({RULES['quarriors.players'].text})")
        values = INFO.resolve_options(options)
        setup = dict(setup or {})
        unknown = set(setup) - {"cards", "first_player"}
        if unknown:
            raise SetupError(f"unknown setup keys {sorted(unknown)} (known: cards, "
                             "first_player)")
        cards = check_cards(setup["cards"]) if "cards" in setup \
            else deal(random.Random(seed))
        first = first_player(setup, players)
        wilds, box = wilds_and_box(cards, players)
        bag = st.counts([("basic_quiddity", 8), ("assistant", 4)])
        state = QuarriorsState(players, options_tuple(values), cards, wilds, box,
                               tuple(new_seat(bag) for _ in range(players)), first,
                               turn_no=0)
        return start_turn(state, first, [])

    def state_from_dict(self, data: Mapping[str, Any]) -> QuarriorsState:
        return load_state(data, INFO)

    # --- moves ------------------------------------------------------------------------------
    def parse_action(self, text: str) -> QuarriorsAction:
        return parse_text(text)

    def legal_actions(self, state: QuarriorsState) -> list[QuarriorsAction]:
        last = _LAST.get("last")
        if last is not None and last[0] is state:
            return list(last[1])
        found = legal(state)
        _LAST["last"] = (state, found)
        return list(found)

    def chance_outcomes(self, state: QuarriorsState) -> list[tuple[QuarriorsAction, float]]:
        return chance(state)

    # --- the camera ---------------------------------------------------------------------------
    follow_unseen = True
    """'attack' with no creature to attack with and 'done' (no cull) show nothing; the
    player's next move does (core.Game.follow_unseen)."""

    def observed_chance(self, state: QuarriorsState, observation: Observation
                        ) -> list[tuple[QuarriorsAction, ...]]:
        """The draw and roll read off the Active Pool (observe.observed_draw)."""
        return observed_draw(state, observation)

    def candidates(self, state: QuarriorsState) -> Iterator[Candidate[QuarriorsAction]]:
        """The legal actions, and the mistakes a player makes with the dice at hand, each
        naming its rule: a creature summoned for less quiddity than its level (RULES
        summon), a Quarry die captured for less than its cost (RULES capture_cost)."""
        for action in self.legal_actions(state):
            yield Candidate(action)
        for foul in _fouls(state):
            error = self.why_illegal(state, foul)
            if error is not None:
                yield Candidate(foul, error)

    def check(self, state: QuarriorsState, action: QuarriorsAction) -> None:
        if action in self.legal_actions(state):
            return
        raise IllegalActionError(RULES[f"quarriors.{_rule_for(state, action)}"],
                                 f"{action.to_str()!r} is not legal now ({_moment(state)})")

    def _apply(self, state: QuarriorsState,
               action: QuarriorsAction) -> tuple[QuarriorsState, tuple[Event, ...]]:
        after, events = play(state, action)
        return after, tuple(events)

    def to_move(self, state: QuarriorsState) -> int | None:
        if state.phase == "over":
            return None
        if state.prompts:
            return state.prompts[0].player  # a card's effect for that player (prompts.py)
        if state.phase == "attack" and state.attack is not None:
            return state.attack.defender
        return state.current

    def random_action(self, state: QuarriorsState, rng: random.Random) -> QuarriorsAction:
        """Chance by its odds; otherwise a kind of decision (spend, summon, attack, ...)
        uniformly, then one of that kind, so random matches reach their end."""
        outcomes = chance(state)
        if outcomes:
            return rng.choices([a for a, _ in outcomes], [p for _, p in outcomes], k=1)[0]
        legal_now = self.legal_actions(state)
        if not legal_now:
            return super().random_action(state, rng)
        kinds: dict[str, list[QuarriorsAction]] = {}
        for a in legal_now:
            kinds.setdefault(a.to_str().split()[0], []).append(a)
        return rng.choice(kinds[rng.choice(sorted(kinds))])

    def table_action(self, state: QuarriorsState, rng: random.Random) -> QuarriorsAction:
        """A random legal action as players at a table make them (the simulated table's):
        mostly what moves the match on (summon a creature, spend quiddity for it, attack,
        capture the dearest die they can pay for, cull a Basic Quiddity), now and then any
        legal action (random_action), so that matches end in tens of turns, not hundreds."""
        if chance(state) or rng.random() < 0.15:
            return self.random_action(state, rng)
        legal_now = self.legal_actions(state)
        by: dict[str, list[QuarriorsAction]] = {}
        for a in legal_now:
            by.setdefault(a.to_str().split()[0], []).append(a)
        for verb in ("score", "summon", "ready"):
            if by.get(verb):
                return rng.choice(by[verb])
        if by.get("cull"):
            cheap = [a for a in by["cull"] if isinstance(a, Pick) and a.die == "basic_quiddity"]
            return rng.choice(cheap or by["cull"])
        if by.get("capture"):
            return max(by["capture"], key=lambda a: (cost(state, a.die)
                                                     if isinstance(a, Pick) else 0))
        if by.get("spend") and state.phase == "main" and rng.random() < 0.8:
            return rng.choice(by["spend"])
        for verb in ("done", "attack", "defend", "end"):
            if by.get(verb):
                return rng.choice(by[verb])
        return self.random_action(state, rng)

    # --- results ----------------------------------------------------------------------------
    def score(self, state: QuarriorsState) -> tuple[Score, ...]:
        return tuple(Score(p, s.glory, s.breakdown) for p, s in enumerate(state.seats))

    def outcome(self, state: QuarriorsState) -> Outcome | None:
        if state.phase != "over":
            return None
        return Outcome(state.winners, state.reason)

    def expected_view(self, state: QuarriorsState) -> View:
        return expected_view(state)


def _fouls(state: QuarriorsState) -> list[QuarriorsAction]:
    """See Quarriors.candidates."""
    if chance(state) or state.prompts or state.phase not in ("main", "capture"):
        return []
    out: list[QuarriorsAction] = []
    turn = state.turn
    if state.phase == "main":
        for die, label in dict.fromkeys(state.me.active):
            face = DICE[die].face(label) if label else None
            if face is not None and face.kind == "creature" \
                    and summon_cost(state, face) > turn.quiddity:
                out.append(Use("summon", die, label))
    elif turn.captures > 0:
        out += [Pick("capture", die) for die, _ in state.wilds
                if max(0, cost(state, die) - turn.discount) > turn.quiddity]
    return out


def _rule_for(state: QuarriorsState, action: QuarriorsAction) -> str:
    """The rule an illegal action breaks, for the phone's message."""
    if state.phase == "over":
        return "game_over"
    if state.prompts:
        return "card_effect"
    if chance(state) and not isinstance(action, Draw | Roll):
        return "draw"
    if isinstance(action, Draw | Roll):
        return "draw"
    if isinstance(action, Defend):
        return "damaged_once" if state.phase == "attack" else "phases"
    if isinstance(action, WordAction):
        return {"score": "score", "done": "cull", "attack": "phases", "end": "phases"}[
            action.word] if state.phase != "score" else "score"
    if state.phase == "score":
        return "score"
    if isinstance(action, Pick):
        return {"cull": "cull_used", "recall": "card_effect", "capture": "capture_cost"}[
            action.verb]
    if isinstance(action, Use):
        return {"spend": "spend", "summon": "summon", "ready": "ready_spell",
                "reroll": "reroll_active", "use": "card_effect", "retire": "end_spells"}[
            action.verb]
    if isinstance(action, Cast):
        if action.attach:
            return "no_attach_phase1" if state.phase == "cull" else "attach"
        return "reaction" if state.phase == "attack" else "cast_phase"
    if isinstance(action, Trade | CullFrom | Reshape | Save | Copy):
        return "card_effect"
    return "phases"


def _moment(state: QuarriorsState) -> str:
    if state.phase == "over":
        return "the match is over"
    if state.prompts:
        p = state.prompts[0]
        return f"P{p.player + 1} resolves a card's effect ({p.kind})"
    if chance(state):
        return f"P{state.current + 1} draws and rolls"
    if state.phase == "attack" and state.attack is not None:
        return f"P{state.attack.defender + 1} defends against P{state.current + 1}'s attack"
    return f"P{state.current + 1}'s turn, phase {state.phase}"
