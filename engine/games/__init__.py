"""The games. Importing this package registers each of them."""

from engine.games import icedice  # noqa: F401,E402
