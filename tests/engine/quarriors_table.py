"""Building Quarriors tables for tests: a dealt table with the cards a test needs, and a
player's zones arranged die by die (the dice come from the box, so every state still holds
all 130)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from engine import get_game
from engine.games.quarriors import state as st
from engine.games.quarriors.cards import CARDS, NOT_IMPLEMENTED
from engine.games.quarriors.dice import label_of
from engine.games.quarriors.state import QuarriorsState, ReadyDie, Seat, Turn

GAME = get_game("quarriors")


def deck(*names: str) -> list[str]:
    """The named cards, then implemented cards of other classes up to 7 creatures, 3 spells."""
    chosen = list(names)
    for category, wanted in (("creature", 7), ("spell", 3)):
        classes = {CARDS[n].cls for n in chosen}
        for c in CARDS.values():
            if sum(CARDS[n].category == category for n in chosen) == wanted:
                break
            if c.category == category and c.cls not in classes and c.name not in NOT_IMPLEMENTED:
                chosen.append(c.name)
                classes.add(c.cls)
    return chosen


_PINNED: set[str] = set()
"""The cards the last table() was asked for: arrange() never swaps them out."""


def table(*names: str, players: int = 2, **options: Any) -> QuarriorsState:
    _PINNED.clear()
    _PINNED.update(names)
    state: QuarriorsState = GAME.new_state(players, options, setup={"cards": deck(*names)})
    return state


def _ensure_card(state: QuarriorsState, die: str) -> QuarriorsState:
    """A table whose Wilds hold a card of ``die``'s class: a filler card of another class,
    whose dice nobody holds, goes back to the box with its dice (a test's dealt table)."""
    if die in ("basic_quiddity", "assistant", "portal") or any(
            CARDS[c].die == die for c in state.cards):
        return state
    new = next(c for c in CARDS.values() if c.die == die and c.name not in NOT_IMPLEMENTED)
    held = {d for s in state.seats for d, _ in (*s.bag, *s.used, *s.active, *s.spent)} | {
        r.die for s in state.seats for r in s.ready}
    old = next(c for c in state.cards if CARDS[c].category == new.category
               and c not in _PINNED and CARDS[c].die not in held)
    cards = tuple(sorted({*state.cards, new.name} - {old}))
    wilds = dict(state.wilds)
    box = dict(state.box)
    box[CARDS[old].die] = box.get(CARDS[old].die, 0) + wilds.pop(CARDS[old].die, 0)
    wilds[die] = box.pop(die)
    return replace(state, cards=cards, wilds=st.counts(wilds.items()),
                   box=st.counts(box.items()))


def _dice(items: Iterable[str]) -> list[tuple[str, str]]:
    out = []
    for text in items:
        die, _, face = text.partition(" ")
        out.append((die, label_of(face)))
    return out


def ready_die(text: str, attached: Iterable[tuple[int, str]] = (),
              copy: tuple[str, str] | None = None) -> ReadyDie:
    (die, face), = _dice([text])
    att = tuple(sorted((owner, *_dice([t])[0]) for owner, t in attached))
    return ReadyDie(die, face, att, copy=copy)


def arrange(state: QuarriorsState, player: int, *, bag: Mapping[str, int] | None = None,
            used: Mapping[str, int] | None = None, active: Iterable[str] = (),
            spent: Iterable[str] = (), ready: Iterable[ReadyDie] = (),
            aside: Mapping[str, int] | None = None) -> QuarriorsState:
    """Player ``player``'s zones exactly as given; their old dice go back to the box, the
    new ones come from the box (or, if it has none left, the Wilds)."""
    ready = tuple(ready)
    for die in {*dict(bag or {}), *dict(used or {}), *dict(aside or {}),
                *(t.split()[0] for t in (*active, *spent)),
                *(r.die for r in ready), *(d for r in ready for _, d, _ in r.attached)}:
        state = _ensure_card(state, die)
    old = state.seats[player]
    pool = dict(st.counts([*state.box, *old.bag, *old.used, *old.aside,
                           *((d, 1) for d, _ in old.active), *((d, 1) for d, _ in old.spent),
                           *((r.die, 1) for r in old.ready),
                           *((d, 1) for r in old.ready for _, d, _ in r.attached)]))
    wilds = dict(state.wilds)
    ready_t = tuple(sorted(ready))
    seat = Seat(st.counts((bag or {}).items()), st.counts((used or {}).items()),
                tuple(sorted(_dice(active))), tuple(sorted(_dice(spent))), ready_t,
                old.glory, old.breakdown, st.counts((aside or {}).items()))
    wanted = st.counts([*seat.bag, *seat.used, *seat.aside, *((d, 1) for d, _ in seat.active),
                        *((d, 1) for d, _ in seat.spent), *((r.die, 1) for r in ready_t),
                        *((d, 1) for r in ready_t for _, d, _ in r.attached)])
    for die, n in wanted:
        from_box = min(n, pool.get(die, 0))
        pool[die] = pool.get(die, 0) - from_box
        wilds[die] = wilds.get(die, 0) - (n - from_box)
        assert wilds[die] >= 0, f"not enough {die} dice"
    out = replace(state.seat(player, seat), box=st.counts(pool.items()),
                  wilds=st.counts(wilds.items()))
    assert out.total_dice() == st.TOTAL_DICE
    return out


def at(state: QuarriorsState, phase: str = "main", player: int | None = None,
       **turn: Any) -> QuarriorsState:
    """The state at ``phase`` of ``player``'s turn (default: the current player), with these
    turn values (quiddity=3...)."""
    base = Turn(defense_bonus=(0,) * state.players)
    return replace(state, phase=phase, current=state.current if player is None else player,
                   turn=replace(base, **turn), attack=None, prompts=())


def play(state: QuarriorsState, *texts: str) -> QuarriorsState:
    for text in texts:
        state, _ = GAME.apply(state, GAME.parse_action(text))
    return state


def legal(state: QuarriorsState) -> list[str]:
    return [a.to_str() for a in GAME.legal_actions(state)]


def index(state: QuarriorsState, player: int, die: str) -> int:
    """The 1-based Ready Area index (rN) of the player's first ``die``."""
    return next(i for i, r in enumerate(state.seats[player].ready) if r.die == die) + 1
