"""What a question of the camera is about: the objects its candidate explanations disagree
on (the size die of "roll atom L or roll atom ML?"), so that the phone can show that part of
the picture, highlighted, instead of the whole table."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from engine import EngineError
from engine.observation import Expected

MAX_FOCUS = 4
"""More objects than this in doubt is no longer "this die": the page shows the picture."""


def doubtful(game: Any, state: Any, candidates: Sequence[Any]) -> list[Expected]:
    """The objects the candidates' tables differ in, as the first (most probable) candidate
    has them (what the camera most believes it sees); empty when they do not differ or when
    more than MAX_FOCUS objects do."""
    views: list[Counter[Expected]] = []
    for cand in candidates:
        s = state
        try:
            for action in cand.actions:
                s = game.apply(s, action)[0]
        except EngineError:  # an illegal explanation shows no table of the rules
            continue
        views.append(Counter(game.expected_view(s)))
    if len(views) < 2:
        return []
    common = views[0].copy()
    for v in views[1:]:
        common &= v
    differ = list((views[0] - common).elements())
    if not differ:  # the first candidate lacks an object the others have: show those
        differ = [o for v in views[1:] for o in (v - common).elements()]
    return differ if len(differ) <= MAX_FOCUS else []


def focus_dict(objects: Sequence[Expected]) -> list[dict[str, Any]]:
    """The objects as the question's data keeps them (plain JSON)."""
    return [{"kind": o.kind, "zone": o.zone, "slot": o.slot, "attrs": dict(o.attrs)}
            for o in objects]
