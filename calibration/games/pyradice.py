"""Pyradice to the camera: coloured d6 in the quarry's three stacked layers and on each
player's pyramid board. Only the quarry dice whose top is uncovered count (the rules list
no other): a die seen round the edge of one resting on it is covered."""

from calibration.games.spec import Perception, register

SPEC = register(Perception(
    "pyradice",
    dice_zones=("quarry", "board:*"),
    hide_covered=True,
))
