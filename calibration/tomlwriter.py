"""A small TOML writer for our own files (profiles); reading is the standard ``tomllib``.

It writes what a profile holds and nothing more: strings, booleans, integers, finite floats,
arrays of those (nested arrays too), tables and arrays of tables. Anything else is a
TypeError, so a value that would not read back the same is caught when writing.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Mapping, Sequence
from typing import Any

logger = logging.getLogger(__name__)


def _key(k: str) -> str:
    if k and all(c.isalnum() or c in "_-" for c in k) and k.isascii():
        return k
    return json.dumps(k)


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise TypeError(f"cannot write {v} (not finite)")
        return repr(v)
    if isinstance(v, str):
        # JSON string escapes are a subset of TOML basic-string escapes.
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, Sequence) and not isinstance(v, bytes):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    raise TypeError(f"cannot write a {type(v).__name__} as TOML")


def _is_table_array(v: Any) -> bool:
    return isinstance(v, Sequence) and not isinstance(v, str) and len(v) > 0 and all(
        isinstance(x, Mapping) for x in v)


def dumps(data: Mapping[str, Any]) -> str:
    """TOML text of a mapping (keys in insertion order; scalars before sub-tables)."""
    lines: list[str] = []
    _table(data, [], lines)
    return "\n".join(lines).strip() + "\n"


def _table(data: Mapping[str, Any], path: list[str], lines: list[str]) -> None:
    subs = []
    for k, v in data.items():
        if not isinstance(k, str):
            raise TypeError("TOML keys must be strings")
        if v is None:
            continue  # TOML has no null: an absent key means "not known"
        if isinstance(v, Mapping) or _is_table_array(v):
            subs.append((k, v))
        else:
            lines.append(f"{_key(k)} = {_value(v)}")
    for k, v in subs:
        name = ".".join(_key(p) for p in [*path, k])
        if isinstance(v, Mapping):
            lines += ["", f"[{name}]"]
            _table(v, [*path, k], lines)
        else:
            for item in v:
                lines += ["", f"[[{name}]]"]
                _table(item, [*path, k], lines)
