"""A golden IceDice playthrough: a scripted 2-player match through the situations of the rule
text (shared/rules/icedice-rules.txt), each move with the rule it shows, the Counter, the
Vaults and the events after it. The other games' playthroughs are seeded random matches;
this one is written by hand so that every situation the rule text names happens once:
taking the rolled piece, the Atom, a pair face, rolling again, a Bust Out, stopping, a steal
by choice while the Bank holds the other piece, a stolen piece going to the Bank on a bust,
a steal the roll forces, a roll that gives nothing, the Rainbow Bonus and the win. Any change
to the rules' behaviour shows up as a diff; regenerate on purpose with

    DICETABLE_REGENERATE=1 python -m pytest tests/engine/test_icedice_playthrough.py
"""

from __future__ import annotations

from pathlib import Path

from golden import check_golden

from engine import get_game
from engine.match import Match

GAME = get_game("icedice")
GOLDEN = Path(__file__).parent / "playthroughs" / "icedice.txt"

#: (action, the rules of icedice-rules.txt it shows); P1 holds the dice (icedice.first_player)
SCRIPT: tuple[tuple[str, str], ...] = (
    # P1: a piece of the size and colour rolled; the Atom; a pair face; stop
    ("roll red S", "roll"), ("take red S", "take_rolled"),
    ("roll atom M", "roll_again"), ("take yellow M", "atom"),
    ("roll black SL", "roll_again"), ("take black S", "pair"),
    ("stop", "stop"),
    # P2 takes the Bank's last black S
    ("roll black S", "roll"), ("take black S", "take_rolled"),
    ("roll blue L", "roll_again"), ("take blue L", "take_rolled"),
    ("stop", "stop"),
    # P1: black S or M; the Bank holds black M but P1 steals P2's black S, then busts out:
    # the stolen piece goes to the Bank, not back to P2
    ("roll black SM", "roll"), ("steal black S from P2", "steal_choice"),
    ("roll red S", "roll_again"), ("take red S", "take_rolled"),
    ("roll red L", "bust"), ("bust", "bust_return stolen_kept"),
    # P2 takes the Bank's last red S
    ("roll red S", "roll"), ("take red S", "take_rolled"), ("stop", "stop"),
    # P1 rolls red S, which the Bank no longer holds: it must be stolen
    ("roll red S", "roll"), ("steal red S from P2", "steal"), ("stop", "stop"),
    ("roll green S", "roll"), ("take green S", "take_rolled"), ("stop", "stop"),
    # P1's Vault holds both red S: nothing for that roll, but P1 may roll again; then all
    # five colours: the Rainbow Bonus, and rolling on as if the turn had just started
    ("roll red S", "own_vault"),
    ("roll red M", "roll_again"), ("take red M", "take_rolled"),
    ("roll yellow S", "roll_again"), ("take yellow S", "take_rolled"),
    ("roll green M", "roll_again"), ("take green M", "take_rolled"),
    ("roll blue M", "roll_again"), ("take blue M", "take_rolled"),
    ("roll black M", "roll_again"), ("take black M", "rainbow"),
    ("rainbow", "rainbow"),
    ("roll red L", "rainbow"), ("take red L", "take_rolled"),
    ("roll yellow L", "roll_again"), ("take yellow L", "take_rolled"),
    ("roll black L", "roll_again"), ("take black L", "take_rolled"),
    ("stop", "goal"),
)


def _pieces(pieces: tuple[tuple[str, str], ...]) -> str:
    return ", ".join(f"{c} {s}" for c, s in pieces) or "-"


def transcript() -> str:
    match = Match(GAME, 2)
    lines = [f"# IceDice, 2 players, options {dict(match.state.options)}: the rule text's "
             "situations, scripted",
             f"# Bank: {len(match.state.bank)} pyramids (two Rainbow Stashes)"]
    for text, rule in SCRIPT:
        who = match.state.current
        events = match.push_text(text)
        s = match.state
        shows = " ".join(GAME.rules[f"icedice.{r}"].id for r in rule.split())
        lines.append(f"P{who + 1} {text:<22} [{shows}]")
        lines.append(f"    bank {len(s.bank)} | counter {_pieces(s.counter)} | "
                     + " | ".join(f"P{p + 1} vault {_pieces(v)}" for p, v in
                                  enumerate(s.vaults)))
        lines += [f"    {e.kind}: {e.text}" for e in events]
    outcome = GAME.outcome(match.state)
    assert outcome is not None
    scores = " ".join(f"P{x.player + 1} {x.total}" for x in GAME.score(match.state))
    lines.append(f"# winners {[w + 1 for w in outcome.winners]}: {outcome.reason} ({scores})")
    return "\n".join(lines) + "\n"


def test_the_script_shows_every_situation() -> None:
    """Every sentence the script names happens: the events, the end, and the record replays."""
    match = Match(GAME, 2)
    kinds = []
    for text, _ in SCRIPT:
        kinds += [e.kind for e in match.push_text(text)]
    assert {"steal", "bust", "bust_return", "nothing", "rainbow", "win"} <= set(kinds)
    assert kinds.count("steal") == 2 and match.state.winner == 0
    assert Match.from_json(match.to_json()).state == match.state
    shown = {f"icedice.{r}" for _, rules in SCRIPT for r in rules.split()}
    assert shown == set(GAME.rules) - {"icedice.setup", "icedice.players",
                                       "icedice.number_of_players", "icedice.first_player",
                                       "icedice.steal_faq", "icedice.game_over",
                                       "icedice.steal_only_on_choice",
                                       "icedice.unobtainable_bust"}


def test_golden_playthrough() -> None:
    check_golden(GOLDEN, transcript())
