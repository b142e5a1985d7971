"""The games. Importing this package registers each of them."""

from engine.games import icedice, pyradice, pyramid_dice, quarriors  # noqa: F401
