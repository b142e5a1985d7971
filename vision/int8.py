"""int8 models on CPUs whose int8 products saturate: their weights given 7 bits at load.

The shipped int8 models (the dice classifier, the face experts, the enrolment embedding) were
quantised with uint8 activations and int8 weights over the whole int8 range
(models.training.quantize: ``QuantType.QUInt8`` / ``QInt8``, no ``reduce_range``). On an
x86-64 CPU without VNNI, onnxruntime's int8 convolutions and products multiply with
``vpmaddubsw``, which adds two uint8 x int8 products into an int16 *with saturation*: 2 x 255
x 127 = 64 770 does not fit in 32 767, and the layers' sums come out wrong (onnxruntime's and
OpenVINO's quantisation notes: "saturation issue"; on a VNNI CPU and on ARM the products are
summed in 32 bits). Measured on this project's 2-core AMD EPYC (avx2, no VNNI), 20 renders a
face (``vision.synth.facecrops`` TRAIN), the quarriors-fine2 expert read Basic Quiddity 0.51,
Life and Victory 0.65, Assistant 0.86 where its model card (measured on a VNNI machine) says
0.999+; the same weights computed exactly (each layer dequantised, in float) read all seven
of its types 1.0, and with 7-bit weights 0.99-1.0, as fast as int8 (15 ms for 40 crops).

So on such a CPU each int8 weight tensor of a product is halved to 7 bits and its scale
doubled (its int32 bias, whose scale is the input's times the weight's, halved too): 2 x 255
x 64 = 32 640 fits. That is onnxruntime's own remedy (``reduce_range``) applied to the
shipped file at load; the file itself is unchanged (its checksum stays the model card's).

The option (``DICETABLE_INT8_WEIGHTS``): ``auto`` (the default: 7 bits on an x86 CPU that does
not report VNNI), ``7bit`` (always) or ``as-shipped`` (never). The rewrite needs the ``onnx``
package, a dependency on x86 (pyproject.toml); without it the model is opened as shipped,
with a warning. Models quantised since 2026-12-01 (``models.training.quantize``:
``reduce_range``) have 7-bit weights already and are opened as they are.
"""

from __future__ import annotations

import logging
import os
import platform
from functools import lru_cache
from pathlib import Path

logger = logging.getLogger(__name__)

ENV = "DICETABLE_INT8_WEIGHTS"
MODES = ("auto", "7bit", "as-shipped")
VNNI_FLAGS = frozenset({"avx512_vnni", "avx_vnni", "amx_int8", "avx_vnni_int8"})
"""/proc/cpuinfo flags of x86 CPUs that sum uint8 x int8 products in 32 bits (vpdpbusd)"""
_X86 = frozenset({"x86_64", "amd64", "i386", "i686", "x86"})

# op -> (input index of the int8 weights, of their scale, of the int32 bias or None), for
# the products onnxruntime runs as uint8 x int8 (QOperator format)
_PRODUCTS: dict[tuple[str, str], tuple[int, int, int | None]] = {
    ("", "QLinearConv"): (3, 4, 8),
    ("com.microsoft", "QGemm"): (3, 4, 6),
    ("", "QLinearMatMul"): (3, 4, None),
}
SEVEN_BIT = (-64, 63)
#: Weights within this never saturate: 2 x 255 x 64 = 32 640 fits an int16 (onnxruntime's
#: reduce_range quantises to [-64, 64]).
SAFE = 64


def mode() -> str:
    value = os.environ.get(ENV, "auto").strip().lower() or "auto"
    if value not in MODES:
        raise ValueError(f"{ENV}={value!r}: use one of {', '.join(MODES)}")
    return value


@lru_cache(maxsize=1)
def _cpu_flags() -> frozenset[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return frozenset()
    for line in text.splitlines():
        if line.startswith("flags"):
            return frozenset(line.split(":", 1)[1].split())
    return frozenset()


def saturates(machine: str | None = None, flags: frozenset[str] | None = None) -> bool:
    """Whether int8 models get 7-bit weights here (see the module docstring): by the option,
    else an x86 CPU that does not report VNNI (one whose flags cannot be read is taken to
    lack it: 7-bit weights cost a VNNI CPU next to nothing)."""
    chosen = mode()
    if chosen != "auto":
        return chosen == "7bit"
    machine = (machine if machine is not None else platform.machine()).lower()
    if machine not in _X86:
        return False
    flags = flags if flags is not None else _cpu_flags()
    return not (flags & VNNI_FLAGS)


def seven_bit(model: bytes) -> bytes | None:
    """``model`` (serialised ONNX) with every uint8 x int8 product's weights in 7 bits; None
    when it has none whose weights need it (a float model, or weights already in 7 bits)."""
    import numpy as np
    import onnx
    from onnx import numpy_helper

    proto = onnx.load_from_string(model)
    inits = {i.name: i for i in proto.graph.initializer}
    uses: dict[str, int] = {}
    for node in proto.graph.node:
        for name in node.input:
            uses[name] = uses.get(name, 0) + 1
    changed = False
    for node in proto.graph.node:
        where = _PRODUCTS.get((node.domain, node.op_type))
        if where is None:
            continue
        w_at, s_at, b_at = where
        names = list(node.input)
        w_name, s_name = names[w_at], names[s_at]
        b_name = names[b_at] if b_at is not None and len(names) > b_at and names[b_at] else None
        x_zero = inits.get(names[2])
        if w_name not in inits or s_name not in inits or (
                x_zero is not None and numpy_helper.to_array(x_zero).dtype != np.uint8):
            continue  # weights computed at run time, or not a uint8 x int8 product
        weights = numpy_helper.to_array(inits[w_name])
        if weights.dtype != np.int8 or int(np.abs(weights.astype(np.int16)).max()) <= SAFE:
            continue
        shared = [n for n in (w_name, s_name, b_name) if n is not None and uses[n] > 1]
        if shared:
            logger.warning("int8 weights %s left as shipped: shared by other nodes", shared)
            continue
        halved = np.clip(np.round(weights.astype(np.float64) / 2), *SEVEN_BIT).astype(np.int8)
        scale = numpy_helper.to_array(inits[s_name]).astype(np.float32) * np.float32(2)
        inits[w_name].CopyFrom(numpy_helper.from_array(halved, w_name))
        inits[s_name].CopyFrom(numpy_helper.from_array(scale, s_name))
        if b_name is not None and b_name in inits:
            bias = numpy_helper.to_array(inits[b_name]).astype(np.float64)
            inits[b_name].CopyFrom(numpy_helper.from_array(
                np.round(bias / 2).astype(np.int32), b_name))
        changed = True
    return proto.SerializeToString() if changed else None


def loadable(path: Path) -> str | bytes:
    """What onnxruntime should open for the model at ``path``: the path itself, or the model
    with 7-bit weights where this CPU's int8 products saturate (see the module docstring)."""
    if not saturates():
        return str(path)
    data = path.read_bytes()
    try:
        rewritten = seven_bit(data)
    except ImportError:
        logger.warning("%s is opened as shipped: its int8 products may saturate on this CPU "
                       "(no VNNI) and read wrong; install the onnx package to give its "
                       "weights 7 bits", path.name)
        return str(path)
    if rewritten is None:
        return str(path)
    logger.info("%s: int8 weights given 7 bits (this CPU's int8 products saturate)",
                path.name)
    return rewritten
