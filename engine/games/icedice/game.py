"""The IceDice rules as pure functions over IceDiceState."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from itertools import product
from typing import Any

from engine.core import (
    Candidate,
    Event,
    Game,
    Outcome,
    Score,
    options_tuple,
)
from engine.errors import (
    IllegalActionError,
    InvalidActionError,
    InvalidStateError,
)
from engine.games.icedice.rules import INFO, RULES
from engine.games.icedice.state import (
    BUST,
    COLOUR_DICE,
    PHASES,
    RAINBOW,
    SIZE_FACES,
    SIZES,
    STOP,
    ColourFace,
    IceDiceAction,
    IceDiceState,
    Piece,
    Roll,
    Simple,
    Take,
    colour_faces,
    remove_piece,
    sort_pieces,
    trios,
)
from engine.observation import Expected, View, make_view
from engine.registry import register


@register
class IceDice(Game[IceDiceState, IceDiceAction]):
    info = INFO
    rules = RULES

    # setup -----------------------------------------------------------------------------
    def new_state(self, players: int, options: Mapping[str, object] | None = None, *,
                  setup: Mapping[str, Any] | None = None,
                  seed: int | None = None) -> IceDiceState:
        # RULES number_of_players: 2 or more, no limit (one Rainbow Stash per player)
        if isinstance(players, bool) or not isinstance(players, int) or players < 2:
            raise InvalidStateError(f"IceDice is for 2 or more players, not {players!r} "
                                    f"({RULES['icedice.number_of_players'].text})")
        values = INFO.resolve_options(options)
        colours = tuple(f.colour for f in COLOUR_DICE[str(values["colour_die"])] if f.colour)
        first = int((setup or {}).get("first_player", 0))
        if not 0 <= first < players:
            raise InvalidStateError(f"first_player must be 0..{players - 1}, not {first}")
        # RULES icedice.setup + icedice.players: one Rainbow Stash per player, all in the Bank.
        bank = sort_pieces((c, s) for c in colours for s in SIZES for _ in range(players))
        return IceDiceState(players, options_tuple(values), colours, bank, (),
                            tuple(() for _ in range(players)), current=first)

    def state_from_dict(self, data: Mapping[str, Any]) -> IceDiceState:
        try:
            players = int(data["players"])
            base = self.new_state(players, data.get("options"))

            def pieces(items: Any) -> tuple[Piece, ...]:
                out = []
                for text in items:
                    colour, size = str(text).split()
                    if colour not in base.colours or size not in SIZES:
                        raise ValueError(f"no such piece: {text!r}")
                    out.append((colour, size))
                return tuple(out)

            dice = data.get("dice")
            state = replace(
                base, bank=sort_pieces(pieces(data["bank"])), counter=pieces(data["counter"]),
                vaults=tuple(sort_pieces(pieces(v)) for v in data["vaults"]),
                current=int(data["current"]), phase=str(data["phase"]),
                dice=(str(dice[0]), str(dice[1])) if dice else None,
                winner=None if data.get("winner") is None else int(data["winner"]),
                turn=int(data.get("turn", 1)))
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise InvalidStateError(f"not an IceDice state: {exc}") from None
        everything = sorted(state.bank + state.counter + sum(state.vaults, ()))
        if everything != sorted(base.bank) or len(state.vaults) != players:
            raise InvalidStateError("IceDice state: the pieces do not add up to the stashes")
        if state.phase not in PHASES or not 0 <= state.current < players:
            raise InvalidStateError(f"IceDice state: bad phase or player ({state.phase!r})")
        return state

    # moves ------------------------------------------------------------------------------
    def parse_action(self, text: str) -> IceDiceAction:
        words = text.strip().split()
        if len(words) == 1 and words[0] in ("stop", "bust", "rainbow"):
            return Simple(words[0])
        if len(words) == 3 and words[0] == "roll":
            return Roll(words[1], words[2])
        if len(words) == 3 and words[0] == "take":
            return Take(words[1], words[2])
        if len(words) == 5 and words[0] == "steal" and words[3] == "from" \
                and words[4][:1] in "Pp" and words[4][1:].isdigit() and int(words[4][1:]) > 0:
            return Take(words[1], words[2], int(words[4][1:]) - 1)
        raise InvalidActionError(
            f"not an IceDice action: {text!r} (expected 'roll COLOUR SIZE', 'take COLOUR "
            "SIZE', 'steal COLOUR SIZE from P2', 'stop', 'bust' or 'rainbow')")

    def _roll_options(self, state: IceDiceState, roll: Roll) -> list[Piece]:
        """The pieces a roll lets the player choose between (RULES atom, pair)."""
        face = self._face(state, roll.colour)
        on_counter = {c for c, _ in state.counter}
        colours = [face.colour] if face.colour else [
            c for c in state.colours if c not in on_counter]
        return [(c, s) for c in colours for s in SIZE_FACES[roll.size]]

    @staticmethod
    def _face(state: IceDiceState, face: str) -> ColourFace:
        return next(f for f in colour_faces(state) if f.face == face)

    @staticmethod
    def _pending(state: IceDiceState) -> Roll:
        assert state.dice is not None
        return Roll(*state.dice)

    def _obtainable(self, state: IceDiceState, roll: Roll) -> list[Take]:
        takes: list[Take] = []
        choice = len(self._roll_options(state, roll)) > 1
        may_steal = choice or not state.option("steal_only_on_choice")
        for piece in self._roll_options(state, roll):
            if piece in state.bank:
                takes.append(Take(*piece))
            elif may_steal:  # RULES steal, steal_faq
                takes += [Take(*piece, source=p) for p in range(state.players)
                          if p != state.current and piece in state.vaults[p]]
        return takes

    def _rolls(self, state: IceDiceState) -> list[Roll]:
        return [Roll(c.face, s) for c, s in product(colour_faces(state), SIZE_FACES)]

    def legal_actions(self, state: IceDiceState) -> list[IceDiceAction]:
        phase = state.phase
        if phase == "roll":
            return list(self._rolls(state))
        if phase == "decide":
            return [STOP, *self._rolls(state)]
        if phase == "choose":
            return list(self._obtainable(state, self._pending(state)))
        if phase == "bust":
            return [BUST]
        if phase == "rainbow":
            return [RAINBOW]
        return []

    def chance_outcomes(self, state: IceDiceState) -> list[tuple[IceDiceAction, float]]:
        if state.phase not in ("roll", "decide"):
            return []
        rolls = self._rolls(state)
        return [(r, 1.0 / len(rolls)) for r in rolls]

    def check(self, state: IceDiceState, action: IceDiceAction) -> None:
        def fail(rule: str, detail: str) -> IllegalActionError:
            return IllegalActionError(RULES[f"icedice.{rule}"], detail)

        phase = state.phase
        if phase == "over":
            raise fail("game_over", f"P{(state.winner or 0) + 1} has already won")
        if isinstance(action, Roll):
            if action.colour not in {f.face for f in colour_faces(state)} \
                    or action.size not in SIZE_FACES:
                raise fail("roll", f"the dice have no faces {action.colour!r}/{action.size!r}")
            if phase == "choose":
                raise fail("take_rolled", "take the rolled piece before rolling again")
            if phase == "bust":
                raise fail("bust_return", "return the Counter to the Bank first")
            if phase == "rainbow":
                raise fail("rainbow", "move the Rainbow to the Vault first")
            return
        if isinstance(action, Simple):
            expected = {"stop": "decide", "bust": "bust", "rainbow": "rainbow"}[action.word]
            if phase != expected:
                rule = {"roll": "roll", "choose": "take_rolled", "decide": "roll_again",
                        "bust": "bust_return", "rainbow": "rainbow"}[phase]
                raise fail(rule, f"'{action.word}' is not possible now ({_PHASE_TEXT[phase]})")
            return
        # a Take
        if phase != "choose":
            rule = {"roll": "roll", "decide": "roll_again", "bust": "bust_return",
                    "rainbow": "rainbow"}[phase]
            raise fail(rule, f"no piece may be taken now ({_PHASE_TEXT[phase]})")
        roll = self._pending(state)
        options = self._roll_options(state, roll)
        if action.piece not in options:
            face = self._face(state, roll.colour)
            if face.colour is None and action.colour in {c for c, _ in state.counter}:
                raise fail("atom", f"{action.colour} is already on the Counter")
            if face.colour in (None, action.colour) and len(SIZE_FACES[roll.size]) > 1:
                raise fail("pair", f"the size die shows {roll.size}, not {action.size}")
            raise fail("take_rolled", f"the roll was {roll.colour} {roll.size}, not "
                       f"{action.colour} {action.size}")
        if action.source is None:
            if action.piece not in state.bank:
                raise fail("steal", f"no {action.colour} {action.size} is left in the Bank")
            return
        if action.source == state.current or not 0 <= action.source < state.players:
            raise fail("steal", f"P{action.source + 1} is not an opponent")
        if action.piece in state.bank:
            raise fail("steal_faq", f"the Bank still holds a {action.colour} {action.size}")
        if state.option("steal_only_on_choice") and len(options) == 1:
            raise fail("steal_only_on_choice", "the roll gave no choice")
        if action.piece not in state.vaults[action.source]:
            raise fail("steal", f"P{action.source + 1}'s Vault holds no "
                       f"{action.colour} {action.size}")

    def _apply(self, state: IceDiceState,
               action: IceDiceAction) -> tuple[IceDiceState, tuple[Event, ...]]:
        me = state.current
        if isinstance(action, Roll):
            rolled = replace(state, dice=(action.colour, action.size))
            colour = self._face(state, action.colour).colour
            if colour in {c for c, _ in state.counter}:  # RULES bust (wild never busts)
                return replace(rolled, phase="bust"), (Event(
                    "bust", f"P{me + 1} busts out: {action.colour} is already on the Counter",
                    me),)
            if self._obtainable(state, action):
                return replace(rolled, phase="choose"), ()
            if state.option("unobtainable_roll") == "bust" and state.counter:
                return replace(rolled, phase="bust"), (Event(
                    "bust", f"P{me + 1} cannot have any piece rolled: Bust Out", me),)
            # RULES own_vault: nothing for that roll, but may roll again
            return replace(rolled, phase="decide"), (Event(
                "nothing", f"P{me + 1} gets nothing for {action.colour} {action.size} and may "
                "roll again", me),)
        if isinstance(action, Take):
            counter = state.counter + (action.piece,)
            if action.source is None:
                after = replace(state, bank=remove_piece(state.bank, action.piece), counter=counter)
                events: tuple[Event, ...] = ()
            else:
                vaults = list(state.vaults)
                vaults[action.source] = remove_piece(vaults[action.source], action.piece)
                after = replace(state, vaults=tuple(vaults), counter=counter)
                events = (Event("steal", f"P{me + 1} steals {action.colour} {action.size} from "
                                f"P{action.source + 1}", me),)
            if {c for c, _ in counter} >= set(state.colours):  # RULES rainbow
                return replace(after, phase="rainbow"), events + (Event(
                    "rainbow", f"P{me + 1} completes a Rainbow", me),)
            return replace(after, phase="decide"), events
        if action.word == "bust":  # RULES bust_return, stolen_kept
            after = replace(state, bank=sort_pieces(state.bank + state.counter), counter=())
            return self._next_turn(after), (Event(
                "bust_return", f"P{me + 1} returns {len(state.counter)} pieces to the Bank",
                me),)
        # stop or rainbow: the Counter goes into the Vault (RULES stop, rainbow)
        vaults = list(state.vaults)
        vaults[me] = sort_pieces(vaults[me] + state.counter)
        after = replace(state, vaults=tuple(vaults), counter=())
        per_set = state.option("trios") == "per_set"
        if trios(vaults[me], per_set) >= 3:  # RULES goal
            return replace(after, phase="over", winner=me), (Event(
                "win", f"P{me + 1} wins with 3 monochrome Trios", me),)
        if action.word == "rainbow":
            return replace(after, phase="roll"), ()
        return self._next_turn(after), ()

    @staticmethod
    def _next_turn(state: IceDiceState) -> IceDiceState:
        return replace(state, current=(state.current + 1) % state.players, phase="roll",
                       turn=state.turn + 1)

    # results ------------------------------------------------------------------------------
    def score(self, state: IceDiceState) -> tuple[Score, ...]:
        per_set = state.option("trios") == "per_set"
        out = []
        for p, vault in enumerate(state.vaults):
            per_colour = tuple((f"{c} trios", trios(tuple(x for x in vault if x[0] == c),
                                                    per_set)) for c in state.colours)
            out.append(Score(p, trios(vault, per_set), per_colour))
        return tuple(out)

    def outcome(self, state: IceDiceState) -> Outcome | None:
        if state.winner is None:
            return None
        return Outcome((state.winner,), "3 monochrome Trios")

    def to_move(self, state: IceDiceState) -> int | None:
        return None if state.phase == "over" else state.current

    # what the camera sees ---------------------------------------------------------------------
    def expected_view(self, state: IceDiceState) -> View:
        objects = [_piece("bank", p) for p in state.bank]
        objects += [_piece("counter", p) for p in state.counter]
        for i, vault in enumerate(state.vaults):
            objects += [_piece(f"vault:{i}", p) for p in vault]
        if state.dice is not None:
            edition = str(state.option("colour_die"))
            objects.append(Expected.make("die", "rolling", type=f"icedice-colour-{edition}",
                                         face=state.dice[0]))
            objects.append(Expected.make("die", "rolling", type="icedice-size",
                                         face=state.dice[1]))
        return make_view(objects)

    def candidates(self, state: IceDiceState) -> Iterator[Candidate[IceDiceAction]]:
        """Legal actions, plus the physical moves players get wrong: any piece from the
        Bank to the Counter, any steal, a roll at the wrong moment, a stop or a return."""
        seen: set[IceDiceAction] = set()
        for action in self.legal_actions(state):
            seen.add(action)
            yield Candidate(action)
        if state.phase == "over":
            return
        wrong: list[IceDiceAction] = [Take(*p) for p in dict.fromkeys(state.bank)]
        for p in range(state.players):
            if p != state.current:
                wrong += [Take(*piece, source=p) for piece in dict.fromkeys(state.vaults[p])]
        if state.phase in ("choose", "bust", "rainbow"):
            wrong += self._rolls(state)
        if state.counter:
            wrong += [STOP, BUST]
        for action in wrong:
            if action not in seen:
                error = self.why_illegal(state, action)
                if error is not None:
                    yield Candidate(action, error)

    def view_after(self, state: IceDiceState, action: IceDiceAction) -> View:
        """The physical result of a move, legal or not."""
        if self.is_legal(state, action):
            return self.expected_view(self._apply(state, action)[0])
        if isinstance(action, Roll):
            return self.expected_view(replace(state, dice=(action.colour, action.size)))
        if isinstance(action, Take):
            if action.source is None:
                if action.piece not in state.bank:
                    return self.expected_view(state)
                moved = replace(state, bank=remove_piece(state.bank, action.piece))
            else:
                vaults = list(state.vaults)
                if action.piece not in vaults[action.source]:
                    return self.expected_view(state)
                vaults[action.source] = remove_piece(vaults[action.source], action.piece)
                moved = replace(state, vaults=tuple(vaults))
            return self.expected_view(replace(moved, counter=state.counter + (action.piece,)))
        if action.word == "bust":
            return self.expected_view(replace(state, bank=sort_pieces(state.bank + state.counter),
                                              counter=()))
        vaults = list(state.vaults)
        vaults[state.current] = sort_pieces(vaults[state.current] + state.counter)
        return self.expected_view(replace(state, vaults=tuple(vaults), counter=()))


def _piece(zone: str, piece: Piece) -> Expected:
    return Expected.make("piece", zone, colour=piece[0], size=piece[1])


_PHASE_TEXT = {
    "roll": "the turn starts with a roll",
    "choose": "the rolled piece must be taken",
    "decide": "roll again or stop",
    "bust": "the Counter must go back to the Bank",
    "rainbow": "the Rainbow must go to the Vault",
    "over": "the match is over",
}
