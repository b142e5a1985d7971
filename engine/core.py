"""The contract every game implements, and the small value types they share.

A game is a set of pure functions over a frozen, JSON-serialisable state (the OpenSpiel /
boardgame.io shape): ``legal_actions``, ``apply`` (which validates, and raises
:class:`~engine.errors.IllegalActionError` naming the rule), ``score``, ``outcome`` and
``expected_view`` (what the camera should see). Dice rolls are *chance actions*: the camera
supplies the outcome, the engine checks it is possible and knows its probability.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from engine.errors import IllegalActionError, InvalidOptionError, Rule
from engine.observation import Observation, View

OptionValue = str | int | bool


@dataclass(frozen=True, slots=True)
class Option:
    """A named game option: a choice the rule text leaves open, or an optional rule.

    Attributes:
        name: stable identifier used in records and on the command line.
        default: the value used when the players say nothing.
        choices: the accepted values (``None``: any value of the default's type).
        doc: what the option does and why the default is what it is.
        provenance: ``rule text`` (an optional rule the text offers), ``INFERRED`` (our
            reading of the text), ``UNKNOWN`` (no source says; the default is our choice).
    """

    name: str
    default: OptionValue
    doc: str
    provenance: str
    choices: tuple[OptionValue, ...] | None = None
    minimum: int | None = None
    """lowest accepted value of a whole-number option"""

    def validate(self, value: object) -> OptionValue:
        if isinstance(self.default, bool):
            if not isinstance(value, bool):
                raise InvalidOptionError(f"option {self.name!r} takes true or false, not {value!r}")
        elif isinstance(self.default, int):
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidOptionError(
                    f"option {self.name!r} takes a whole number, not {value!r}")
        elif not isinstance(value, str):
            raise InvalidOptionError(f"option {self.name!r} takes a word, not {value!r}")
        if self.minimum is not None and isinstance(value, int) and value < self.minimum:
            raise InvalidOptionError(f"option {self.name!r} is at least {self.minimum}, "
                                     f"not {value!r}")
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(str(c) for c in self.choices)
            raise InvalidOptionError(f"option {self.name!r} is one of {allowed}, not {value!r}")
        return value


@dataclass(frozen=True, slots=True)
class GameInfo:
    """Declarative metadata of a game (OpenSpiel's GameType)."""

    name: str
    title: str
    min_players: int
    max_players: int | None
    """the most players the rules allow; None when they set no limit (IceDice)"""
    rules_source: str
    aliases: tuple[str, ...] = ()
    options: tuple[Option, ...] = ()

    def seats(self, players: int) -> bool:
        """Whether the rules allow this many players."""
        return self.min_players <= players and (self.max_players is None
                                                or players <= self.max_players)

    def players_text(self) -> str:
        """The player counts the rules allow, for people: ``2-4``, ``2 or more``."""
        if self.max_players is None:
            return f"{self.min_players} or more"
        return f"{self.min_players}-{self.max_players}"

    def option(self, name: str) -> Option:
        for opt in self.options:
            if opt.name == name:
                return opt
        known = ", ".join(o.name for o in self.options) or "none"
        raise InvalidOptionError(f"{self.name} has no option {name!r} (known: {known})")

    def resolve_options(self, given: Mapping[str, object] | None) -> dict[str, OptionValue]:
        """Every option's value: the given ones validated, the rest at their defaults."""
        if given is not None and not isinstance(given, Mapping):
            raise InvalidOptionError(f"options are a mapping of name to value, not {given!r}")
        given = dict(given or {})
        values = {opt.name: opt.default for opt in self.options}
        for name, value in given.items():
            values[name] = self.option(name).validate(value)
        return values


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened when an action was applied (a bust, a steal, a win...).

    Attributes:
        kind: stable machine name (``bust``, ``steal``, ``win``...).
        text: one human sentence for the phone and the log.
        player: the player concerned, if any (0-based).
    """

    kind: str
    text: str
    player: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text, "player": self.player}


@dataclass(frozen=True, slots=True)
class Score:
    """One player's score with its breakdown per scoring rule (name, points)."""

    player: int
    total: int
    breakdown: tuple[tuple[str, int], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"player": self.player, "total": self.total,
                "breakdown": [{"rule": r, "points": p} for r, p in self.breakdown]}


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a match: who won (several when shared) and why."""

    winners: tuple[int, ...]
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"winners": list(self.winners), "reason": self.reason}


class Action(Protocol):
    """What every game's action values provide (they are frozen dataclasses)."""

    @property
    def is_chance(self) -> bool:
        """True for an outcome of chance (a roll): the camera supplies it."""
        ...

    def to_str(self) -> str:
        """The action's text form; ``game.parse_action`` reads it back."""
        ...


class Decision:
    """Base of the actions a player decides (``is_chance`` False)."""

    __slots__ = ()
    is_chance: ClassVar[bool] = False
    throws_dice: ClassVar[bool] = False
    """True for a decision that throws dice and carries what they showed (see ThrowDecision)"""

    @property
    def unseen_claim(self) -> str | None:
        """What this action states that no camera can see, as a yes/no question for the
        players (Pyramid Dice: that the players before a snatcher said nothing), or None.
        reconcile asks it rather than accept the action on the camera's word alone."""
        return None


class ThrowDecision(Decision):
    """A decision that throws dice, carrying the outcome, such as a re-roll with a card: the
    camera sees the decision and the dice landing at once. Each outcome is its own action,
    but they are one decision (``decision``) whose outcomes have chance probabilities
    (``outcome_probability``): reconcile weighs them like a roll."""

    __slots__ = ()
    throws_dice: ClassVar[bool] = True

    @property
    def decision(self) -> str:
        """What the player decided, without the outcome (the same for every outcome)."""
        raise NotImplementedError

    @property
    def outcome_probability(self) -> float:
        """The chance of this outcome, given the decision."""
        raise NotImplementedError


class ChanceOutcome:
    """Base of the actions chance decides, such as a roll (``is_chance`` True)."""

    __slots__ = ()
    is_chance: ClassVar[bool] = True
    throws_dice: ClassVar[bool] = True


def throws_dice(action: Any) -> bool:
    """Whether the players throw dice for this action: a roll, and a re-roll with a card
    (a decision carrying its outcome), land anew; a die turned by hand stays put."""
    return bool(getattr(action, "throws_dice", action.is_chance))


class State(Protocol):
    """What every game's state values provide (they are frozen dataclasses)."""

    @property
    def players(self) -> int: ...

    @property
    def options(self) -> tuple[tuple[str, OptionValue], ...]: ...

    def to_dict(self) -> dict[str, Any]: ...

    def option(self, name: str) -> OptionValue: ...


S = TypeVar("S", bound=State)
A = TypeVar("A", bound=Action)


@dataclass(frozen=True, slots=True)
class Candidate(Generic[A]):
    """A possible explanation of a change on the table: an action and its legality."""

    action: A
    error: IllegalActionError | None = field(default=None, compare=False)

    @property
    def legal(self) -> bool:
        return self.error is None


class Game(ABC, Generic[S, A]):
    """The rules of one game. Subclasses are stateless; every method is pure."""

    info: ClassVar[GameInfo]
    rules: ClassVar[Mapping[str, Rule]]

    # --- setup and serialisation -------------------------------------------------------
    @abstractmethod
    def new_state(self, players: int, options: Mapping[str, object] | None = None, *,
                  setup: Mapping[str, Any] | None = None, seed: int | None = None) -> S:
        """The state at the start of a match.

        Args:
            players: number of players.
            options: named options (see ``info.options``); missing ones take their default.
            setup: game-specific setup data the players entered (e.g. a card layout).
            seed: used only where the setup is random and not given (e.g. a shuffle).
        """

    @abstractmethod
    def state_from_dict(self, data: Mapping[str, Any]) -> S:
        """Load a state written by ``state.to_dict()``; raises InvalidStateError."""

    # --- moves --------------------------------------------------------------------------
    @abstractmethod
    def legal_actions(self, state: S) -> list[A]:
        """Every legal action, chance outcomes included, in a stable order."""

    @abstractmethod
    def check(self, state: S, action: A) -> None:
        """Raise IllegalActionError (with the rule) when ``action`` is not legal in ``state``."""

    @abstractmethod
    def _apply(self, state: S, action: A) -> tuple[S, tuple[Event, ...]]:
        """Apply an action already known to be legal."""

    @abstractmethod
    def parse_action(self, text: str) -> A:
        """Read an action's text form; raises InvalidActionError."""

    def apply(self, state: S, action: A) -> tuple[S, tuple[Event, ...]]:
        """The state after ``action`` and what happened; raises IllegalActionError."""
        self.check(state, action)
        return self._apply(state, action)

    def after(self, state: S, action: A) -> S:
        """The state after an action already known to be legal, without what happened
        (reconcile weighs every candidate move and records none of them; a game whose
        events cost much to tell overrides this to skip them)."""
        return self._apply(state, action)[0]

    def is_legal(self, state: S, action: A) -> bool:
        return self.why_illegal(state, action) is None

    def why_illegal(self, state: S, action: A) -> IllegalActionError | None:
        try:
            self.check(state, action)
        except IllegalActionError as exc:
            return exc
        return None

    def chance_outcomes(self, state: S) -> list[tuple[A, float]]:
        """The legal chance actions with their probabilities (they sum to 1, or list is empty)."""
        return []

    def to_move(self, state: S) -> int | None:
        """Whose decision it is (0-based), or None when the match is over."""
        return None if self.outcome(state) is not None else int(getattr(state, "current", 0))

    # --- results ------------------------------------------------------------------------
    @abstractmethod
    def score(self, state: S) -> tuple[Score, ...]:
        """Every player's score with its breakdown."""

    @abstractmethod
    def outcome(self, state: S) -> Outcome | None:
        """The result when the match is over, else None."""

    # --- what the camera sees -------------------------------------------------------------
    @abstractmethod
    def expected_view(self, state: S) -> View:
        """What the camera should see in this state, zone by zone."""

    def candidates(self, state: S) -> Iterable[Candidate[A]]:
        """Explanations to weigh against an observation: every legal action, plus the
        physically plausible illegal ones (so that a violation can be named). Games extend
        this with their typical mistakes."""
        for action in self.legal_actions(state):
            yield Candidate(action)

    follow_unseen: ClassVar[bool] = False
    """Legal decisions that change nothing the camera reads (Quarriors: 'attack', a defender
    that holds, 'done' culling) are told by the next move that shows: reconcile extends
    chains of up to three of them by one more action, as it does a roll, and a reading that
    shows only such a decision is left to that next move (NoChange), not asked."""

    def observed_chance(self, state: S, observation: Observation) -> list[tuple[A, ...]]:
        """Runs of chance outcomes read off ``observation``, for a game whose pending chance
        has too many outcomes to list one by one (Quarriors: six dice drawn out of a hidden
        bag and rolled together): reconcile scores each run, the chance of each of its
        outcomes as its prior, like any other explanation; a run that is not possible is
        dropped. Default: none (every outcome is one of ``chance_outcomes``)."""
        return []

    def view_after(self, state: S, action: A) -> View:
        """What the camera would see after ``action``, legal or not (a physical move)."""
        return self.expected_view(self._apply(state, action)[0])

    # --- convenience ----------------------------------------------------------------------
    def random_action(self, state: S, rng: random.Random) -> A:
        """A random legal action, the decision to roll first and then the roll's outcome
        drawn with its probability (so playouts look like real matches)."""
        legal = self.legal_actions(state)
        if not legal:
            raise IllegalActionError(_NO_ACTION_RULE, "no legal action: the match is over")
        decisions: list[A | None] = [a for a in legal if not a.is_chance]
        outcomes = self.chance_outcomes(state)
        if outcomes:
            decisions.append(None)
        pick = rng.choice(decisions)
        if pick is not None:
            return pick
        actions = [a for a, _ in outcomes]
        weights = [p for _, p in outcomes]
        return rng.choices(actions, weights=weights, k=1)[0]

    def play(self, state: S, texts: Sequence[str]) -> S:
        """Apply actions given in text form, one after the other (tests and examples)."""
        for text in texts:
            state, _ = self.apply(state, self.parse_action(text))
        return state


_NO_ACTION_RULE = Rule("core.game_over", "No action is possible once the match is over.",
                       "engine")


def options_tuple(values: Mapping[str, OptionValue]) -> tuple[tuple[str, OptionValue], ...]:
    """Options in the canonical (sorted, hashable) form states keep them in."""
    return tuple(sorted(values.items()))


def option_of(options: tuple[tuple[str, OptionValue], ...], name: str) -> OptionValue:
    for key, value in options:
        if key == name:
            return value
    raise InvalidOptionError(f"no option {name!r} in this state")
