"""The games. Importing this package registers each of them."""

from engine.games import icedice  # noqa: F401,E402
from engine.games import pyramid_dice  # noqa: F401,E402
