"""An installed (non-editable) dicetable must carry every data file its code reads.

An editable install reads the checkout, so a package-data glob that misses a file (one in a
sub-folder, say) passes every other test and breaks only for users who `pip install` the
wheel. This checks each tracked data file inside a package against pyproject's globs.
"""

from __future__ import annotations

import subprocess
import tomllib
from fnmatch import fnmatch
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tracked() -> list[str]:
    try:
        out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: cannot list the tracked files")
    return out.splitlines()


def test_every_data_file_in_a_package_is_in_package_data() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    packages = sorted(config["packages"], key=len, reverse=True)  # deepest package first
    globs = config["package-data"]
    missing = []
    for path in _tracked():
        if path.endswith(".py") or path.startswith("tests/"):
            continue
        parts = path.split("/")
        owner = next((p for p in packages if parts[:len(p.split("."))] == p.split(".")), None)
        if owner is None:
            continue
        rel = "/".join(parts[len(owner.split(".")):])
        patterns = globs.get(owner, [])
        # fnmatch's * crosses '/', setuptools' does not: compare folder depth as well.
        if not any(fnmatch(rel, g) and rel.count("/") == g.count("/") for g in patterns):
            missing.append(path)
    assert not missing, f"not in [tool.setuptools.package-data]: {missing}"


def test_every_package_in_the_checkout_is_listed() -> None:
    """pyproject lists the packages by name (their names are generic): a folder of code
    left out installs nothing of it. device.matches was missing, so `pip install .` (the
    README's quick start) gave a dicetable whose every command that serves a match failed
    to import device.matches."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    tops = {p.split(".")[0] for p in listed}
    found = {str(init.parent.relative_to(ROOT)).replace("/", ".")
             for top in tops for init in (ROOT / top).rglob("__init__.py")}
    assert sorted(found - listed) == []
