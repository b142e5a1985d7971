"""The games' perception specs (what each game is to the camera), registered by name as the
engine's games are: ``perception("icedice")``. Importing this package registers them; a new
game's perception is one module here plus its data (layout, die types).
"""

from calibration.games import icedice, pyradice, pyramid_dice, quarriors  # noqa: F401
from calibration.games.spec import Perception, perception, registered

__all__ = ["Perception", "perception", "registered"]
