"""Progress bars on stderr for the long commands (simulate, eval, pieces): tqdm's, shown only
on a terminal and never with ``--quiet``, so pipes, logs and CI get no bar characters.

`simulate` ran for minutes with nothing on stderr (issue 32, 10)."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")


def _is_terminal() -> bool:
    return sys.stderr.isatty()


def shown(quiet: bool) -> bool:
    """Whether a bar is drawn: stderr is a terminal and the user did not ask for quiet."""
    return not quiet and _is_terminal()


def bar(total: int, desc: str, unit: str, quiet: bool = False) -> Any:
    """A bar to ``update()`` by hand (close it, or use it as a context manager)."""
    from tqdm import tqdm  # (imported when a command runs, not when the CLI is built)

    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, disable=not shown(quiet),
                dynamic_ncols=True)


def each(items: Iterable[T], desc: str, unit: str, quiet: bool = False) -> Iterator[T]:
    """``items`` with a bar counting them."""
    seq = list(items)
    with bar(len(seq), desc, unit, quiet) as b:
        for item in seq:
            yield item
            b.update(1)
