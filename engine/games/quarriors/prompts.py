"""Card effects resolved outside the turn's order (state.Prompt), before any other action, by
the player they concern, who need not be the current player; and the Primordial Ooze's
check after every action.

A prompt is queued where the card's condition is met (moves.destroy, moves.put_ready) and
resolved here: ``draw`` and ``roll`` as chance outcomes (the die out of that player's hidden
bag, its share of the bag; the set-aside die's landing, its faces' share), ``ghost`` and
``copy`` as that player's decisions. ``settle`` drops a prompt that has nothing left to do
(a bag and Used Pile both empty, no creature left to copy) and refills a bag that a draw
finds empty (RULES refill), so a pending prompt always has an action.
"""

from __future__ import annotations

from dataclasses import replace

from engine.core import Event
from engine.games.quarriors import state as st
from engine.games.quarriors.actions import DECLINE, Copy, Draw, QuarriorsAction, Roll, Save
from engine.games.quarriors.dice import BASIC_QUIDDITY, DICE, UNROLLED
from engine.games.quarriors.moves import Events, copy_targets, destroy, put_ready, to_used
from engine.games.quarriors.state import Prompt, QuarriorsState, ReadyDie
from engine.games.quarriors.stats import basic_quiddity_in, card_of, creatures, identity


def chance(state: QuarriorsState) -> list[tuple[QuarriorsAction, float]]:
    """The first prompt's chance outcomes (none when it is a decision)."""
    p = state.prompts[0]
    seat = state.seats[p.player]
    if p.kind == "draw" and seat.bag:
        total = st.size(seat.bag)
        return [(Draw(d), n / total) for d, n in seat.bag]
    if p.kind == "roll" and seat.aside:
        die = seat.aside[0][0]
        return [(Roll(die, label), q) for label, q in DICE[die].odds()]
    return []


def decisions(state: QuarriorsState) -> list[QuarriorsAction]:
    """The first prompt's decisions for its player."""
    p = state.prompts[0]
    if p.kind == "ghost":
        return [Save(p.die, p.face), DECLINE] if _can_save(state, p) else [DECLINE]
    if p.kind == "copy":
        i = _fresh_ooze(state, p)
        return [] if i is None else [Copy(i, t) for t, _ in copy_targets(state, p.player)]
    return []


def copy_changes(state: QuarriorsState, player: int) -> list[QuarriorsAction]:
    """Strong Primordial Ooze: "(your choice, may change once per player turn)". Offered
    whenever its owner has the move on their own turn (phases 2 to 4) or defends: the windows
    in which a player acts at a table; each ooze once per player turn."""
    out: list[QuarriorsAction] = []
    targets = copy_targets(state, player)
    seen: set[ReadyDie] = set()
    for i, rd in enumerate(state.seats[player].ready):
        if rd in seen or rd.recopied or card_of(state, rd.die).name != "Strong Primordial Ooze":
            continue
        seen.add(rd)
        out += [Copy(i, t) for t, snap in targets if snap != rd.copy]
    return out


def _fresh_ooze(state: QuarriorsState, p: Prompt) -> int | None:
    for i, rd in enumerate(state.seats[p.player].ready):
        if (rd.die, rd.face) == (p.die, p.face) and rd.copy is None:
            return i
    return None


def _can_save(state: QuarriorsState, p: Prompt) -> bool:
    seat = state.seats[p.player]
    here = st.count(seat.used, p.die) > 0 if p.zone == "used" else (p.die, p.face) in seat.active
    return here and st.count(seat.used, BASIC_QUIDDITY) > 0


def play(state: QuarriorsState, action: QuarriorsAction, events: Events) -> QuarriorsState:
    """Apply a legal action that resolves the first prompt (or a copy change)."""
    if isinstance(action, Copy) and not (state.prompts and state.prompts[0].kind == "copy"):
        mover = state.attack.defender if state.phase == "attack" and state.attack \
            else state.current
        return _copy(state, mover, action, True, events)
    p = state.prompts[0]
    rest = state.prompts[1:]
    again = replace(p, n=p.n - 1)
    left = (again, *rest) if again.n > 0 else rest
    seat = state.seats[p.player]
    if isinstance(action, Draw):
        # Mighty Scavenging Goblin (*): "when destroyed, draw 2 dice into your Active Pool"
        seat = replace(seat, bag=st.take(seat.bag, action.die),
                       active=st.dice_add(seat.active, (action.die, UNROLLED)))
        return replace(state.seat(p.player, seat), prompts=left)
    if isinstance(action, Roll):
        # Mighty Ghostly Spirit: "then roll it: creature face -> Ready Area for free,
        # otherwise -> Used Pile"
        state = replace(state.seat(p.player, replace(seat, aside=st.take(seat.aside,
                                                                          action.die))),
                        prompts=left)
        f = DICE[action.die].face(action.face)
        name = card_of(state, action.die).name
        if f.kind == "creature":
            events.append(Event("return", f"P{p.player + 1}'s set-aside {name} rolls "
                                f"{action.face}: to the Ready Area", p.player))
            return put_ready(state, p.player, ReadyDie(action.die, action.face))
        events.append(Event("return", f"P{p.player + 1}'s set-aside {name} rolls "
                            f"{action.face}: to the Used Pile", p.player))
        return to_used(state, p.player, [action.die])
    state = replace(state, prompts=rest)
    if isinstance(action, Copy):
        return _copy(state, p.player, action, False, events)
    if action == DECLINE:
        return state
    assert isinstance(action, Save)
    # Ghostly Spirit: "you may cull 1 Basic Quiddity die" (RULES cull_used: from the Used
    # Pile) "to return it to your Ready Area for free (same level)": with the face it showed
    # (RULES return_face), not to be damaged again in this attack (RULES damaged_once)
    seat = replace(seat, used=st.take(seat.used, BASIC_QUIDDITY))
    if p.zone == "used":
        seat = replace(seat, used=st.take(seat.used, p.die))
    else:
        seat = replace(seat, active=st.dice_take(seat.active, (p.die, p.face)))
    state = replace(state.seat(p.player, seat), wilds=st.add(state.wilds, BASIC_QUIDDITY))
    att = state.attack
    if att is not None and att.last == (p.die, p.face, p.zone):
        state = replace(state, attack=replace(att, last=None))
    events.append(Event("return", f"P{p.player + 1} culls a Basic Quiddity die: their "
                        f"{card_of(state, p.die).name} returns to the Ready Area", p.player))
    return put_ready(state, p.player, ReadyDie(p.die, p.face, damaged=att is not None))


def _copy(state: QuarriorsState, mover: int, action: Copy, change: bool,
          events: Events) -> QuarriorsState:
    """Strong Primordial Ooze: "copies exactly one creature in an opponent's Ready Area": it
    takes what that creature plays as now (moves.copy_targets)."""
    t_player, t_index = action.target
    c, f = identity(state, state.seats[t_player].ready[t_index])
    seat = state.seats[mover]
    ooze = seat.ready[action.index]
    ready = list(seat.ready)
    ready[action.index] = replace(ooze, copy=(c.name, f.label), recopied=ooze.recopied or change)
    events.append(Event("copy", f"P{mover + 1}'s Strong Primordial Ooze copies P{t_player + 1}'s "
                        f"{c.name} ({f.label})", mover))
    return state.seat(mover, replace(seat, ready=tuple(sorted(ready))))


def check_oozes(state: QuarriorsState, events: Events) -> QuarriorsState:
    """Primordial Ooze: "destroyed if you have none in play" (no Basic Quiddity die in play:
    RULES in_play, the Active Pool, Spent and Used Piles; RULES bag_not_in_play)."""
    for p in range(state.players):
        while state.phase != "over" and not basic_quiddity_in(state.seats[p],
                                                              ("active", "spent", "used")):
            hit = [i for i in creatures(state, p)
                   if identity(state, state.seats[p].ready[i])[0].name == "Primordial Ooze"]
            if not hit:
                break
            state = destroy(state, p, hit[0], None, events)
    return state


def settle(state: QuarriorsState, events: Events) -> QuarriorsState:
    """Drop the prompts with nothing left to do; refill a bag a prompt's draw finds empty."""
    while state.prompts and state.phase != "over":
        p = state.prompts[0]
        seat = state.seats[p.player]
        if p.kind == "draw" and not seat.bag:
            if not seat.used:
                state = replace(state, prompts=state.prompts[1:])  # no dice left to draw
                continue
            # RULES refill, for the player who draws
            events.append(Event("refill", f"P{p.player + 1} returns {st.size(seat.used)} dice "
                                "from the Used Pile to the bag", p.player))
            state = state.seat(p.player, replace(seat, bag=seat.used, used=()))
            continue
        if p.kind == "roll" and st.size(seat.aside) < p.n:
            # (a Shaping Cantrip took a set-aside die back)
            fixed = replace(p, n=st.size(seat.aside))
            state = replace(state, prompts=((fixed,) if fixed.n else ()) + state.prompts[1:])
            continue
        if p.kind == "ghost" and not _can_save(state, p) \
                or p.kind == "copy" and not decisions(state):
            state = replace(state, prompts=state.prompts[1:])
            continue
        break
    if state.phase == "over" and state.prompts:
        state = replace(state, prompts=())
    return state
