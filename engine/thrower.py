"""Who threw: the table edge a player's arm crosses, as evidence for the reconciler.

At match setup each player gets a seat, the edge of the camera image they sit at
(``bottom``, ``left``, ``top``, ``right``). An arm reaches over the table from its owner's
edge, so the edge the camera saw the arm cross while the dice were thrown tells whose throw
it was. That tells apart two stories the table alone cannot: "the player to move passed
unseen (Pyramid Dice's 'pass' on an empty pyramid), then the next player threw" and "the
player to move threw again" (a Ra re-roll). See ``engine.reconcile.Params.thrower_side``.

Plain data only: the camera side reports the edge (``Observation.hand_edge``), the match
setup the seats; nothing here looks at pixels.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

EDGES = ("bottom", "left", "top", "right")
"""The edges of the camera image, clockwise as seen from above (image y pointing down)."""


def default_seats(players: int) -> tuple[str, ...]:
    """Seats by player count: two players face each other; three and four sit clockwise
    from the bottom edge, as play passes clockwise. More than four share edges, which then
    tell nothing (see :func:`players_at`)."""
    if players == 2:
        return ("bottom", "top")
    return tuple(EDGES[i % 4] for i in range(players))


def check_seats(seats: Sequence[str], players: int) -> tuple[str, ...]:
    """Seats as entered, or ValueError with a one-line message."""
    out = tuple(str(s).strip().lower() for s in seats)
    if len(out) != players:
        raise ValueError(f"{len(out)} seats for {players} players")
    bad = [s for s in out if s not in EDGES]
    if bad:
        raise ValueError(f"seat {bad[0]!r} is not a table edge ({', '.join(EDGES)})")
    return out


@dataclass(frozen=True, slots=True)
class SideEvidence:
    """The player whose seat is the edge the arm was seen crossing, and how sure."""

    player: int
    log_other: float
    """log of P(this edge seen | another player acted) / P(it | this player acted)"""


def side_evidence(edge: str | None, confidence: float, seats: Sequence[str] | None,
                  min_confidence: float) -> SideEvidence | None:
    """None when nothing is known: no seats, no edge, an unsure edge, or an edge that is no
    one's seat or more than one player's."""
    if not seats or edge is None or confidence < min_confidence:
        return None
    at = [i for i, s in enumerate(seats) if s == edge]
    if len(at) != 1:
        return None
    # the edge is right with `confidence`, else one of the other three edges
    other = max(1.0 - confidence, 1e-6) / 3.0
    return SideEvidence(at[0], math.log(other / confidence))


def hands_on(game: Any, state: Any, first: Sequence[Any], as_is: float) -> list[Any]:
    """The legal single moves (scored, from ``first``) that end the turn and not the game and
    change nothing the camera reads (the reading fits them exactly as well as the table as
    it was, ``as_is``; Pyramid Dice: a 'pass' that rights a turned Ra card, areas being
    counted, not read), and after which the game cannot end unseen."""
    return [s for s in first if s.error is None and not s.actions[-1].is_chance
            and abs(s.log_likelihood - as_is) < 1e-9 and s.state != state
            and game.outcome(s.state) is None and game.to_move(s.state) != game.to_move(state)
            and not may_end_unseen(game, s.state)]


def may_end_unseen(game: Any, state: Any) -> bool:
    """Whether a legal decision from `state` ends the game (Pyramid Dice: 'end' by the stall
    rule, which shows nothing either: left unasked after an unseen move, it would never be
    asked, and the match never ended)."""
    return any(game.outcome(game.apply(state, a)[0]) is not None
               for a in game.legal_actions(state) if not a.is_chance)
