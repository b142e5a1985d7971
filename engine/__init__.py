"""The rules of the games: pure Python, standard library only."""

__version__ = "0.1.0"
