"""Games by name: ``get_game("icedice")``. Each game module registers itself on import."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from engine.core import Game
from engine.errors import UnknownGameError

_GAMES: dict[str, Game[Any, Any]] = {}
_ALIASES: dict[str, str] = {}

G = TypeVar("G", bound=type[Game[Any, Any]])

def _key(name: str) -> str:
    return "".join(ch for ch in name.casefold() if ch.isalnum())

def register(cls: G) -> G:
    """Class decorator: make a game findable by its name and aliases."""
    game = cls()
    _GAMES[game.info.name] = game
    for alias in (game.info.name, game.info.title, *game.info.aliases):
        _ALIASES[_key(alias)] = game.info.name
    return cls

def _load() -> None:
    import engine.games  # noqa: F401  (importing registers the games)

def get_game(name: str) -> Game[Any, Any]:
    """The game registered as ``name`` (case, spaces and dashes ignored)."""
    _load()
    try:
        return _GAMES[_ALIASES[_key(name)]]
    except KeyError:
        known = ", ".join(sorted(_GAMES))
        raise UnknownGameError(f"unknown game {name!r} (known: {known})") from None

def all_games() -> list[Game[Any, Any]]:
    """Every registered game, by name."""
    _load()
    return [_GAMES[n] for n in sorted(_GAMES)]

Factory = Callable[[], Game[Any, Any]]
