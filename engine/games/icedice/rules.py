"""IceDice rules quoted from the rule text, and the named options for what it leaves open."""

from __future__ import annotations

from engine.core import (
    GameInfo,
    Option,
)
from engine.errors import (
    Rule,
)

SOURCE = "shared/rules/icedice-rules.txt"
FACTS = "shared/data/games/README.md#IceDice"


def _r(rule_id: str, text: str, source: str = SOURCE) -> Rule:
    return Rule(f"icedice.{rule_id}", text, source)


RULES: dict[str, Rule] = {r.id: r for r in (
    _r("setup", "Stack up all the pyramids in the Bank, sorted by size and color."),
    _r("number_of_players", "Number of Players: 2 (although more can play if you have extra "
       "pyramids)"),
    _r("players", "You will need to add an extra Rainbow Stash for each player who wishes "
       "to join the game."),
    _r("first_player", "Whoever is holding the dice goes first."),
    _r("roll", "On your turn, roll both dice."),
    _r("take_rolled", "Choose a piece of the size and color indicated, take it from the "
       "Bank, and place it on the Counter."),
    _r("atom", "If you roll the Atom, choose any color you don't already have on the "
       "Counter."),
    _r("pair", "If the pyramid die shows a pair of pyramids, choose between the two sizes "
       "shown."),
    _r("roll_again", "You may continue rolling and moving pieces to the Counter until you "
       "either decide to stop, or Bust Out."),
    _r("bust", "You Bust Out as soon as you roll the same color as a piece on the Counter."),
    _r("bust_return", "If you Bust Out, all pieces on the Counter are returned to the Bank"),
    _r("stop", "if you decide to stop, the pieces go into your Vault."),
    _r("steal", "If the piece you rolled is not in the Bank, you must steal it from an "
       "opponent's Vault."),
    _r("stolen_kept", "(Stolen pieces are NOT returned to their former owners if you Bust "
       "Out.)"),
    _r("steal_choice", "If your roll gives you options, it's OK to make a choice that will "
       "require stealing even if the Bank contains the other pyramids you could choose."),
    # Not the FAQ's word (that reading could not be re-checked): the rule text's steal
    # sentences and the FAQ reading agree on it (shared/data/games/README.md, IceDice).
    _r("steal_faq", "If the rolled piece is in the Bank it is taken from the Bank (both "
       "readings agree).", FACTS),
    _r("own_vault", "If your Vault already contains all the pyramids of the size & color "
       "you rolled, you get nothing for that roll, but may roll again."),
    _r("rainbow", "If you collect all 5 colors without Busting Out, you get to move them to "
       "your Vault and continue rolling as if your turn just started!"),
    _r("goal", "You win by collecting 3 monochrome Trios. (Other pyramids in your Vault are "
       "irrelevant.)"),
    _r("game_over", "The match is over once a player has won.", "engine"),
    _r("steal_only_on_choice", "Option steal_only_on_choice (a FAQ reading, UNCERTAIN): "
       "stealing is allowed only when the roll gave a choice (pair face or wild).",
       "option:steal_only_on_choice"),
    _r("unobtainable_bust", "Option unobtainable_roll=bust: a roll whose piece cannot be had "
       "ends the turn as a Bust Out.", "option:unobtainable_roll"),
)}

OPTIONS = (
    Option("colour_die", "rainbow",
           "Which colour die (and pyramid colours) the box has: 'rainbow' (five colours and "
           "the Atom) or 'suits' (later printings: card suits and a star; cyan and purple in "
           "place of blue and black).", "VERIFIED (both editions exist)", ("rainbow", "suits")),
    Option("steal_only_on_choice", False,
           "Default false is the rule text: 'If the piece you rolled is not in the Bank, you "
           "must steal it from an opponent's Vault.' - whether or not the roll gave a choice. "
           "true is a FAQ reading that could not be re-checked (UNCERTAIN): steal only when "
           "the roll gave a choice (pair face or wild) and the option chosen is not in the "
           "Bank. Either way a rolled piece that is in the Bank is taken from the Bank (both "
           "readings agree).",
           "rule text (default); the FAQ reading is UNCERTAIN (shared/data/games/README.md)"),
    Option("unobtainable_roll", "roll_again",
           "A roll whose piece can be had neither from the Bank nor by stealing. The rule text "
           "covers your own Vault holding them all: 'you get nothing for that roll, but may "
           "roll again'; 'roll_again' extends that to every such roll, 'bust' ends the turn as "
           "a Bust Out.", "UNKNOWN", ("roll_again", "bust")),
    Option("trios", "per_set",
           "How trios count: 'per_set' counts each Small+Medium+Large of one colour (two red "
           "trios count twice); 'per_colour' counts at most one trio per colour.",
           "INFERRED", ("per_set", "per_colour")),
)

INFO = GameInfo(
    name="icedice",
    title="IceDice",
    min_players=2,
    max_players=None,  # RULES number_of_players: no limit, one Rainbow Stash per player
    rules_source=SOURCE,
    aliases=("ice dice", "ice-dice"),
    options=OPTIONS,
)
