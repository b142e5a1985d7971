"""The score pad: each objective token (5 VP when every die of its level meets it), each
objective card (only the dice of its disc's colour), and Σ; the winner and the tie-break."""

from __future__ import annotations

from engine.core import Outcome, Score
from engine.games.pyradice import pyramid as pm
from engine.games.pyradice.pyramid import Board
from engine.games.pyradice.state import PyradiceState
from engine.games.pyradice.vocabulary import card_points, objective_met

TOKEN_VP = 5  # RULES pyradice.objective_vp


def tokens_met(state: PyradiceState, board: Board) -> list[bool]:
    """Per objective token (lowest level first): met. A level not yet complete is not met
    (the check is made at the end, on full levels)."""
    out = []
    for level, tid in zip(state.objective_levels, state.objectives, strict=True):
        defn = state.definition("objective", tid)
        out.append(pm.level_complete(board, level)
                   and objective_met(defn, pm.level_dice(board, level), state.colours))
    return out


def pad(state: PyradiceState, player: int) -> tuple[tuple[str, int], ...]:
    """One player's column of the score pad: the objective tokens from the top level down
    (as the rulebook's example lists them), then the objective cards in play; the Σ row is
    the Score's total."""
    board = state.boards[player]
    rows = [(f"{tid} (level {level})", TOKEN_VP if met else 0)
            for level, tid, met in zip(state.objective_levels, state.objectives,
                                       tokens_met(state, board), strict=True)]
    rows.reverse()  # the pad lists the tokens as the board shows them: top level first
    rows += [(f"{cid} ({colour})", card_points(state.definition("card", cid), board, colour))
             for cid, colour in state.cards]
    return tuple(rows)


def score(state: PyradiceState) -> tuple[Score, ...]:
    out = []
    for p in range(state.players):
        rows = pad(state, p)
        out.append(Score(p, sum(points for _, points in rows), rows))
    return tuple(out)


def outcome(state: PyradiceState) -> Outcome | None:
    """Most VP wins; a tie goes to the most objective tokens met; then the victory is
    shared (RULES pyradice.total, pyradice.tie)."""
    if not state.over:
        return None
    totals = [s.total for s in score(state)]
    best = max(totals)
    tied = [p for p, t in enumerate(totals) if t == best]
    if len(tied) == 1:
        return Outcome((tied[0],), f"most Victory Points ({best})")
    met = {p: sum(tokens_met(state, state.boards[p])) for p in tied}
    most = max(met.values())
    winners = tuple(p for p in tied if met[p] == most)
    if len(winners) == 1:
        return Outcome(winners, f"tied on {best} VP; most objective tokens met ({most})")
    return Outcome(winners, f"tied on {best} VP and {most} objective tokens: shared victory")
