"""Pyramid Dice (ピラミッド・ダイス): the game, its solver and its player-entered card data.

Importing this package registers the game (``get_game("pyramid dice")``).
"""

from engine.games.pyramid_dice.game import INFO, PyramidDice
from engine.games.pyramid_dice.rules import OPTIONS, RULES
from engine.games.pyramid_dice.solver import gains, reachable
from engine.games.pyramid_dice.state import PyramidState

__all__ = ["INFO", "OPTIONS", "RULES", "PyramidDice", "PyramidState", "gains", "reachable"]
