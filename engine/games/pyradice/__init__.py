"""Pyradice: the game, its quarry and pyramid geometry, and the player-defined tokens and
objective cards (a vocabulary of rule shapes; A3 and C6 verified, the rest examples).

Importing this package registers the game (``get_game("pyradice")``).
"""

from engine.games.pyradice.errors import DefinitionError, SetupError
from engine.games.pyradice.game import Pyradice
from engine.games.pyradice.rules import INFO, OPTIONS, RULES
from engine.games.pyradice.skills import Use
from engine.games.pyradice.state import PyradiceState, Turn
from engine.games.pyradice.tokens import Sheet, example_sheet, parse_sheet
from engine.games.pyradice.vocabulary import Definition, parse_definition

__all__ = ["INFO", "OPTIONS", "RULES", "Definition", "DefinitionError", "Pyradice",
           "PyradiceState", "SetupError", "Sheet", "Turn", "Use", "example_sheet",
           "parse_definition", "parse_sheet"]
