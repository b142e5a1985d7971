"""Corrections: the players say what the camera misread, and the match is put right at once.

The camera read a die as 6 and the rules accepted ``roll 2 3 6``; the die shows 5. The
players tap the 6 and pick 5: the match replaces that action with ``roll 2 3 5`` (judged by
the engine from the state before it), replays the later actions that still follow, and logs
it all as one correction. What the players can pick is worked out from the rules, not typed:
the *parts* of an action are the words of its text form that another legal action in the same
state changes one for one (a die's face, a piece's size, a card's slot), each offered with
the legal replacements.

An *amendment* carries the correction to the camera: the object whose reading changed (a die
in the rolling area, face 6 → 5), so that the camera's next readings of that same object,
while it stays where it lies, are taken as the players said (``amend``) instead of raising an
alert about a die that "changed".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine import Observation
from engine.core import Game
from engine.observation import Expected, Observed, View


@dataclass(frozen=True, slots=True)
class Amendment:
    """One object the players corrected: the camera read ``attr`` as ``seen``, it is ``value``.

    Attributes:
        kind: ``die``, ``piece`` or ``card``.
        zone: the zone it lies in; ``slot`` its slot, where the layout has slots.
        attr: the attribute that was misread (``face``, ``colour``...).
        seen: what the camera read (the replaced action's value).
        value: what the players say it is.
    """

    kind: str
    zone: str
    slot: str | None
    attr: str
    seen: str
    value: str

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "zone": self.zone, "slot": self.slot, "attr": self.attr,
                "seen": self.seen, "value": self.value}

    def matches(self, obs: Observed) -> bool:
        return (obs.kind == self.kind and obs.zone == self.zone
                and (self.slot is None or obs.slot == self.slot)
                and obs.top(self.attr) == self.seen)

    def expected(self, view: View) -> bool:
        """Whether the state still has the corrected object (else the amendment is spent)."""
        return any(e.kind == self.kind and e.zone == self.zone and e.slot == self.slot
                   and e.attr(self.attr) == self.value for e in view)


def _one_for_one(words: Sequence[str], other: Sequence[str]) -> tuple[str, str] | None:
    """(old word, new word) when ``other`` differs from ``words`` by one word swapped (as
    multisets: a Pyramid Dice roll's values are sorted, so 3→5 moves the word)."""
    if len(words) != len(other) or not words or words[0] != other[0]:
        return None
    gone = Counter(words) - Counter(other)
    came = Counter(other) - Counter(words)
    if sum(gone.values()) != 1 or sum(came.values()) != 1:
        return None
    return next(iter(gone)), next(iter(came))


def _changed(game: Game[Any, Any], before: Any, a: Any, b: Any) -> tuple[list[Expected],
                                                                          list[Expected]]:
    """Objects the camera would see after ``a`` and not after ``b``, and the reverse."""
    va = Counter(game.expected_view(game.apply(before, a)[0]))
    vb = Counter(game.expected_view(game.apply(before, b)[0]))
    return sorted((va - vb).elements()), sorted((vb - va).elements())


def parts(game: Game[Any, Any], before: Any, action: Any) -> list[dict[str, Any]]:
    """The parts of ``action`` the players may change, in the order of its words.

    Each part: ``index`` (position of the word), ``word``, ``object`` (``die``, ``piece``,
    ``card`` or None: what the camera sees differently when it changes) and ``options``
    (``[{"value": word, "action": text}]``, every one legal in ``before``).
    """
    words = action.to_str().split()
    options: dict[str, dict[str, str]] = {}
    for other in game.legal_actions(before):
        text = other.to_str()
        swap = _one_for_one(words, text.split())
        if swap is not None:
            options.setdefault(swap[0], {}).setdefault(swap[1], text)
    out = []
    kinds: dict[str, str | None] = {}
    for index, word in enumerate(words):
        if word not in options:
            continue
        if word not in kinds:
            first = game.parse_action(next(iter(options[word].values())))
            gone, came = _changed(game, before, action, first)
            objects = {e.kind for e in gone + came}
            kinds[word] = objects.pop() if len(objects) == 1 else None
        out.append({"index": index, "word": word, "object": kinds[word],
                    "options": [{"value": v, "action": t}
                                for v, t in sorted(options[word].items(), key=_word_order)]})
    return out


def _word_order(item: tuple[str, str]) -> tuple[int, float | str]:
    word = item[0]
    try:
        return 0, float(word)
    except ValueError:
        return 1, word


def amendments(game: Game[Any, Any], before: Any, was: Any, now: Any) -> list[Amendment]:
    """The objects whose reading the correction changes, paired old→new where one attribute
    of one object in one place changed (a die's face); a piece that moved elsewhere is not a
    misreading of the same object, so it gives none."""
    gone, came = _changed(game, before, was, now)
    out = []
    for old in gone:
        for new in came:
            if (old.kind, old.zone, old.slot) != (new.kind, new.zone, new.slot):
                continue
            a, b = dict(old.attrs), dict(new.attrs)
            if a.keys() != b.keys():
                continue
            diff = [k for k in a if a[k] != b[k]]
            if len(diff) == 1:
                out.append(Amendment(old.kind, old.zone, old.slot, diff[0], a[diff[0]],
                                     b[diff[0]]))
                came.remove(new)
                break
    return out


def amend(observation: Observation, items: Sequence[Amendment]) -> Observation:
    """The observation with each amended object read as the players said: the probabilities
    of the misread value and the corrected one swapped, on one object per amendment."""
    if not items:
        return observation
    objects = list(observation.objects)
    used: set[int] = set()
    for item in items:
        for i, obs in enumerate(objects):
            if i in used or not item.matches(obs):
                continue
            dists = []
            for name, dist in obs.dists:
                if name == item.attr:
                    p = dict(dist)
                    p[item.seen], p[item.value] = p.get(item.value, 0.0), p.get(item.seen, 0.0)
                    dist = tuple(sorted(((v, q) for v, q in p.items() if q > 0),
                                        key=lambda kv: -kv[1]))
                dists.append((name, dist))
            objects[i] = Observed(obs.kind, obs.zone, obs.slot, tuple(dists), obs.confidence,
                                  obs.position_mm)
            used.add(i)
            break
    return replace(observation, objects=tuple(objects))
