"""Pyramid Dice legality: ``check(state, action)`` raises IllegalActionError naming the rule
(see rules.py) with what exactly is wrong in this state."""

from __future__ import annotations

from engine.errors import IllegalActionError
from engine.games.pyramid_dice import table as t
from engine.games.pyramid_dice.rules import RULES
from engine.games.pyramid_dice.state import (
    PyramidAction,
    PyramidState,
    Remove,
    Reroll,
    Roll,
    Snatch,
    Strengthen,
    Take,
    Use,
    Word,
    target_text,
)


def _fail(name: str, detail: str) -> IllegalActionError:
    return IllegalActionError(RULES[f"pyramid_dice.{name}"], detail)


def check(state: PyramidState, action: PyramidAction) -> None:
    """Raise IllegalActionError naming the rule when ``action`` is not legal."""
    if state.phase == "over":
        raise _fail("game_over", f"the game is over ({state.ended})")
    me, p = state.current, f"P{state.current + 1}"
    if isinstance(action, Strengthen):
        who = action.player
        if not 0 <= who < state.players:
            raise _fail("setup_ra", f"there is no P{who + 1}")
        if state.strengthened[who]:
            raise _fail("ra_strengthen", f"P{who + 1}'s Ra card is already strengthened")
        if state.got_god[who]:
            raise _fail("ra_strengthen", f"P{who + 1} has taken a god card")
        left = t.gods_left(state)
        if left:
            raise _fail("ra_strengthen", f"god card(s) {', '.join(left)} are still to be "
                        "taken")
        return
    if isinstance(action, Word) and action.word == "end":
        limit = t.stall_limit(state)
        if state.players == 1 or limit == 0:
            raise _fail("stall", "the stall rule is off (option stall_rounds=0 or solo)")
        remaining, most = t.cards_left(state), int(state.option("stall_cards"))
        if remaining > most:
            raise _fail("stall", f"{remaining} cards are left; the stall rule is about the last "
                        f"{'card' if most == 1 else f'{most} cards'} (option stall_cards)")
        if state.phase != "roll" or state.stuck_turns < limit:
            raise _fail("stall", f"nobody could take a card in {state.stuck_turns} turn(s) "
                        f"in a row; the game may end after {limit} ({limit // state.players} "
                        "round(s)), at the start of a turn")
        return
    if isinstance(action, Roll):
        if any(not 1 <= v <= 6 for v in action.values):
            raise _fail("dice", f"a six-sided die cannot show {action.values}")
        if state.phase != "roll":
            raise _fail("roll", f"{p} has rolled this turn; another roll needs a re-roll "
                        "ability (Ra or a god card)")
        return
    if state.phase == "roll":
        raise _fail("roll", f"{p} must roll the three dice first")
    if isinstance(action, Reroll):
        if any(not 1 <= v <= 6 for v in action.values):
            raise _fail("dice", f"a six-sided die cannot show {action.values}")
        if action.card == "ra":
            if state.ra_used >= t.ra_max(state, me):
                rule = "ra_two" if state.strengthened[me] else "ra_reroll"
                raise _fail(rule, f"{p}'s Ra card has given its {t.ra_max(state, me)} "
                            "re-roll(s) this turn")
            return
        _check_card(state, action.card, "reroll")
        return
    if isinstance(action, Use):
        if action.die not in state.values:
            raise _fail("abilities", f"no die shows {action.die} (dice: {state.values})")
        if action.ability == "flip" and action.die > 6:
            raise _fail("flip", f"a die worth {action.die} has no opposite face")
        _check_card(state, action.card, action.ability)
        return
    if isinstance(action, Take | Snatch):
        _check_take(state, action)
        return
    # giving up: remove, pass, give up
    if t.can_take(state) and not t.may_give_up(state):
        raise _fail("must_take", f"{p}'s dice {state.values} make a takeable card")
    if isinstance(action, Remove):
        if state.players == 1:
            raise _fail("solo", "in solo play a failed turn ends the game ('give up')")
        if t.in_slot(state, action.slot) is None:
            raise _fail("fail_remove", f"no pyramid card lies in {action.slot}")
        if not t.is_uncovered(state, action.slot):
            raise _fail("fail_remove", f"the card in {action.slot} is covered")
        return
    if action.word == "give up" and state.players > 1:
        raise _fail("fail_remove", "remove a takeable pyramid card to the side area "
                    "('remove SLOT', or 'pass' when the pyramid is empty)")
    if action.word == "pass" and (state.players == 1 or state.pyramid):
        raise _fail("solo" if state.players == 1 else "fail_remove",
                    "in solo play a failed turn is 'give up'" if state.players == 1 else
                    "the pyramid still has cards: remove one to the side area")


def _check_card(state: PyramidState, card_id: str | None, ability: str) -> None:
    me = state.current
    if card_id is None:
        raise _fail("abilities", f"P{me + 1} used {ability} without a god card")
    if card_id == "ra":
        raise _fail("icon", f"the Ra card re-rolls all three dice; it cannot {ability}")
    if card_id not in state.areas[me]:
        where = "is in the box" if card_id in state.boxed else f"is not in front of P{me + 1}"
        raise _fail("abilities", f"card {card_id} {where}")
    card = t.card(state, card_id)
    if card.kind != "god" or card.ability != ability:
        raise _fail("icon", f"card {card_id}'s ability is {card.ability}, not {ability}")


def _check_take(state: PyramidState, action: Take | Snatch) -> None:
    target = action.target
    cid = t.target_card(state, target)
    if cid is None:
        raise _fail("side_area" if target.startswith("side:") else "uncovered",
                    f"no card lies in {target_text(target)}")
    if not target.startswith("side:") and not t.is_uncovered(state, target):
        raise _fail("uncovered", f"the card in {target} is hidden by cards in front of it")
    card = t.card(state, cid)
    if isinstance(action, Snatch):
        if not state.option("snatch"):
            raise _fail("snatch", "the snatch rule is not in play (option snatch)")
        if action.player == state.current or not 0 <= action.player < state.players:
            raise _fail("snatch", f"P{action.player + 1} cannot snatch in P"
                        f"{state.current + 1}'s turn")
        before = t.snatch_order(state, action.player)
        if action.passed != before:
            names = " ".join(f"P{p + 1}" for p in before)
            if not before:
                raise _fail("snatch", f"P{action.player + 1} is the next player: nobody "
                            "had to pass before them")
            raise _fail("snatch", f"{names} had the right first: P{action.player + 1} may "
                        f"snatch only after {names} said nothing ('snatch P"
                        f"{action.player + 1} {target_text(target)} after {names} passed')")
        if card.kind == "god" and not state.option("snatch_god_cards"):
            raise _fail("snatch_god_cards", f"{cid} is a god card")
    # A snatch is judged on the dice as they lie when the active player gives up (after
    # any abilities that player used): 「そのダイス目を変えることなく」.
    made = t.makeable(state)
    if card.number not in made:
        rule = "snatch" if isinstance(action, Snatch) else "number"
        v = state.values
        pairs = {v[i] + v[j] for i in range(3) for j in range(i + 1, 3)} | \
            {v[i] * v[j] for i in range(3) for j in range(i + 1, 3)} | set(v) | \
            {abs(v[i] - v[j]) for i in range(3) for j in range(i + 1, 3)}
        if card.number in pairs:
            rule = "use_all"
        raise _fail(rule, f"{cid} shows {card.number}, which the dice {v} do not make "
                    "using each die once")
