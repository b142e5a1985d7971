"""How well the dice seen coming into and leaving a watched zone (engine.observation.Shift)
fit what an explanation changes there.

A watched zone is not read (Quarriors' Wilds: some 57 dice standing on their cards), but a
die-sized change in it is: where a die lies now and did not before, a die came (a cull puts
it back on its card), and the reverse is one taken (a capture); the camera reads the type
of that die, in the frame it lies in. Its one flag "the zone looks changed" told a cull
from no cull, not which die was culled: which die left a Used Pile of a dozen dice, a heap,
was then often 0.7 against 0.2 and asked (simulated Quarriors after the session-23 changes,
5 matches: 37 questions on culls, 30 on attacks and their captures, 11 on scores with or
without a cull, of 126).

The fit is the best matching of the shifts seen to the dice the explanation adds to the zone
and takes from it (as its view has them against the view explained from), a shift matching
a die of its own direction: a matched pair weighs the type read for the die's type; a shift
matched to no die is a change seen where none was (``spurious``), a die matched to no shift
one not told die by die (``missed``: two changes side by side seen as one, a die read where
its outline was not found).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from itertools import permutations

from engine.observation import Expected, Shift

TYPE_FLOOR = 1e-3
"""probability given to a type the reading did not list"""
MOST = 6
"""shifts or changed dice beyond which the matching is not tried (the fit is left at 0)"""


def changes(here: Sequence[Expected], base: Sequence[Expected]
            ) -> tuple[list[str], list[str]]:
    """(types added, types taken): the dice of ``here`` not in ``base`` and the reverse, by
    their ``type`` attribute."""
    now = Counter(str(e.attr("type")) for e in here if e.kind == "die")
    then = Counter(str(e.attr("type")) for e in base if e.kind == "die")
    return sorted((now - then).elements()), sorted((then - now).elements())


def shift_fit(here: Sequence[Expected], base: Sequence[Expected], shifts: Sequence[Shift],
              spurious: float, missed: float) -> float:
    """log P(the shifts seen | the zone holds ``here`` where the look compared with was
    of ``base``), up to a factor the same for every explanation (see the module
    docstring)."""
    added, taken = changes(here, base)
    total = 0.0
    for direction, dice in ((True, added), (False, taken)):
        seen = [dict(s.types) for s in shifts if s.added is direction]
        total += _best(seen, dice, math.log(spurious), math.log(missed))
    return total


def _best(seen: list[dict[str, float]], dice: list[str], log_spurious: float,
          log_missed: float) -> float:
    if not seen and not dice:
        return 0.0
    if len(seen) > MOST or len(dice) > MOST:
        return 0.0
    # pad both sides with "nothing" so that every matching is a permutation
    n = max(len(seen), len(dice))
    best = -math.inf
    for order in permutations(range(n), len(seen)) if seen else [()]:
        value = 0.0
        used = set()
        for i, j in enumerate(order):
            if j < len(dice):
                value += math.log(max(seen[i].get(dice[j], 0.0), TYPE_FLOOR))
                used.add(j)
            else:
                value += log_spurious
        value += log_missed * (len(dice) - len(used))
        best = max(best, value)
    return best


def best_possible(shifts: Sequence[Shift]) -> float:
    """The most any explanation's fit could be: each shift matched to its likeliest type
    (what the reconcile's 'saturated' reading adds for them)."""
    return sum(math.log(max(max((p for _, p in s.types), default=0.0), TYPE_FLOOR))
               for s in shifts)
