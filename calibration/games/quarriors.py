"""Quarriors! to the camera: its catalogued dice (18 types, shared/data/games), read where
they lie; its zones are the layout's. No rules engine yet: `read --game quarriors` reads its
dice."""

from calibration.perception import Perception, register
from vision.dietypes import game_types

SPEC = register(Perception("quarriors", die_types=game_types("quarriors")))
