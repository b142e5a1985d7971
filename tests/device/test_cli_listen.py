"""serve and demo with their port in use: one line, status 2, nothing created (issue 32, 10).

uvicorn used to bind after the database was created and the link printed, then log its own
``[Errno 98]`` and exit 3."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.device.conftest import Cli


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        yield int(sock.getsockname()[1])


@pytest.mark.parametrize("command", [["serve"], ["serve", "--camera", "none", "--game",
                                                 "pyradice"], ["demo"]])
def test_a_port_in_use_is_one_line_status_2_and_creates_nothing(
        cli: Cli, busy_port: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        command: list[str]) -> None:
    monkeypatch.setenv("DICETABLE_DB", str(tmp_path / "data" / "matches.sqlite"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    code, out, err = cli(*command, "--port", str(busy_port))
    assert code == 2 and out == ""
    assert err.splitlines() == [f"dicetable: error: port {busy_port} is in use on 127.0.0.1 "
                                "(another dicetable serve or demo?): stop it, or choose "
                                "another port with --port"]
    assert list(tmp_path.iterdir()) == []  # no database, not even its folder


def test_an_address_not_of_this_machine_is_one_line(cli: Cli, tmp_path: Path) -> None:
    code, out, err = cli("serve", "--host", "nosuch.invalid", "--port", "8000",
                         "--db", str(tmp_path / "m.sqlite"))
    assert code == 2 and len(err.splitlines()) == 1 and "no such address" in err
    assert not (tmp_path / "m.sqlite").exists()
