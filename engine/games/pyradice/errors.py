"""The errors of a Pyradice setup: all are InvalidStateError (code ``setup/invalid``)."""

from __future__ import annotations

from engine.errors import InvalidStateError, Rule


class SetupError(InvalidStateError):
    """A setup the rules do not allow, or player-entered data that cannot be used.

    Attributes:
        rule: the rule the setup breaks, when it breaks one (None: the data is malformed).
    """

    code = "setup/invalid"

    def __init__(self, detail: str, rule: Rule | None = None) -> None:
        super().__init__(f"{detail} [{rule.id}: {rule.text}]" if rule else detail)
        self.rule = rule


class DefinitionError(SetupError):
    """A token or card definition the players entered that cannot be used."""


class QuarryError(SetupError):
    """A quarry shape or content that cannot be used."""
