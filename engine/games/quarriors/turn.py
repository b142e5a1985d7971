"""The five phases as the legal actions of each moment and their effects (RULES phases).

``legal(state)`` lists every legal action, chance outcomes included; ``play(state, action)``
applies one known to be legal. Card effects are the branches marked with their card's text.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations

from engine.core import Event
from engine.games.quarriors import prompts
from engine.games.quarriors import state as st
from engine.games.quarriors.actions import (
    ATTACK,
    DONE,
    END,
    SCORE,
    Cast,
    Copy,
    DieFace,
    Draw,
    Pick,
    QuarriorsAction,
    Roll,
    Use,
    Word,
)
from engine.games.quarriors.attack import declare, defend, defend_actions
from engine.games.quarriors.dice import DICE, UNROLLED, Face
from engine.games.quarriors.moves import (
    Events,
    begin_draw,
    destroy,
    empty_creature_cards,
    empty_end,
    next_unrolled,
    put_ready,
    refill,
    remove_ready,
    start_turn,
    to_used,
)
from engine.games.quarriors.scoring import cull_actions, done, play_cull, score
from engine.games.quarriors.spells import cast, cast_actions
from engine.games.quarriors.state import QuarriorsState, ReadyDie
from engine.games.quarriors.stats import card_of, cost, identity, is_creature, summon_cost


def chance(state: QuarriorsState) -> list[tuple[QuarriorsAction, float]]:
    """The pending chance outcomes with their probabilities: the next die out of the bag (its
    share of the bag), else the next unrolled die of the Active Pool (its faces' share)."""
    if state.prompts:
        return prompts.chance(state)
    if state.phase != "main":
        return []
    if state.turn.draws > 0 and state.me.bag:
        bag = state.me.bag
        total = st.size(bag)
        return [(Draw(d), n / total) for d, n in bag]
    die = next_unrolled(state)
    if die is None:
        return []
    return [(Roll(die, label), p) for label, p in DICE[die].odds()]


def _face(df: DieFace) -> Face:
    return DICE[df[0]].face(df[1])


def legal(state: QuarriorsState) -> list[QuarriorsAction]:
    phase = state.phase
    if phase == "over":
        return []
    pending = chance(state)
    if pending:
        return [a for a, _ in pending]
    if state.prompts:
        return prompts.decisions(state)
    if phase == "score":
        return [SCORE]
    if phase == "cull":
        return cull_actions(state)
    if phase == "attack":
        assert state.attack is not None
        return defend_actions(state) + prompts.copy_changes(state, state.attack.defender)
    out: list[QuarriorsAction] = []
    active = list(dict.fromkeys(state.me.active))
    for df in active:
        f = _face(df)
        if f.kind in ("quiddity", "quiddity_and_draw", "quiddity_or_reroll", "draw") \
                and (phase == "main" or f.kind in ("quiddity", "quiddity_or_reroll")):
            out.append(Use("spend", *df))
    if phase == "main":
        out += _main_actions(state, active)
    out += cast_actions(state)
    out += prompts.copy_changes(state, state.current)
    if phase == "main":
        out.append(ATTACK)
    else:
        out += _capture_actions(state)
        out.append(END)
    return out


def _main_actions(state: QuarriorsState, active: list[DieFace]) -> list[QuarriorsAction]:
    out: list[QuarriorsAction] = []
    for df in active:
        f = _face(df)
        name = card_of(state, df[0]).name
        if f.kind in ("reroll", "quiddity_or_reroll", "reroll_and_draw"):
            out.append(Use("reroll", *df))
            if df[0] == "assistant":
                # Assistant (*): "re-roll this die and one other die"
                others = list(state.me.active)
                others.remove(df)
                out += [Use("reroll", *df, (o,)) for o in dict.fromkeys(others)]
        if f.label == "Q2*" and name in ("Questing Wizard", "Mighty Questing Wizard"):
            out.append(Use("use", *df))
        if f.kind == "spell":
            out.append(Use("ready", *df))
            if card_of(state, df[0]).name == "Growth Incantation":
                # Growth Incantation: "gain 2 quiddity; you may re-roll any 2 other dice"
                others = list(state.me.active)
                others.remove(df)
                for n in (1, 2):
                    out += [Use("ready", *df, pair) for pair in
                            dict.fromkeys(combinations(others, n))]
        if f.kind == "creature" and summon_cost(state, f) <= state.turn.quiddity:
            if name == "Mighty Warrior of the Quay" and state.turn.mighty_warrior:
                continue  # Mighty Warrior of the Quay: "you may summon only one per turn"
            out.append(Use("summon", *df))
    return out


def _capture_actions(state: QuarriorsState) -> list[QuarriorsAction]:
    out: list[QuarriorsAction] = []
    if state.turn.captures > 0:
        for die, _ in state.wilds:
            if max(0, cost(state, die) - state.turn.discount) <= state.turn.quiddity:
                out.append(Pick("capture", die))
    for rd in dict.fromkeys(state.me.ready):
        if _face((rd.die, rd.face)).kind == "spell":
            out.append(Use("retire", rd.die, rd.face))  # RULES end_spells
    return out


# --- applying -------------------------------------------------------------------------------
def play(state: QuarriorsState, action: QuarriorsAction) -> tuple[QuarriorsState, Events]:
    """Apply a legal action, then the checks every state passes: the Primordial Ooze's, and
    the prompts' (prompts.settle)."""
    events: Events = []
    state = _play(state, action, events)
    state = prompts.check_oozes(state, events)
    return prompts.settle(state, events), events


def _play(state: QuarriorsState, action: QuarriorsAction, events: Events) -> QuarriorsState:
    me = state.current
    if state.prompts or isinstance(action, Copy):
        return prompts.play(state, action, events)
    if state.phase == "cull" and not isinstance(action, Word):
        return play_cull(state, action, events)
    if isinstance(action, Draw):
        seat = state.me
        seat = replace(seat, bag=st.take(seat.bag, action.die),
                       active=st.dice_add(seat.active, (action.die, UNROLLED)))
        state = state.seat(me, seat)
        state = replace(state, turn=replace(state.turn, draws=state.turn.draws - 1))
        return refill(state, events)
    if isinstance(action, Roll):
        seat = state.me
        active = st.dice_add(st.dice_take(seat.active, (action.die, UNROLLED)),
                             (action.die, action.face))
        return state.seat(me, replace(seat, active=active))
    if isinstance(action, Word):
        return _word(state, action, events)
    if isinstance(action, Pick):
        return _pick(state, action, events)
    if isinstance(action, Use):
        return _use(state, action, events)
    if isinstance(action, Cast):
        return cast(state, action, events)
    return defend(state, action, events)


def _word(state: QuarriorsState, action: Word, events: Events) -> QuarriorsState:
    me = state.current
    if action == SCORE:
        return score(state, events)
    if action == DONE:
        return begin_draw(done(state), state.turn.draws, events)
    if action == ATTACK:
        return declare(state, events)
    # RULES end_move: Spent Pile and Active Pool to the Used Pile; quiddity_lost
    seat = state.me
    moved = [d for d, _ in seat.spent] + [d for d, _ in seat.active]
    state = state.seat(me, replace(seat, spent=(), active=()))
    state = to_used(state, me, moved)
    events.append(Event("end", f"P{me + 1} ends the turn", me))
    return start_turn(state, (me + 1) % state.players, events)


def _pick(state: QuarriorsState, action: Pick, events: Events) -> QuarriorsState:
    """capture (phase 4): RULES capture, capture_cost."""
    me = state.current
    price = max(0, cost(state, action.die) - state.turn.discount)
    state = replace(state, wilds=st.take(state.wilds, action.die),
                    turn=replace(state.turn, quiddity=state.turn.quiddity - price,
                                 captures=state.turn.captures - 1))
    state = to_used(state, me, [action.die])
    events.append(Event("capture", f"P{me + 1} captures one {action.die} die for {price}", me))
    if empty_creature_cards(state) >= 4:
        return empty_end(state, events)
    return state


def _use(state: QuarriorsState, action: Use, events: Events) -> QuarriorsState:
    me = state.current
    seat = state.me
    df = (action.die, action.face)
    f = _face(df)
    turn = state.turn
    if action.verb == "retire":
        i = next(i for i, rd in enumerate(seat.ready) if (rd.die, rd.face) == df)
        state = remove_ready(state, me, i)
        return to_used(state, me, [action.die])
    active = st.dice_take(seat.active, df)
    if action.verb == "spend":
        # RULES spend; the face's quiddity, and its draw (RULES both_symbols); a Q|reroll face
        # spent is its quiddity (RULES two_symbols)
        state = state.seat(me, replace(seat, active=active, spent=st.dice_add(seat.spent, df)))
        state = replace(state, turn=replace(turn, quiddity=turn.quiddity + f.quiddity,
                                            draws=turn.draws + f.draw))
        return refill(state, events)
    if action.verb == "reroll":
        # RULES reroll_active: the die (and the Assistant's other die) roll again; a
        # reroll+draw face also draws (RULES both_symbols)
        again = [df, *action.also]
        for other in action.also:
            active = st.dice_take(active, other)
        active = st.dice_add(active, *((d, UNROLLED) for d, _ in again))
        state = state.seat(me, replace(seat, active=active))
        state = replace(state, turn=replace(turn, draws=turn.draws + f.draw))
        return refill(state, events)
    if action.verb == "use":
        if card_of(state, action.die).name == "Questing Wizard":
            # Questing Wizard (*): "(on the Q2* face) instead of gaining quiddity, draw and
            # roll 1 more die and re-roll the Wizard"
            state = state.seat(me, replace(seat, active=st.dice_add(
                active, (action.die, UNROLLED))))
            state = replace(state, turn=replace(turn, draws=turn.draws + 1))
        else:
            # Mighty Questing Wizard (*): "(on the Q2* face) spend it to draw and roll 2 dice
            # instead of gaining quiddity"
            state = state.seat(me, replace(seat, active=active,
                                           spent=st.dice_add(seat.spent, df)))
            state = replace(state, turn=replace(turn, draws=turn.draws + 2))
        return refill(state, events)
    if action.verb == "ready":
        return _ready_spell(state, action, active, events)
    # summon: RULES summon
    price = summon_cost(state, f)
    state = state.seat(me, replace(seat, active=active))
    state = put_ready(state, me, ReadyDie(*df))
    state = replace(state, turn=replace(turn, quiddity=turn.quiddity - price))
    name = card_of(state, action.die).name
    events.append(Event("summon", f"P{me + 1} summons {name} ({f.label}) for {price}", me))
    if name == "Scavenging Goblin" and f.burst >= 1:
        # Scavenging Goblin (*): "gain +1 quiddity when you summon it"
        state = replace(state, turn=replace(state.turn, quiddity=state.turn.quiddity + 1))
    if name == "Mighty Warrior of the Quay":
        # Mighty Warrior of the Quay: "when summoned, destroy all Warriors of the Quay in all
        # other players' Ready Areas; you may summon only one per turn"
        state = replace(state, turn=replace(state.turn, mighty_warrior=True))
        for p in range(state.players):
            if p == me:
                continue
            while True:
                hit = [i for i, rd in enumerate(state.seats[p].ready) if is_creature(rd)
                       and identity(state, rd)[0].cls == "Warrior of the Quay"]
                if not hit or state.phase == "over":
                    break
                state = destroy(state, p, hit[0], me, events)
    return state


def _ready_spell(state: QuarriorsState, action: Use, active: st.Dice,
                 events: Events) -> QuarriorsState:
    """RULES ready_spell; Immediate spells resolve at once and are spent ("Spells with the
    'Immediate' effect are resolved immediately after being readied")."""
    me = state.current
    seat = state.me
    df = (action.die, action.face)
    name = card_of(state, action.die).name
    turn = state.turn
    if "immediate" not in card_of(state, action.die).keywords:
        state = state.seat(me, replace(seat, active=active))
        return put_ready(state, me, ReadyDie(*df))
    state = state.seat(me, replace(seat, active=active, spent=st.dice_add(seat.spent, df)))
    turn = replace(turn, quiddity=turn.quiddity + 2)  # every Growth immediate: "gain 2 quiddity"
    if name == "Growth Spell":
        turn = replace(turn, draws=turn.draws + 1)  # "draw and roll 1 die"
    elif name == "Growth Cantrip":
        turn = replace(turn, captures=turn.captures + 1)  # "capture 1 additional Quarry die"
    elif name == "Growth Incantation" and action.also:
        # "you may re-roll any 2 other dice"
        for other in action.also:
            active = st.dice_take(active, other)
        active = st.dice_add(active, *((d, UNROLLED) for d, _ in action.also))
        state = state.seat(me, replace(state.me, active=active))
    events.append(Event("spell", f"P{me + 1} readies {name}: it takes effect at once", me))
    return refill(replace(state, turn=turn), events)
