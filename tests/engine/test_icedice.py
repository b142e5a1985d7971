"""IceDice: one test per sentence of shared/rules/icedice-rules.txt (quoted), plus the facts
of shared/data/games/README.md and the named options."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine import IllegalActionError, InvalidActionError, InvalidStateError, get_game
from engine.games.icedice import IceDiceState, trios

GAME = get_game("icedice")


def new(players: int = 2, **options: object) -> IceDiceState:
    return GAME.new_state(players, options)


def play(state: IceDiceState, *texts: str) -> IceDiceState:
    return GAME.play(state, list(texts))


def legal(state: IceDiceState) -> list[str]:
    return [a.to_str() for a in GAME.legal_actions(state)]


def rule_of(state: IceDiceState, text: str) -> str:
    with pytest.raises(IllegalActionError) as info:
        GAME.apply(state, GAME.parse_action(text))
    return info.value.rule.id


def with_vaults(state: IceDiceState, *vaults: list[str]) -> IceDiceState:
    """Move the named pieces from the Bank into the Vaults."""
    bank = list(state.bank)
    out = []
    for vault in vaults:
        pieces = []
        for text in vault:
            colour, size = text.split()
            bank.remove((colour, size))
            pieces.append((colour, size))
        out.append(tuple(sorted(pieces, key=lambda p: (p[0], "SML".index(p[1])))))
    return replace(state, bank=tuple(bank), vaults=tuple(out))


# --- setup -----------------------------------------------------------------------------------
def test_setup_all_pyramids_in_the_bank() -> None:
    """icedice.setup: 'Stack up all the pyramids in the Bank, sorted by size and color.' (two
    stashes)"""
    s = new()
    assert len(s.bank) == 30 and s.counter == () and s.vaults == ((), ())
    for colour in ("red", "yellow", "green", "blue", "black"):
        for size in "SML":
            assert s.bank.count((colour, size)) == 2


def test_extra_stash_per_extra_player() -> None:
    """icedice.players: 'You will need to add an extra Rainbow Stash for each player who wishes to
    join.'"""
    assert len(new(3).bank) == 45 and len(new(4).bank) == 60
    for players in (7, 12):
        s = new(players)
        assert len(s.bank) == 15 * players and len(s.vaults) == players
        assert all(s.bank.count((c, z)) == players for c in s.colours for z in "SML")


def test_no_player_limit() -> None:
    """icedice.number_of_players: 'Number of Players: 2 (although more can play if you have
    extra pyramids)': two or more, no upper limit (there was a cap at 6)."""
    assert GAME.info.max_players is None and GAME.info.seats(9)
    assert not GAME.info.seats(1) and GAME.info.players_text() == "2 or more"
    s = play(GAME.new_state(7, setup={"first_player": 6}), "roll red S", "take red S", "stop")
    assert s.current == 0 and s.vaults[6] == (("red", "S"),)
    assert len(GAME.legal_actions(s)) == 36
    for bad in (1, 0, True):
        with pytest.raises(InvalidStateError, match="2 or more players"):
            GAME.new_state(bad)  # type: ignore[arg-type]


def test_whoever_holds_the_dice_goes_first() -> None:
    """icedice.first_player: 'Whoever is holding the dice goes first.' (the players say who: setup
    first_player)"""
    s = GAME.new_state(3, setup={"first_player": 2})
    assert GAME.to_move(s) == 2
    with pytest.raises(InvalidStateError):
        GAME.new_state(2, setup={"first_player": 5})


# --- a turn ----------------------------------------------------------------------------------
def test_turn_starts_with_rolling_both_dice() -> None:
    """icedice.roll: 'On your turn, roll both dice.'"""
    s = new()
    assert all(t.startswith("roll ") for t in legal(s)) and len(legal(s)) == 36
    assert rule_of(s, "take red S") == "icedice.roll"
    assert rule_of(s, "stop") == "icedice.roll"


def test_take_the_rolled_piece_from_the_bank_to_the_counter() -> None:
    """icedice.take_rolled: 'Choose a piece of the size and color indicated, take it from the Bank,
    and place it
    on the Counter.'"""
    s = play(new(), "roll red M")
    assert legal(s) == ["take red M"]
    assert rule_of(s, "take blue M") == "icedice.take_rolled"
    after = play(s, "take red M")
    assert after.counter == (("red", "M"),) and after.bank.count(("red", "M")) == 1
    assert rule_of(s, "roll blue S") == "icedice.take_rolled"  # no rolling past the take


def test_atom_chooses_any_colour_not_on_the_counter() -> None:
    """icedice.atom: 'If you roll the Atom, choose any color you don't already have on the
    Counter.'"""
    s = play(new(), "roll red S", "take red S", "roll atom L")
    assert legal(s) == ["take yellow L", "take green L", "take blue L", "take black L"]
    assert rule_of(s, "take red L") == "icedice.atom"


def test_atom_never_busts() -> None:
    s = play(new(), "roll red S", "take red S", "roll atom S")
    assert s.phase == "choose"


def test_pair_face_chooses_between_the_two_sizes() -> None:
    """icedice.pair: 'If the pyramid die shows a pair of pyramids, choose between the two sizes
    shown.'"""
    s = play(new(), "roll green SL")
    assert legal(s) == ["take green S", "take green L"]
    assert rule_of(s, "take green M") == "icedice.pair"


def test_may_continue_rolling_or_stop() -> None:
    """icedice.roll_again: 'You may continue rolling and moving pieces to the Counter until you
    either decide to
    stop, or Bust Out.'"""
    s = play(new(), "roll red S", "take red S")
    assert "stop" in legal(s) and "roll blue M" in legal(s)
    assert rule_of(s, "take blue M") == "icedice.roll_again"


def test_bust_on_a_colour_already_on_the_counter() -> None:
    """icedice.bust: 'You Bust Out as soon as you roll the same color as a piece on the Counter.'"""
    s = play(new(), "roll red S", "take red S", "roll yellow M", "take yellow M")
    busted, events = GAME.apply(s, GAME.parse_action("roll red L"))
    assert busted.phase == "bust" and [e.kind for e in events] == ["bust"]
    assert legal(busted) == ["bust"]


def test_bust_returns_the_counter_to_the_bank() -> None:
    """icedice.bust_return: 'If you Bust Out, all pieces on the Counter are returned to the Bank'"""
    s = play(new(), "roll red S", "take red S", "roll yellow M", "take yellow M", "roll red L")
    assert rule_of(s, "roll blue S") == "icedice.bust_return"
    after = play(s, "bust")
    assert after.counter == () and len(after.bank) == 30 and after.current == 1
    assert after.vaults == ((), ())


def test_stop_moves_the_counter_into_the_vault() -> None:
    """icedice.stop: 'if you decide to stop, the pieces go into your Vault.'"""
    s = play(new(), "roll red S", "take red S", "roll blue SM", "take blue M", "stop")
    assert s.vaults[0] == (("blue", "M"), ("red", "S")) and s.counter == ()
    assert s.current == 1 and s.phase == "roll"


def test_steal_when_the_bank_has_none() -> None:
    """icedice.steal: 'If the piece you rolled is not in the Bank, you must steal it from an
    opponent's
    Vault.'"""
    s = with_vaults(new(), ["red S"], ["red S"])
    s = replace(s, current=0)
    s = play(s, "roll red S")
    assert legal(s) == ["steal red S from P2"]
    assert rule_of(s, "take red S") == "icedice.steal"
    after, events = GAME.apply(s, GAME.parse_action("steal red S from P2"))
    assert after.vaults[1] == () and after.counter == (("red", "S"),)
    assert [e.kind for e in events] == ["steal"]


def test_cannot_steal_from_yourself() -> None:
    s = with_vaults(new(), ["red S"], ["red S"])
    s = play(s, "roll red S")
    assert rule_of(s, "steal red S from P1") == "icedice.steal"


def test_stolen_pieces_are_not_returned_to_their_owner_on_a_bust() -> None:
    """icedice.stolen_kept: '(Stolen pieces are NOT returned to their former owners if you Bust
    Out.)'"""
    s = with_vaults(new(), ["red S"], ["red S"])
    s = play(s, "roll red S", "steal red S from P2", "roll red M", "bust")
    assert s.vaults[1] == () and s.bank.count(("red", "S")) == 1


def test_a_choice_may_require_stealing() -> None:
    """icedice.steal_choice: 'If your roll gives you options, it's OK to make a choice that will
    require stealing
    even if the Bank contains the other pyramids you could choose.'"""
    s = with_vaults(new(), ["green L"], ["green L"])
    s = play(s, "roll green SL")
    assert legal(s) == ["take green S", "steal green L from P2"]


def test_faq_never_steal_a_piece_the_bank_holds() -> None:
    """icedice.steal_faq: 'If the rolled piece is in the Bank it is taken from the Bank (both
    readings agree).' (shared/data/games/README.md: the rule text and the FAQ reading)"""
    s = with_vaults(new(), [], ["green L"])
    s = play(s, "roll green L")
    assert legal(s) == ["take green L"]
    assert rule_of(s, "steal green L from P2") == "icedice.steal_faq"


def test_steal_option_says_the_rule_text_is_the_default() -> None:
    """icedice.steal: 'If the piece you rolled is not in the Bank, you must steal it from an
    opponent's Vault.' is the default; the FAQ reading (steal only on a choice) is a named
    option whose doc says it is UNCERTAIN (shared/data/games/README.md: 'a FAQ reading that
    could not be re-checked')."""
    opt = GAME.info.option("steal_only_on_choice")
    assert opt.default is False and opt.provenance.startswith("rule text")
    assert GAME.rules["icedice.steal"].text in opt.doc
    assert "UNCERTAIN" in opt.doc and "could not be re-checked" in opt.doc
    assert "UNCERTAIN" in opt.provenance
    assert "Official FAQ" not in GAME.rules["icedice.steal_faq"].text  # it is no FAQ quote


def test_option_steal_only_on_choice() -> None:
    """icedice.steal_only_on_choice: option steal_only_on_choice (INFERRED alternative reading of
    the FAQ)."""
    base = with_vaults(new(steal_only_on_choice=True), ["red S"], ["red S"])
    s = play(base, "roll red S")  # no choice, Bank empty: nothing, may roll again
    assert s.phase == "decide"
    assert rule_of(replace(s, phase="choose"), "steal red S from P2") == \
        "icedice.steal_only_on_choice"
    s = play(base, "roll red SM")  # a choice: stealing allowed
    assert "steal red S from P2" in legal(s)


def test_own_vault_holds_them_all_gives_nothing_but_may_roll_again() -> None:
    """icedice.own_vault: 'If your Vault already contains all the pyramids of the size & color you
    rolled, you
    get nothing for that roll, but may roll again.'"""
    s = with_vaults(new(), ["black L", "black L"], [])
    after, events = GAME.apply(s, GAME.parse_action("roll black L"))
    assert after.phase == "decide" and [e.kind for e in events] == ["nothing"]
    assert after.counter == () and "roll red S" in legal(after) and "stop" in legal(after)


def test_option_unobtainable_roll_bust() -> None:
    """icedice.unobtainable_bust: option unobtainable_roll=bust ends the turn as a Bust Out."""
    s = with_vaults(new(unobtainable_roll="bust"), ["black L", "black L"], [])
    s = play(s, "roll red S", "take red S", "roll black L")
    assert s.phase == "bust"


def test_rainbow_bonus_banks_and_restarts_the_turn() -> None:
    """icedice.rainbow: 'If you collect all 5 colors without Busting Out, you get to move them to
    your Vault
    and continue rolling as if your turn just started!'"""
    s = play(new(), "roll red S", "take red S", "roll yellow S", "take yellow S",
             "roll green S", "take green S", "roll blue S", "take blue S")
    s, events = GAME.apply(s, GAME.parse_action("roll black S"))
    s, events = GAME.apply(s, GAME.parse_action("take black S"))
    assert s.phase == "rainbow" and [e.kind for e in events] == ["rainbow"]
    assert rule_of(s, "roll red M") == "icedice.rainbow"
    s = play(s, "rainbow")
    assert len(s.vaults[0]) == 5 and s.counter == ()
    assert s.current == 0 and s.phase == "roll"  # as if the turn just started
    assert not play(s, "roll red M").phase == "bust"  # red is no longer on the Counter


def test_three_monochrome_trios_win() -> None:  # and icedice.game_over after it
    """icedice.goal: 'You win by collecting 3 monochrome Trios. (Other pyramids in your Vault are
    irrelevant.)'"""
    vault = ["red S", "red M", "red L", "blue S", "blue M", "blue L", "green S", "green M",
             "black L", "yellow S"]
    s = with_vaults(new(), vault, [])
    assert GAME.score(s)[0].total == 2 and GAME.outcome(s) is None
    s = play(s, "roll green L", "take green L")
    assert GAME.outcome(s) is None  # on the Counter it does not count yet
    s, events = GAME.apply(s, GAME.parse_action("stop"))
    outcome = GAME.outcome(s)
    assert outcome is not None and outcome.winners == (0,) and events[-1].kind == "win"
    assert GAME.legal_actions(s) == []
    assert rule_of(s, "roll red S") == "icedice.game_over"


def test_two_trios_of_one_colour_count_twice_per_set() -> None:
    vault = ["red S", "red M", "red L"] * 2
    assert trios(tuple(tuple(p.split()) for p in vault)) == 2  # type: ignore[misc]
    assert trios(tuple(tuple(p.split()) for p in vault), per_set=False) == 1  # type: ignore


def test_suits_edition_colour_die() -> None:
    """README: later printings use suits and a star, cyan and purple for blue and black."""
    s = new(colour_die="suits")
    assert s.colours == ("red", "yellow", "green", "cyan", "purple")
    s = play(s, "roll star M")
    assert legal(s) == [f"take {c} M" for c in s.colours]
    with pytest.raises(IllegalActionError):
        play(s, "roll atom M")


def test_bad_text_and_options() -> None:
    for text in ("", "roll", "take red", "steal red S from Q2", "steal red S from P0", "jump"):
        with pytest.raises(InvalidActionError):
            GAME.parse_action(text)
    with pytest.raises(ValueError, match="trios"):
        new(trios="many")
    with pytest.raises(ValueError, match="no option"):
        new(colour="red")


def test_every_rule_has_a_test() -> None:
    """Each rule id of the game names a test here, which quotes the rule's sentence."""
    text = " ".join(open(__file__, encoding="utf-8").read().split())
    missing = [rid for rid in GAME.rules if rid not in text]
    assert missing == []
    unquoted = [rid for rid, rule in GAME.rules.items()
                if rule.source.startswith("shared/rules") and rule.text[:40] not in text]
    assert unquoted == []


def test_state_from_dict_rejects_bad_states() -> None:
    good = play(new(), "roll red S", "take red S").to_dict()
    assert GAME.state_from_dict(good).to_dict() == good
    broken = dict(good, bank=good["bank"][1:])
    with pytest.raises(InvalidStateError, match="add up"):
        GAME.state_from_dict(broken)
    with pytest.raises(InvalidStateError):
        GAME.state_from_dict({"players": "two"})
    with pytest.raises(InvalidStateError):
        GAME.state_from_dict(dict(good, counter=["pink S"]))
