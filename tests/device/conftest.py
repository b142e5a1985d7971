"""Fixtures shared by the device tests."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from device.cli import main

Cli = Callable[..., tuple[int, str, str]]
"""``cli("read", "x.jpg", "--json")`` -> (exit status, stdout, stderr) of one command."""


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Cli:
    """Runs the command line in-process, as a user would type it."""
    def run(*args: str) -> tuple[int, str, str]:
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse usage errors
            code = int(exc.code or 0)
        out, err = capsys.readouterr()
        return code, out, err

    return run
