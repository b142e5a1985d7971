"""The five phases as the legal actions of each moment and their effects (RULES phases).

``legal(state)`` lists every legal action, chance outcomes included; ``play(state, action)``
applies one known to be legal. Card effects are the branches marked with their card's text.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations

from engine.core import Event
from engine.games.quarriors import state as st
from engine.games.quarriors.actions import (
    ATTACK,
    DONE,
    END,
    SCORE,
    Cast,
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
    gain_glory,
    next_unrolled,
    put_ready,
    refill,
    remove_ready,
    start_turn,
    to_used,
)
from engine.games.quarriors.spells import cast, cast_actions
from engine.games.quarriors.state import QuarriorsState, ReadyDie
from engine.games.quarriors.stats import card_of, cost, glory, is_creature, summon_cost


def chance(state: QuarriorsState) -> list[tuple[QuarriorsAction, float]]:
    """The pending chance outcomes with their probabilities: the next die out of the bag (its
    share of the bag), else the next unrolled die of the Active Pool (its faces' share)."""
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
    if phase == "score":
        return [SCORE]
    if phase == "cull":
        return _cull_actions(state)
    if phase == "attack":
        return defend_actions(state)
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
    if phase == "main":
        out.append(ATTACK)
    else:
        out += _capture_actions(state)
        out.append(END)
    return out


def _cull_actions(state: QuarriorsState) -> list[QuarriorsAction]:
    out: list[QuarriorsAction] = []
    used = state.me.used
    if state.turn.culls > 0:
        if state.option("expert_culling"):
            # RULES expert_culling: only the die that scored may be culled
            allowed = {d for d, _ in state.turn.scored}
            out += [Pick("cull", d) for d, _ in used if d in allowed]
        else:
            out += [Pick("cull", d) for d, _ in used]  # RULES cull, cull_used
    if state.turn.recall > 0:
        scored_hags = sum(1 for d, _ in state.turn.scored if d == "witching_hag")
        for d, n in used:
            creature = any(f.kind == "creature" for f in DICE[d].faces)
            if creature and (d != "witching_hag" or n > scored_hags):
                out.append(Pick("recall", d))
    out.append(DONE)
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
    events: Events = []
    me = state.current
    if isinstance(action, Draw):
        seat = state.me
        seat = replace(seat, bag=st.take(seat.bag, action.die),
                       active=st.dice_add(seat.active, (action.die, UNROLLED)))
        state = state.seat(me, seat)
        state = replace(state, turn=replace(state.turn, draws=state.turn.draws - 1))
        return refill(state, events), events
    if isinstance(action, Roll):
        seat = state.me
        active = st.dice_add(st.dice_take(seat.active, (action.die, UNROLLED)),
                             (action.die, action.face))
        return state.seat(me, replace(seat, active=active)), events
    if isinstance(action, Word):
        return _word(state, action, events), events
    if isinstance(action, Pick):
        return _pick(state, action, events), events
    if isinstance(action, Use):
        return _use(state, action, events), events
    if isinstance(action, Cast):
        return cast(state, action, events), events
    return defend(state, action, events), events


def _word(state: QuarriorsState, action: Word, events: Events) -> QuarriorsState:
    me = state.current
    if action == SCORE:
        return _score(state, events)
    if action == DONE:
        extra = state.turn.draws
        return begin_draw(replace(state, turn=replace(state.turn, draws=0, culls=0, recall=0)),
                          extra, events)
    if action == ATTACK:
        return declare(state, events)
    # RULES end_move: Spent Pile and Active Pool to the Used Pile; quiddity_lost
    seat = state.me
    moved = [d for d, _ in seat.spent] + [d for d, _ in seat.active]
    state = state.seat(me, replace(seat, spent=(), active=()))
    state = to_used(state, me, moved)
    events.append(Event("end", f"P{me + 1} ends the turn", me))
    return start_turn(state, (me + 1) % state.players, events)


def _score(state: QuarriorsState, events: Events) -> QuarriorsState:
    """RULES score, score_move; scoring abilities of the cards."""
    me = state.current
    expert = bool(state.option("expert_culling"))
    scoring = [rd for rd in state.me.ready if is_creature(rd)]
    turn = state.turn
    parts: list[tuple[str, int]] = []
    scored: list[tuple[str, int]] = []
    for rd in scoring:
        gained = glory(state, me, rd, len(scoring))
        held = sum(p for _, p in gained) if expert else 0
        scored.append((rd.die, held))
        if not expert:
            parts += gained
        name = card_of(state, rd.die).name
        f = DICE[rd.die].face(rd.face)
        if name == "Strong Defender of the Pale":
            # Strong Defender of the Pale: "when it scores, draw 1 extra die into your Active
            # Pool" (*), "draw 2 extra dice" (**)
            turn = replace(turn, draws=turn.draws + (2 if f.burst >= 2 else 1))
        if name == "Strong Witching Hag":
            # Strong Witching Hag: "when it scores you may move one other Creature die from
            # your Used Pile to your Active Pool"
            turn = replace(turn, recall=turn.recall + 1)
        if name == "Mighty Questing Wizard":
            # Mighty Questing Wizard: "when it scores, Quarry dice cost you 2 less this turn
            # and you may capture 1 extra die"
            turn = replace(turn, discount=turn.discount + 2, captures=turn.captures + 1)
    for rd in scoring:
        state = remove_ready(state, me, state.me.ready.index(rd))
        state = to_used(state, me, [rd.die])
    state = replace(state, phase="cull",
                    turn=replace(turn, culls=len(scoring), scored=tuple(scored)))
    return gain_glory(state, me, parts, events)


def _pick(state: QuarriorsState, action: Pick, events: Events) -> QuarriorsState:
    me = state.current
    seat = state.me
    if action.verb == "cull":
        state = state.seat(me, replace(seat, used=st.take(seat.used, action.die)))
        state = replace(state, wilds=st.add(state.wilds, action.die),
                        turn=replace(state.turn, culls=state.turn.culls - 1))
        events.append(Event("cull", f"P{me + 1} culls one {action.die} die", me))
        if state.option("expert_culling"):
            scored = list(state.turn.scored)
            i = next(i for i, (d, _) in enumerate(scored) if d == action.die)
            points = scored.pop(i)[1]
            state = replace(state, turn=replace(state.turn, scored=tuple(scored)))
            name = card_of(state, action.die).name
            state = gain_glory(state, me, [(f"creature: {name}", points)], events)
        return state
    if action.verb == "recall":
        seat = replace(seat, used=st.take(seat.used, action.die),
                       active=st.dice_add(seat.active, (action.die, UNROLLED)))
        return replace(state.seat(me, seat),
                       turn=replace(state.turn, recall=state.turn.recall - 1))
    # capture: RULES capture, capture_cost
    price = max(0, cost(state, action.die) - state.turn.discount)
    state = replace(state, wilds=st.take(state.wilds, action.die),
                    turn=replace(state.turn, quiddity=state.turn.quiddity - price,
                                 captures=state.turn.captures - 1))
    state = to_used(state, me, [action.die])
    events.append(Event("capture", f"P{me + 1} captures one {action.die} die for {price}", me))
    if empty_creature_cards(state) >= 4:
        return _empty_end(state, events)
    return state


def _empty_end(state: QuarriorsState, events: Events) -> QuarriorsState:
    """RULES empty_cards, tie: the highest glory, then most dice in the Ready Area."""
    best = max(s.glory for s in state.seats)
    top = [p for p, s in enumerate(state.seats) if s.glory == best]
    most = max(len(state.seats[p].ready) for p in top)
    winners = tuple(p for p in top if len(state.seats[p].ready) == most)
    events.append(Event("end_game", "four Creature cards are empty: the game ends"))
    reason = "four empty Creature cards: highest glory"
    if len(top) > 1:
        reason += ", then most dice in the Ready Area" + (", shared" if len(winners) > 1 else "")
    return replace(state, phase="over", winners=winners, reason=reason)


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
                hit = [i for i, rd in enumerate(state.seats[p].ready)
                       if rd.die == "warrior_of_the_quay" and is_creature(rd)]
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
