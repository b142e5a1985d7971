"""Errors raised by the engine.

All of them are :class:`EngineError`; the ones about bad input are also ``ValueError``
(the python-chess pattern), so callers that only care about "bad value" can catch that.
Each carries a stable ``code`` that the HTTP layer and the CLI show as is.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule of a game, quoted from its rule text.

    Attributes:
        id: stable id, ``<game>.<name>`` (e.g. ``icedice.bust``); never renamed once shipped.
        text: the sentence of the rule text this rule enforces (quoted, or the option's doc
            when the rule comes from a named option rather than the rule text).
        source: where the text comes from (file and section, or ``option:<name>``).
    """

    id: str
    text: str
    source: str


class EngineError(Exception):
    """Base of every error the engine raises.

    An error about one field of what was entered (a card's ``number``, a sheet row's
    ``shape``) says which: ``path`` (``("cards", 3, "number")``: keys and list indices from
    the outermost) and ``field_message`` (what is wrong with that field, without saying
    where); :meth:`at` sets them as the error travels up (each level adds its own key).
    """

    code = "engine/error"
    path: tuple[str | int, ...] = ()
    field_message: str | None = None

    def at(self, *path: str | int, message: str | None = None) -> EngineError:
        """This error, about the field ``path`` below what the caller has already named
        (prepended to the path it has); ``message``: the field's own message."""
        self.path = tuple(path) + self.path
        if message is not None:
            self.field_message = message
        return self


class InvalidActionError(EngineError, ValueError):
    """An action's text does not parse, or names something the game does not have."""

    code = "action/invalid"


class IllegalActionError(EngineError, ValueError):
    """A well-formed action that the rules forbid in this state.

    Attributes:
        rule: the rule that forbids it (id, quoted text, source).
        detail: what exactly is wrong, in this state.
    """

    code = "action/illegal"

    def __init__(self, rule: Rule, detail: str) -> None:
        super().__init__(f"{detail} [{rule.id}: {rule.text}]")
        self.rule = rule
        self.detail = detail


class InvalidStateError(EngineError, ValueError):
    """A state or record that cannot be loaded (malformed JSON, impossible counts...)."""

    code = "state/invalid"


class InvalidOptionError(EngineError, ValueError):
    """An unknown game option, or a value the option does not accept."""

    code = "option/invalid"


class UnknownGameError(EngineError, ValueError):
    """No game is registered under that name."""

    code = "game/unknown"


class AmbiguousObservationError(EngineError, ValueError):
    """An observation that several explanations fit equally well (raised by strict callers)."""

    code = "observation/ambiguous"
