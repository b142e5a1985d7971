"""The rules of Pyramid Dice as data: each rule's stable id, quoted sentence and source, and
the named options for what the sheet leaves open.

The sentences are the English rendering (shared/rules/pyramid-dice-rules-en.md), checked
sentence by sentence against the Japanese original (pyramid-dice-rules-ja.txt). Where the
two differ the Japanese wins; the notes marked "JA:" below say where and how.

Readings the sheet leaves open and that are not worth an option (INFERRED; each is tested):

* A snatch takes the place of the failed turn's removal: the sheet says play "restarts"
  (リスタート) after the snatch and names no removal. The next player has the right first
  (次のプレイヤーは…獲得することができます); a later player may snatch only when every player
  between said nothing (次のプレイヤーが何も言わなければその次のプレイヤーに権利があります), and
  says so in the action's text (``snatch P3 r6c3 after P2 passed``). The camera cannot see
  "saying nothing": such a snatch is asked of the players (``Snatch.unseen_claim``).
* The stall rule counts a turn toward "about two rounds" only when the dice, as they lay when
  the turn ended without a take (after any abilities used), made no takeable card: nobody
  *could* take it (取れなければ). A turn whose dice made one and which took none (a give-up
  by choice) starts the count again: that card could have been taken.
* "All god cards in the pyramid have been taken" (ピラミッド内の神カードがすべて獲得された):
  a god card in the side area has not been taken, so it blocks the Ra strengthening; a god
  card snatched face down does not count as one "obtained" (its ability is never usable).
* A snatched card lies face down: it scores its back number and is not a treasure card for
  the tie-break. God cards returned to the box no longer count for their owner's points
  (the example gods have 0 points anyway; the box's are unknown).
* Strengthening may be done by any eligible player at any time during the game (the sheet
  gives no moment).
* In solo play a failed turn is ``give up`` (the game ends); nothing goes to the side area.
"""

from __future__ import annotations

from engine.core import Option
from engine.errors import Rule

EN = "shared/rules/pyramid-dice-rules-en.md"
JA = "shared/rules/pyramid-dice-rules-ja.txt"


def _r(name: str, text: str, section: str) -> Rule:
    source = section if section.startswith("option:") or section == "engine" \
        else f"{EN}#{section}"
    return Rule(f"pyramid_dice.{name}", text, source)


RULES: dict[str, Rule] = {r.id: r for r in (
    _r("players", "A turn (2–5 players; solo rules below)", "A turn"),
    _r("setup_ra", "Each player takes one Ra card and lays it with the single-icon side up.",
       "Setup"),
    _r("setup_pyramid", "Lay the \"2\" cards face up starting at the apex of the pyramid, "
       "overlapping as in the (missing) picture; when the \"2\" cards run out, continue with "
       "the \"1\" cards until the pyramid is complete.", "Setup"),
    _r("dice", "3 ordinary six-sided dice.", "Components"),
    _r("roll", "Roll all 3 dice.", "A turn"),
    # JA: 「…ピラミッドカードを1枚だけ獲得することができます」 says a player "may take only
    # one" card, not "must take one": with 「計算しても獲得できなかった場合」 and the snatch
    # rule's 「獲得をあきらめたとき」 it is why giving up is allowed (option may_give_up).
    _r("number", "Combine ALL three results with + − × ÷ and take exactly ONE pyramid card "
       "whose number equals the answer.", "A turn"),
    _r("use_all", "Each of the three results must be used exactly once.", "A turn"),
    _r("free_order", "The order of calculation is free: no \"multiplication first\" "
       "precedence.", "A turn"),
    _r("uncovered", "Only cards not hidden by other cards can be taken.", "A turn"),
    _r("abilities", "God-card abilities may be used to change dice results (below).",
       "A turn"),
    _r("take", "If you take a card: a treasure card goes in front of you, overlapped so that "
       "its points stay visible to everyone; a god card goes in front of you with its ability "
       "visible. Play passes clockwise.", "A turn"),
    _r("fail_remove", "If you cannot take a card: take one card that is currently takeable in "
       "the pyramid, remove it from the pyramid and put it in an empty place beside it.",
       "A turn"),
    _r("side_area", "Anyone may take that card later (with the right number).", "A turn"),
    _r("icon", "God-card abilities (the icon on the card)", "God-card abilities"),
    _r("flip", "turn one die upside down (1⇔6, 2⇔5, 3⇔4)", "God-card abilities"),
    _r("god_any_times", "A god card's ability may be used any number of times over the game, "
       "if you use one per turn.", "Limits on god cards"),
    _r("god_limit", "To use two or more abilities in one turn: from the second one on, return "
       "that card to the box after using it.", "Limits on god cards"),
    _r("god_reuse", "The card used first may also be used again in the same turn if you then "
       "return it to the box.", "Limits on god cards"),
    # JA: 「ラーカードも神カードです」 and the ability list includes 「3つのダイスをすべて振り
    # なおす」, the one ability of eight that 7 god cards cannot all carry; the strengthened
    # side allows 「振りなおしが2回」 (re-rolls twice), so the single-icon side is read as one
    # re-roll per turn (INFERRED; option ra_rerolls).
    _r("ra_reroll", "Ra is also a god card (ラーカードも神カードです); its single-icon side "
       "re-rolls all three dice once per turn (INFERRED, option ra_rerolls).",
       "option:ra_rerolls"),
    _r("ra_strengthen", "If all god cards in the pyramid have been taken and a player "
       "obtained none, that player may turn their Ra card to its strengthened side",
       "Limits on god cards"),
    _r("ra_two", "it then allows two re-rolls per turn (rotate the card 90° at each use to "
       "keep track).", "Limits on god cards"),
    # JA: 「ピラミッドカードが全てなくなったら」: "pyramid cards" is the name of the 28 cards,
    # so the cards in the side area count too (option end_when).
    _r("end", "The game ends when no pyramid cards remain.", "End of the game"),
    _r("winner", "Highest total of points on acquired cards wins. Tie: more treasure cards "
       "wins; still tied: shared victory.", "End of the game"),
    # JA: 「※まれに最後の1枚が誰も取れない状態が長く続く場合があります。2周くらいして誰も
    # 取れなければ終了しても良いでしょう。」 The permission is about the LAST card (最後の1枚;
    # option stall_cards for "the last N"), which nobody COULD take (取れない, 取れなければ:
    # potential form), for about two rounds (2周くらい; option stall_rounds). So 'end' is
    # legal only while at most stall_cards cards are left and after stall_rounds × players
    # turns in a row in which the dice made no takeable card (see the reading above).
    _r("stall", "Rarely the last card stays untakeable for a long time; if nobody takes it "
       "in about two rounds, the players may end the game.", "End of the game"),
    _r("hard_mode", "Hard mode: every god card except the Ra cards goes back to the box after "
       "one use.", "Optional rules (after a few games)"),
    _r("snatch", "Snatch (横取り): when the active player gives up taking a card, the next "
       "player may take ONE card that can be made from the same dice results without changing "
       "them; if that player says nothing the right passes to the following player.",
       "Optional rules (after a few games)"),
    # JA: 「神カードは使えません」 = god cards (their abilities) cannot be used: the snatcher
    # may not change the dice. Whether a god card may be snatched is option snatch_god_cards.
    # JA: 「次のプレイヤーはもし…見つけていたら、そのカードを1枚獲得することができます。
    # 次のプレイヤーが何も言わなければその次のプレイヤーに権利があります。」 The right goes
    # round from the next player: a later player's snatch needs the players between to have
    # said nothing, which the text form states ('after P2 passed') and the phone asks.
    _r("snatch_no_gods", "God cards cannot be used for this.",
       "Optional rules (after a few games)"),
    _r("snatch_score", "A card taken this way is turned face down and the number on its back "
       "is its score.", "Optional rules (after a few games)"),
    _r("snatch_restart", "Play then resumes with the player after the previous active player.",
       "Optional rules (after a few games)"),
    _r("solo", "Set up as usual and play with Hard mode. The game ends the moment you fail to "
       "take a card; count the cards left in the pyramid", "Solo rules"),
    _r("solo_ranks", "28–16: beginner explorer; 15–7: intermediate; 6–4: advanced; 3–1: "
       "veteran; 0: professional.", "Solo rules"),
    _r("must_take", "Option may_give_up=false: a player whose dice, as they lie, make the "
       "number of a takeable card must take a card.", "option:may_give_up"),
    _r("snatch_god_cards", "Option snatch_god_cards=false: a god card cannot be snatched.",
       "option:snatch_god_cards"),
    _r("game_over", "No action is possible once the game is over.", "engine"),
)}

OPTIONS: tuple[Option, ...] = (
    Option("hard_mode", False, "Optional rule 'Hard mode': every god card except the Ra cards "
           "goes back to the box after one use. Always on in solo play.",
           "rule text (ハードモード)"),
    Option("snatch", False, "Optional rule 'Snatch' (横取り): when the active player gives "
           "up, another player may take one card the unchanged dice make; it scores its back "
           "number. With snatch on, giving up is always allowed (the rule presupposes it).",
           "rule text (横取り)"),
    Option("stall_rounds", 2, "The stall rule: 'end' is allowed once nobody could take a "
           "card for this many full rounds, i.e. this many turns per player in a row, each "
           "ending without a take while the dice (as they lay then, after any abilities) made "
           "no takeable card, and only while at most stall_cards cards are left. A turn whose "
           "dice made a takeable card that was not taken (a give-up by choice) starts the "
           "count again: that card could have been taken. The sheet: 'about two rounds' "
           "(2周くらい); 0 turns the rule off.",
           "rule text (2周くらいして誰も取れなければ終了しても良いでしょう)", minimum=0),
    Option("stall_cards", 1, "How many cards may be left for the stall rule to apply (the "
           "cards still to be taken: the pyramid and, with end_when=all_taken, the side "
           "area). The sheet speaks of the last card (最後の1枚が誰も取れない状態), so 1; a "
           "larger number lets the players end a match whose last few cards stay out of "
           "reach (a card set with numbers no roll makes) - a house rule, not the sheet's.",
           "rule text (最後の1枚) for 1; more is a house rule", minimum=1),
    Option("end_when", "all_taken", "When the game ends: 'all_taken' when no pyramid card is "
           "left on the table, the side area included (the sheet's 'ピラミッドカードが全てなく"
           "なったら' names the 28 cards, and its stall remark about the last card that stays "
           "untakeable only makes sense that way); 'pyramid_empty' as soon as the pyramid "
           "itself is empty.", "INFERRED", ("all_taken", "pyramid_empty")),
    Option("may_give_up", True, "Whether a player may give up (remove a card) when the dice "
           "as they lie make a takeable card. The sheet says 'if you cannot take a card' "
           "(計算しても獲得できなかった場合) and its snatch rule speaks of a player who 'gives "
           "up' (あきらめた) while a card could be made, so a missed card is the player's loss, "
           "not an illegal move; false makes it illegal (rule pyramid_dice.must_take).",
           "INFERRED"),
    Option("whole_steps", False, "Every intermediate result must be a whole number. The sheet "
           "does not say; only the answer must be a card's number. With three dice it never "
           "changes which cards can be taken (a fractional step can always be reordered into "
           "whole ones), only which stated calculations count.", "UNKNOWN"),
    Option("negative_steps", True, "Intermediate results may be negative. The sheet does not "
           "say; with three dice it never changes which cards can be taken either.",
           "UNKNOWN"),
    Option("ra_rerolls", 1, "Re-rolls per turn of a Ra card on its single-icon side (the "
           "strengthened side gives 2). The sheet lists the re-roll among the god abilities, "
           "says Ra is a god card, and the strengthened side 'allows two re-rolls', so one.",
           "INFERRED", (0, 1)),
    Option("ra_counts_toward_limit", False, "Whether a Ra re-roll counts as the turn's one "
           "free god-ability use (so that the next god card used that turn goes back to the "
           "box). Ra itself never goes to the box (hard mode exempts it; its uses are counted "
           "by turning it).", "INFERRED"),
    Option("plus_turns_die", True, "After +1 or +2 the players turn the die to show its new "
           "value when that is 1–6 (above 6 the die keeps its face and the engine remembers "
           "the value). false: the die keeps its face after +1/+2. Flips and sets always turn "
           "the die.", "UNKNOWN"),
    Option("snatch_god_cards", True, "Whether a god card may be snatched (it is face down and "
           "scores its back number; its ability is never usable). The sheet's 神カードは使え"
           "ません forbids using god cards' abilities to snatch, not taking one.", "INFERRED"),
)
