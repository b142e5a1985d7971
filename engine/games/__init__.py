"""The games. Importing this package registers each of them."""

import engine.games.pyramid_dice  # noqa: F401
from engine.games import icedice  # noqa: F401,E402
import engine.games.pyradice  # noqa: F401,E402
