"""Derived facts about a Pyramid Dice state: which cards are uncovered, takeable and
makeable, what a player may use, and who may strengthen their Ra card. Pure functions."""

from __future__ import annotations

from collections.abc import Mapping

from engine.games.pyramid_dice.cards import Card, Slot
from engine.games.pyramid_dice.solver import reachable_map
from engine.games.pyramid_dice.state import PyramidState

SOLO_RANKS = ((16, "beginner explorer"), (7, "intermediate explorer"),
              (4, "advanced explorer"), (1, "veteran explorer"), (0, "professional explorer"))


# Lookups per card set and layout, cached by identity: hashing 28 cards at every call
# would cost more than the lookups (states share the same tuples along a match).
_CARDS: dict[int, tuple[tuple[Card, ...], dict[str, Card]]] = {}
_COVERS: dict[int, tuple[tuple[Slot, ...], dict[str, tuple[str, ...]]]] = {}


def card_index(cards: tuple[Card, ...]) -> dict[str, Card]:
    hit = _CARDS.get(id(cards))
    if hit is None or hit[0] is not cards:
        if len(_CARDS) > 256:
            _CARDS.clear()
        hit = _CARDS[id(cards)] = (cards, {c.id: c for c in cards})
    return hit[1]


def cover_index(layout: tuple[Slot, ...]) -> dict[str, tuple[str, ...]]:
    hit = _COVERS.get(id(layout))
    if hit is None or hit[0] is not layout:
        if len(_COVERS) > 256:
            _COVERS.clear()
        hit = _COVERS[id(layout)] = (layout, {s.slot: s.covered_by for s in layout})
    return hit[1]


def card(state: PyramidState, card_id: str) -> Card:
    return card_index(state.cards)[card_id]


def in_slot(state: PyramidState, slot: str) -> str | None:
    """The card id lying in a pyramid slot, or None."""
    for s, c in state.pyramid:
        if s == slot:
            return c
    return None


def is_uncovered(state: PyramidState, slot: str) -> bool:
    filled = {s for s, _ in state.pyramid}
    return not any(c in filled for c in cover_index(state.layout).get(slot, ()))


def uncovered(state: PyramidState) -> list[tuple[str, str]]:
    """(slot, card id) of the pyramid cards no other card hides, in layout order."""
    filled = {s for s, _ in state.pyramid}
    covers = cover_index(state.layout)
    return [(s, c) for s, c in state.pyramid if not any(x in filled for x in covers[s])]


def takeable(state: PyramidState) -> list[tuple[str, Card]]:
    """(target, card) of every card that may be taken: uncovered pyramid cards, then the
    side area (targets ``side:<id>``)."""
    out = [(s, card(state, c)) for s, c in uncovered(state)]
    out += [(f"side:{c}", card(state, c)) for c in state.side]
    return out


def target_card(state: PyramidState, target: str) -> str | None:
    """The card id a target names, if that card is where the target says."""
    if target.startswith("side:"):
        cid = target[5:]
        return cid if cid in state.side else None
    return in_slot(state, target)


def makeable(state: PyramidState, dice: tuple[int, ...] | None = None) -> Mapping[int, str]:
    """Numbers the dice make (value -> expression) under the state's options (shared: read
    only)."""
    values = state.values if dice is None else tuple(sorted(dice))
    if len(values) != 3:
        return {}
    return reachable_map(values, bool(state.option("whole_steps")),
                         bool(state.option("negative_steps")))


def can_take(state: PyramidState) -> bool:
    made = makeable(state)
    return any(c.number in made for _, c in takeable(state))


def hard(state: PyramidState) -> bool:
    """Hard mode: the option, or solo play (which is always played in hard mode)."""
    return bool(state.option("hard_mode")) or state.players == 1


def may_give_up(state: PyramidState) -> bool:
    return bool(state.option("may_give_up")) or bool(state.option("snatch"))


def held_gods(state: PyramidState, player: int) -> list[Card]:
    """The face-up god cards in front of ``player`` (their abilities are usable)."""
    return [c for c in (card(state, i) for i in state.areas[player]) if c.kind == "god"]


def ra_max(state: PyramidState, player: int) -> int:
    return 2 if state.strengthened[player] else int(state.option("ra_rerolls"))


def gods_left(state: PyramidState) -> list[str]:
    """God cards not yet taken: in the pyramid or in the side area."""
    index = card_index(state.cards)
    left = [c for _, c in state.pyramid] + list(state.side)
    return [c for c in left if index[c].kind == "god"]


def may_strengthen(state: PyramidState, player: int) -> bool:
    return (not state.strengthened[player] and not state.got_god[player]
            and not gods_left(state))


def stall_limit(state: PyramidState) -> int:
    """Turns in a row in which nobody could take a card after which the stall rule allows
    ``end`` (0: never; RULES stall, options stall_rounds)."""
    return int(state.option("stall_rounds")) * state.players


def cards_left(state: PyramidState) -> int:
    """Cards still to be taken before the game ends (RULES end, option end_when): the
    pyramid's, and the side area's unless the game ends when the pyramid is empty."""
    side = len(state.side) if state.option("end_when") == "all_taken" else 0
    return len(state.pyramid) + side


def may_end_stalled(state: PyramidState) -> bool:
    """Whether the stall rule lets the players end the game now: at a turn's start, with at
    most ``stall_cards`` cards left (the sheet's last card), nobody having been able to take
    one for ``stall_rounds`` rounds (RULES stall)."""
    limit = stall_limit(state)
    return (state.players > 1 and limit > 0 and state.phase == "roll"
            and cards_left(state) <= int(state.option("stall_cards"))
            and state.stuck_turns >= limit)


def snatch_order(state: PyramidState, player: int) -> tuple[int, ...]:
    """The players who have the right to snatch before ``player`` (after the active player,
    clockwise): they must have said nothing for ``player`` to snatch (RULES snatch)."""
    n, me = state.players, state.current
    k = (player - me) % n
    return tuple((me + i) % n for i in range(1, k))


def solo_rank(cards_left: int) -> str:
    for floor, name in SOLO_RANKS:
        if cards_left >= floor:
            return name
    return SOLO_RANKS[-1][1]


def points(state: PyramidState, player: int) -> tuple[int, int, int]:
    """(treasure points, god-card points, snatched cards' back numbers) of a player."""
    face_up = [card(state, i) for i in state.areas[player]]
    treasure = sum(c.points for c in face_up if c.kind == "treasure")
    gods = sum(c.points for c in face_up if c.kind == "god")
    snatched = sum(card(state, i).back for i in state.hidden[player])
    return treasure, gods, snatched
