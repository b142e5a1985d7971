"""The `dicetable` command line.

Data goes to stdout (JSON with ``--json``); logs and progress to stderr. A problem the
user can fix is one line on stderr and a non-zero exit status, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence

import engine
from device.commands import COMMANDS
from device.errors import UserError

logger = logging.getLogger(__name__)


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line (plus the usage) with status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="dicetable",
        description="A camera companion for dice games on a real table.",
    )
    parser.add_argument("--version", action="version", version=f"dicetable {engine.__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more log output")
    parser.add_argument("-q", "--quiet", action="store_true", help="only errors on stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"device.commands.{name}")
        except ModuleNotFoundError as exc:  # a command not built into this install
            if exc.name != f"device.commands.{name}":
                raise
            logger.debug("command %s is not available", name)
            continue
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    level = logging.ERROR if args.quiet else (logging.DEBUG if args.verbose else logging.WARNING)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s",
                        stream=sys.stderr)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args))
    except UserError as exc:
        print(f"dicetable: error: {exc}", file=sys.stderr)
        return exc.exit_status
    except KeyboardInterrupt:
        print("dicetable: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug of ours: still one line for the user, details with -v
        logger.debug("unexpected error", exc_info=True)
        print(f"dicetable: internal error: {type(exc).__name__}: {exc} (run with -v for details)",
              file=sys.stderr)
        return 1
