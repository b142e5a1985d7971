"""`dicetable matches`: the recorded matches and their ids (issue 32, 10)."""

from __future__ import annotations

import json
from pathlib import Path

from device.matches.service import MatchService
from device.store import SQLiteStore
from tests.device.conftest import Cli


def test_lists_the_recorded_matches_newest_first(cli: Cli, tmp_path: Path) -> None:
    db = tmp_path / "m.sqlite"
    service = MatchService(SQLiteStore(db))
    first = service.create("icedice", 2, {}, None, 1, "Friday")
    service.act(first, "roll red S", None)
    second = service.create("pyramid_dice", 3, {}, None, 2, "Saturday")
    service.store.close()
    code, out, err = cli("matches", "--db", str(db), "--json")
    assert code == 0 and err == ""
    listed = json.loads(out)
    assert [m["id"] for m in listed] == [second, first]
    assert listed[1] | {"created": 0, "updated": 0} == {
        "id": first, "game": "icedice", "players": 2, "created": 0, "updated": 0,
        "entries": 1, "finished": False, "title": "Friday"}
    code, out, _ = cli("matches", "--db", str(db))
    lines = out.splitlines()
    assert code == 0 and lines[0].split() == ["ID", "GAME", "PLAYERS", "STARTED", "CHANGED",
                                              "ENTRIES", "STATE", "TITLE"]
    assert lines[1].startswith(second) and lines[1].endswith("Saturday")
    assert lines[2].startswith(first) and " open " in lines[2]
    # and the id is what export takes
    assert cli("export", first, "--db", str(db))[0] == 0


def test_no_database_is_one_line_and_none_is_made(cli: Cli, tmp_path: Path) -> None:
    code, out, err = cli("matches", "--db", str(tmp_path / "none.sqlite"))
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert "no match database" in err and list(tmp_path.iterdir()) == []
    (tmp_path / "junk.sqlite").write_text("not sqlite")
    code, _, err = cli("matches", "--db", str(tmp_path / "junk.sqlite"))
    assert code == 2 and "not a usable dicetable database" in err


def test_an_empty_database_says_so(cli: Cli, tmp_path: Path) -> None:
    db = tmp_path / "e.sqlite"
    SQLiteStore(db).close()
    assert cli("matches", "--db", str(db)) == (0, f"no matches recorded in {db}\n", "")
    assert cli("matches", "--db", str(db), "--json") == (0, "[]\n", "")
