"""The dice moving between zones, as pure helpers over QuarriorsState: drawing with the refill,
destroying a creature (where it goes, and what fires), scoring glory and the end checks."""

from __future__ import annotations

from dataclasses import replace

from engine.core import Event
from engine.games.quarriors import state as st
from engine.games.quarriors.cards import CARDS
from engine.games.quarriors.dice import UNROLLED
from engine.games.quarriors.rules import GLORY_GOALS
from engine.games.quarriors.state import QuarriorsState, ReadyDie, Seat
from engine.games.quarriors.stats import card_of, is_creature, named

Events = list[Event]


def refill(state: QuarriorsState, events: Events) -> QuarriorsState:
    """RULES refill: with dice still to draw and the bag empty, the Used Pile goes into the
    bag; with nothing left to draw, the drawing stops."""
    seat = state.me
    if state.turn.draws <= 0 or seat.bag:
        return state
    if seat.used:
        events.append(Event("refill", f"P{state.current + 1} returns "
                            f"{st.size(seat.used)} dice from the Used Pile to the bag",
                            state.current))
        return state.seat(state.current, replace(seat, bag=seat.used, used=()))
    return replace(state, turn=replace(state.turn, draws=0))


def gain_glory(state: QuarriorsState, player: int, parts: list[tuple[str, int]],
               events: Events) -> QuarriorsState:
    """Glory recorded per scoring rule; RULES goal ends the match at once."""
    if not parts:
        return state
    seat = state.seats[player]
    points = sum(p for _, p in parts)
    seat = replace(seat, glory=seat.glory + points,
                   breakdown=st.counts((*seat.breakdown, *parts)))
    state = state.seat(player, seat)
    events.append(Event("glory", f"P{player + 1} gains {points} glory "
                        f"({', '.join(k for k, _ in parts)})", player))
    goal = GLORY_GOALS[state.players]
    if seat.glory >= goal and state.phase != "over":
        events.append(Event("win", f"P{player + 1} reaches {seat.glory} glory (goal {goal})",
                            player))
        return replace(state, phase="over", winners=(player,),
                       reason=f"reached the glory goal of {goal}", attack=None)
    return state


def to_used(state: QuarriorsState, player: int, dice: list[str]) -> QuarriorsState:
    seat = state.seats[player]
    return state.seat(player, replace(seat, used=st.counts(
        (*seat.used, *((d, 1) for d in dice)))))


def remove_ready(state: QuarriorsState, player: int, index: int) -> QuarriorsState:
    """A die leaves a Ready Area; its attached spells go to their owners' Used Piles (RULES
    attach: "If that Creature is destroyed or leaves play for any reason (such as scoring
    Glory), your spell always goes to your Used Pile.")."""
    seat = state.seats[player]
    rd = seat.ready[index]
    state = state.seat(player, replace(seat, ready=seat.ready[:index] + seat.ready[index + 1:]))
    for owner, die, _ in rd.attached:
        state = to_used(state, owner, [die])
    return state


def put_ready(state: QuarriorsState, player: int, rd: ReadyDie) -> QuarriorsState:
    seat = state.seats[player]
    return state.seat(player, replace(seat, ready=tuple(sorted((*seat.ready, rd)))))


def destroy(state: QuarriorsState, player: int, index: int, by: int | None,
            events: Events) -> QuarriorsState:
    """A creature destroyed (``by``: the player whose attack, spell or ability did it).

    Where it goes: Strong Ghostly Spirit: "when destroyed, put it in your Active Pool"; Life
    Charm: "for the rest of the turn your destroyed creatures go to your Active Pool instead of
    the Used Pile"; else the Used Pile. What fires for the destroyer: Witching Hag, Strong
    Deathdealer."""
    rd = state.seats[player].ready[index]
    name = card_of(state, rd.die).name
    state = remove_ready(state, player, index)
    to_active = name == "Strong Ghostly Spirit" or player in state.turn.life_charm
    seat = state.seats[player]
    if to_active:
        state = state.seat(player, replace(seat, active=st.dice_add(seat.active,
                                                                    (rd.die, rd.face))))
    else:
        state = to_used(state, player, [rd.die])
    where = "Active Pool" if to_active else "Used Pile"
    events.append(Event("destroyed", f"P{player + 1}'s {name} ({rd.face}) is destroyed and "
                        f"goes to the {where}", player))
    if state.attack is not None and state.attack.defender == player:
        state = replace(state, attack=replace(state.attack,
                                              last=(rd.die, rd.face, "active" if to_active
                                                    else "used")))
    if by is None or by == player:
        return state
    hags = named(state, by, "Witching Hag")
    if hags and by == state.current:
        # Witching Hag: "+1 quiddity for each creature you destroy while it is in your Ready
        # Area"
        state = replace(state, turn=replace(state.turn,
                                            quiddity=state.turn.quiddity + len(hags)))
    for dealer in named(state, by, "Strong Deathdealer"):
        # Strong Deathdealer: "when you destroy a creature, immediately score Deathdealer (to
        # Used Pile) without reducing your attack total"
        seat = state.seats[by]
        state = remove_ready(state, by, seat.ready.index(dealer))
        state = to_used(state, by, [dealer.die])
        state = gain_glory(state, by, [("creature: Strong Deathdealer",
                                        CARDS["Strong Deathdealer"].glory)], events)
        if state.phase == "over":
            return state
    return state


def empty_creature_cards(state: QuarriorsState) -> int:
    return sum(1 for c in state.cards if CARDS[c].category == "creature"
               and st.count(state.wilds, CARDS[c].die) == 0)


def start_turn(state: QuarriorsState, player: int, events: Events) -> QuarriorsState:
    """A new turn: RULES score if the player has creatures, else straight to the draw."""
    clean = tuple(replace(s, ready=tuple(sorted(replace(r, zeroed=False, damaged=False)
                                                for r in s.ready)))
                  for s in state.seats)
    turn = st.Turn(captures=2 if state.option("advanced_capture") else 1,
                   defense_bonus=(0,) * state.players)
    state = replace(state, seats=clean, current=player, turn=turn, attack=None,
                    turn_no=state.turn_no + 1)
    if any(is_creature(r) for r in state.me.ready):
        return replace(state, phase="score")
    return begin_draw(state, 0, events)


def begin_draw(state: QuarriorsState, extra: int, events: Events) -> QuarriorsState:
    """RULES draw: 6 dice (and any extra ones scoring gave) to draw, then every die of the
    Active Pool rolled."""
    seat = state.me
    seat = replace(seat, active=tuple(sorted((d, UNROLLED) for d, _ in seat.active)))
    state = state.seat(state.current, seat)
    state = replace(state, phase="main", turn=replace(state.turn, draws=6 + extra))
    return refill(state, events)


def next_unrolled(state: QuarriorsState) -> str | None:
    for die, f in state.me.active:
        if f == UNROLLED:
            return die
    return None


def new_seat(bag: st.Counts) -> Seat:
    return Seat(bag=bag)
