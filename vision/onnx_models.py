"""Finding and opening the shipped ONNX models with onnxruntime on one thread.

The models live in the top-level ``models`` package directory (installed as package data).
Its location is found without importing it (``vision`` imports nothing of ours), or taken
from ``DICETABLE_MODELS_DIR``. Nothing is ever downloaded.
"""

from __future__ import annotations

import importlib.util
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import onnxruntime as ort

logger = logging.getLogger(__name__)

DETECTOR_FILE = "dice_detector_202611.onnx"
#: The reader runs the int8 classifier; the float one training quantises it from stays under
#: runs/float (not shipped).
CLASSIFIER_FLOAT_FILE = "dice_classifier_202611.onnx"
CLASSIFIER_FILE = "dice_classifier_202611_int8.onnx"


class ModelNotFoundError(FileNotFoundError):
    """A shipped model file is missing (a broken install)."""


def models_dir() -> Path:
    """Directory holding the shipped ONNX files."""
    env = os.environ.get("DICETABLE_MODELS_DIR")
    if env:
        return Path(env)
    spec = importlib.util.find_spec("models")
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return Path(__file__).resolve().parent.parent / "models"


def model_path(name: str) -> Path:
    """Full path of a shipped model file, or ModelNotFoundError saying what to do."""
    path = models_dir() / name
    if not path.is_file():
        raise ModelNotFoundError(
            f"model file {path} is missing; reinstall dicetable or set DICETABLE_MODELS_DIR "
            "to the folder holding the .onnx files")
    return path


def open_session(path: str | Path, threads: int = 1) -> ort.InferenceSession:
    """An onnxruntime CPU session; one thread by default (the Pi budget is one core). An int8
    model is opened with 7-bit weights on a CPU whose int8 products saturate (vision.int8)."""
    import onnxruntime as ort  # lazily: `dicetable --help` should not pay for it

    from vision.int8 import loadable

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.log_severity_level = 3
    return ort.InferenceSession(loadable(Path(path)), sess_options=opts,
                                providers=["CPUExecutionProvider"])
