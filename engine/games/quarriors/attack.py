"""Phase 3: the attack, defender by defender (RULES attack_all ... attack_order).

Every opponent with a creature defends against the same attack total, counted for them (step
2a: a defender's protection acts on their total only), one defender at a time. This engine
resolves the defending players one after another, clockwise from the attacker's left (RULES
attack_order; the rulebook has them defend "simultaneously and individually", which gives the
same result whenever the order does not matter). Every defending player's total is counted
when the attack is declared (step 1); their reaction spells (RULES reaction) act on it.
"""

from __future__ import annotations

from dataclasses import replace

from engine.core import Event
from engine.games.quarriors.actions import Defend, QuarriorsAction
from engine.games.quarriors.moves import Events, destroy
from engine.games.quarriors.spells import reaction_actions
from engine.games.quarriors.state import Attack, QuarriorsState, ReadyDie
from engine.games.quarriors.stats import (
    attack_against,
    attack_total,
    creatures,
    defense,
    level,
    named,
)


def declare(state: QuarriorsState, events: Events) -> QuarriorsState:
    """RULES attack_all; Quake Dragon's breath before any defender is chosen."""
    me = state.current
    if not creatures(state, me):
        return replace(state, phase="capture")
    events.append(Event("attack", f"P{me + 1} attacks", me))
    if named(state, me, "Quake Dragon"):
        # Quake Dragon: "when it attacks, destroy all level-1 creatures in the opponent's
        # Ready Area before defenders are chosen"
        for p in _clockwise(state):
            while state.phase != "over":
                ones = [i for i in creatures(state, p)
                        if level(state, state.seats[p].ready[i]) == 1]
                if not ones:
                    break
                state = destroy(state, p, ones[0], me, events)
                state = _lost(state, p)
        if state.phase == "over":
            return state
    order = tuple(p for p in _clockwise(state) if creatures(state, p))
    if not order:
        return replace(state, phase="capture")
    totals = tuple(attack_total(state, me, d) for d in order)
    return replace(state, phase="attack", attack=Attack(order, totals, 0, totals[0]))


def _clockwise(state: QuarriorsState) -> list[int]:
    """RULES attack_order: "starting with the player to the left of the attacker"."""
    return [(state.current + k) % state.players for k in range(1, state.players)]


def _lost(state: QuarriorsState, player: int) -> QuarriorsState:
    if player in state.turn.lost:
        return state
    return replace(state, turn=replace(state.turn, lost=tuple(sorted(
        (*state.turn.lost, player)))))


def defend_actions(state: QuarriorsState) -> list[QuarriorsAction]:
    """RULES defend, damaged_once: any creature not yet damaged in this attack; and the
    defending player's reaction spells."""
    assert state.attack is not None
    d = state.attack.defender
    out: list[QuarriorsAction] = [Defend(i) for i in creatures(state, d)
                                  if not state.seats[d].ready[i].damaged]
    return out + reaction_actions(state, d)


def defend(state: QuarriorsState, action: QuarriorsAction,
           events: Events) -> QuarriorsState:
    """RULES defend (2b), 2c, 2d, one_at_a_time, faq_once."""
    assert isinstance(action, Defend) and state.attack is not None
    me = state.current
    att = state.attack
    d = att.defender
    total = att.total
    seat = state.seats[d]
    rd = seat.ready[action.index]
    guard = defense(state, d, rd)
    hit = replace(rd, damaged=True)
    ready = tuple(sorted(seat.ready[:action.index] + (hit,) + seat.ready[action.index + 1:]))
    state = state.seat(d, replace(seat, ready=ready))
    if total < guard:
        # 2c: "If your attack total is less than the Creature's defense value, the defender is
        # not affected, and that player is done defending against your attack."
        events.append(Event("defended", f"P{d + 1}'s creature ({rd.face}, defense {guard}) "
                            f"holds against {total}", d))
        return _next_defender(state, events)
    # 2c: destroyed, "he subtracts the Creature's defense from your attack total"
    total -= guard
    state = destroy(state, d, ready.index(hit), me, events)
    if state.phase == "over":
        return state
    state = _lost(state, d)
    first = att.destroyed == 0
    att = replace(state.attack or att, total=total, destroyed=att.destroyed + 1)
    if first:
        for dealer in named(state, me, "Mighty Deathdealer"):
            # Mighty Deathdealer: "the first time a creature is destroyed while it attacks a
            # given opponent, add Deathdealer's attack again to your total against that
            # opponent (once per attack per player)"
            att = replace(att, total=att.total + attack_against(state, me, dealer, d))
    state = replace(state, attack=att)
    left = [i for i in creatures(state, d) if not state.seats[d].ready[i].damaged]
    if att.total > 0 and left:
        return state  # 2d: "that opponent must choose another Creature to defend"
    if att.total > 0:
        events.append(Event("lost_damage", f"{att.total} damage against P{d + 1} is lost "
                            "(FAQ: leftover damage is lost)", d))
    return _next_defender(state, events)


def _next_defender(state: QuarriorsState, events: Events) -> QuarriorsState:
    att = state.attack
    assert att is not None
    for index in range(att.index + 1, len(att.order)):
        if any(not state.seats[att.order[index]].ready[i].damaged
               for i in creatures(state, att.order[index])):
            return replace(state, attack=Attack(att.order, att.totals, index,
                                                att.totals[index]))
    # the attack is over: "damaged" only lasts for this attack
    seats = tuple(replace(s, ready=tuple(sorted(
        ReadyDie(r.die, r.face, r.attached, False, r.zeroed) for r in s.ready)))
        for s in state.seats)
    events.append(Event("attack_over", f"P{state.current + 1}'s attack is over",
                        state.current))
    return replace(state, seats=seats, attack=None, phase="capture")
