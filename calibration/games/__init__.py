"""The games' perception specs (what each game is to the camera), one module per game, each
registering itself on import as the engine's games do; ``calibration.perception.perception
("icedice")`` finds them. A new game's perception is one module here plus its data (layout,
die types).
"""

from calibration.games import icedice, pyradice, pyramid_dice, quarriors  # noqa: F401
