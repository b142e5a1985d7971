"""Phase 1: scoring the creatures (RULES score, score_move) and what scoring allows before
the draw (the "cull" phase): one cull per creature scored (RULES cull), and each card's
ability "when it scores", each branch quoting its card text."""

from __future__ import annotations

from dataclasses import replace

from engine.core import Event
from engine.games.quarriors import state as st
from engine.games.quarriors.actions import (
    DONE,
    CullFrom,
    Pick,
    QuarriorsAction,
    Reshape,
    Trade,
)
from engine.games.quarriors.dice import DICE, UNROLLED
from engine.games.quarriors.moves import (
    Events,
    empty_creature_cards,
    empty_end,
    gain_glory,
    remove_ready,
    to_used,
)
from engine.games.quarriors.state import QuarriorsState
from engine.games.quarriors.stats import card_of, cost, glory, identity, is_creature

FREE_SPELL_COST = 4
"""Strong Devotee of the Holy Query: "one Spell die costing 4 or less\""""
RESHAPE_MORE = 3
"""Shaping Incantation: "a Quarry die costing up to 3 more than the culled die\""""


def score(state: QuarriorsState, events: Events) -> QuarriorsState:
    """RULES score, score_move; the scoring abilities of the cards (of what a creature plays
    as: a Strong Primordial Ooze scores as what it copies)."""
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
        c, f = identity(state, rd)
        name = c.name
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
        if name == "Deathdealer":
            # Deathdealer: "when it scores you may swap it for one die from another player's
            # Used Pile"
            turn = replace(turn, trades=(*turn.trades, rd.die))
        if name == "Strong Devotee of the Holy Query" and f.burst >= 1:
            # Strong Devotee of the Holy Query (*): "when it scores you may capture one Spell
            # die costing 4 or less for free (into your bag)"
            turn = replace(turn, free_spells=turn.free_spells + 1)
        if name == "Strong Questing Wizard":
            # Strong Questing Wizard: "when it scores you may cull any number of Spell dice
            # from your Active Pool or Ready Area for 1 glory each"
            turn = replace(turn, spell_culls=True)
        for _, spell, _ in rd.attached:
            if card_of(state, spell).name == "Shaping Incantation":
                # Shaping Incantation: "when this creature scores you may cull one die from
                # your Used Pile to capture a Quarry die costing up to 3 more than the culled
                # die" (the scoring player's, as Victory Cantrip's glory is: stats.glory)
                turn = replace(turn, reshapes=turn.reshapes + 1)
    for rd in scoring:
        state = remove_ready(state, me, state.me.ready.index(rd))
        state = to_used(state, me, [rd.die])
    state = replace(state, phase="cull",
                    turn=replace(turn, culls=len(scoring), scored=tuple(scored)))
    return gain_glory(state, me, parts, events)


def _is_spell(state: QuarriorsState, die: str) -> bool:
    return card_of(state, die).category == "spell"


def cull_actions(state: QuarriorsState) -> list[QuarriorsAction]:
    """The cull phase: RULES cull (or expert_culling), Strong Witching Hag's recall, and the
    scoring abilities that last until ``done``."""
    out: list[QuarriorsAction] = []
    seat = state.me
    used = seat.used
    turn = state.turn
    if turn.culls > 0:
        if state.option("expert_culling"):
            # RULES expert_culling: only the die that scored may be culled
            allowed = {d for d, _ in turn.scored}
            out += [Pick("cull", d) for d, _ in used if d in allowed]
        else:
            out += [Pick("cull", d) for d, _ in used]  # RULES cull, cull_used
    if turn.recall > 0:
        scored_hags = sum(1 for d, _ in turn.scored if d == "witching_hag")
        for d, n in used:
            creature = any(f.kind == "creature" for f in DICE[d].faces)
            if creature and (d != "witching_hag" or n > scored_hags):
                out.append(Pick("recall", d))
    for give in dict.fromkeys(turn.trades):
        if st.count(used, give):
            out += [Trade(give, take, p) for p in range(state.players) if p != state.current
                    for take, _ in state.seats[p].used]
    if turn.free_spells > 0:
        # "costing 4 or less": the card's cost (stats.cost), not a price a discount lowered
        out += [Pick("capture", d) for d, _ in state.wilds
                if _is_spell(state, d) and cost(state, d) <= FREE_SPELL_COST]
    if turn.spell_culls:
        out += [CullFrom("active", d, f) for d, f in dict.fromkeys(seat.active)
                if _is_spell(state, d)]
        out += [CullFrom("ready", rd.die, rd.face) for rd in dict.fromkeys(seat.ready)
                if not is_creature(rd) and _is_spell(state, rd.die)]
    if turn.reshapes > 0:
        wilds = {d for d, _ in state.wilds}
        for give, _ in used:
            out += [Reshape(give, take) for take in sorted(wilds | {give})
                    if take != give and cost(state, take) <= cost(state, give) + RESHAPE_MORE]
    out.append(DONE)
    return out


def _cull(state: QuarriorsState, die: str) -> QuarriorsState:
    """RULES cull_return: "When you cull a die, return it to the matching Power Card in the
    Wilds."""
    return replace(state, wilds=st.add(state.wilds, die))


def play_cull(state: QuarriorsState, action: QuarriorsAction, events: Events) -> QuarriorsState:
    """A legal action of the cull phase other than ``done``."""
    me = state.current
    seat = state.me
    turn = state.turn
    if isinstance(action, Trade):
        # Deathdealer: the scored die goes to the other player's Used Pile, theirs to yours
        other = state.seats[action.player]
        state = state.seat(action.player, replace(other, used=st.add(
            st.take(other.used, action.take), action.give)))
        state = state.seat(me, replace(state.me, used=st.add(
            st.take(state.me.used, action.give), action.take)))
        trades = list(turn.trades)
        trades.remove(action.give)
        events.append(Event("trade", f"P{me + 1} trades a {action.give} die for a "
                            f"{action.take} die of P{action.player + 1}'s Used Pile", me))
        return replace(state, turn=replace(turn, trades=tuple(trades)))
    if isinstance(action, CullFrom):
        # Strong Questing Wizard: "cull any number of Spell dice from your Active Pool or Ready
        # Area for 1 glory each"
        if action.zone == "active":
            state = state.seat(me, replace(seat, active=st.dice_take(
                seat.active, (action.die, action.face))))
        else:
            i = next(i for i, rd in enumerate(seat.ready)
                     if (rd.die, rd.face) == (action.die, action.face) and not is_creature(rd))
            state = remove_ready(state, me, i)
        state = _cull(state, action.die)
        events.append(Event("cull", f"P{me + 1} culls one {action.die} die from the "
                            f"{'Active Pool' if action.zone == 'active' else 'Ready Area'}", me))
        return gain_glory(state, me, [("creature: Strong Questing Wizard", 1)], events)
    if isinstance(action, Reshape):
        # Shaping Incantation: cull from the Used Pile, then capture (RULES capture_more)
        # into the Used Pile (RULES capture: "All Quarry dice you capture are added to your
        # Used Pile")
        state = _cull(state.seat(me, replace(seat, used=st.take(seat.used, action.cull))),
                      action.cull)
        state = replace(state, wilds=st.take(state.wilds, action.capture),
                        turn=replace(turn, reshapes=turn.reshapes - 1))
        state = to_used(state, me, [action.capture])
        events.append(Event("capture", f"P{me + 1} culls one {action.cull} die to capture one "
                            f"{action.capture} die (Shaping Incantation)", me))
        return empty_end(state, events) if empty_creature_cards(state) >= 4 else state
    assert isinstance(action, Pick)
    if action.verb == "capture":
        # Strong Devotee of the Holy Query: "capture one Spell die costing 4 or less for free
        # (into your bag)" (RULES capture_more: beside the capture of phase 4)
        state = replace(state, wilds=st.take(state.wilds, action.die),
                        turn=replace(turn, free_spells=turn.free_spells - 1))
        state = state.seat(me, replace(state.me, bag=st.add(state.me.bag, action.die)))
        events.append(Event("capture", f"P{me + 1} captures one {action.die} die for free "
                            "into the bag (Strong Devotee of the Holy Query)", me))
        return state
    if action.verb == "cull":
        state = _cull(state.seat(me, replace(seat, used=st.take(seat.used, action.die))),
                      action.die)
        state = replace(state, turn=replace(state.turn, culls=state.turn.culls - 1))
        events.append(Event("cull", f"P{me + 1} culls one {action.die} die", me))
        if state.option("expert_culling"):
            scored = list(state.turn.scored)
            i = next(i for i, (d, _) in enumerate(scored) if d == action.die)
            points = scored.pop(i)[1]
            state = replace(state, turn=replace(state.turn, scored=tuple(scored)))
            name = card_of(state, action.die).name
            state = gain_glory(state, me, [(f"creature: {name}", points)], events)
        return state
    # recall (Strong Witching Hag)
    seat = replace(seat, used=st.take(seat.used, action.die),
                   active=st.dice_add(seat.active, (action.die, UNROLLED)))
    return replace(state.seat(me, seat), turn=replace(state.turn, recall=state.turn.recall - 1))


def done(state: QuarriorsState) -> QuarriorsState:
    """``done``: what scoring allowed and was not used is lost."""
    return replace(state, turn=replace(state.turn, draws=0, culls=0, recall=0, trades=(),
                                       free_spells=0, spell_culls=False, reshapes=0))
