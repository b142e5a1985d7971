"""What ``engine.reconcile`` answers: the scored explanations of an observation and the
decision taken on them (``NoChange``, ``Accepted``, ``Ambiguous``, ``Violation``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.errors import Rule


@dataclass(frozen=True, slots=True)
class Explanation:
    """One explanation of an observation, scored."""

    actions: tuple[Any, ...]
    posterior: float
    log_likelihood: float
    error: Any = field(default=None, compare=False)  # IllegalActionError of the illegal step
    unseen: bool = False
    """a move that shows the table as it was: only its prior put it before no change"""
    hands_on: bool = False
    """an unseen move that ends the turn and not the game, left to the next move
    (Params.thrower_side)"""

    @property
    def legal(self) -> bool:
        return self.error is None

    def text(self) -> str:
        return "; ".join(a.to_str() for a in self.actions) or "no change"

    def to_dict(self) -> dict[str, Any]:
        return {"actions": [a.to_str() for a in self.actions], "posterior": self.posterior,
                "legal": self.legal, "rule": self.error.rule.id if self.error else None}


@dataclass(frozen=True, slots=True)
class NoChange:
    confidence: float
    carried: tuple[tuple[tuple[Any, ...], float], ...] = ()
    """moves that show nothing, left to the next move: each chain (the empty one: nothing
    happened) with its posterior among them, for the next reading while the record stays
    where it is (engine.carry; reconcile's ``carried``)"""

    def to_dict(self) -> dict[str, Any]:
        return {"type": "no_change", "confidence": self.confidence}


@dataclass(frozen=True, slots=True)
class Accepted:
    actions: tuple[Any, ...]
    confidence: float

    @property
    def action(self) -> Any:
        """The last action (the only one, unless a roll was not seen on its own)."""
        return self.actions[-1]

    def to_dict(self) -> dict[str, Any]:
        return {"type": "accepted", "actions": [a.to_str() for a in self.actions],
                "confidence": self.confidence}


@dataclass(frozen=True, slots=True)
class Ambiguous:
    candidates: tuple[Explanation, ...]
    confirm: str = ""
    """a yes/no question about what the camera cannot see of the one candidate (its actions'
    ``unseen_claim``): yes records the candidate, no records nothing; empty for the usual
    "which was it?" between candidates"""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "ambiguous",
                               "candidates": [c.to_dict() for c in self.candidates]}
        if self.confirm:
            out["confirm"] = self.confirm
        return out


@dataclass(frozen=True, slots=True)
class Violation:
    rule: Rule
    explanation: str
    actions: tuple[Any, ...] = ()
    confidence: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"type": "violation", "rule": self.rule.id, "rule_text": self.rule.text,
                "rule_source": self.rule.source, "explanation": self.explanation,
                "actions": [a.to_str() for a in self.actions], "confidence": self.confidence}


Resolution = NoChange | Accepted | Ambiguous | Violation
