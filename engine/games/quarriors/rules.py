"""Quarriors! rules quoted from the rulebook, and the named options for what it leaves open.

Every rule the engine enforces is here with the sentence of shared/rules/quarriors-rulebook.txt
it follows (tests/engine/test_rule_quotes.py checks each quote word for word); facts from
shared/data/games/README.md (FAQ rulings, counts) cite that file; card effects quote the card
text in cards.py's data.
"""

from __future__ import annotations

from engine.core import GameInfo, Option
from engine.errors import Rule

SOURCE = "shared/rules/quarriors-rulebook.txt"
FACTS = "shared/data/games/README.md#Quarriors"


def _r(rule_id: str, text: str, source: str = SOURCE) -> Rule:
    return Rule(f"quarriors.{rule_id}", text, source)


RULES: dict[str, Rule] = {r.id: r for r in (
    _r("players", "For 2 to 4 players, ages 14 and up"),
    _r("setup_basic", "Put 2 Assistant Dice on the Assistant Card and 5 Portal Dice on the "
       "Portal Card."),
    _r("setup_classes", "Keep turning over cards until there are 7 different classes of "
       "Creature Cards in the Wilds. Then, shuffle the Spell Cards and repeat the process until "
       "there are 3 different classes of Spell Cards in the Wilds."),
    _r("setup_dice", "Find the 5 Quarry dice that match the color of each Creature Card and "
       "Spell Card in the Wilds."),
    _r("setup_bags", "Give each player 8 Basic Quiddity Dice and 4 Assistant Dice."),
    _r("basic_quiddity_empty", "the Basic Quiddity card starts empty (culled Basic Quiddity "
       "dice go there; capturing one costs 0).", FACTS),
    _r("phases", "Your turn is divided into 5 phases, which you must complete in this order:"),
    _r("score", "If you have any Creatures in your Ready Area, you must score them now."),
    _r("score_move", "Next, you must move all Creature Dice (and Spells attached to them) from "
       "your Ready Area to your Used Pile."),
    _r("no_attach_phase1", "You are not allowed to attach spells in this phase."),
    _r("cull", "Each Creature that scores allows you to cull any one die from your Used Pile "
       "(including the Creature that just scored or any spells attached to it)."),
    _r("cull_used", "You may only cull dice in your Used Pile."),
    _r("cull_return", "When you cull a die, return it to the matching Power Card in the "
       "Wilds."),
    _r("in_play", "Dice in your Spent Pile and Used Piles are still \"in play,\" so they can "
       "be targeted by abilities and effects"),
    _r("bag_not_in_play", "Dice that are not currently \"in play\" are kept in your bag."),
    _r("return_face", "Unless the effect or ability says otherwise, the Creature always returns "
       "to your Ready Area with the same face up as when it was destroyed."),
    _r("destroyed_effects", "If an ability or effect occurs when a Creature is destroyed, it "
       "still takes place, even if the Creature is saved from destruction."),
    _r("draw", "Then (without looking!) draw out 6 dice and add them to your Active Pool. Now "
       "roll all of the dice in your Active Pool."),
    _r("refill", "Then take all of the dice in your Used Pile and return them to your bag, mix "
       "them, and continue drawing until you have drawn a total of 6 dice or until you have no "
       "dice left to draw."),
    _r("immediate", "You can use Immediate Effects in any order you choose, but they can only "
       "be used immediately after rolling your dice."),
    _r("two_symbols", "If you get this result when you roll the die, you must choose one of "
       "the two options shown."),
    _r("both_symbols", "If the die shows two symbols without a line, then you can use both "
       "abilities."),
    _r("reroll_active", "Any effect or ability that allows you to re-roll dice can only be used "
       "to re-roll dice in your Active Pool (unless that ability or effect says otherwise, of "
       "course!)."),
    _r("spend", "You can only spend dice that are in your Active Pool or Ready Area."),
    _r("quiddity_lost", "Any Quiddity that you do not spend is lost at the end of your turn!"),
    _r("ready_spell", "You may move any Spell Dice showing the Spell Icon to your Ready Area."),
    _r("summon", "You must spend Quiddity equal to the Creature's level (in the upper left "
       "corner of the die face) to summon it."),
    _r("chance_first", "These dice are then added to your Active Pool."),
    _r("attack_all", "All of the Creatures in your Ready Area must attack all of your "
       "opponents."),
    _r("defend", "The defending player must now choose one of his Creatures to defend."),
    _r("one_at_a_time", "When you defend against an attack, you must choose your defending "
       "Creatures one at a time."),
    _r("damaged_once", "Each Creature in your Ready Area can only be damaged once per attack"),
    _r("attack_order", "the players resolve the destruction of their Creatures in turn, "
       "clockwise around the table, starting with the player to the left of the attacker."),
    _r("cast_phase", "Most spells can only be cast during your turn in any Phase except Phase "
       "1."),
    _r("reaction", "You may cast a reaction spell at any time during your opponent's turn, but "
       "you may not cast these spells when it is your turn."),
    _r("attach", "Instead, you must \"attach\" the Spell Die to a Creature in a Ready Area."),
    _r("capture", "After your attack phase is complete, you may spend any Quiddity you have "
       "left to capture one Quarry die from the Wilds."),
    _r("capture_cost", "You must spend this amount of Quiddity to capture one matching Quarry "
       "die from this Power Card."),
    _r("capture_more", "Note: Some Creature abilities or Spell effects allow you to capture "
       "more than one die on your turn."),
    _r("end_move", "At the end of your turn, you must move all the dice from your Spent Pile "
       "and any dice left in your Active Pool to your Used Pile."),
    _r("end_spells", "You may also choose to move any spells from your Ready Area to your Used "
       "Pile."),
    _r("goal", "If any player earns enough Glory to reach the goal shown on the chart to the "
       "right, the game immediately ends and that player wins!"),
    _r("empty_cards", "If there are four or more empty Creature Power Cards (cards with no "
       "Quarry dice on them) after a player captures a Quarry die the game immediately ends."),
    _r("tie", "If there is a tie, the tied player with the most dice in his Ready Area wins. If "
       "they are still tied, they share the victory!"),
    _r("card_effect", "When you roll a Creature Icon or Spell Icon, you may use the abilities "
       "or effects listed on the Power Card."),
    _r("game_over", "The match is over once a player has won.", "engine"),
    _r("advanced_capture", "During Phase 4 of your turn, you may capture up to two dice "
       "(instead of only one)."),
    _r("expert_culling", "When you score a die, you can only cull the die that scored and you "
       "can only score the glory for that die if you cull it."),
    _r("faq_once", "each creature takes damage only once per attack; leftover damage is lost",
       FACTS),
)}

GLORY_GOALS = {2: 20, 3: 15, 4: 12}
"""RULES goal: the rulebook's Glory Goals chart (2 players 20, 3 players 15, 4 players 12)."""

OPTIONS = (
    Option("strong_quake_dragon", "9/3",
           "Strong Quake Dragon's cost/glory. The sources disagree: one gives cost 9 / glory 3, "
           "another 8 / 4 (and lists a separate promo Quake Dragon at 9/3). The default is the "
           "first source's value, which the shared card file records; set 8/4 if your card "
           "shows it.",
           "CONFLICT (shared/data/games/README.md: 'Strong Quake Dragon is cost 9 / glory 3 in "
           "one source and 8 / 4 in another')", ("9/3", "8/4")),
    Option("advanced_capture", False,
           "The rulebook's optional Advanced Capture Rule: 'During Phase 4 of your turn, you "
           "may capture up to two dice (instead of only one).'", "rule text (optional rule)"),
    Option("expert_culling", False,
           "The rulebook's optional Totally Expert Rule of Culling: 'When you score a die, you "
           "can only cull the die that scored and you can only score the glory for that die if "
           "you cull it.'", "rule text (optional rule)"),
)

INFO = GameInfo(
    name="quarriors",
    title="Quarriors!",
    min_players=2,
    max_players=4,  # RULES players
    rules_source=SOURCE,
    aliases=("quarriors!", "quarrior"),
    options=OPTIONS,
)
