"""Casting and attaching spells from a Ready Area (RULES cast_phase, attach, reaction), and
each spell card's effect, quoting its card text."""

from __future__ import annotations

from dataclasses import replace
from itertools import product

from engine.core import Event
from engine.games.quarriors import state as st
from engine.games.quarriors.actions import Cast, QuarriorsAction, Target
from engine.games.quarriors.dice import DICE
from engine.games.quarriors.moves import Events, destroy, gain_glory, put_ready, to_used
from engine.games.quarriors.state import QuarriorsState, ReadyDie
from engine.games.quarriors.stats import (
    attack_against,
    card_of,
    creatures,
    defense,
    face,
    is_creature,
    level,
    shielded,
)


def _spells(state: QuarriorsState, player: int) -> list[ReadyDie]:
    return list(dict.fromkeys(rd for rd in state.seats[player].ready
                              if face(rd).kind == "spell"))


def _all_creatures(state: QuarriorsState) -> list[Target]:
    """Every creature the current player's spell may target (Mighty Devotee of the Holy
    Query (*): "cannot be targeted by opposing spells": stats.shielded)."""
    return [(p, i) for p in range(state.players) for i in creatures(state, p)
            if not shielded(state, p, state.seats[p].ready[i], state.current)]


def _next_faces(rd: ReadyDie) -> list[str]:
    """Shaping Charm: the faces of the die one level up from the one it shows (the Card
    Reference's note: "a die currently has a 1 then you can rotate it to any face with a 2";
    its die's own faces: a Strong Primordial Ooze's die has no level 3)."""
    up = face(rd).level + 1
    return list(dict.fromkeys(f.label for f in DICE[rd.die].faces
                              if f.kind == "creature" and f.level == up))


def _shaping_charm(state: QuarriorsState, rd: ReadyDie) -> list[QuarriorsAction]:
    """Shaping Charm: "turn every creature in your Ready Area up one level where possible".
    Where two faces have the next level the caster picks each creature's (one action per
    different outcome): the card turns the caster's own dice, and the Card Reference's note
    reads it as "you can rotate it to any face with a 2"."""
    me = state.current
    ready = state.seats[me].ready
    movable = [(i, _next_faces(r)) for i, r in enumerate(ready) if is_creature(r)]
    movable = [(i, faces) for i, faces in movable if faces]
    out: list[QuarriorsAction] = []
    seen: set[tuple[ReadyDie, ...]] = set()
    for combo in product(*(faces for _, faces in movable)):
        turns = tuple((i, f) for (i, _), f in zip(movable, combo, strict=True))
        after = list(ready)
        for i, f in turns:
            after[i] = replace(after[i], face=f)
        key = tuple(sorted(after))
        if key not in seen:
            seen.add(key)
            out.append(Cast(rd.die, rd.face, turns=turns))
    return out


def cast_actions(state: QuarriorsState) -> list[QuarriorsAction]:
    """The current player's spells on their own turn (phases 2 to 4; RULES cast_phase)."""
    me = state.current
    out: list[QuarriorsAction] = []
    for rd in _spells(state, me):
        c = card_of(state, rd.die)
        burst = face(rd).burst
        if "attach" in c.keywords:
            out += [Cast(rd.die, rd.face, (t,), True) for t in _all_creatures(state)]
            continue
        if "reaction" in c.keywords:
            continue  # RULES reaction: "you may not cast these spells when it is your turn"
        if c.name == "Death Spell":
            # "destroy one creature with defense 6 or less in each opponent's Ready Area"
            per = [[(p, i) for p2, i in _all_creatures(state)
                    if p2 == p and defense(state, p, state.seats[p].ready[i]) <= 6]
                   for p in range(state.players) if p != me]
            per = [options for options in per if options]
            if per:
                out += [Cast(rd.die, rd.face, combo) for combo in product(*per)]
        elif c.name == "Death Incantation":
            # "destroy one creature of level 2 or less" (*), "of any level" (**)
            out += [Cast(rd.die, rd.face, (t,)) for t in _all_creatures(state)
                    if burst >= 2 or level(state, state.seats[t[0]].ready[t[1]]) <= 2]
        elif c.name == "Shaping Spell":
            # "destroy one spell in any player's Ready Area"
            out += [Cast(rd.die, rd.face, ((p, i),)) for p in range(state.players)
                    for i, other in enumerate(state.seats[p].ready)
                    if face(other).kind == "spell" and (p != me or other is not rd
                                                         or _count(state, me, rd) > 1)]
        elif c.name == "Shaping Charm":
            out += _shaping_charm(state, rd)
        elif c.name == "Victory Spell":
            if state.phase == "capture":  # "after your attack"
                out.append(Cast(rd.die, rd.face))
        elif c.name == "Victory Charm":
            if len(state.turn.scored) >= 2:  # "only if 2 or more creatures scored this turn"
                out.append(Cast(rd.die, rd.face))
        else:  # Death Cantrip, Growth Charm, Victory Incantation: no target
            out.append(Cast(rd.die, rd.face))
    return out


def _count(state: QuarriorsState, player: int, rd: ReadyDie) -> int:
    return sum(1 for r in state.seats[player].ready if r == rd)


def reaction_actions(state: QuarriorsState, player: int) -> list[QuarriorsAction]:
    """A defending player's reaction spells (RULES reaction), cast while they defend."""
    out: list[QuarriorsAction] = []
    for rd in _spells(state, player):
        c = card_of(state, rd.die)
        if "reaction" not in c.keywords:
            continue
        if c.name == "Life Incantation":
            # "reduce one creature's attack to 0 (against all players) for the rest of the turn"
            out += [Cast(rd.die, rd.face, ((state.current, i),))
                    for i in creatures(state, state.current)
                    if not state.seats[state.current].ready[i].zeroed
                    and not shielded(state, state.current, state.seats[state.current].ready[i],
                                     player)]
        elif c.name == "Shaping Cantrip":
            # "return one of your just-destroyed creatures to your Ready Area at the same level
            # instead of the Used Pile"
            if state.attack is not None and state.attack.last is not None:
                out.append(Cast(rd.die, rd.face))
        else:  # Life Spell, Life Charm
            out.append(Cast(rd.die, rd.face))
    return out


def caster(state: QuarriorsState) -> int:
    return state.attack.defender if state.phase == "attack" and state.attack else state.current


def cast(state: QuarriorsState, action: Cast, events: Events) -> QuarriorsState:
    who = caster(state)
    targets = [state.seats[p].ready[i] for p, i in action.targets]
    turned = [(state.seats[who].ready[i], f) for i, f in action.turns]
    seat = state.seats[who]
    i = next(i for i, rd in enumerate(seat.ready)
             if (rd.die, rd.face) == (action.die, action.face) and not rd.attached)
    spell = seat.ready[i]
    seat = replace(seat, ready=seat.ready[:i] + seat.ready[i + 1:])
    name = card_of(state, action.die).name
    if action.attach:
        # RULES attach: the spell die goes beside the creature
        state = state.seat(who, seat)
        p = action.targets[0][0]
        host = targets[0]
        ready = list(state.seats[p].ready)
        ready[ready.index(host)] = replace(host, attached=tuple(sorted(
            (*host.attached, (who, spell.die, spell.face)))))
        events.append(Event("attach", f"P{who + 1} attaches {name} to P{p + 1}'s "
                            f"{card_of(state, host.die).name}", who))
        return state.seat(p, replace(state.seats[p], ready=tuple(sorted(ready))))
    # casting spends the die (RULES spend: "they are immediately moved to your Spent Pile")
    state = state.seat(who, replace(seat, spent=st.dice_add(seat.spent,
                                                            (spell.die, spell.face))))
    events.append(Event("cast", f"P{who + 1} casts {name}", who))
    if name == "Shaping Charm":
        # "turn every creature in your Ready Area up one level where possible"
        ready = list(state.seats[who].ready)
        for rd, f in turned:
            ready[ready.index(rd)] = replace(rd, face=f)
        return state.seat(who, replace(state.seats[who], ready=tuple(sorted(ready))))
    return _effect(state, who, name, face(spell).burst, action.targets, targets, events)


def _effect(state: QuarriorsState, who: int, name: str, burst: int,
            where: tuple[Target, ...], targets: list[ReadyDie],
            events: Events) -> QuarriorsState:
    turn = state.turn
    if name in ("Death Spell", "Death Incantation"):
        for (p, _), rd in zip(where, targets, strict=True):
            if state.phase == "over":
                break
            if rd in state.seats[p].ready and is_creature(rd):
                state = destroy(state, p, state.seats[p].ready.index(rd), who, events)
        return state
    if name == "Death Cantrip":
        # "all your Ready Area creatures +2 attack this turn" (*), "+3 attack" (**)
        return replace(state, turn=replace(turn, attack_bonus=turn.attack_bonus
                                           + (3 if burst >= 2 else 2)))
    if name == "Growth Charm":
        # "gain 3 quiddity (may be kept and cast on a later turn)"
        return replace(state, turn=replace(turn, quiddity=turn.quiddity + 3))
    if name == "Shaping Spell":
        # "destroy one spell in any player's Ready Area": it goes to its owner's Used Pile
        (p, _), rd = where[0], targets[0]
        seat = state.seats[p]
        if rd in seat.ready:
            i = seat.ready.index(rd)
            state = state.seat(p, replace(seat, ready=seat.ready[:i] + seat.ready[i + 1:]))
            state = to_used(state, p, [rd.die])
        return state
    if name == "Victory Spell":
        # "after your attack: +1 glory per opponent who lost a creature to your attack this
        # turn (max 1 per player)"
        return gain_glory(state, who, [("spell: Victory Spell", len(turn.lost))], events)
    if name == "Victory Charm":
        # "+1 glory per creature that scored this turn; only if 2 or more creatures scored"
        return gain_glory(state, who, [("spell: Victory Charm", len(turn.scored))], events)
    if name == "Victory Incantation":
        return gain_glory(state, who, [("spell: Victory Incantation", 3)], events)  # "gain 3"
    if name == "Life Spell":
        # "all your Ready Area creatures +4 defense for the rest of the turn"
        bonus = list(turn.defense_bonus)
        bonus[who] += 4
        return replace(state, turn=replace(turn, defense_bonus=tuple(bonus)))
    if name == "Life Charm":
        # "for the rest of the turn your destroyed creatures go to your Active Pool instead
        # of the Used Pile"
        return replace(state, turn=replace(turn, life_charm=tuple(sorted(
            {*turn.life_charm, who}))))
    if name == "Life Incantation":
        (p, _), rd = where[0], targets[0]
        att = state.attack
        if att is not None:
            # its share of the totals already counted against this and the later defenders
            share = [attack_against(state, p, rd, d) for d in att.order]
            totals = tuple(max(0, t - s) if k >= att.index else t
                           for k, (t, s) in enumerate(zip(att.totals, share, strict=True)))
            att = replace(att, totals=totals,
                          total=max(0, att.total - share[att.index]))
        seat = state.seats[p]
        ready = list(seat.ready)
        ready[ready.index(rd)] = replace(rd, zeroed=True)
        state = state.seat(p, replace(seat, ready=tuple(sorted(ready))))
        return replace(state, attack=att)
    # Shaping Cantrip: the creature destroyed last comes back, damaged once already
    att = state.attack
    assert att is not None and att.last is not None
    die, face_label, zone = att.last
    seat = state.seats[who]
    if zone == "active":
        seat = replace(seat, active=st.dice_take(seat.active, (die, face_label)))
    elif zone == "aside":
        seat = replace(seat, aside=st.take(seat.aside, die))  # (a Mighty Ghostly Spirit)
    else:
        seat = replace(seat, used=st.take(seat.used, die))
    state = state.seat(who, seat)
    state = put_ready(state, who, ReadyDie(die, face_label, damaged=True))
    return replace(state, attack=replace(att, last=None))
