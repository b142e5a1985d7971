"""What the camera should see in a Pyramid Dice state, and loading a state from JSON.

Zones: ``rolling`` (the three dice: kind ``die``, type ``d6``, the face they show; a die
worth more than 6 after +1/+2 still shows a face of 1–6), ``pyramid`` (a card per slot
``r{row}c{col}``), ``side`` (the side area), ``area:{i}`` (player i's cards: face-up cards by
id, snatched cards face down as ``back:1``/``back:2``, and the Ra card with its side and how
many times it was turned this turn). Cards in the box are not seen.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import GameInfo
from engine.errors import InvalidOptionError, InvalidStateError
from engine.games.pyramid_dice import table as t
from engine.games.pyramid_dice.cards import Card, CardSetError, Slot, parse_cards, parse_layout
from engine.games.pyramid_dice.rules import OPTIONS
from engine.games.pyramid_dice.state import PHASES, PyramidState
from engine.observation import Expected, View, make_view


def expected_view(state: PyramidState) -> View:
    objects: list[Expected] = []
    if state.dice:
        objects += [Expected.make("die", "rolling", type="d6", face=str(f))
                    for _, f in state.dice]
    else:  # before the first roll the dice lie somewhere, faces unknown
        objects += [Expected.make("die", "rolling", type="d6") for _ in range(3)]
    objects += [Expected.make("card", "pyramid", slot, card=cid) for slot, cid in state.pyramid]
    objects += [Expected.make("card", "side", card=cid) for cid in state.side]
    for p in range(state.players):
        zone = f"area:{p}"
        objects += [Expected.make("card", zone, card=cid) for cid in state.areas[p]]
        objects += [Expected.make("card", zone, card=f"back:{t.card(state, cid).back}")
                    for cid in state.hidden[p]]
        turned = state.ra_used if p == state.current and state.phase == "act" else 0
        objects.append(Expected.make(
            "card", zone, card="ra", side="strengthened" if state.strengthened[p] else "single",
            turned=str(turned)))
    return make_view(objects)


def _ids(value: Any, what: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidStateError(f"Pyramid Dice state: {what} must be a list of card ids")
    return tuple(value)


def _flags(value: Any, what: str, n: int) -> tuple[bool, ...]:
    if not isinstance(value, list) or len(value) != n or \
            not all(isinstance(v, bool) for v in value):
        raise InvalidStateError(f"Pyramid Dice state: {what} must be {n} true/false values")
    return tuple(value)


def _count(data: Mapping[str, Any], key: str, default: int = 0) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidStateError(f"Pyramid Dice state: {key} must be a whole number ≥ 0")
    return value


_PARSED: dict[str, tuple[tuple[Card, ...], tuple[Slot, ...]]] = {}


def _parsed(cards: Any, layout: Any) -> tuple[tuple[Card, ...], tuple[Slot, ...]]:
    """The card set and layout of a state, validated once per distinct content (so that the
    states of one match share the same tuples)."""
    key = repr([cards, layout])
    if key not in _PARSED:
        if not isinstance(cards, list):
            raise InvalidStateError("Pyramid Dice state: cards must be a list")
        counts = {k: sum(1 for c in cards if isinstance(c, Mapping) and c.get("kind") == k)
                  for k in ("treasure", "god")}
        parsed = parse_cards(cards, counts), parse_layout({"slots": layout})[0]
        if len(_PARSED) > 64:
            _PARSED.clear()
        _PARSED[key] = parsed
    return _PARSED[key]


def _provenance(value: Any) -> tuple[str, str]:
    if value is None:
        return ("", "")
    if not isinstance(value, Mapping) or not all(
            isinstance(value.get(k, ""), str) for k in ("cards", "layout")):
        raise InvalidStateError("Pyramid Dice state: provenance gives 'cards' and 'layout'")
    return (str(value.get("cards", "")), str(value.get("layout", "")))


def load_state(data: Mapping[str, Any], info: GameInfo | None = None) -> PyramidState:
    """A state from ``PyramidState.to_dict()`` output, checked; raises InvalidStateError."""
    from engine.core import options_tuple

    if not isinstance(data, Mapping):
        raise InvalidStateError("a Pyramid Dice state is a JSON object")
    if data.get("game", "pyramid_dice") != "pyramid_dice":
        raise InvalidStateError(f"not a Pyramid Dice state (game {data.get('game')!r})")
    try:
        players = data["players"]
        if isinstance(players, bool) or not isinstance(players, int) or not 1 <= players <= 5:
            raise InvalidStateError(f"Pyramid Dice state: players must be 1..5, not "
                                    f"{players!r}")
        if not isinstance(data.get("options") or {}, Mapping):
            raise InvalidStateError("Pyramid Dice state: options must map names to values")
        values = (info or GameInfo("pyramid_dice", "", 1, 5, "", options=OPTIONS)) \
            .resolve_options(data.get("options"))
        cards, layout = _parsed(data["cards"], data["layout"])
        raw = data["pyramid"]
        if not isinstance(raw, Mapping):
            raise InvalidStateError("Pyramid Dice state: pyramid maps slots to card ids")
        names = [s.slot for s in layout]
        if any(s not in names or not isinstance(c, str) for s, c in raw.items()):
            raise InvalidStateError("Pyramid Dice state: pyramid names an unknown slot")
        pyramid = tuple((s, str(raw[s])) for s in names if s in raw)
        areas = tuple(_ids(a, "areas") for a in data["areas"])
        hidden = tuple(_ids(h, "hidden") for h in data["hidden"])
        if len(areas) != players or len(hidden) != players:
            raise InvalidStateError("Pyramid Dice state: one area per player is needed")
        dice_raw = data.get("dice", [])
        if not isinstance(dice_raw, list) or len(dice_raw) not in (0, 3):
            raise InvalidStateError("Pyramid Dice state: dice must be empty or three")
        dice = []
        for d in dice_raw:
            if not isinstance(d, list) or len(d) != 2 or not all(
                    isinstance(x, int) and not isinstance(x, bool) for x in d) \
                    or d[0] < 1 or not 1 <= d[1] <= 6:
                raise InvalidStateError(f"Pyramid Dice state: a die is [value ≥ 1, face 1–6], "
                                        f"not {d!r}")
            dice.append((d[0], d[1]))
        phase, current = data.get("phase"), data.get("current")
        if phase not in PHASES:
            raise InvalidStateError(f"Pyramid Dice state: phase must be one of {PHASES}")
        if isinstance(current, bool) or not isinstance(current, int) \
                or not 0 <= current < players:
            raise InvalidStateError(f"Pyramid Dice state: current must be 0..{players - 1}")
        if phase == "act" and not dice:
            raise InvalidStateError("Pyramid Dice state: the 'act' phase needs rolled dice")
        ended = data.get("ended")
        if (ended is None) != (phase != "over") or (ended is not None and ended not in (
                "all_taken", "pyramid_empty", "stall", "solo_failed")):
            raise InvalidStateError("Pyramid Dice state: 'ended' must give the reason exactly "
                                    "when the phase is 'over'")
        state = PyramidState(
            players, options_tuple(values), cards, layout, pyramid,
            side=_ids(data["side"], "side"), areas=areas, hidden=hidden,
            boxed=_ids(data["boxed"], "boxed"),
            strengthened=_flags(data["strengthened"], "strengthened", players),
            got_god=_flags(data["got_god"], "got_god", players), current=current, phase=phase,
            dice=tuple(sorted(dice)), ra_used=_count(data, "ra_used"),
            god_uses=_count(data, "god_uses"), stuck_turns=_count(data, "stuck_turns"),
            turn=_count(data, "turn", 1), ended=ended,
            provenance=_provenance(data.get("provenance")))
    except (CardSetError, InvalidOptionError) as exc:
        raise InvalidStateError(f"Pyramid Dice state: {exc}") from None
    except (KeyError, TypeError, AttributeError) as exc:
        raise InvalidStateError(f"Pyramid Dice state lacks or mangles a field: {exc}") from None
    everywhere = [c for _, c in pyramid] + list(state.side) + list(state.boxed) \
        + [c for a in areas for c in a] + [c for h in hidden for c in h]
    if sorted(everywhere) != sorted(c.id for c in cards):
        raise InvalidStateError("Pyramid Dice state: every card must be in exactly one place "
                                "(pyramid, side, an area or the box)")
    if any(t.card(state, c).kind != "god" for c in state.boxed):
        raise InvalidStateError("Pyramid Dice state: only god cards go back to the box")
    return state
