"""Export: JSON Lines follow the log; the BG Stats file has the app's table layout."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from device.cli import main
from device.export import bgstats, jsonl_lines
from device.store import SQLiteStore
from engine import Match, get_game


def finished_match(seed: int = 4) -> Match:
    game = get_game("icedice")
    match = Match(game, 3, seed=seed)
    rng = random.Random(seed)
    while game.outcome(match.state) is None:
        match.push(game.random_action(match.state, rng))
    return match


def test_jsonl_follows_the_log() -> None:
    match = Match(get_game("icedice"), 2)
    for text in ("roll red S", "take red S", "stop"):
        match.push_text(text)
    match.undo()
    lines = [json.loads(x) for x in jsonl_lines(match, "m1")]
    assert lines[0]["type"] == "match" and lines[0]["game"] == "icedice"
    assert [x["text"] for x in lines[1:-1]] == ["roll red S", "take red S", "stop",
                                                "undo stop"]
    assert lines[-1]["type"] == "result" and lines[-1]["outcome"] is None


def test_bgstats_play_file() -> None:
    match = finished_match()
    data = bgstats(match, "abc", played_at=0, names=["Ann", "Bo", "Cy"])
    (play,) = data["plays"]
    winners = [s for s in play["playerScores"] if s["winner"]]
    outcome = match.game.outcome(match.state)
    assert outcome is not None and [w["playerRefId"] - 1 for w in winners] == \
        list(outcome.winners)
    assert winners[0]["rank"] == 1 and winners[0]["score"] == "3"
    assert {p["name"] for p in data["players"]} == {"Ann", "Bo", "Cy"}
    assert play["gameRefId"] == data["games"][0]["id"] and data["games"][0]["bggId"] == 0
    assert play["playDate"].count(":") == 2 and not play["ignored"]
    again = bgstats(match, "abc", played_at=0, names=["Ann", "Bo", "Cy"])
    assert again["plays"][0]["uuid"] == play["uuid"]  # re-export does not duplicate


def test_export_command_from_db_and_file(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "m.sqlite"
    store = SQLiteStore(db)
    mid = store.create_match(finished_match(), match_id="club1")
    store.close()
    assert main(["export", mid, "--db", str(db), "--format", "bgstats"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["plays"][0]["comments"].startswith("dicetable match club1")
    record = tmp_path / "rec.json"
    record.write_text(finished_match().to_json(), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert main(["export", str(record), "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8").count("\n") > 10


@pytest.mark.parametrize("args, message", [
    (["export", "nope", "--db", "{db}"], "no match 'nope'"),
    (["export", "x", "--db", "{missing}"], "no match database"),
    (["export", "club1", "--db", "{db}", "--names", "a,b"], "gives 2 names for 3 players"),
    (["export", "club1", "--db", "{db}", "--format", "csv"], "invalid choice"),
])
def test_export_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str],
                       message: str) -> None:
    db = tmp_path / "m.sqlite"
    SQLiteStore(db).create_match(finished_match(), match_id="club1")
    argv = [a.format(db=db, missing=tmp_path / "none.sqlite") for a in args]
    try:
        code = main(argv)
    except SystemExit as exc:
        code = int(exc.code or 0)
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err


def test_export_from_the_phone(tmp_path: Path) -> None:
    """GET /api/matches/{id}/export: the same files as the command, to download, with the
    names the players entered on the phone."""
    from fastapi.testclient import TestClient

    from device.web import create_app

    with TestClient(create_app(SQLiteStore(tmp_path / "p.sqlite"))) as client:
        mid = client.post("/api/matches", json={"game": "icedice", "players": 2,
                                                "names": ["Ann", "Bob"]}).json()["id"]
        client.post(f"/api/matches/{mid}/actions", json={"action": "roll red S"})
        r = client.get(f"/api/matches/{mid}/export")
        assert r.status_code == 200 and r.headers["content-type"] == "application/x-ndjson"
        assert f'filename="dicetable-{mid}.jsonl"' in r.headers["content-disposition"]
        lines = [json.loads(x) for x in r.text.splitlines()]
        assert [x["type"] for x in lines] == ["match", "entry", "result"]
        assert lines[0]["names"] == ["Ann", "Bob"]  # the record's, not a note
        r = client.get(f"/api/matches/{mid}/export", params={"format": "bgstats"})
        assert r.headers["content-disposition"].endswith('.bgsplay"')
        assert [p["name"] for p in r.json()["players"]] == ["Ann", "Bob"]
        r = client.get(f"/api/matches/{mid}/export", params={"format": "csv"})
        assert r.status_code == 422 and r.json()["code"] == "request/invalid"
        assert client.get("/api/matches/nope/export").status_code == 404
