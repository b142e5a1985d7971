"""What the camera should see (zones of calibration/layouts/quarriors-*.json): the Wilds'
dice by type; each player's Active Pool, Ready Area and Spent Pile by type and face; the Used
Pile by type. The bags and the box are not seen; nor a die the current player drew and has
not rolled yet (it is in the player's hand); nor the dice set aside (Seat.aside: Mighty
Ghostly Spirit's "set it aside", off the mat, which has no zone for them). A die drawn into
another player's Active Pool (Mighty Scavenging Goblin: "draw 2 dice into your Active Pool",
during an attack on them) lies there unrolled until their turn: seen by type, its face
whatever it shows."""

from __future__ import annotations

from engine.games.quarriors.dice import DICE, UNROLLED
from engine.games.quarriors.state import QuarriorsState
from engine.observation import Expected, View, make_view


def expected_view(state: QuarriorsState) -> View:
    out: list[Expected] = []
    for die, n in state.wilds:
        out += [Expected.make("die", "wilds", type=DICE[die].view_type)] * n
    for p, seat in enumerate(state.seats):
        for die, face in seat.active:
            if face != UNROLLED:
                out.append(Expected.make("die", f"active:{p}", type=DICE[die].view_type,
                                         face=face))
            elif p != state.current:
                out.append(Expected.make("die", f"active:{p}", type=DICE[die].view_type))
        for rd in seat.ready:
            out.append(Expected.make("die", f"ready:{p}", type=DICE[rd.die].view_type,
                                     face=rd.face))
            out += [Expected.make("die", f"ready:{p}", type=DICE[d].view_type, face=f)
                    for _, d, f in rd.attached]
        for die, face in seat.spent:
            out.append(Expected.make("die", f"spent:{p}", type=DICE[die].view_type, face=face))
        for die, n in seat.used:
            out += [Expected.make("die", f"used:{p}", type=DICE[die].view_type)] * n
    return make_view(out)
