"""Moves that show nothing, carried from one reading to the next (Game.follow_unseen).

A reading that shows the table as it was, with a hand seen over it, is left as "no change"
when the likeliest explanation is a decision the camera cannot see (Quarriors: 'attack', a
defender that holds; engine.reconcile._deferred). What that reading learnt is not thrown
away: the posterior of each such chain (and of nothing at all) among those quiet
explanations is handed on (``NoChange.carried``), and the next reading is explained from
each of those states in turn, each explanation weighed by its chain's posterior times its own
prior (a filter over the states the match may be in, not a boost). Without it every reading
started again from the state before the attack: simulated Quarriors, 20 matches, 6 of the 7
spends recorded wrong were 'attack' (no change seen), 'defend r1' (no change), then the
capture phase's 'spend' recorded as a main-phase spend from the state before the attack
(session-23 note).

The carry holds only while the record stays where it was (the match service drops it when
anything is recorded, answered or undone) and only the likeliest chains
(Params.carry_floor, carry_max).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from engine.core import Game, State
from engine.resolution import Explanation

Carried = tuple[tuple[tuple[Any, ...], float], ...]
"""(chain of actions, its posterior) for each state the match may be in; the empty chain is
the state as recorded"""


def roots(game: Game[Any, Any], state: State, carried: Carried
          ) -> list[tuple[tuple[Any, ...], float, State]]:
    """(chain, log of its weight, the state after it) for each carried chain; the state as
    recorded alone (weight 1) when nothing is carried."""
    if not carried:
        return [((), 0.0, state)]
    out = []
    for chain, weight in carried:
        if weight <= 0:
            continue
        now = state
        for action in chain:
            now = game.apply(now, action)[0]
        out.append((tuple(chain), math.log(weight), now))
    return out or [((), 0.0, state)]


def combine(parts: Sequence[tuple[tuple[Any, ...], float, list[Explanation], float, bool]]
            ) -> list[Explanation]:
    """One list of explanations from each root's: (chain, log weight, its explanations, the
    log of their summed prior x likelihood, whether the chain alone may be left to the next
    move). Each explanation's joint weight is the chain's weight times its own prior x
    likelihood; the same actions reached from two roots (the attack from the state as
    recorded, and nothing more after the carried attack) are one, their weights summed."""
    joint: dict[tuple[Any, ...], tuple[float, Explanation]] = {}
    for chain, log_w, explanations, log_z, defer in parts:
        for e in explanations:
            if e.posterior <= 0:
                continue
            value = log_w + log_z + math.log(e.posterior)
            if chain:
                alone = not e.actions  # nothing more than the carried chain
                e = replace(e, actions=chain + e.actions, unseen=e.unseen or alone,
                            hands_on=e.hands_on or (alone and defer))
            had = joint.get(e.actions)
            if had is None:
                joint[e.actions] = (value, e)
            else:
                top = max(had[0], value)
                both = top + math.log(math.exp(had[0] - top) + math.exp(value - top))
                keep = had[1] if had[0] >= value else e
                joint[e.actions] = (both, replace(keep, hands_on=had[1].hands_on or e.hands_on,
                                                  unseen=had[1].unseen or e.unseen))
    top = max(v for v, _ in joint.values())
    z = sum(math.exp(v - top) for v, _ in joint.values())
    out = [replace(e, posterior=math.exp(v - top) / z) for v, e in joint.values()]
    out.sort(key=lambda e: -e.posterior)
    return out


def carry_on(quiet: Sequence[tuple[tuple[Any, ...], float]], floor: float, most: int
             ) -> Carried:
    """What a reading left as "no change" hands on: its quiet explanations (chain, log prior
    x likelihood) as posteriors among themselves, those of at least ``floor``, the ``most``
    likeliest; nothing when no chain of moves is among them."""
    merged: dict[tuple[Any, ...], float] = {}
    for chain, value in quiet:
        had = merged.get(chain)
        merged[chain] = value if had is None else max(had, value) + math.log1p(
            math.exp(-abs(had - value)))
    if not merged:
        return ()
    top = max(merged.values())
    z = sum(math.exp(v - top) for v in merged.values())
    kept = sorted(((c, math.exp(v - top) / z) for c, v in merged.items()),
                  key=lambda cw: -cw[1])
    kept = [cw for cw in kept if cw[1] >= floor][:most]
    if not any(chain for chain, _ in kept):
        return ()
    total = sum(w for _, w in kept)
    return tuple((chain, w / total) for chain, w in kept)
