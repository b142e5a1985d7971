"""The draw read off the table (Game.observed_chance): a player draws dice out of the hidden
bag and rolls them together, and the camera sees them land in the Active Pool. One die
drawn and rolled at a time would be 2 x 6 chance outcomes, each drawn die unseen (it is in
the player's hand); the outcomes of six together are too many to list. So the run of
outcomes is read from the dice that appeared: each new die's type is drawn, then every
unrolled die rolls to the face read on it (RULES draw: "draw out 6 dice and add them to your
Active Pool. Now roll all the dice in your Active Pool"). The runs offered are the
likeliest reading and, for each new die, its next likeliest type or face in its place, so
that a doubtful die is weighed, and reconcile asks when two are close. A card's draws into
another player's Active Pool (a prompt: Mighty Scavenging Goblin) are read the same way, by
type only: those dice are not rolled until that player's turn.
"""

from __future__ import annotations

from engine.games.quarriors import state as st
from engine.games.quarriors.actions import Draw, QuarriorsAction, Roll
from engine.games.quarriors.dice import DICE, UNROLLED
from engine.games.quarriors.moves import next_unrolled
from engine.games.quarriors.state import QuarriorsState
from engine.games.quarriors.turn import play
from engine.observation import Observation, Observed

PREFIX = "quarriors-"
MAX_RUNS = 8
"""runs offered per reading: the likeliest and the next likeliest die in each place"""

UNSEEN_TYPES = 3
"""how many dice a drawn die that is not seen is offered as: the bag's commonest types
first, then the unrolled dice already in the Active Pool (reached only when the bag holds
fewer types)"""

DieFace = tuple[str, str]


def key_of(view_type: str) -> str | None:
    """The die key of a catalogued type name (``quarriors-scavenging-goblin``)."""
    if not view_type.startswith(PREFIX):
        return None
    key = view_type[len(PREFIX):].replace("-", "_")
    return key if key in DICE else None


def _choices(o: Observed, allowed: set[str]) -> list[tuple[float, DieFace]]:
    """The (die, face) this reading may be, likeliest first, among ``allowed`` dice."""
    out = []
    for vt, pt in o.dist("type") or ():
        key = key_of(str(vt))
        if key is None or key not in allowed:
            continue
        labels = dict(DICE[key].odds())
        faces = [(pf, str(f)) for f, pf in (o.dist("face") or ()) if str(f) in labels]
        if not faces:
            faces = [(p, lb) for lb, p in labels.items()]
        out += [(pt * pf, (key, f)) for pf, f in faces]
    out.sort(key=lambda x: -x[0])
    return out


def _drawable(state: QuarriorsState) -> int:
    """How many dice the pending draws take (RULES refill: the bag, then the Used Pile)."""
    seat = state.me
    return min(state.turn.draws, st.size(seat.bag) + st.size(seat.used))


def observed_draw(state: QuarriorsState, observation: Observation
                  ) -> list[tuple[QuarriorsAction, ...]]:
    """The runs of draws and rolls the Active Pool's new dice show (module docstring)."""
    if state.prompts:
        return _prompt_draws(state, observation)
    if state.phase != "main":
        return []
    seat = state.me
    zone = f"active:{state.current}"
    readings = [o for o in observation.objects if o.kind == "die" and o.zone == zone]
    unrolled = [d for d, f in seat.active if f == UNROLLED]
    new = _drawable(state) + len(unrolled)
    if new == 0:
        return []
    allowed = {d for d, _ in seat.bag} | {d for d, _ in seat.used} | set(unrolled)
    # the dice rolled before stay where they lay: each takes the reading that fits it best
    left = sorted(readings, key=lambda o: -o.confidence)
    for die, face in seat.active:
        if face == UNROLLED or not left:
            continue
        fits = [_fit(o, (die, face)) for o in left]
        left.pop(max(range(len(left)), key=fits.__getitem__))
    places = [_choices(o, allowed) for o in left[:new]]
    places = [p for p in places if p]
    best = [p[0][1] for p in places]
    runs = [best]
    for i, p in sorted(enumerate(places), key=lambda ip: ip[1][0][0]):
        if len(runs) >= MAX_RUNS:
            break
        if len(p) > 1:
            runs.append(best[:i] + [p[1][1]] + best[i + 1:])
    if len(places) < new:
        # a die drawn and not seen (hidden by another, under a hand, missed): the rules know
        # only what it may be, so it is offered as each die it can be with each face, and
        # their chances, not the reading, weigh them (offered as the likeliest alone, a
        # Basic Quiddity unseen was recorded at its likelier Q1 at 0.96, and it was a Q2:
        # simulated Quarriors seed 4, one of the 3 wrong acceptances of 5 matches)
        holds = [d for d, _ in sorted(seat.bag, key=lambda dn: -dn[1])] + unrolled
        for die in list(dict.fromkeys(holds))[:UNSEEN_TYPES]:
            runs += [best + [(die, label)] for label, _ in DICE[die].odds()]
    out = []
    for run in runs:
        actions = _run(state, run)
        if actions is not None and actions not in out:
            out.append(actions)
    return out


def _fit(o: Observed, df: DieFace) -> float:
    types = dict(o.dist("type") or ())
    faces = dict(o.dist("face") or ())
    return float(types.get(DICE[df[0]].view_type, 0.0)) * float(faces.get(df[1], 0.1))


def _run(state: QuarriorsState, dice: list[DieFace]) -> tuple[QuarriorsAction, ...] | None:
    """Draws of the dice not yet in the Active Pool, then each unrolled die rolled to its
    face; dice missing from the reading are drawn as the bag's commonest and rolled to their
    likeliest face. None when the dice cannot all have come (a type the bag does not hold)."""
    pool = list(dice)
    unrolled = [d for d, f in state.me.active if f == UNROLLED]
    to_draw = list(pool)
    for d in unrolled:
        hit = next((i for i, (k, _) in enumerate(to_draw) if k == d), None)
        if hit is not None:
            to_draw.pop(hit)
    actions: list[QuarriorsAction] = []
    now = state
    for _ in range(_drawable(state)):
        bag = now.me.bag
        # a die the bag holds now: the dice seen are drawn in any order, and a draw that
        # empties the bag refills it from the Used Pile (RULES refill) for the rest
        hit = next((i for i, (k, _) in enumerate(to_draw) if st.count(bag, k) > 0), None)
        if hit is not None:
            die = to_draw.pop(hit)[0]
        elif to_draw:
            return None  # a die seen that the bag cannot hold now
        elif bag:
            die = max(bag, key=lambda dn: dn[1])[0]
        else:
            return None
        actions.append(Draw(die))
        now = play(now, Draw(die))[0]
    rolling = next_unrolled(now)
    while rolling is not None:
        hit = next((i for i, (k, _) in enumerate(pool) if k == rolling), None)
        face = pool.pop(hit)[1] if hit is not None else \
            max(DICE[rolling].odds(), key=lambda lp: lp[1])[0]
        actions.append(Roll(rolling, face))
        now = play(now, Roll(rolling, face))[0]
        rolling = next_unrolled(now)
    return tuple(actions)


def _prompt_draws(state: QuarriorsState, observation: Observation
                  ) -> list[tuple[QuarriorsAction, ...]]:
    """A card's draws into a player's Active Pool out of their turn (Mighty Scavenging
    Goblin: "draw 2 dice into your Active Pool"): the dice lie there unrolled, read by type
    (view.py); the dice already there take the readings that fit them best."""
    p = state.prompts[0]
    if p.kind != "draw":
        return []
    seat = state.seats[p.player]
    zone = f"active:{p.player}"
    left = sorted((o for o in observation.objects if o.kind == "die" and o.zone == zone),
                  key=lambda o: -o.confidence)
    for die, _ in seat.active:
        if not left:
            break
        fits = [float(dict(o.dist("type") or ()).get(DICE[die].view_type, 0.0)) for o in left]
        left.pop(max(range(len(left)), key=fits.__getitem__))
    allowed = {d for d, _ in seat.bag} | {d for d, _ in seat.used}
    places = [[df[0] for _, df in _choices(o, allowed)] for o in left[:p.n]]
    places = [list(dict.fromkeys(pl)) for pl in places if pl]
    best = [pl[0] for pl in places]
    runs = [best] + [best[:i] + [pl[1]] + best[i + 1:] for i, pl in enumerate(places)
                     if len(pl) > 1][:MAX_RUNS - 1]
    out: list[tuple[QuarriorsAction, ...]] = []
    for run in runs:
        actions: list[QuarriorsAction] = []
        now = state
        for die in run:
            if not now.prompts or now.prompts[0].kind != "draw" \
                    or st.count(now.seats[p.player].bag, die) == 0:
                break
            actions.append(Draw(die))
            now = play(now, Draw(die))[0]
        if actions and tuple(actions) not in out:
            out.append(tuple(actions))
    return out
