"""Reading a state back from ``QuarriorsState.to_dict()`` (InvalidStateError when it cannot
be a Quarriors table: unknown dice or cards, dice that do not add up to the 130 of the box)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import GameInfo, options_tuple
from engine.errors import InvalidStateError
from engine.games.quarriors import state as st
from engine.games.quarriors.cards import CARDS
from engine.games.quarriors.dice import DICE, label_of
from engine.games.quarriors.state import (
    PHASES,
    PROMPTS,
    Attack,
    Prompt,
    QuarriorsState,
    ReadyDie,
    Seat,
    Turn,
)


def _counts(raw: Any) -> st.Counts:
    if not isinstance(raw, Mapping):
        raise ValueError("a zone of counts is a mapping")
    out = []
    for key, n in raw.items():
        if key not in DICE or type(n) is not int or n < 0:
            raise ValueError(f"bad count {key!r}: {n!r}")
        out.append((str(key), n))
    return st.counts(out)


def _dice(raw: Any, rolled: bool) -> st.Dice:
    out = []
    for text in raw:
        words = str(text).split(" ", 1)
        key, face = words[0], label_of(words[1]) if len(words) == 2 else ""
        if key not in DICE or (face or rolled) and face not in DICE[key].labels:
            raise ValueError(f"bad die {text!r}")
        out.append((key, face))
    return tuple(sorted(out))


def _ready(raw: Any) -> ReadyDie:
    die, face = str(raw["die"]), str(raw["face"])
    if die not in DICE or face not in DICE[die].labels:
        raise ValueError(f"bad ready die {raw!r}")
    attached = tuple(sorted((int(a[0]), str(a[1]), str(a[2])) for a in raw.get("attached", [])))
    copy = raw.get("copy")
    if copy is not None:
        name, label = str(copy[0]), str(copy[1])
        if name not in CARDS or label not in DICE[CARDS[name].die].labels:
            raise ValueError(f"bad copy {copy!r}")
        copy = (name, label)
    return ReadyDie(die, face, attached, bool(raw.get("damaged", False)),
                    bool(raw.get("zeroed", False)), copy, bool(raw.get("recopied", False)))


def _prompt(raw: Any) -> Prompt:
    prompt = Prompt(str(raw["kind"]), int(raw["player"]), int(raw["n"]), str(raw["die"]),
                    str(raw["face"]), str(raw["zone"]))
    if prompt.kind not in PROMPTS:
        raise ValueError(f"bad prompt {raw!r}")
    return prompt


def _ints(raw: Any) -> tuple[int, ...]:
    return tuple(int(x) for x in raw)


def load_state(data: Mapping[str, Any], info: GameInfo) -> QuarriorsState:
    try:
        players = int(data["players"])
        if not info.seats(players):
            raise ValueError(f"{players} players")
        options = options_tuple(info.resolve_options(data.get("options")))
        cards = tuple(str(c) for c in data["cards"])
        if any(c not in CARDS for c in cards):
            raise ValueError("unknown card")
        seats = tuple(Seat(_counts(s["bag"]), _counts(s["used"]), _dice(s["active"], False),
                           _dice(s["spent"], True), tuple(sorted(_ready(r) for r in s["ready"])),
                           int(s["glory"]), st.counts((str(k), int(v))
                                                      for k, v in s["breakdown"].items()),
                           _counts(s.get("aside", {})))
                      for s in data["seats"])
        t = data["turn"]
        turn = Turn(int(t["quiddity"]), int(t["draws"]), int(t["culls"]),
                    tuple((str(d), int(g)) for d, g in t["scored"]), int(t["recall"]),
                    int(t["captures"]), int(t["discount"]), int(t["attack_bonus"]),
                    _ints(t["defense_bonus"]), _ints(t["life_charm"]),
                    bool(t["mighty_warrior"]), _ints(t["lost"]), bool(t["victory_spell"]),
                    tuple(str(d) for d in t.get("trades", ())), int(t.get("free_spells", 0)),
                    bool(t.get("spell_culls", False)), int(t.get("reshapes", 0)))
        a = data.get("attack")
        attack = None if a is None else Attack(
            _ints(a["order"]), _ints(a["totals"]), int(a["index"]), int(a["total"]),
            int(a["destroyed"]), None if a["last"] is None else
            (str(a["last"][0]), str(a["last"][1]), str(a["last"][2])))
        state = QuarriorsState(players, options, cards, _counts(data["wilds"]),
                               _counts(data["box"]), seats, int(data["current"]),
                               str(data["phase"]), int(data["turn_no"]), turn, attack,
                               _ints(data.get("winners", ())), str(data.get("reason", "")),
                               tuple(_prompt(p) for p in data.get("prompts", ())))
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise InvalidStateError(f"not a Quarriors state: {exc}") from None
    if len(state.seats) != players or not 0 <= state.current < players \
            or state.phase not in PHASES \
            or any(not 0 <= p.player < players for p in state.prompts):
        raise InvalidStateError("Quarriors state: bad seats, player or phase")
    if state.total_dice() != st.TOTAL_DICE:
        raise InvalidStateError(f"Quarriors state: {state.total_dice()} dice, not the "
                                f"{st.TOTAL_DICE} of the box")
    return state
