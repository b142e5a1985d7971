"""Whether a turn is legal (each failure names its rule), and what a turn does physically."""

from __future__ import annotations

from engine.errors import IllegalActionError
from engine.games.pyradice import pyramid as pm
from engine.games.pyradice import quarry as qy
from engine.games.pyradice.pyramid import Board, Die
from engine.games.pyradice.rules import RULES
from engine.games.pyradice.skills import apply_use, why_not
from engine.games.pyradice.state import PyradiceState, Turn


def _fail(rule: str, detail: str) -> IllegalActionError:
    return IllegalActionError(RULES[f"pyradice.{rule}"], detail)


def check_turn(state: PyradiceState, turn: Turn) -> None:
    """Raise IllegalActionError naming the rule a turn breaks."""
    if state.over:
        raise _fail("game_over", "every pyramid holds 21 dice: the game is over")
    geo = qy.geometry(state.dims)
    pos = geo.index(turn.take)
    die = None if pos is None else state.quarry[pos[0]][pos[1]]
    if pos is None or die is None:
        raise _fail("take", f"there is no die in quarry slot {turn.take}")
    present = qy.presence(state.quarry)
    if pos not in qy.available_set(geo, present):
        faces = qy.visible_faces(geo, present, *pos)
        raise _fail("available", f"the die in {turn.take} has {faces} visible face"
                    f"{'s' if faces != 1 else ''} (a die needs at least 3 to be taken)")
    board = state.boards[state.current]
    n = pm.INDEX[turn.to]
    level = pm.LEVEL[n]
    if board[n] is not None:
        raise _fail("place_level1" if level == 1 else "place_above",
                    f"space {turn.to} already holds a die")
    if not pm.supported(board, n):
        under = " and ".join(pm.NAMES[m] for m in pm.RESTS_ON[n])
        raise _fail("place_above", f"space {turn.to} needs dice on {under} under it")
    if turn.face is not None and turn.face != die[0]:
        raise _fail("place_unchanged", f"the die taken from {turn.take} shows {die[0]}, not "
                    f"{turn.face}")
    if len(turn.skills) > 1:
        raise _fail("one_skill", f"{len(turn.skills)} skills used in one turn")
    if not turn.skills:
        return
    use = turn.skills[0]
    if level == 1:
        raise _fail("no_skill_level1", f"the die went to level 1, which has no skill "
                    f"({use.to_str()})")
    defn = state.skill_at(level)
    assert defn is not None
    if use.token != defn.id:
        # the level the die went to gives the turn's skill (RULES skill_level); another
        # level's skill is not "saved" or "used late" (skill_now), it is not this turn's
        if use.token in state.skills:
            raise _fail("skill_level", f"{use.token} is the skill of level "
                        f"{state.skills.index(use.token) + 2}; the die went to level {level}, "
                        f"whose skill is {defn.id}")
        raise _fail("skill_level", f"level {level}'s skill is {defn.id}, not {use.token}")
    if turn.to in use.touches():
        raise _fail("not_placed_die", f"{use.to_str()} uses the skill on the die just placed "
                    f"on {turn.to}")
    reason = why_not(defn, _put(board, n, die), n, use)
    if reason is not None:
        raise _fail("skill_sheet", f"{use.to_str()}: {reason}")


def physical(state: PyradiceState, turn: Turn) -> tuple[tuple[tuple[Die | None, ...], ...],
                                                       Board]:
    """The quarry and the active player's pyramid after a turn done physically, legal or
    not (a die taken from an empty slot or put on a full space changes nothing there)."""
    geo = qy.geometry(state.dims)
    pos = geo.index(turn.take)
    quarry = state.quarry
    board = state.boards[state.current]
    die = None if pos is None else quarry[pos[0]][pos[1]]
    if pos is None or die is None:
        return quarry, board
    quarry = _taken(quarry, pos)
    n = pm.INDEX[turn.to]
    if board[n] is None:
        board = _put(board, n, (turn.face or die[0], die[1]))
    for use in turn.skills:
        board = apply_use(board, use)
    return quarry, board


def _put(board: Board, n: int, die: Die) -> Board:
    return board[:n] + (die,) + board[n + 1:]


_TAKEN: dict[tuple[int, tuple[int, int]], tuple[object, tuple[tuple[Die | None, ...], ...]]] = {}


def _taken(quarry: tuple[tuple[Die | None, ...], ...], pos: tuple[int, int]
           ) -> tuple[tuple[Die | None, ...], ...]:
    """The quarry with the die at ``pos`` taken: one tuple per quarry and slot (remembered by
    the quarry's identity), so the many candidate turns of one reading that take the same
    die share their quarry, and what is remembered of it (its view's part)."""
    hit = _TAKEN.get((id(quarry), pos))
    if hit is None or hit[0] is not quarry:
        if len(_TAKEN) > 1024:
            _TAKEN.clear()
        k, i = pos
        hit = _TAKEN[(id(quarry), pos)] = (quarry, quarry[:k] + (
            quarry[k][:i] + (None,) + quarry[k][i + 1:],) + quarry[k + 1:])
    return hit[1]
