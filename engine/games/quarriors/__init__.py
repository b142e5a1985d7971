"""Quarriors! (WizKids), base set: the rules engine. See ``game.py`` for the turn, ``rules.py``
for the quoted rules and named options, ``cards.py`` for the cards played and not yet played,
``make_data.py`` for where ``data/base.json`` comes from."""

from engine.games.quarriors.cards import CARDS, NOT_IMPLEMENTED
from engine.games.quarriors.game import Quarriors
from engine.games.quarriors.rules import OPTIONS, RULES
from engine.games.quarriors.state import QuarriorsState

__all__ = ["CARDS", "NOT_IMPLEMENTED", "OPTIONS", "RULES", "Quarriors", "QuarriorsState"]
