"""Dependencies point one way (DESIGN.md): engine imports nothing of ours, vision nothing of
ours, calibration may import vision and the engine, models (training and measurement) may
import those three, device may import everything but the models' code: no shipped module
imports training or measurement code. And the generic top-level names import from this
checkout, not from another installed package."""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OURS = {"engine", "vision", "calibration", "models", "device"}
ALLOWED = {
    "engine": set(),
    "vision": set(),
    "calibration": {"vision", "engine"},
    "models": {"vision", "calibration", "engine"},
    "device": OURS - {"models"},
}
# the models package is data (ONNX files, cards) found by path; its code is never imported
SHIPPED = ("engine", "vision", "calibration", "device")
# engine is pure Python: only the standard library
STDLIB = set(sys.stdlib_module_names)


def imports(path: Path, depth: int = 1) -> set[str]:
    """The modules a file imports, each cut to its first ``depth`` dotted parts."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {".".join(alias.name.split(".")[:depth]) for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(".".join(node.module.split(".")[:depth]))
    return found


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_imports_point_one_way(package: str) -> None:
    bad = []
    for path in (ROOT / package).rglob("*.py"):
        for name in imports(path) & OURS - {package} - ALLOWED[package]:
            bad.append(f"{path.relative_to(ROOT)} imports {name}")
    assert bad == []


def test_engine_uses_only_the_standard_library() -> None:
    bad = []
    for path in (ROOT / "engine").rglob("*.py"):
        for name in imports(path) - STDLIB - {"engine", "__future__"}:
            bad.append(f"{path.relative_to(ROOT)} imports {name}")
    assert bad == []


def test_shipped_packages_import_no_training_or_measurement_code() -> None:
    bad = []
    for package in SHIPPED:
        for path in (ROOT / package).rglob("*.py"):
            for name in imports(path, depth=2) & {"models.training", "models.measure"}:
                bad.append(f"{path.relative_to(ROOT)} imports {name}")
    assert bad == []


def test_layer_check_can_fail(tmp_path: Path) -> None:
    bad = tmp_path / "x.py"
    bad.write_text("import device.cli\nfrom vision import reader\n"
                   "from models.training.dice.shifts import SHIFTS\n")
    assert imports(bad) == {"device", "vision", "models"}
    assert imports(bad, depth=2) == {"device.cli", "vision", "models.training"}


@pytest.mark.parametrize("package", sorted(OURS))
def test_packages_import_from_this_checkout(package: str) -> None:
    module = importlib.import_module(package)
    assert module.__file__ is not None
    assert Path(module.__file__).resolve().is_relative_to(ROOT), module.__file__


# What reads a table at run time imports nothing that renders or measures: a Pi following a
# match loads neither the renderer nor the evaluation code.
READING = {
    "vision/dice": {"vision.synth", "vision.measure"},
    "calibration/table": {"calibration.render", "calibration.measure", "vision.synth",
                          "vision.measure"},
}


@pytest.mark.parametrize("folder", sorted(READING))
def test_reading_code_imports_no_rendering_or_measurement(folder: str) -> None:
    bad = []
    for path in (ROOT / folder).rglob("*.py"):
        for name in imports(path, depth=2) & READING[folder]:
            bad.append(f"{path.relative_to(ROOT)} imports {name}")
    assert bad == []
