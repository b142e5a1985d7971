"""The rules of the games: pure Python, standard library only.

>>> from engine import get_game
>>> game = get_game("icedice")
>>> state = game.new_state(2)
>>> state = game.play(state, ["roll red S"])
>>> [a.to_str() for a in game.legal_actions(state)]
['take red S']
"""

__version__ = "0.1.0"

from engine.core import Event, Game, GameInfo, Option, Outcome, Score  # noqa: E402
from engine.errors import (  # noqa: E402
    AmbiguousObservationError,
    EngineError,
    IllegalActionError,
    InvalidActionError,
    InvalidOptionError,
    InvalidStateError,
    Rule,
    UnknownGameError,
)
from engine.match import Match  # noqa: E402
from engine.observation import Expected, Observation, Observed, View  # noqa: E402
from engine.reconcile import reconcile  # noqa: E402
from engine.registry import all_games, get_game  # noqa: E402
from engine.resolution import (  # noqa: E402
    Accepted,
    Ambiguous,
    NoChange,
    Resolution,
    Violation,
)

__all__ = [
    "Accepted", "Ambiguous", "AmbiguousObservationError", "EngineError", "Event", "Expected",
    "Game", "GameInfo", "IllegalActionError", "InvalidActionError", "InvalidOptionError",
    "InvalidStateError", "Match", "NoChange", "Observation", "Observed", "Option", "Outcome",
    "Resolution", "Rule", "Score", "UnknownGameError", "View", "Violation",
    "all_games", "get_game", "reconcile",
]
