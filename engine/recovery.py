"""The way back when the camera is lost: the cheapest change to the record that explains
what the table shows.

``reconcile`` explains a reading from the recorded state only. When the record went wrong
(the players answered a question with the wrong move, the camera accepted a misread die)
nothing fits from there, and every later reading is an alert (issue 32: eight alerts in a
row after one wrong answer). :func:`find_repairs` looks further back: take back the last
``k`` recorded actions (k = 0, 1, 2, ...) and find the chain of legal actions from the
state before them whose table fits the reading. The cheapest repair is the one that takes
back fewest actions; it is proposed to the players, never applied by itself: a table that
fits no legal move may also be a real rule break, which the players know and the camera
does not.

With ``need_fit`` False the best chain is returned even when it fits the reading worse
than ``Params.unexplained_log_ratio`` allows: "take the table as the camera sees it", the
legal record nearest to what is seen, offered only after several readings found nothing.

The rules enforced are the games' own: every action of a repair is applied by
``Game.apply``, so a repair is a legal record, never a state written by hand.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.core import Game, State, throws_dice
from engine.errors import EngineError
from engine.observation import Observation
from engine.reconcile import (
    Params,
    _decision_key,
    _Fitter,
    _no_cycle_collection,
    _posteriors,
    _Scored,
)

NOTHING = 0.1
"""prior of a repair that replays nothing after what it takes back, against one chain"""


@dataclass(frozen=True, slots=True)
class Repair:
    """Take back ``undo`` (the last recorded actions, in the order they were recorded),
    then record ``actions`` (from the state before them)."""

    undo: tuple[str, ...]
    actions: tuple[Any, ...]
    posterior: float
    """among the chains tried from the state before ``undo``"""
    log_likelihood: float
    """how well the repaired table fits the reading (natural log)"""
    fits: bool
    """fits within Params.unexplained_log_ratio of the reader's own reading"""

    def key(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """What the repair changes, as text (two repairs that change the same are one)."""
        return self.undo, tuple(a.to_str() for a in self.actions)

    def to_dict(self) -> dict[str, Any]:
        return {"undo": list(self.undo), "actions": [a.to_str() for a in self.actions],
                "posterior": self.posterior, "fits": self.fits}


def find_repairs(game: Game[Any, Any], history: Sequence[tuple[State, str, float]],
                 observation: Observation, params: Params | None = None, *,
                 max_undo: int = 3, depth: int = 3, beam: int = 8, need_fit: bool = True,
                 choices: int = 3, within: float = 4.6,
                 hints: Mapping[int, Sequence[tuple[Sequence[str], float]]] | None = None,
                 ) -> list[Repair]:
    """The likeliest repairs of the record that explain ``observation``, best first.

    Each number of actions taken back (0 to ``max_undo``) gives its likeliest chain; they
    are ranked by prior times fit, where taking back a recorded action costs how much it is
    in doubt (``history``'s third value: the players' answer against the camera's own
    favourite is likely wrong, an action the camera was 99 % sure of is not). Two repairs
    can fit a table alike and differ in what it cannot show (IceDice: "roll blue SL; bust"
    against "bust; roll blue SL", the turn), so the close ones are all offered.

    Args:
        history: the live actions, oldest first: (state before it, its text, the
            probability that it is wrong); only the last ``max_undo`` are used.
        max_undo: most recorded actions taken back.
        depth: longest chain of actions replayed after them.
        beam: chains extended at each step of a replay.
        need_fit: only repairs that fit the reading (else the best ones found, fitting or
            not: "take the table as the camera sees it").
        choices: most repairs returned.
        within: natural log of how much less likely than the best a repair may be and still
            be offered.
        hints: by how many actions are taken back (k), chains to try first in place of
            them, each with its probability: the camera's own candidates of a question the
            players answered otherwise (its favourite is what the table most likely showed).

    Returns:
        Up to ``choices`` repairs. A "repair" that takes back nothing and replays nothing,
        or that replays what it takes back, is none.
    """
    if not history:
        return []
    with _no_cycle_collection():  # (as reconcile: thousands of short-lived candidates)
        return _find_repairs(game, history, observation, params or Params(), max_undo, depth,
                             beam, need_fit, choices, within, hints)


def _find_repairs(game: Game[Any, Any], history: Sequence[tuple[State, str, float]],
                  observation: Observation, params: Params, max_undo: int, depth: int,
                  beam: int, need_fit: bool, choices: int, within: float,
                  hints: Mapping[int, Sequence[tuple[Sequence[str], float]]] | None,
                  ) -> list[Repair]:
    fitter = _Fitter(observation, params)
    floor = fitter.saturated - params.unexplained_log_ratio
    ranked: list[tuple[float, Repair]] = []
    cost = 0.0
    for k in range(0, min(max_undo, len(history)) + 1):
        if k:
            cost += math.log(min(max(history[-k][2], 1e-4), 1.0))
        base = history[-k][0] if k else _state_after(game, history)
        undone = tuple(h[1] for h in history[len(history) - k:])
        found = _best_chain(game, base, undone, fitter, params, depth, beam,
                            (hints or {}).get(k, ()))
        if found is None:
            continue
        actions, posterior, fit, score = found
        repair = Repair(undone, actions, posterior, fit, fit >= floor)
        if repair.fits or not need_fit:
            ranked.append((score + cost, repair))
    ranked.sort(key=lambda x: -x[0])
    if not ranked:
        return []
    top = ranked[0][0]
    return [r for s, r in ranked[:choices] if s >= top - within]


def _state_after(game: Game[Any, Any], history: Sequence[tuple[State, str, float]]
                 ) -> State:
    before, text, _ = history[-1]
    after: State = game.apply(before, game.parse_action(text))[0]
    return after


def _legal_steps(game: Game[Any, Any], s: _Scored, fitter: _Fitter) -> list[_Scored]:
    """Every legal action from ``s``, scored: reconcile's priors (one decision each, a roll's
    outcome by its chance), but only legal actions (reconcile also weighs the physically
    plausible illegal ones, to name a rule; a repair is a legal record, and scoring those
    tables made a Pyramid Dice repair search take 2.6 s), and any action after any other
    (reconcile's chains allow no second roll, which would look like the first; a replay
    spans several readings' rolls)."""
    state = s.state
    legal = game.legal_actions(state)
    chance = dict(game.chance_outcomes(state))
    keys = {_decision_key(a) for a in legal if not a.is_chance}
    decisions = max(len(keys) + (1 if chance else 0), 1)
    out = []
    for action in legal:
        p = 1.0 / decisions
        if action.is_chance:
            p *= chance.get(action, 0.0)
        elif throws_dice(action):
            p *= action.outcome_probability
        if p <= 0:
            continue
        after = game.after(state, action)  # (listed as legal: not checked again)
        view = game.expected_view(after)
        out.append(_Scored(s.actions + (action,), s.log_prior + math.log(p),
                           fitter.log_likelihood(view), None, after, view))
    return out


def _best_chain(game: Game[Any, Any], base: State, undone: tuple[str, ...], fitter: _Fitter,
                params: Params, depth: int, beam: int,
                hints: Sequence[tuple[Sequence[str], float]] = ()
                ) -> tuple[tuple[Any, ...], float, float, float] | None:
    """(actions, posterior, fit, log prior + fit) of the likeliest legal chain from
    ``base`` that is not the undone actions again, or None."""
    view = game.expected_view(base)
    # "the recorded action did not happen at all" is rarer than one misread or misanswered
    scored = [_Scored((), math.log(NOTHING), fitter.log_likelihood(view), None, base, view)]
    for texts, p in hints:  # (a hint that is not legal from here is no chain)
        try:
            state, actions = base, []
            for text in texts:
                actions.append(game.parse_action(text))
                state = game.apply(state, actions[-1])[0]
        except EngineError:
            continue
        after = game.expected_view(state)
        scored.append(_Scored(tuple(actions), math.log(max(p, 1e-6)),
                              fitter.log_likelihood(after), None, state, after))
    frontier = scored[:]
    for _ in range(depth):
        step: list[_Scored] = []
        for s in frontier:
            if game.outcome(s.state) is not None:
                continue
            step += _legal_steps(game, s, fitter)
        if not step:
            break
        scored += step
        step.sort(key=lambda x: x.log_prior + x.log_likelihood, reverse=True)
        frontier = step[:beam]
    explanations = _posteriors(scored)
    score = {x.actions: x.log_prior + x.log_likelihood for x in scored}
    for e in explanations:
        texts = tuple(a.to_str() for a in e.actions)
        if not e.legal or (undone and texts[:len(undone)] == undone):
            continue  # replays what it takes back: a smaller repair says the same
        if not undone and not texts:
            continue  # nothing taken back, nothing replayed: the record as it is
        return e.actions, e.posterior, e.log_likelihood, score[e.actions]
    return None


def fit(game: Game[Any, Any], state: State, observation: Observation,
        params: Params | None = None) -> float:
    """How well ``state``'s table fits ``observation`` (natural log; a repair that fits as
    well as the record explains the table as well)."""
    return _Fitter(observation, params or Params()).log_likelihood(game.expected_view(state))
