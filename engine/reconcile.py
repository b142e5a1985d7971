"""Explain what changed on the table: ``reconcile(game, state, observation) -> Resolution``.

Every explanation (nothing happened; one legal action; a roll followed by a move; a
physically plausible *illegal* action) predicts a view. Each is scored by how well the
reader's probability distributions fit that view (not only the reader's top guess), times a
prior (chance probability for rolls, a small prior for illegal moves). The posterior then
decides:

* ``NoChange`` / ``Accepted`` when one legal explanation clearly wins; a misread that the
  rules exclude is thereby corrected by the state;
* ``Violation`` when an illegal explanation clearly wins, or when nothing explains what is
  seen (the rule ``core.unexplained``);
* ``Ambiguous`` when several explanations are close: the players are asked; also when one
  wins but states something no camera can see (an action's ``unseen_claim``: Pyramid Dice's
  snatch by a later player says the players between passed): then the players confirm it.
"""

from __future__ import annotations

import gc
import math
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from engine.carry import Carried, carry_on, combine, roots
from engine.core import Candidate, Game, State, throws_dice
from engine.errors import Rule
from engine.observation import (
    Expected,
    Observation,
    Observed,
    PartedView,
    Shift,
    View,
    in_zone,
)
from engine.resolution import (
    Accepted,
    Ambiguous,
    Explanation,
    NoChange,
    Resolution,
    Violation,
)
from engine.shifts import best_possible, shift_fit
from engine.thrower import SideEvidence, hands_on, may_end_unseen, side_evidence

UNEXPLAINED = Rule(
    "core.unexplained",
    "What the camera sees matches neither the current state nor any move the rules allow.",
    "engine",
)

_FLOOR = 1e-4  # probability given to a value the reader did not list at all


@dataclass(frozen=True, slots=True)
class Params:
    """Thresholds of the decision; the defaults are tuned by the reconcile tests."""

    accept: float = 0.90
    """posterior an explanation needs to be accepted (or reported as a violation)"""
    unexplained_log_ratio: float = 9.0
    """how much worse (natural log) than the reader's own top reading the best explanation
    may fit before the table is called unexplained"""
    illegal_prior: float = 0.02
    """prior of one illegal explanation, relative to one legal decision"""
    miss: float = 0.02
    """probability that an object that is there is not detected"""
    depth: int = 2
    """longest chain of actions one observation may explain (a roll, then a move)"""
    beam: int = 6
    """how many one-action explanations are extended to two"""
    extend_gap: float = 2.0
    """two-action explanations are tried only when no explanation of at most one action fits
    the reading within this (natural log) of the reader's own reading: what one action
    explains fully leaves nothing for a second to add (and trying them was two thirds of
    the time reconcile took on Pyramid Dice, whose re-rolls have 56 outcomes each)"""
    watch_false: float = 0.05
    """probability that a zone the camera watches without reading it (Observation.changed;
    Quarriors' Wilds) looks changed when what lies there did not change (a die nudged, a
    card straightened). A chosen value: a probe on a simulated Quarriors match (seed 3, 300
    moves) saw no such change in 88 readings; UNMEASURED on real tables"""
    watch_missed: float = 0.05
    """probability that such a zone looks the same when what lies there changed (a die
    taken from a card leaves a die-sized hole). Chosen; the same probe missed 3 of 22
    changes, each where the look kept was already one of the changed table (see
    calibration.table.watch)"""
    shift_spurious: float = 0.1
    """probability that a die seen coming into or leaving a watched zone (Observation.
    shifts) is no die the move added or took there. Chosen, UNMEASURED"""
    shift_missed: float = 0.2
    """probability that a die a move added to a watched zone or took from it is not seen
    as a shift of its own when the zone looks changed (two changes side by side seen as
    one). Chosen, UNMEASURED"""
    unrolled: float = 0.002
    """prior factor for an action that throws dice (a roll, a re-roll with a card) when the
    observation says no die left its place"""
    moved_unthrown: float = 0.05
    """prior factor for an action that throws no dice when the observation says dice left
    their places (as for "no change"): a thrown die lands centimetres away, one turned by
    hand is put back about where it lay, and other moves leave the dice alone"""
    ambiguous_keep: float = 0.02
    """posterior below which a candidate is not offered to the players"""
    thrower_side: bool = True
    """Use the thrower's side (engine.thrower) when the match has seats and the camera saw
    which table edge the arm crossed. The rules it relies on: a turn is one player's, who
    makes all its moves, and then the next player's turn begins (Pyramid Dice rules, "Play
    passes clockwise."; a Ra re-roll is the player's own, within their turn; IceDice: a
    turn ends when the player stops or busts). Where the players sit is not in any rule:
    the seats are entered at setup (engine.thrower), and no seats means no use. A move whose
    player's seat is not the edge seen (of a chain, its last move, whose hand was seen) is
    weighed down by how sure the edge is. And a move
    the camera cannot see that hands the turn on (Pyramid Dice: 'pass' on an empty pyramid)
    is not asked about at once: the next throw shows it (a throw from the next player's
    seat means the unseen move came first; from the same seat, it was the same player's
    throw again). Still asked at once: such a move when the die tracker saw the dice thrown,
    and when the game may end unseen after it (Pyramid Dice's 'end' by the stall rule).
    With no seats, no edge seen, or one less sure than ``side_confidence``, nothing of this
    applies: such a move is asked at once, as with this option off."""
    side_confidence: float = 0.7
    """least confidence of the edge seen for it to count (engine.thrower.side_evidence)"""
    carry_floor: float = 0.01
    """least posterior, among a "no change" reading's quiet explanations, of a chain of moves
    that show nothing for it to be carried to the next reading (engine.carry)"""
    carry_max: int = 4
    """most such chains carried (each is a state the next reading is explained from)"""
    unseen_foul: float = 0.5
    """when the likeliest explanation is a move the camera cannot see (it shows the table as
    it was), a foul that fits the reading better than it is flagged, not asked, once the
    foul's posterior is at least this share of the unseen move's: the reading shows
    something changed that the unseen move does not explain (simulated Pyramid Dice, seed
    103 with fouls: '+1 1' by hand, read exactly, was asked as '+2 5 by g6 or no change?',
    the foul at 0.23 against 0.25)"""


# --- fitting a view ------------------------------------------------------------------------
OPEN_FACE = 1 / 6
"""P(a face reading | a die whose face the state does not know yet), e.g. Pyramid Dice's
dice before the first roll: as likely as any one face of a d6. Without it "nothing
happened" (faces open) would fit the first throw better than the throw itself."""


def _pair_score(obs: Observed, exp: Expected) -> float:
    """log P(this reading | it is this expected object)."""
    score = math.log(max(obs.confidence, _FLOOR))
    if obs.zone is None:
        score += math.log(0.5)  # position unknown: weaker evidence than a zone match
    if obs.slot != exp.slot:
        return -math.inf
    for name, value in exp.attrs:
        dist = obs.dist(name)
        if dist is None:
            continue  # the reader says nothing about this attribute
        p = next((q for v, q in dist if v == value), 0.0)
        score += math.log(max(p, _FLOOR))
    if exp.kind == "die" and exp.attr("face") is None and obs.dist("face"):
        score += math.log(OPEN_FACE)
    return score


def _unmatched_obs(obs: Observed) -> float:
    return math.log(max(1.0 - obs.confidence, _FLOOR))


def _assign(observed: Sequence[Observed], expected: Sequence[Expected], miss: float,
            pairs: dict[tuple[int, Expected], float] | None = None,
            alone: Sequence[float] | None = None) -> float:
    """Best total log-likelihood of matching observed to expected objects one-to-one.

    Exact. Expected objects collapse into distinct types with a count (a Bank holds pairs of
    identical pyramids), and the matching becomes a transportation problem, solved by
    successive shortest paths from the relaxed optimum (every reading at its best type): only
    the few types that readings over-fill need repair, which keeps this fast in pure Python.
    A greedy matching is not enough: a confident misread takes the slot of a real piece.
    ``pairs``: the readings' scores against objects met before (keyed by the reading's id:
    only for readings that outlive it), filled as it goes; ``alone``: each reading's score
    unmatched, when known.
    """
    log_miss = math.log(miss)
    if alone is None:
        alone = [_unmatched_obs(o) for o in observed]
    base = sum(alone) + log_miss * len(expected)
    if not observed or not expected:
        return base
    by_slot = _by_slot(observed, expected)
    if by_slot is not None:
        # Every object in its own slot (Pyradice's dice, Pyramid Dice's pyramid cards): a
        # reading can only be the object of its slot, so the relaxed optimum is the
        # matching, found without scoring every reading against every object (the same
        # sums, in the same order, as below).
        best = []
        for o, a in zip(observed, alone, strict=True):
            t = by_slot.get(o.slot or "")
            if t is None:
                best.append(0.0)
                continue
            key = (id(o), t)
            score = pairs.get(key) if pairs is not None else None
            if score is None:
                score = _pair_score(o, t)
                if pairs is not None:
                    pairs[key] = score
            best.append(max(score - a - log_miss, 0.0))
        return base + sum(best)
    counts: dict[Expected, int] = defaultdict(int)
    for exp in expected:
        counts[exp] += 1
    types = list(counts)
    cap = [counts[t] for t in types] + [len(observed)]  # the last node: "not matched"
    k = len(types)
    gain = [[_pair_score(o, t) - a - log_miss for t in types] + [0.0]
            for o, a in zip(observed, alone, strict=True)]
    at = [max(range(k + 1), key=row.__getitem__) for row in gain]
    load = [0] * (k + 1)
    for node in at:
        load[node] += 1
    while True:
        over = next((t for t in range(k) if load[t] > cap[t]), None)
        if over is None:
            return base + sum(row[node] for row, node in zip(gain, at, strict=True))
        # Cheapest way to move one reading out of `over`, possibly along a chain of moves.
        edge: dict[tuple[int, int], tuple[float, int]] = {}
        for i, u in enumerate(at):
            gu = gain[i][u]
            for v in range(k + 1):
                gv = gain[i][v]
                if v != u and gv != -math.inf:
                    w = gu - gv
                    if (u, v) not in edge or w < edge[(u, v)][0]:
                        edge[(u, v)] = (w, i)
        dist = [math.inf] * (k + 1)
        via: list[tuple[int, int] | None] = [None] * (k + 1)
        dist[over] = 0.0
        for _ in range(k + 1):  # Bellman-Ford: moves can have negative cost
            changed = False
            for (u, v), (w, i) in edge.items():
                if dist[u] + w < dist[v] - 1e-12:
                    dist[v], via[v] = dist[u] + w, (u, i)
                    changed = True
            if not changed:
                break
        target = min((v for v in range(k + 1) if v != over and load[v] < cap[v]),
                     key=dist.__getitem__)
        v = target
        while v != over:
            step = via[v]
            assert step is not None
            u, i = step
            at[i] = v
            v = u
        load[over] -= 1
        load[target] += 1


def _by_slot(observed: Sequence[Observed], expected: Sequence[Expected]
             ) -> dict[str, Expected] | None:
    """slot -> expected object, when every object on both sides has a slot of its own;
    else None."""
    out: dict[str, Expected] = {e.slot: e for e in expected if e.slot is not None}
    if len(out) != len(expected):
        return None
    slots = {o.slot for o in observed if o.slot is not None}
    if len(slots) != len(observed):
        return None
    return out


class _Fitter:
    """Scores views against one observation, caching per (kind, zone) group."""

    def __init__(self, observation: Observation, params: Params) -> None:
        self.params = params
        self.zones_seen = observation.zones_seen
        self.groups: dict[tuple[str, str | None], list[Observed]] = defaultdict(list)
        # Zones out of view are left out on both sides: what lies there is neither seen nor
        # expected to be.
        objects = [o for o in observation.objects
                   if not self.zones_seen or o.zone is None or o.zone in self.zones_seen]
        for obj in objects:
            self.groups[(obj.kind, obj.zone)].append(obj)
        self.loose = [o for (_, z), objs in self.groups.items() if z is None for o in objs]
        self.alone: dict[tuple[str, str], list[float]] = {}
        self.cache: dict[tuple[tuple[str, str], tuple[Expected, ...]], float] = {}
        # each reading's score against each object: the candidate views of one reading
        # share most of their objects (Pyradice: 2 400 views, a board of 21 dice each)
        self.pairs: dict[tuple[int, Expected], float] = {}
        # a part of a PartedView by its id -> (the part, its group, its fit); the part is
        # held, so its id is not another's while this fitter lives
        self.by_part: dict[int, tuple[View, tuple[str, str], float]] = {}
        # for _part, per group: the readings' slots (None: not one slot each), each
        # reading's gain from being the object of its slot (by the object's id), the
        # readings' scores unmatched summed
        self.slots: dict[tuple[str, str], list[str | None] | None] = {}
        self.rows: dict[tuple[str, str], list[dict[int, tuple[Expected, float]]]] = {}
        self.alone_sums: dict[tuple[str, str], float] = {}
        self.log_miss = math.log(params.miss)
        # zones where an object is likelier to go unseen (Observation.miss)
        self.zone_miss = {z: min(max(p, 1e-6), 1.0 - 1e-6) for z, p in observation.miss}
        self.zone_log_miss = {z: math.log(p) for z, p in self.zone_miss.items()}
        self.saturated = sum(
            math.log(max(o.confidence, _FLOOR))
            + sum(math.log(max(d[0][1], _FLOOR)) for _, d in o.dists if d)
            for o in objects)
        # watched zones (Observation.changed): whether each looks changed, and what lies
        # there in the state explained from (set by watch_base before any view is scored)
        self.changed = dict(observation.changed)
        self.base: dict[str, View] = {}
        if self.changed:
            self.saturated += len(self.changed) * math.log(
                1.0 - min(params.watch_false, params.watch_missed))
        # the dice seen coming into or leaving them (engine.shifts), per changed zone
        self.shifts: dict[str, list[Shift]] = defaultdict(list)
        for sh in observation.shifts:
            if self.changed.get(sh.zone):
                self.shifts[sh.zone].append(sh)
        for zone_shifts in self.shifts.values():
            self.saturated += best_possible(zone_shifts)
        self.shift_cache: dict[tuple[str, View], float] = {}

    def watch_base(self, view: View) -> None:
        """The view of the state the observation is explained from: a candidate changes a
        watched zone when it puts there other than this does."""
        self.base = {z: in_zone(view, z) for z in self.changed}
        self.shift_cache.clear()  # (its fits are against the base)

    def log_likelihood(self, view: View) -> float:
        total = 0.0
        for value in self.group_fits(view).values():
            total += value
        if self.loose:  # objects outside every zone: only extra evidence, never a match
            total += sum(_unmatched_obs(o) for o in self.loose)
        if self.changed:
            total += self.watched(view)
        return total

    def watched(self, view: View) -> float:
        """log P(each watched zone looks changed or not | ``view``)."""
        p = self.params
        total = 0.0
        for zone, looks_changed in self.changed.items():
            here = in_zone(view, zone)
            same = here == self.base.get(zone, ())
            if looks_changed:
                total += math.log(p.watch_false if same else 1.0 - p.watch_missed)
                if not same and zone in self.shifts:
                    fit = self.shift_cache.get((zone, here))
                    if fit is None:
                        fit = self.shift_cache[(zone, here)] = shift_fit(
                            here, self.base.get(zone, ()), self.shifts[zone],
                            p.shift_spurious, p.shift_missed)
                    total += fit
            else:
                total += math.log(1.0 - p.watch_false if same else p.watch_missed)
        return total

    def group_fits(self, view: View) -> dict[tuple[str, str], float]:
        """Each (kind, zone) group's log-likelihood of ``view`` (what log_likelihood sums,
        in its order, but the objects outside every zone)."""
        seen = self.zones_seen
        parts = view.parts if isinstance(view, PartedView) else None
        if parts is not None:
            # the view's groups are the parts it was joined from, in the same order: each
            # scored once per distinct tuple (the same objects of a zone are the same tuple)
            out: dict[tuple[str, str], float] = {}
            for part in parts:
                hit = self.by_part.get(id(part))
                if hit is None or hit[0] is not part:
                    first = part[0]
                    if seen and first.zone not in seen:
                        continue
                    key = (first.kind, first.zone)
                    hit = self.by_part[id(part)] = (part, key, self._part(key, part))
                out[hit[1]] = hit[2]
            for kind_, zone_ in self.groups:
                if zone_ is not None and (kind_, zone_) not in out:
                    out[(kind_, zone_)] = self._group((kind_, zone_), ())
            return out
        by_group: dict[tuple[str, str], list[Expected]] = {}
        kind, zone, group = "", "", None
        for exp in view:
            if exp.kind != kind or exp.zone != zone:  # (views come sorted: runs of a group)
                kind, zone = exp.kind, exp.zone
                group = None if seen and zone not in seen else by_group.setdefault(
                    (kind, zone), [])
            if group is not None:
                group.append(exp)
        out = {key: self._group(key, tuple(expected)) for key, expected in by_group.items()}
        for kind_, zone_ in self.groups:
            if (kind_, zone_) not in by_group and zone_ is not None:
                out[(kind_, zone_)] = self._group((kind_, zone_), ())
        return out

    def _part(self, key: tuple[str, str], part: View) -> float:
        """``_group(key, part)`` for a part of a PartedView, each object in a slot of its
        own on both sides (Pyradice's dice) scored as _assign's quick path does, to the
        bit, but with what depends only on the readings worked out once per reading (a
        reading's candidate turns give one pyramid a few thousand ways)."""
        slots = self.slots.get(key, ())
        if slots == ():
            observed = self.groups.get(key, [])
            names = [o.slot for o in observed]
            slots = self.slots[key] = names if observed and None not in names and \
                len(set(names)) == len(names) else None
        by_slot = {e.slot: e for e in part}
        if slots is None or len(by_slot) != len(part) or None in by_slot:
            return self._group(key, part)
        observed = self.groups[key]
        alone = self._alone(key)
        log_miss = self.zone_log_miss.get(key[1], self.log_miss)
        rows = self.rows.get(key)
        if rows is None:
            rows = self.rows[key] = [{} for _ in observed]
        best = []
        for i, slot in enumerate(slots):
            t = by_slot.get(slot)
            if t is None:
                best.append(0.0)
                continue
            row = rows[i]
            hit = row.get(id(t))
            if hit is None or hit[0] is not t:  # (t is held there: its id is its own)
                hit = row[id(t)] = (t, max(_pair_score(observed[i], t) - alone[i] - log_miss,
                                           0.0))
            best.append(hit[1])
        return self.alone_sums[key] + log_miss * len(part) + sum(best)

    def _alone(self, key: tuple[str, str]) -> list[float]:
        alone = self.alone.get(key)
        if alone is None:
            alone = self.alone[key] = [_unmatched_obs(o) for o in self.groups.get(key, [])]
            self.alone_sums[key] = sum(alone)
        return alone

    def _group(self, key: tuple[str, str], expected: tuple[Expected, ...]) -> float:
        ck = (key, expected)
        try:
            return self.cache[ck]
        except KeyError:
            observed = self.groups.get(key, [])
            miss = self.zone_miss.get(key[1], self.params.miss)
            value = self.cache[ck] = _assign(observed, expected, miss, self.pairs,
                                             self._alone(key))
            return value


# --- the decision --------------------------------------------------------------------------
@dataclass
class _Scored:
    actions: tuple[Any, ...]
    log_prior: float
    log_likelihood: float
    error: Any
    state: Any  # state after the actions, when all were legal
    view: View
    unthrown: float = 0.0
    """log of the factor moved_unthrown applied to the first action"""
    sided: float = 0.0
    """log of the thrower's-side factor applied to the last action (Params.thrower_side)"""


def _expand(game: Game[Any, Any], state: State, prefix: tuple[Any, ...], log_prior: float,
            fitter: _Fitter, params: Params, dice_moved: bool | None,
            side: SideEvidence | None = None) -> list[_Scored]:
    """Score every candidate action from ``state`` after the legal actions ``prefix``;
    ``side``: who the camera saw throw (Params.thrower_side).

    After a roll (in ``prefix``) a second roll is not considered: it would look the same as
    the single roll."""
    rolled = any(a.is_chance for a in prefix)
    cands: list[Candidate[Any]] = [c for c in game.candidates(state)
                                   if not (rolled and c.action.is_chance)]
    chance = dict(game.chance_outcomes(state))
    # One decision per distinct choice: the outcomes of a throw the player decides (a
    # re-roll with a card) are one decision, weighed by their chance like a roll's.
    keys = {_decision_key(c.action) for c in cands if c.legal and not c.action.is_chance}
    decisions = max(len(keys) + (1 if chance else 0), 1)
    mover = game.to_move(state) if side is not None else None
    out = []
    for cand in cands:
        action = cand.action
        if cand.legal:
            p = 1.0 / decisions
            if action.is_chance:
                p *= chance.get(action, 0.0)
            # (the game listed it as legal: not checked again; its events are not told)
            after = game.after(state, action)
            view = game.expected_view(after)
        else:
            p = params.illegal_prior / decisions
            after = None
            view = game.view_after(state, action)
        unthrown = 0.0
        if throws_dice(action):
            if not action.is_chance:
                p *= action.outcome_probability
            if dice_moved is False:
                p *= params.unrolled
        elif dice_moved and prefix == ():
            # the tracker saw dice leave their places: an action that throws none (a die
            # turned or set by hand stays where it lay; a card taken, a pass leave them) is
            # as unlikely as "no change" (Pyramid Dice: a re-roll to the same values was
            # taken for an unseen 'pass')
            p *= params.moved_unthrown
            unthrown = math.log(params.moved_unthrown)
        sided = 0.0
        if side is not None and mover != side.player:
            # the arm seen is not the acting player's: a chain's last action is the one
            # whose hand was seen (a 'pass' seen earlier, then the next player's roll)
            sided = side.log_other
        if p <= 0:
            continue
        out.append(_Scored(prefix + (action,), log_prior + math.log(p) + sided,
                           fitter.log_likelihood(view), cand.error, after, view, unthrown,
                           sided))
    return out


def _observed_runs(game: Game[Any, Any], state: State, first: Sequence[_Scored],
                   observation: Observation, fitter: _Fitter, params: Params,
                   log_prior: float, prefixed: bool = False) -> list[_Scored]:
    """The runs of chance outcomes the game reads off the observation
    (Game.observed_chance): from ``state`` when chance is pending there (not when
    ``prefixed``: ``first`` are chains of unseen moves from it), and after each legal
    decision of ``first`` that leaves chance pending (a die spent for its draw; 'done', then
    the draw). Each outcome's chance is its prior; a run not possible is dropped."""
    starts: list[tuple[tuple[Any, ...], Any, float]] = []
    if game.chance_outcomes(state) and not prefixed:
        starts.append(((), state, log_prior))
    for s in first:
        if s.error is None and not s.actions[-1].is_chance and s.state is not None \
                and game.outcome(s.state) is None and game.chance_outcomes(s.state):
            starts.append((s.actions, s.state, s.log_prior))
    out: list[_Scored] = []
    for prefix, start, prior in starts:
        runs: list[tuple[tuple[Any, ...], float, Any]] = []
        for run in game.observed_chance(start, observation):
            now, p = start, 0.0
            for action in run:
                q = dict(game.chance_outcomes(now)).get(action, 0.0)
                if q <= 0:
                    break
                p += math.log(q)
                now = game.apply(now, action)[0]
            else:
                if run and not game.chance_outcomes(now):
                    runs.append((run, p, now))
        if not runs:
            continue
        # The runs offered share the chance that the dice were drawn and rolled at all, by
        # their own chances: a run of twelve outcomes is no less likely than one roll
        # against "nothing happened".
        top = max(p for _, p, _ in runs)
        z = math.log(sum(math.exp(p - top) for _, p, _ in runs)) + top
        for run, p, now in runs:
            lp = prior + p - z
            if observation.dice_moved is False:
                lp += math.log(params.unrolled)
            view = game.expected_view(now)
            out.append(_Scored(prefix + run, lp, fitter.log_likelihood(view), None, now, view))
    return out


UNSEEN_CHAIN = 3
"""Most decisions that show nothing one reading may follow before what it shows (Quarriors:
'attack', a defender that holds, another that holds, then the capture)."""


def _unseen_step(game: Game[Any, Any], state: State, s: _Scored, as_is: float) -> bool:
    """Whether ``s`` is a chain of legal decisions that changes nothing the camera reads
    (it fits the reading exactly as the table as it was, ``as_is``) and leaves the match
    going with no chance pending: the next move that shows tells it (Game.follow_unseen)."""
    # (cheapest tests first: it is asked of every explanation of a reading)
    return s.error is None and bool(s.actions) and abs(s.log_likelihood - as_is) < 1e-9 \
        and not s.actions[-1].is_chance and s.state is not None and s.state != state \
        and game.outcome(s.state) is None and not game.chance_outcomes(s.state)


def _after_shown(game: Game[Any, Any], first: Sequence[_Scored], shown: set[View],
                 still: float, fitter: _Fitter, params: Params, observation: Observation,
                 side: Any) -> list[_Scored]:
    """Game.follow_unseen: a move that shows, then decisions that show nothing, then a move
    that shows (a spend read a reading late, then the attack, unseen, and its capture: the
    capture was recorded nowhere, and the 'end' after it without it). The best ``Params.
    beam`` legal moves that show are followed on as the unseen chains from the table as it
    was are, and by one more move that shows; the chains are scored only where a move shows
    last (the move alone and the move then an unseen one are the same table: that is the
    move, the unseen one left to the next reading)."""
    seeds = sorted((s for s in first if s.error is None and s.state is not None
                    and not s.actions[-1].is_chance and abs(s.log_likelihood - still) > 1e-9
                    and game.outcome(s.state) is None and not game.chance_outcomes(s.state)),
                   key=lambda s: s.log_likelihood + s.log_prior, reverse=True)[: params.beam]
    out: list[_Scored] = []
    frontier = [(s, s) for s in seeds]  # (the chain, the move that shows at its head)
    for _ in range(UNSEEN_CHAIN):
        longer: list[tuple[_Scored, _Scored]] = []
        for s, head in frontier:
            for x in _expand(game, s.state, s.actions, s.log_prior - s.sided, fitter, params,
                             observation.dice_moved, side):
                if _unseen_step(game, head.state, x, head.log_likelihood):
                    longer.append((x, head))
                elif x.view not in shown:
                    # (with the two moves that show: 'spend; attack; spend' was recorded
                    # for two spends, the second read a reading late, with no attack)
                    out.append(x)
        frontier = longer
    return out


def _settled(game: Game[Any, Any], state: State, scored: list[_Scored]) -> list[_Scored]:
    """For a game that reads its chance off the table (Game.observed_chance; Quarriors: dice
    drawn or re-rolled are thrown at once), a table seen still never has the acting player's
    dice in the hand: a legal explanation that leaves that player's chance pending is not
    one (a 'reroll' without its landing explained a foul summon's die leaving the Active
    Pool: three unflagged fouls in simulated Quarriors). Another player's draw still to come
    (after 'end') is."""
    if type(game).observed_chance is Game.observed_chance:
        return scored
    me = game.to_move(state)
    return [s for s in scored if s.error is not None or not s.actions
            or game.outcome(s.state) is not None or not game.chance_outcomes(s.state)
            or game.to_move(s.state) != me]


def unseen_claim(action: Any) -> str | None:
    """The question an action raises that the camera cannot answer (core.Decision)."""
    claim = getattr(action, "unseen_claim", None)
    return claim if isinstance(claim, str) and claim else None


def _decision_key(action: Any) -> Any:
    return action.decision if getattr(action, "throws_dice", False) else action


def reconcile(game: Game[Any, Any], state: State, observation: Observation,
              params: Params = Params(), seats: Sequence[str] | None = None,
              carried: Carried = ()) -> Resolution:
    """Explain ``observation`` from ``state``: see the module docstring. ``seats``: the
    table edge each player sits at (engine.thrower), or None when not set; ``carried``:
    what the reading before, left as no change, handed on (``NoChange.carried``, engine.
    carry), for a record still at ``state``."""
    with _no_cycle_collection():
        fitter = _Fitter(observation, params)
        explanations, quiet = _explain_carried(game, state, observation, fitter, params,
                                               seats, carried)
        res = decide(explanations, params, fitter.saturated)
        if isinstance(res, NoChange) and quiet:
            kept = carry_on(quiet, params.carry_floor, params.carry_max)
            if kept:
                res = NoChange(res.confidence, kept)
        return res


def _explain_carried(game: Game[Any, Any], state: State, observation: Observation,
                     fitter: _Fitter, params: Params, seats: Sequence[str] | None,
                     carried: Carried) -> tuple[list[Explanation], Quiet]:
    """The explanations from each carried state (engine.carry), and the quiet ones."""
    starts = roots(game, state, carried)
    if len(starts) == 1 and not starts[0][0]:
        out, _, alone = _explain_z(game, state, observation, fitter, params, seats)
        return out, alone
    parts = []
    quiet: Quiet = []
    for chain, log_w, now in starts:
        out, log_z, q = _explain_z(game, now, observation, fitter, params, seats)
        # the chain alone stays left to the next move as _deferred would leave it
        defer = bool(game.follow_unseen) and not observation.dice_moved and \
            game.outcome(now) is None and not may_end_unseen(game, now)
        parts.append((chain, log_w, out, log_z, defer))
        quiet += [(chain + c, log_w + v) for c, v in q if c or not chain or defer]
    return combine(parts), quiet


def explain(game: Game[Any, Any], state: State, observation: Observation,
            params: Params = Params(), seats: Sequence[str] | None = None
            ) -> list[Explanation]:
    """Every scored explanation, best first, with posteriors that sum to 1."""
    with _no_cycle_collection():
        return _explain(game, state, observation, _Fitter(observation, params), params,
                        seats)


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """The cyclic garbage collector held off while one observation is explained. A reading
    makes tens of thousands of short-lived objects (candidates, states, views, scores: a
    late Pyradice reading weighs 3 500 turns) that refcounting frees when it ends; the
    collector, run every 700 of them, scanned and promoted them again and again (simulated
    Pyradice: 28 % of reconcile's time, 703 collections in one match's 43 readings). What
    it would find (an illegal candidate's error holds its traceback) it finds after."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _explain(game: Game[Any, Any], state: State, observation: Observation, fitter: _Fitter,
             params: Params, seats: Sequence[str] | None = None) -> list[Explanation]:
    return _explain_z(game, state, observation, fitter, params, seats)[0]


Quiet = list[tuple[tuple[Any, ...], float]]
"""The explanations that show the table as it was and are left to the next move (no change,
and each deferred chain: _deferred), each with its log prior x likelihood, one by one (the
posteriors merge them: engine.carry)"""


def _explain_z(game: Game[Any, Any], state: State, observation: Observation, fitter: _Fitter,
               params: Params, seats: Sequence[str] | None = None
               ) -> tuple[list[Explanation], float, Quiet]:
    """The explanations (best first), the log of their summed prior x likelihood (what they
    are normalised by) and the quiet ones (Quiet)."""
    seated = params.thrower_side and bool(seats)
    side = side_evidence(observation.hand_edge, observation.hand_edge_confidence, seats,
                         params.side_confidence) if seated else None
    p_same = {None: 0.3, True: 0.02, False: 0.9}[observation.moved]
    if observation.dice_moved:
        p_same *= 0.05  # the dice left their places: something was done with them
    view = game.expected_view(state)
    fitter.watch_base(view)
    scored = [_Scored((), math.log(p_same), fitter.log_likelihood(view), None, state, view)]
    if game.outcome(state) is None:
        first = _expand(game, state, (), math.log(1 - p_same), fitter, params,
                        observation.dice_moved, side)
        scored += first
        scored += _observed_runs(game, state, first, observation, fitter, params,
                                 math.log(1 - p_same))
        best_fit = max(x.log_likelihood for x in scored)
        if params.depth >= 2 and best_fit < fitter.saturated - params.extend_gap \
                and game.follow_unseen:
            # decisions that show nothing, told by the next move that does (Game.
            # follow_unseen: Quarriors' 'attack', a defender that holds, then the capture or
            # the end): chains of up to UNSEEN_CHAIN such moves, each then extended by one
            # more action (and by the draw read off the table, when one is pending).
            # A chain whose table one legal move shows as well is that move: the unseen one
            # stays unrecorded (left to the next move, or asked, when it is seen alone), never
            # guessed in front of it.
            shown = {x.view for x in first if x.error is None}
            still = scored[0].log_likelihood
            frontier = [s for s in first if _unseen_step(game, state, s, still)]
            for _ in range(UNSEEN_CHAIN):
                longer: list[_Scored] = []
                for s in frontier:
                    # (the arm seen is the last move's: an unseen step's side is not judged)
                    for x in _expand(game, s.state, s.actions, s.log_prior - s.sided, fitter,
                                     params, observation.dice_moved, side):
                        if _unseen_step(game, state, x, still):
                            longer.append(x)  # (its table is shown: it is followed on)
                        if x.view not in shown:
                            scored.append(x)
                scored += _observed_runs(game, state, longer, observation, fitter, params,
                                         math.log(1 - p_same), prefixed=True)
                frontier = longer
            best_fit = max(x.log_likelihood for x in scored)
            if best_fit < fitter.saturated - params.extend_gap:
                scored += _after_shown(game, first, shown, still, fitter, params, observation,
                                       side)
                best_fit = max(x.log_likelihood for x in scored)
        if params.depth >= 2 and best_fit < fitter.saturated - params.extend_gap:
            # Extend the best legal chance outcomes (a roll whose follow-up move happened
            # before the table was seen still) by one more action.
            rolls = sorted((s for s in first if s.error is None and s.actions[-1].is_chance
                            and game.outcome(s.state) is None),
                           key=lambda s: s.log_likelihood + s.log_prior, reverse=True)
            for s in rolls[: params.beam]:
                scored += _expand(game, s.state, s.actions, s.log_prior - s.sided, fitter,
                                  params, observation.dice_moved, side)
        scored = _settled(game, state, scored)
        if not seated:
            deferred = _deferred(game, state, scored, observation)
            out, log_z = _posteriors_z(scored, view, bool(observation.dice_moved),
                                       scored[0].log_likelihood)
            return _defer(out, deferred), log_z, _quiet(scored, deferred)
        # a move that changes nothing the camera reads fits each zone's reading as the table
        # as it was does, not only in sum (Pyradice: a die taken to the wrong space fits a
        # reading with a misread die as badly as no move at all)
        as_is = fitter.group_fits(view)
        unseen = [s for s in first if abs(s.log_likelihood - scored[0].log_likelihood) < 1e-9
                  and fitter.group_fits(s.view) == as_is]
        ends_turn = hands_on(game, state, unseen, scored[0].log_likelihood)
        for s in ends_turn:
            # the unseen move, then what is seen (its "dice did not move" penalty was for
            # it alone: the next player's throw moved them)
            scored += _expand(game, s.state, s.actions, s.log_prior - s.unthrown - s.sided,
                              fitter, params, observation.dice_moved, side)
        scored = _settled(game, state, scored)
        out, log_z = _posteriors_z(scored, view, bool(observation.dice_moved),
                                   scored[0].log_likelihood)
        # Left to the next move, whose thrower's side will tell it; not when the tracker
        # saw the dice thrown now (that was no unseen move alone).
        ends = {s.actions for s in ends_turn} if not observation.dice_moved else set()
        deferred = _deferred(game, state, scored, observation)
        return _defer(out, ends | deferred), log_z, _quiet(scored, deferred)
    out, log_z = _posteriors_z(scored, view, bool(observation.dice_moved),
                               scored[0].log_likelihood)
    return out, log_z, []


def _quiet(scored: Sequence[_Scored], deferred: set[tuple[Any, ...]]) -> Quiet:
    """See Quiet (only chains of Game.follow_unseen are deferred)."""
    best: dict[tuple[Any, ...], float] = {}
    for s in scored:
        if s.actions == () or s.actions in deferred:
            v = s.log_prior + s.log_likelihood
            best[s.actions] = max(v, best.get(s.actions, -math.inf))
    return list(best.items())


def _deferred(game: Game[Any, Any], state: State, scored: Sequence[_Scored],
              observation: Observation) -> set[tuple[Any, ...]]:
    """Game.follow_unseen: the chains of decisions that show nothing, each left to the move
    that shows it rather than asked (Quarriors: 'attack' was a question at every attack);
    not when the tracker saw dice thrown now, nor when the match may end unseen after it.
    ``scored[0]`` is the table as it was."""
    if not game.follow_unseen or observation.dice_moved:
        return set()
    still = scored[0].log_likelihood
    return {s.actions for s in scored
            if _unseen_step(game, state, s, still) and not may_end_unseen(game, s.state)}


def _defer(out: list[Explanation], actions: set[tuple[Any, ...]]) -> list[Explanation]:
    """The unseen explanations of ``actions`` marked as left to the next move (hands_on)."""
    if not actions:
        return out
    return [replace(e, hands_on=True) if e.unseen and e.actions in actions else e
            for e in out]


def _posteriors(scored: Iterable[_Scored], current: View = (),
                dice_moved: bool = False, current_fit: float | None = None
                ) -> list[Explanation]:
    return _posteriors_z(scored, current, dice_moved, current_fit)[0]


def _posteriors_z(scored: Iterable[_Scored], current: View = (),
                  dice_moved: bool = False, current_fit: float | None = None
                  ) -> tuple[list[Explanation], float]:
    """The explanations with their posteriors, and the log of the sum of prior x likelihood
    they were normalised by."""
    # Explanations that predict the same table and lead to the same state are one for the
    # camera and for the match: keep the most probable a priori (on a tie, a legal one, then
    # the shorter chain). Same table, different states stay apart, so the players are asked
    # (Pyramid Dice: 'pass' or 'set 4 to 4 by g4', neither seen) -- except the table as it
    # is: what shows no change at all is the camera's "no change", unless more probable.
    # A move whose table differs from the one as it was only in what the camera does not
    # read (``current_fit``: the reading fits both exactly as well; Pyramid Dice: a 'pass'
    # that rights a turned Ra card, the players' areas being counted, not read) is, for the
    # camera, the table as it was (simulated Pyramid Dice, 50 matches: such a 'pass' was
    # recorded on a table put back after a foul). A throw seen by the die tracker (the
    # dice left their places) shows itself even when the dice land on the values they
    # showed: it is not the table as it was.
    def as_it_was(s: _Scored) -> bool:
        same = s.view == current or (current_fit is not None and s.actions != () and
                                     abs(s.log_likelihood - current_fit) < 1e-9)
        return same and not (dice_moved and any(
            throws_dice(a) for a in s.actions))

    # Kept by (view, state or None), in the order first met: the state is compared only
    # between explanations of one view (hashing every state was a tenth of the time).
    items: list[_Scored] = []
    seconds: list[Any] = []
    by_view: dict[View, list[int]] = {}
    for s in scored:
        second = s.state if s.error is None and not as_it_was(s) else None
        same = by_view.setdefault(s.view, [])  # (one lookup: a view's hash walks all of it)
        for i in same:
            if seconds[i] is second or seconds[i] == second:
                kept = items[i]
                if (s.log_prior, s.error is None, -len(s.actions)) > (
                        kept.log_prior, kept.error is None, -len(kept.actions)):
                    items[i] = s
                break
        else:
            same.append(len(items))
            items.append(s)
            seconds.append(second)
    logs = [s.log_prior + s.log_likelihood for s in items]
    top = max(logs)
    weights = [math.exp(v - top) for v in logs]
    z = sum(weights)
    out = [Explanation(s.actions, w / z, s.log_likelihood, s.error,
                       unseen=bool(s.actions) and s.error is None and as_it_was(s))
           for s, w in zip(items, weights, strict=True)]
    out.sort(key=lambda e: -e.posterior)
    return out, top + math.log(z)


def decide(explanations: Sequence[Explanation], params: Params,
           saturated: float) -> Resolution:
    best = explanations[0]
    # Best explanation fits far worse than the reader's own reading: something happened
    # that no modelled move explains.
    if best.log_likelihood < saturated - params.unexplained_log_ratio:
        return Violation(UNEXPLAINED, f"best explanation ({best.text()}) does not fit what "
                         "is seen", best.actions, best.posterior)
    if best.unseen:
        foul = _foul_over_unseen(explanations, best, params)
        if foul is not None:
            return _alert(foul, explanations)
        if best.hands_on:
            # the next move will show it (Params.thrower_side, Game.follow_unseen), when the
            # camera is sure nothing it reads changed: else a move it saw, weakly, would be
            # passed over (simulated Quarriors: a capture whose die the Used Pile's heap hid
            # half, left unrecorded, and every reading after it unexplained)
            quiet = sum(e.posterior for e in explanations
                        if not e.actions or (e.unseen and e.hands_on))
            if quiet >= params.accept:
                return NoChange(best.posterior)
            keep = tuple(e for e in explanations[:6] if e.posterior >= params.ambiguous_keep)
            return Ambiguous(keep or (best,))
        # Nothing the camera read tells this move from "no change" (a pass, a card's unseen
        # use): only its prior made it win, so the players are asked, never told.
        return Ambiguous((best, Explanation((), 0.0, best.log_likelihood)))
    if best.posterior >= params.accept:
        if not best.legal:
            return Violation(best.error.rule, best.error.detail, best.actions, best.posterior)
        if not best.actions:
            return NoChange(best.posterior)
        claims = [c for c in (unseen_claim(a) for a in best.actions) if c]
        if claims:
            # the table shows the move, not what it states beyond it (Pyramid Dice: a later
            # player's snatch says the players between passed): the players are asked
            return Ambiguous((best,), " ".join(claims))
        return Accepted(best.actions, best.posterior)
    legal = max((e.posterior for e in explanations if e.legal), default=0.0)
    if not best.legal and best.posterior > legal:
        # The likeliest explanation is a rule break, though not a sure one: that is an
        # alert quoting the rule (the players may still answer it), never a question, whose
        # likeliest answer would hide the foul. (Simulated Pyramid Dice with injected fouls,
        # 20 matches: 7 of the 8 unflagged fouls were such questions, the foul on top at
        # 0.47-0.89; no question on a legal move there had a foul on top. IceDice, 30
        # matches: 2 questions on legal moves had a foul on top, both after a misread size
        # die; 3 more were ties of 'stop' and 'bust', which stay questions.)
        return _alert(best, explanations)
    keep = tuple(e for e in explanations[:6] if e.posterior >= params.ambiguous_keep)
    return Ambiguous(keep or (best,))


def _foul_over_unseen(explanations: Sequence[Explanation], best: Explanation,
                      params: Params) -> Explanation | None:
    """The foul to flag instead of asking about the unseen move ``best`` (Params.unseen_foul):
    the likeliest illegal explanation, when it fits the reading better than the table as it
    was and holds at least ``unseen_foul`` of ``best``'s posterior; else None."""
    foul = max((e for e in explanations if not e.legal), key=lambda e: e.posterior,
               default=None)
    if foul is None or foul.log_likelihood <= best.log_likelihood:
        return None
    return foul if foul.posterior >= params.unseen_foul * best.posterior else None


def _alert(foul: Explanation, explanations: Sequence[Explanation]) -> Violation:
    """The alert for ``foul``, quoting its rule, sure by the share of every rule break."""
    illegal = sum(e.posterior for e in explanations if not e.legal)
    return Violation(foul.error.rule, foul.error.detail, foul.actions, illegal)
