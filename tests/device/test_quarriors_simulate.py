"""The simulated Quarriors table followed by the live loop (noise observer: the reconcile
loop, no pixels): draws read off the Active Pool as one reading each, fouls with the dice
flagged, the record exact."""

from __future__ import annotations

from device.simtable import SimFigures, SimParams
from device.simulate import simulate_match


def test_a_quarriors_match_is_followed_with_its_fouls_flagged() -> None:
    figures = SimFigures()
    report: list[dict] = []
    simulate_match("quarriors", 2, 1, SimParams(observer="noise", max_moves=120,
                                                inject_violations=0.1), figures,
                   report=report)
    got = figures.to_dict()
    assert got["state_exact"] == 1.0 and got["silent_illegal"] == 0
    assert got["violations_injected"] == got["violations_flagged"] > 0
    assert got["auto_accepted"] >= 0.8
    # a draw and its rolls, twelve chance outcomes, came to the camera as one reading
    draws = [r for r in report if r.get("kind") == "Accepted"
             and sum(a.startswith("draw ") for a in r["actions"]) == 6]
    assert draws and all(sum(a.startswith("roll ") for a in r["actions"]) >= 6 for r in draws)
