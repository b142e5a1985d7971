"""The rules of Pyradice as data: each rule's stable id, quoted sentence and source, and the
named options for what the rulebook leaves open.

Sources: the rulebook (shared/rules/pyradice-rulebook.txt, by section) and the deductions of
shared/data/games/README.md (section Pyradice), marked INFERRED there and here.
"""

from __future__ import annotations

from engine.core import GameInfo, Option
from engine.errors import Rule

SOURCE = "shared/rules/pyradice-rulebook.txt"
FACTS = "shared/data/games/README.md#Pyradice"


def _r(name: str, text: str, section: str) -> Rule:
    if section.startswith(("option:", "engine", "shared/")):
        source = section
    else:
        source = f"{SOURCE}#{section}"
    return Rule(f"pyradice.{name}", " ".join(text.split()), source)


RULES: dict[str, Rule] = {r.id: r for r in (
    # --- setup -------------------------------------------------------------------------
    _r("players", "To play with 3 or 4 players, a second copy of Pyradice is needed.",
       "GAME FOR 3 OR 4 PLAYERS"),
    _r("quarry_2p", "Place the Quarry Board in the center of the table with the 2-player "
       "symbol facing up.", "GAME SETUP 1"),
    _r("quarry_layers", "Place the dice on the grid of the Quarry Board in 3 layers as shown "
       "in the image.", "GAME SETUP 2"),
    _r("random_dice", "The value and color of each die is determined randomly.",
       "GAME SETUP 2"),
    _r("rests_on_four", "Each die must be on top of 4 other dice, except for the bottom "
       "layer.", "GAME SETUP 2"),
    _r("remaining_die", "Return the remaining die to the game box.", "GAME SETUP 2"),
    _r("quarry_3_4p", "Place a Quarry Board (with the 3/4 player side facing up) in the "
       "center of the table.", "GAME FOR 3 OR 4 PLAYERS"),
    _r("two_copies_dice", "Use all the dice from the two games.", "GAME FOR 3 OR 4 PLAYERS"),
    _r("rest_same", "Only the preparation of the quarry is different, the rest of the game "
       "remains the same, with turns alternating between the players and ending when the "
       "pyramids are complete.", "GAME FOR 3 OR 4 PLAYERS"),
    _r("matching_set", "All players take a matching set of 5 Skill Tokens (blue) and 7 "
       "Objective Tokens (orange). A player may not have any duplicate tokens.",
       "GAME SETUP 4"),
    _r("skill_recess", "The letter and the number on the token must match the recess where "
       "it is placed.", "GAME SETUP 5"),
    _r("token_side", "Choose which side of each token you would like to play. Or, choose "
       "randomly.", "GAME SETUP 5"),
    _r("objective_slots", "The numbers can go in any of the available slots.",
       "GAME SETUP 6"),
    _r("objective_remaining", "Return the 2 remaining Objective Tokens to the game box, they "
       "won't be needed.", "GAME SETUP 6"),
    _r("same_tokens", "Both players must place exactly the SAME tokens on their board in the "
       "same order.", "GAME SETUP 5"),
    _r("identical_boards", "All players' Pyramid Boards should be exactly the same.",
       "GAME SETUP 6"),
    _r("objective_cards", "Randomly choose 4 Objective Cards (or choose the ones you like "
       "best) and place them within view of all players.", "GAME SETUP 7"),
    _r("discs", "Randomly place a colored disk on each Objective Card.", "GAME SETUP 7"),
    _r("first_player", "Each player rolls a die. Whoever gets the highest value is the first "
       "player.", "GAME SETUP 8"),
    _r("pyramid_shape", "A pyramid holds 21 dice: levels of 6, 5, 4, 3, 2, 1 (INFERRED from "
       "21 = 6+5+4+3+2+1 and \"a free space immediately above 2 dice\").", FACTS),
    _r("skill_levels", "Skill tokens sit on levels 2–6 (none on level 1), one per level: ids "
       "A2..A6, the other side B2..B6.", FACTS),
    _r("objective_levels", "Objective tokens: 5 of the 7 (C1..C7, other side D1..D7) are "
       "placed, one per level, apparently levels 1–5 (INFERRED: the example puts C6 on level "
       "1).", FACTS),
    # --- a turn ----------------------------------------------------------------------------
    _r("turns", "All players take alternating turns, starting with the 1st player, until the "
       "pyramids are fully built and the game ends", "PLAYER TURNS"),
    _r("take", "Remove an available die from the Quarry Board.", "1st - TAKE A DIE"),
    _r("available", "A die is available when it has at least 3 visible faces (see below "
       "example).", "1st - TAKE A DIE"),
    _r("visible", "A face is visible if it is not covered by another die.",
       "1st - TAKE A DIE"),
    _r("covered_faces", "a die is available when at least 3 of its faces are not covered by "
       "another die (so at the start only the 4 corners of the top layer are available)",
       FACTS),
    _r("start_choices", "At the start of the game, the 1st player has only 4 choices to draw "
       "a die from the Pyramid (indicated in green).", "1st - TAKE A DIE"),
    _r("place_unchanged", "Place the die you have taken (without changing its number!)",
       "2nd - PLACE THE DIE"),
    _r("place_level1", "either on an empty space on level 1 of your pyramid (the lowest "
       "level)", "2nd - PLACE THE DIE"),
    _r("place_above", "in a free space immediately above 2 dice that have already been "
       "placed.", "2nd - PLACE THE DIE"),
    _r("no_skill_level1", "There are no Skills in the 1st level.", "3rd - USE A SKILL"),
    _r("skill_level", "When you place a die in your pyramid at a level that has a Skill, you "
       "can use that Skill on other dice in your pyramid.", "3rd - USE A SKILL"),
    _r("skill_sheet", "The Token Reference Sheet has more details about how to use each "
       "Skill.", "3rd - USE A SKILL"),
    _r("not_placed_die", "You can never use a Skill on the die you have just placed.",
       "3rd - USE A SKILL"),
    _r("skill_now", "You are not obliged to use the Skill, but if you do, it must be done "
       "immediately. It cannot be saved for a future turn.", "3rd - USE A SKILL"),
    _r("one_skill", "You can only use ONE Skill per turn.", "3rd - USE A SKILL"),
    _r("a3", "The player has placed a die on the 3rd level, which allows them to use the "
       "Skill A3 - rotate a die 180°.", "3rd - USE A SKILL (example)"),
    _r("rotate", "They choose a die that is on the 1st level, rotating it 180°. It changes "
       "from a value of 2 to a value of 5", "3rd - USE A SKILL (example)"),
    _r("c6", "indicated by the Objective Token C6. In this case, to only have dice with a "
       "value of 3 and/or 5 on the 1st level.", "3rd - USE A SKILL (example)"),
    # --- end and scoring -----------------------------------------------------------------------
    _r("end", "When all the pyramids are complete (with 21 dice), the game ends.",
       "END OF GAME AND SCORING"),
    _r("objective_met", "For each level of your Pyramid, check if all dice meet the "
       "requirements of the Objective Token", "END OF GAME AND SCORING 1"),
    _r("objective_vp", "Each Objective Token met is worth 5 Victory Points.",
       "END OF GAME AND SCORING 1"),
    _r("card_colour", "Objective Cards only score the dice matching the disc color on the "
       "card.", "END OF GAME AND SCORING 2"),
    _r("card_rule", "The card describes how these dice are scored.",
       "END OF GAME AND SCORING 2"),
    _r("total", "Add the scores for each player together and place them in the (Σ) row. The "
       "player with the most Victory Points wins the game.", "END OF GAME AND SCORING"),
    _r("tie", "If there is a tie, the player with the most Objective Tokens completed is the "
       "winner. If the tie persists, the tied players share the victory.",
       "END OF GAME AND SCORING"),
    _r("game_over", "No action is possible once the game is over.", "engine"),
)}

OPTIONS: tuple[Option, ...] = (
    Option("quarry_2p", "5x5,4x4,3x3",
           "The quarry's three layers for 2 players, bottom first, as ROWSxCOLS; each upper "
           "layer is centred on the one below, every die on 4 dice. The rulebook's picture is "
           "missing. Default 50 dice: the top layer's corners give the '4 choices' at the "
           "start, and with one die left in the box ('Return the remaining die') a box of 51 "
           "dice also fits the 3–4 player default.", "UNKNOWN"),
    Option("quarry_3_4p", "7x6,6x5,5x4",
           "The quarry's three layers for 3 or 4 players (the 3/4 side of the board, 'all the "
           "dice from the two games'). Default 92 dice: at least 84 for 4 players and at most "
           "two boxes of 51. The picture is missing.", "UNKNOWN"),
    Option("colours", "red,yellow,green,blue",
           "The dice colours, comma-separated. The rulebook names none; 4 colours match the 4 "
           "Objective Cards with one coloured disc each.", "UNKNOWN"),
    Option("objective_levels", "1-5",
           "Which levels hold the 5 objective tokens: '1-5' (the example puts C6 on level 1 "
           "and level 6 holds a single die) or '2-6'.", "INFERRED", ("1-5", "2-6")),
)

INFO = GameInfo(
    name="pyradice",
    title="Pyradice",
    min_players=2,
    max_players=4,
    rules_source=SOURCE,
    aliases=("pyra dice", "pyra-dice"),
    options=OPTIONS,
)
