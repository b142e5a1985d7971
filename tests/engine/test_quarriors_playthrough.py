"""The rulebook's worked examples as golden playthroughs (shared/rules/quarriors-rulebook.txt):
Quinn's turn (phases 1 to 5, pages 'Phase 1' to 'Phase 4') and Monique's attack with the
Death Charm and three defenders (Phase 3). Each is a script of actions checked as it goes and
written out with its events; regenerate the transcript on purpose with

    DICETABLE_REGENERATE=1 python -m pytest tests/engine/test_quarriors_playthrough.py

Where the example names something the base set lacks, the script says what stands in: the
Heavenly Seraph Quinn captures for 7 (not a base-set card) is a Questing Wizard (cost 7); the
Ghostly Spirit die he rolls belongs to the Strong Ghostly Spirit card (Monique's attack needs
that card; he does not summon it either way)."""

from __future__ import annotations

from pathlib import Path

from golden import check_golden
from quarriors_table import GAME, arrange, at, index, ready_die, table

from engine.games.quarriors.state import QuarriorsState

GOLDEN = Path(__file__).parent / "playthroughs" / "quarriors.txt"


class Script:
    def __init__(self, state: QuarriorsState, title: str) -> None:
        self.state = state
        self.lines = [f"# {title}", f"# cards: {', '.join(state.cards)}"]

    def __call__(self, *texts: str) -> QuarriorsState:
        for text in texts:
            who = GAME.to_move(self.state)
            action = GAME.parse_action(text)
            self.state, events = GAME.apply(self.state, action)
            self.lines.append(f"P{(who or 0) + 1} {text:<48} quiddity {self.state.turn.quiddity}")
            self.lines += [f"    {e.kind}: {e.text}" for e in events]
        return self.state


def quinns_turn() -> Script:
    s = table("Strong Witching Hag", "Scavenging Goblin", "Strong Ghostly Spirit",
              "Death Cantrip", "Questing Wizard")
    s = arrange(at(s, "score", 0), 0, ready=[ready_die("witching_hag L1-3/3")],
                used={"scavenging_goblin": 1, "assistant": 1, "basic_quiddity": 2},
                bag={"basic_quiddity": 6, "assistant": 3, "portal": 1, "ghostly_spirit": 1,
                     "death": 1})
    run = Script(s, "Quinn's turn (P1), Monique P2: the rulebook's examples of phases 1-4")
    # Phase 1: "He scores 3 Glory for the Creature and moves it to his Used Pile."
    s = run("score")
    assert s.seats[0].glory == 3 and "witching_hag" in dict(s.me.used)
    # "He chooses to move his Scavenging Goblin to his Active Pool"
    # "Then he decides to cull the Assistant Die from his Used Pile, returning it to the Wilds."
    s = run("recall scavenging_goblin", "cull assistant", "done")
    assert dict(s.wilds)["assistant"] == 3
    # Phase 2: "Quinn draws 6 dice out of his bag and adds them to the Scavenging Goblin die
    # already in his Active Pool. He then rolls all 7 dice."
    s = run("draw portal", "draw assistant", "draw basic_quiddity", "draw basic_quiddity",
            "draw basic_quiddity", "draw death")
    assert len(s.me.active) == 7
    s = run("roll assistant reroll*", "roll basic_quiddity Q1", "roll basic_quiddity Q2",
            "roll basic_quiddity Q2", "roll death spell*", "roll portal draw2",
            "roll scavenging_goblin L1-2/2*")
    # "His Portal Die shows a 'Draw' symbol for 2 dice, so he spends the Portal Die (adding it
    # to his Spent Pile) to draw 2 more dice from his bag, rolls them both"
    s = run("spend portal draw2", "draw ghostly_spirit", "draw basic_quiddity",
            "roll basic_quiddity Q1", "roll ghostly_spirit L1-2/2")
    assert s.me.spent == (("portal", "draw2"),)
    # "Quinn's Assistant Die allows him to re-roll the Assistant Die and any one other die."
    s = run("reroll assistant reroll* and basic_quiddity Q1", "roll assistant Q1",
            "roll basic_quiddity Q1")
    # "he has one Spell: a Death Cantrip. He moves the die to his Ready Area"; "he only spends
    # 1 Quiddity to summon the Scavenging Goblin"; its Burst "grants Quinn 1 Quiddity"
    s = run("ready death spell*", "spend basic_quiddity Q1",
            "summon scavenging_goblin L1-2/2*")
    assert s.turn.quiddity == 1 and [r.die for r in s.me.ready] == ["death",
                                                                    "scavenging_goblin"]
    # Phase 3: Monique has no creature: nobody defends. Phase 4: "Counting the bonus he
    # received from the Scavenging Goblin's ability and the Quiddity symbols on all of the
    # dice left in his Active Pool, he has a total of 7 Quiddity!"
    s = run("attack")
    assert s.phase == "capture"
    left = sum(GAME_FACE(d, f) for d, f in s.me.active)
    assert s.turn.quiddity + left == 7
    s = run("spend assistant Q1", "spend basic_quiddity Q1", "spend basic_quiddity Q2",
            "spend basic_quiddity Q2", "capture questing_wizard")
    assert s.turn.quiddity == 0 and "questing_wizard" in dict(s.me.used)
    assert "capture basic_quiddity" not in [a.to_str() for a in GAME.legal_actions(s)]
    # Phase 5: Spent Pile and Active Pool to the Used Pile; the Death Cantrip may stay ready
    s = run("end")
    q = s.seats[0]
    assert not q.active and not q.spent and [r.die for r in q.ready] == ["death",
                                                                        "scavenging_goblin"]
    assert s.current == 1 and s.total_dice() == 130
    return run


def GAME_FACE(die: str, face: str) -> int:  # noqa: N802 (reads as the face's quiddity)
    from engine.games.quarriors.dice import DICE
    return DICE[die].face(face).quiddity


def monique_attacks() -> Script:
    s = table("Strong Deathdealer", "Warrior of the Quay", "Death Charm", "Scavenging Goblin",
              "Strong Ghostly Spirit", "Devotee of the Holy Query", players=4)
    s = arrange(at(s, "main", 0), 0, ready=[ready_die("deathdealer L1-3/2"),
                                            ready_die("warrior_of_the_quay L1-2/3"),
                                            ready_die("death spell*")])
    s = arrange(s, 1, ready=[ready_die("scavenging_goblin L1-2/2"),
                             ready_die("ghostly_spirit L2-3/3"),
                             ready_die("devotee_of_the_holy_query L2-2/4")])
    s = arrange(s, 2, ready=[ready_die("assistant L1-1/2"), ready_die("assistant L1-1/2")])
    s = arrange(s, 3, ready=[ready_die("assistant L1-1/2"),
                             ready_die("scavenging_goblin L1-2/2")])
    run = Script(s, "Monique's attack (P1) on Quinn (P2), Clark (P3) and Michael (P4)")
    # "Monique decides to attach the Death Charm to her Strong Deathdealer."
    s = run(f"attach death spell* to P1 r{index(s, 0, 'deathdealer')}")
    # "Step 1: Count Damage: ... the Strong Deathdealer has an attack of 6. She adds that to
    # the Warrior of the Quay's attack of 2 for an attack total of 8."
    s = run("attack")
    assert s.attack is not None and s.attack.totals == (8, 8, 8) and s.attack.order == (1, 2, 3)
    # "Quinn decides to defend with the Strong Ghostly Spirit first. It only has a defense of
    # 3, so it is destroyed. ... the Strong Ghostly Spirit die goes to Quinn's Active Pool."
    s = run(f"defend r{index(s, 1, 'ghostly_spirit')}")
    assert s.seats[1].active == (("ghostly_spirit", "L2 3/3"),)
    # (the Strong Deathdealer's own card: it scores at once, "without reducing your attack
    # total")
    assert s.seats[0].glory == 2 and s.attack is not None and s.attack.total == 5
    # "He selects the Devotee of the Holy Query, who has a defense of 4. ... it goes to Quinn's
    # Used Pile. But now the attack total is reduced to 1."
    s = run(f"defend r{index(s, 1, 'devotee_of_the_holy_query')}")
    assert s.attack is not None and s.attack.total == 1
    assert dict(s.seats[1].used) == {"devotee_of_the_holy_query": 1}
    # "That's not enough to kill the Scavenging Goblin, so Quinn keeps it in his Ready Area."
    s = run(f"defend r{index(s, 1, 'scavenging_goblin')}")
    assert [r.die for r in s.seats[1].ready] == ["scavenging_goblin"]
    # "While Quinn is defending, Clark and Michael must each also defend against the full
    # attack total of 8."
    assert s.attack is not None and s.attack.defender == 2 and s.attack.total == 8
    s = run("defend r1", "defend r1")
    assert not s.seats[2].ready
    s = run("defend r1", "defend r1")
    assert not s.seats[3].ready and s.phase == "capture" and s.turn.lost == (1, 2, 3)
    assert s.total_dice() == 130
    return run


def test_quinns_turn_and_monique_s_attack() -> None:
    text = "\n".join(quinns_turn().lines + [""] + monique_attacks().lines) + "\n"
    check_golden(GOLDEN, text)
