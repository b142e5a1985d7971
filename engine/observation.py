"""The contract between the camera side and the rules: what is seen, and what should be.

``View`` is what the engine expects the camera to see in a state: a multiset of objects
(dice, pieces, cards), each in a zone (and a slot, where the layout has slots) with exact
attributes. ``Observation`` is what the reader and the calibration report: objects with a
zone, a position and *probability distributions* over their attributes. ``reconcile`` weighs
the second against the first for each possible explanation.

Plain standard-library values only: ``vision`` and ``calibration`` build these without
importing anything else of the engine.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import chain
from typing import Any

#: zone / slot / attribute value of an expected object
Attrs = tuple[tuple[str, str], ...]
#: attribute name -> distribution over values
Distributions = tuple[tuple[str, tuple[tuple[str, float], ...]], ...]


@dataclass(frozen=True, slots=True, order=True)
class Expected:
    """One object the camera should see.

    Attributes:
        kind: ``die``, ``piece`` or ``card``.
        zone: the zone it lies in (``rolling``, ``bank``, ``counter``, ``vault:0``...).
        slot: the slot within the zone, for layouts with slots (a pyramid card position).
        attrs: exact attributes, sorted by name (``face``, ``type``, ``colour``, ``size``...).
    """

    kind: str
    zone: str
    slot: str | None = None
    attrs: Attrs = ()
    # Views are hashed and sorted thousands of times per reading: keep both keys at hand.
    _hash: int = field(default=0, init=False, repr=False, compare=False)
    _key: tuple[str, str, str, Attrs] = field(default=("", "", "", ()), init=False,
                                              repr=False, compare=False)

    def __post_init__(self) -> None:
        key = (self.kind, self.zone, self.slot or "", self.attrs)
        object.__setattr__(self, "_key", key)
        object.__setattr__(self, "_hash", hash(key))

    def __hash__(self) -> int:
        return self._hash

    @staticmethod
    def make(kind: str, zone: str, slot: str | None = None, **attrs: str) -> Expected:
        return _expected(kind, zone, slot, tuple(sorted(attrs.items())))

    def attr(self, name: str) -> str | None:
        for key, value in self.attrs:
            if key == name:
                return value
        return None


@lru_cache(maxsize=65536)
def _expected(kind: str, zone: str, slot: str | None, attrs: Attrs) -> Expected:
    # The same few hundred objects recur in every candidate view: share them.
    return Expected(kind, zone, slot, attrs)


View = tuple[Expected, ...]


def _sort_key(exp: Expected) -> tuple[str, str, str, Attrs]:
    return exp._key


def make_view(objects: Iterable[Expected]) -> View:
    """A view in canonical order, so that equal multisets compare equal."""
    return tuple(sorted(objects, key=_sort_key))


class PartedView(tuple[Expected, ...]):
    """A view (equal to, and hashed as, the plain tuple of its objects) that also keeps
    its objects' runs of one (kind, zone) as the tuples it was joined from (``parts``).
    Made by :func:`join_parts`; reconcile scores each part once per distinct tuple
    instead of sorting every candidate view into its zones again (Pyradice: up to 3 500
    views of ~45 dice per reading, each differing from the last in one board)."""

    parts: tuple[View, ...]


def part_view(objects: Iterable[Expected]) -> View:
    """The objects of one (kind, zone) as a part for :func:`join_parts` (canonical order);
    raises ValueError when they are not all of one kind and zone."""
    part = make_view(objects)
    if part and any((e.kind, e.zone) != (part[0].kind, part[0].zone) for e in part):
        raise ValueError("a view's part holds objects of one kind and zone")
    return part


def in_zone(view: View, zone: str) -> View:
    """What ``view`` puts in ``zone``, in the view's order (a PartedView by its parts)."""
    parts = view.parts if isinstance(view, PartedView) else None
    if parts is not None:
        return tuple(e for part in parts if part and part[0].zone == zone for e in part)
    return tuple(e for e in view if e.zone == zone)


def join_parts(parts: Iterable[View]) -> View:
    """The view of ``parts`` (each from :func:`part_view`, of distinct (kind, zone)s),
    equal to ``make_view`` of all their objects, keeping the parts (:class:`PartedView`)."""
    kept = [p for p in parts if p]
    keys = [(p[0].kind, p[0].zone) for p in kept]
    if not all(map(operator.lt, keys, keys[1:])):  # (not given in order)
        order = sorted(range(len(kept)), key=keys.__getitem__)
        kept, keys = [kept[i] for i in order], [keys[i] for i in order]
        for a, b in zip(keys, keys[1:], strict=False):
            if a == b:
                raise ValueError(f"two parts of one view hold {a[0]} in {a[1]}")
    view = PartedView(chain.from_iterable(kept))
    view.parts = tuple(kept)
    return view


@dataclass(frozen=True, slots=True)
class Observed:
    """One object the camera saw.

    Attributes:
        kind: ``die``, ``piece`` or ``card``.
        zone: the zone its position falls in, or None when outside every zone / unknown.
        slot: the layout slot it occupies, if any.
        dists: per attribute, a probability distribution over values (need not sum to 1:
            the rest is "something else / unreadable").
        confidence: probability that this is a real object of this kind (detector score).
        position_mm: centre on the table in millimetres, when calibrated.
    """

    kind: str
    zone: str | None
    slot: str | None = None
    dists: Distributions = ()
    confidence: float = 1.0
    position_mm: tuple[float, float] | None = None

    @staticmethod
    def make(kind: str, zone: str | None, slot: str | None = None, *, confidence: float = 1.0,
             position_mm: tuple[float, float] | None = None,
             **dists: Mapping[str, float] | str) -> Observed:
        """Build from keyword distributions; a plain string means "certainly this value"."""
        return _observed(kind, zone, slot, confidence, dists, position_mm)

    def dist(self, name: str) -> tuple[tuple[str, float], ...] | None:
        for key, value in self.dists:
            if key == name:
                return value
        return None

    def top(self, name: str) -> str | None:
        d = self.dist(name)
        return d[0][0] if d else None

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "zone": self.zone, "slot": self.slot,
                "dists": {k: dict(v) for k, v in self.dists},
                "confidence": self.confidence,
                "position_mm": list(self.position_mm) if self.position_mm else None}


@dataclass(frozen=True, slots=True)
class Shift:
    """A die seen to have come into a watched zone (Observation.changed) or to have left it
    since the look the zone is compared with: a die-sized change where a die lies now and
    did not then (``added``), or the reverse; with the die's type as read there (a
    distribution over the ``type`` attribute's values). Quarriors' Wilds: a cull puts a die
    back on its card, a capture takes one."""

    zone: str
    added: bool
    types: tuple[tuple[str, float], ...]

    def to_dict(self) -> dict[str, Any]:
        return {"zone": self.zone, "added": self.added, "types": dict(self.types)}

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> Shift:
        types = sorted(((str(t), float(p)) for t, p in (data.get("types") or {}).items()),
                       key=lambda kv: -kv[1])
        return Shift(str(data["zone"]), bool(data["added"]), tuple(types))


@dataclass(frozen=True, slots=True)
class Observation:
    """Everything read from one settled frame.

    Attributes:
        objects: the objects seen.
        zones_seen: the zones the camera could see; objects expected in other zones are
            not counted as missing (a hand may still cover the side of the table).
            Empty means "all of them".
        moved: whether the settler saw motion since the previous observation (None: not
            known). A roll that lands on the same faces is only told from "nothing
            happened" by this.
        frame: the frame's sequence number, for the record.
        dice_moved: whether any die left its place since the previous observation (None:
            not known). A roll that shows the same faces is told from a hand that only
            moved pieces by this: dice that stayed put were not rolled.
        hand_edge: the edge of the camera image (``bottom``, ``left``, ``top``, ``right``)
            the players' arm crossed while the table moved since the previous observation,
            or None when not known (no hand seen, arms from two sides): who threw
            (engine.thrower).
        hand_edge_confidence: how sure that edge is (0..1).
        miss: (zone, probability) pairs: how likely an object there is not seen, for
            zones where that is likelier than the reconcile's usual ``Params.miss`` (a heap
            of dice, some under or against others: Quarriors' Used Pile).
        changed: (zone, changed) pairs for zones the camera watches but does not read
            (Quarriors' Wilds: some 57 dice, each on its card): whether the zone looks
            different from when the match's record last changed what lies there. Only
            zones seen whole this time.
        shifts: the dice seen to have come into or left those zones since then, each with
            its type as read (Shift); only where a changed zone's change was told die by
            die.
    """

    objects: tuple[Observed, ...]
    zones_seen: frozenset[str] = field(default_factory=frozenset)
    moved: bool | None = None
    frame: int | None = None
    dice_moved: bool | None = None
    hand_edge: str | None = None
    hand_edge_confidence: float = 0.0
    miss: tuple[tuple[str, float], ...] = ()
    changed: tuple[tuple[str, bool], ...] = ()
    shifts: tuple[Shift, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out = {"objects": [o.to_dict() for o in self.objects],
               "zones_seen": sorted(self.zones_seen), "moved": self.moved,
               "frame": self.frame, "dice_moved": self.dice_moved,
               "hand_edge": self.hand_edge,
               "hand_edge_confidence": self.hand_edge_confidence}
        if self.miss:
            out["miss"] = dict(self.miss)
        if self.changed:
            out["changed"] = dict(self.changed)
        if self.shifts:
            out["shifts"] = [sh.to_dict() for sh in self.shifts]
        return out

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> Observation:
        objects = []
        for o in data.get("objects", []):
            dists = tuple((k, tuple(sorted(((str(a), float(p)) for a, p in v.items()),
                                          key=lambda kv: -kv[1])))
                          for k, v in sorted(o.get("dists", {}).items()))
            pos = o.get("position_mm")
            objects.append(Observed(str(o["kind"]), o.get("zone"), o.get("slot"), dists,
                                    float(o.get("confidence", 1.0)),
                                    (float(pos[0]), float(pos[1])) if pos else None))
        edge = data.get("hand_edge")
        return Observation(tuple(objects), frozenset(data.get("zones_seen", ())),
                           data.get("moved"), data.get("frame"), data.get("dice_moved"),
                           str(edge) if edge is not None else None,
                           float(data.get("hand_edge_confidence", 0.0)),
                           tuple(sorted((str(z), float(p))
                                        for z, p in (data.get("miss") or {}).items())),
                           tuple(sorted((str(z), bool(c))
                                        for z, c in (data.get("changed") or {}).items())),
                           tuple(Shift.from_dict(sh) for sh in data.get("shifts") or ()))


def _observed(kind: str, zone: str | None, slot: str | None, confidence: float,
              dists: Mapping[str, Mapping[str, float] | str],
              position_mm: tuple[float, float] | None = None) -> Observed:
    items = []
    for name, dist in sorted(dists.items()):
        pairs = {dist: 1.0} if isinstance(dist, str) else dict(dist)
        items.append((name, tuple(sorted(pairs.items(), key=lambda kv: -kv[1]))))
    return Observed(kind, zone, slot, tuple(items), confidence, position_mm)


def observe_view(view: View, *, confidence: float = 1.0,
                 overrides: Mapping[int, Mapping[str, Mapping[str, float]]] | None = None,
                 ) -> Observation:
    """A perfect observation of a view (tests and the simulator start from this).

    ``overrides`` replaces attribute distributions of the i-th object, to model misreads.
    """
    objects = []
    for i, exp in enumerate(view):
        dists: dict[str, Mapping[str, float] | str] = dict(exp.attrs)
        if overrides and i in overrides:
            dists.update(overrides[i])
        objects.append(_observed(exp.kind, exp.zone, exp.slot, confidence, dists))
    return Observation(tuple(objects))
