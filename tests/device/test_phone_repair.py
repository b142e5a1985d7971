"""The camera's proposed repair taken on the page with one tap (issue 32, 2): in the demo the
players answer the camera's question with a wrong move; at its next readings the camera,
lost, proposes putting the record back; the page shows the proposal in words and one tap
records it, after which the record is where the table is."""

from __future__ import annotations

import threading
from typing import Any

from phone import browser_fixtures, require_browser
from test_demo_recovery import _base, wait

from device.sim_players import Truth

served, server, page = browser_fixtures(require_browser())


def test_a_proposed_repair_is_one_tap(server: tuple[str, Any], page: Any) -> None:
    from device.demo import DemoTable

    url, app = server
    service = app.state.service
    demo = DemoTable(service, "icedice", 2, seed=11, speed=20.0, answer_after=1e6,
                     picture=False)
    stop = threading.Event()
    thread = threading.Thread(target=demo.run, args=(stop,), daemon=True)
    thread.start()
    try:
        mid = wait(lambda: demo.match_id)
        assert demo.table is not None
        truth = Truth(demo.table.truth)

        def wrong_choice() -> tuple[int, list[str]] | None:
            p = service.view(mid)["pending"]
            if not p or p["kind"] != "question" or "candidates" not in (p.get("data") or {}):
                return None
            match = service.match(mid)
            for c in p["data"]["candidates"]:
                if c["legal"] and c["actions"] and not truth.leads_right(
                        match, match.state, len(match.actions), c["actions"]):
                    return p["seq"], c["actions"]
            return None

        seq, wrong = wait(wrong_choice)
        service.act(mid, "; ".join(wrong), None, answer_to=seq)

        def proposal() -> dict[str, Any] | None:
            p = service.view(mid)["pending"]
            return p if p and (p.get("data") or {}).get("type") == "repair" else None

        repair = wait(proposal)
        stop.set()  # the table waits while the players read the question
        thread.join(timeout=10)
        right = [i for i, c in enumerate(repair["data"]["choices"])
                 if truth.leads_right(*_base(service, mid, c), c["actions"])]
        assert right, repair["data"]["choices"]
        page.goto(f"{url}/#/m/{mid}")
        button = page.locator(f"#m-pending button.repair[data-choice='{right[0]}']")
        button.wait_for()
        # the proposal in words, no action strings or rule ids on the page
        assert "The camera lost track" in page.inner_text("#m-pending")
        words = repair["data"]["choices"][right[0]]["words"]
        assert button.inner_text() == words.removeprefix("The camera lost track. ")
        assert page.inner_text("#m-pending").count("The camera lost track") == 1
        button.click()
        page.wait_for_selector("#m-pending", state="hidden")
        assert truth.on_track(service.match(mid))
        assert any(e["kind"] == "correction" for e in service.view(mid)["entries"])
    finally:
        stop.set()
        thread.join(timeout=10)
