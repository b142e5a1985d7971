"""The dice moving between zones, as pure helpers over QuarriorsState: drawing with the refill,
destroying a creature (where it goes, and what fires), entering a Ready Area, the card
effects queued as prompts (state.Prompt, resolved in prompts.py), scoring glory and the end
checks."""

from __future__ import annotations

from dataclasses import replace

from engine.core import Event
from engine.games.quarriors import state as st
from engine.games.quarriors.cards import CARDS
from engine.games.quarriors.dice import BASIC_QUIDDITY, UNROLLED
from engine.games.quarriors.rules import GLORY_GOALS
from engine.games.quarriors.state import Prompt, QuarriorsState, ReadyDie, Seat
from engine.games.quarriors.stats import card_of, creatures, identity, is_creature, named

Target = tuple[int, int]
"""(player, index in that player's Ready Area)"""

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
                       reason=f"reached the glory goal of {goal}", attack=None, prompts=())
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
    """A die enters a Ready Area. A Strong Primordial Ooze entering with nothing copied is
    prompted to copy (the Card Reference's note: "When the ooze enters the Ready area (by any
    means) - you must copy a creature in an opponents' area, if able")."""
    seat = state.seats[player]
    state = state.seat(player, replace(seat, ready=tuple(sorted((*seat.ready, rd)))))
    if rd.copy is None and is_creature(rd) \
            and card_of(state, rd.die).name == "Strong Primordial Ooze" \
            and copy_targets(state, player):
        state = prompt(state, Prompt("copy", player, die=rd.die, face=rd.face))
    return state


def prompt(state: QuarriorsState, p: Prompt) -> QuarriorsState:
    """A card effect to resolve before any other action (state.Prompt)."""
    if state.phase == "over":
        return state
    return replace(state, prompts=(*state.prompts, p))


def copy_targets(state: QuarriorsState, player: int) -> list[tuple[Target, tuple[str, str]]]:
    """What a Strong Primordial Ooze of ``player`` may copy: each opponent's creature, as it
    plays (a copying ooze gives what it copies: the Card Reference's note "An ooze can copy an
    ooze that copied another creature (and thus becomes that originally copied creature)"),
    one target per distinct creature."""
    out: list[tuple[Target, tuple[str, str]]] = []
    seen: set[tuple[str, str]] = set()
    for p in range(state.players):
        if p == player:
            continue
        for i in creatures(state, p):
            c, f = identity(state, state.seats[p].ready[i])
            if (c.name, f.label) not in seen:
                seen.add((c.name, f.label))
                out.append(((p, i), (c.name, f.label)))
    return out


def _goes(state: QuarriorsState, player: int, name: str) -> str:
    """Where a destroyed creature goes. Strong Ghostly Spirit: "when destroyed, put it in your
    Active Pool"; Mighty Ghostly Spirit: "when destroyed, set it aside until you destroy any
    creature"; Life Charm: "for the rest of the turn your destroyed creatures go to your
    Active Pool instead of the Used Pile" (so it changes only a move to the Used Pile, not the
    Mighty Ghostly Spirit's setting aside); else the Used Pile."""
    if name == "Mighty Ghostly Spirit":
        return "aside"
    if name == "Strong Ghostly Spirit" or player in state.turn.life_charm:
        return "active"
    return "used"


def destroy(state: QuarriorsState, player: int, index: int, by: int | None,
            events: Events) -> QuarriorsState:
    """A creature destroyed (``by``: the player whose attack, spell or ability did it).

    Where it goes: ``_goes``. What fires for its owner: Ghostly Spirit, Mighty Scavenging
    Goblin (a prompt each); for the destroyer: Witching Hag, Strong Deathdealer, and their
    set-aside Mighty Ghostly Spirits. A Strong Primordial Ooze does what the creature it
    copies does (stats.identity), and forgets its copy once it leaves the Ready Area."""
    rd = state.seats[player].ready[index]
    c, f = identity(state, rd)
    name = c.name
    state = remove_ready(state, player, index)
    zone = _goes(state, player, name)
    seat = state.seats[player]
    if zone == "active":
        state = state.seat(player, replace(seat, active=st.dice_add(seat.active,
                                                                    (rd.die, rd.face))))
    elif zone == "aside":
        state = state.seat(player, replace(seat, aside=st.add(seat.aside, rd.die)))
    else:
        state = to_used(state, player, [rd.die])
    where = {"active": "goes to the Active Pool", "used": "goes to the Used Pile",
             "aside": "is set aside"}[zone]
    events.append(Event("destroyed", f"P{player + 1}'s {name} ({rd.face}) is destroyed and "
                        f"{where}", player))
    if state.attack is not None and state.attack.defender == player:
        state = replace(state, attack=replace(state.attack, last=(rd.die, rd.face, zone)))
    if name == "Ghostly Spirit" and st.count(state.seats[player].used, BASIC_QUIDDITY):
        # Ghostly Spirit: "when destroyed you may cull 1 Basic Quiddity die to return it to
        # your Ready Area for free (same level)"
        state = prompt(state, Prompt("ghost", player, die=rd.die, face=rd.face, zone=zone))
    if name == "Mighty Scavenging Goblin" and f.burst >= 1:
        # Mighty Scavenging Goblin (*): "when destroyed, draw 2 dice into your Active Pool"
        state = prompt(state, Prompt("draw", player, n=2))
    if by is None:
        return state
    waiting = st.size(state.seats[by].aside) - sum(
        p.n for p in state.prompts if p.kind == "roll" and p.player == by) - (
        1 if zone == "aside" and player == by else 0)
    if waiting > 0:
        # Mighty Ghostly Spirit: "set it aside until you destroy any creature, then roll it":
        # any creature its owner destroys, their own too ("any"; Witching Hag and Strong
        # Deathdealer below count only the others' creatures), not the destruction that set
        # it aside (it was not aside yet)
        state = prompt(state, Prompt("roll", by, n=waiting))
    if by == player:
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


def empty_end(state: QuarriorsState, events: Events) -> QuarriorsState:
    """RULES empty_cards, tie: the highest glory, then most dice in the Ready Area."""
    best = max(s.glory for s in state.seats)
    top = [p for p, s in enumerate(state.seats) if s.glory == best]
    most = max(len(state.seats[p].ready) for p in top)
    winners = tuple(p for p in top if len(state.seats[p].ready) == most)
    events.append(Event("end_game", "four Creature cards are empty: the game ends"))
    reason = "four empty Creature cards: highest glory"
    if len(top) > 1:
        reason += ", then most dice in the Ready Area" + (", shared" if len(winners) > 1 else "")
    return replace(state, phase="over", winners=winners, reason=reason, prompts=())


def start_turn(state: QuarriorsState, player: int, events: Events) -> QuarriorsState:
    """A new turn: RULES score if the player has creatures, else straight to the draw."""
    clean = tuple(replace(s, ready=tuple(sorted(replace(r, zeroed=False, damaged=False,
                                                        recopied=False)
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
