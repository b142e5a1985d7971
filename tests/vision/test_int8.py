"""int8 models on a CPU whose int8 products saturate (vision.int8): weights given 7 bits."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision import int8
from vision.onnx_models import open_session

pytest.importorskip("onnx")  # (the dev extra: the rewrite needs it)

CHANNELS = 16
X_SCALE, W_SCALE, Y_SCALE = 1.0, 1.0, 2600.0
EXACT = CHANNELS * 255 * 127  # every input 255, every weight 127: 518 160


def _conv_model(tmp_path: Path) -> Path:
    """A 1 x 1 QLinearConv over 16 channels, uint8 input, int8 weights of 127: its exact sum
    for an input of 255 is 518 160; summed in pairs saturating at 32 767 it is 262 136."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    inits = [
        numpy_helper.from_array(np.array(X_SCALE, np.float32), "x_s"),
        numpy_helper.from_array(np.array(0, np.uint8), "x_z"),
        numpy_helper.from_array(np.full((1, CHANNELS, 1, 1), 127, np.int8), "w"),
        numpy_helper.from_array(np.array([W_SCALE], np.float32), "w_s"),
        numpy_helper.from_array(np.array([0], np.int8), "w_z"),
        numpy_helper.from_array(np.array(Y_SCALE, np.float32), "y_s"),
        numpy_helper.from_array(np.array(0, np.uint8), "y_z"),
        numpy_helper.from_array(np.array([2600], np.int32), "b"),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "x_s", "x_z"], ["xq"]),
        helper.make_node("QLinearConv", ["xq", "x_s", "x_z", "w", "w_s", "w_z", "y_s", "y_z",
                                         "b"], ["yq"], kernel_shape=[1, 1]),
        helper.make_node("DequantizeLinear", ["yq", "y_s", "y_z"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "sat", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                     [1, CHANNELS, 4, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 4, 4])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    path = tmp_path / "sat.onnx"
    onnx.save(model, str(path))
    return path


def _run(path: Path) -> float:
    x = np.full((1, CHANNELS, 4, 4), 255.0, np.float32)
    return float(open_session(path).run(None, {"x": x})[0].mean())


def test_weights_halved_with_their_scale_doubled_and_bias_halved(tmp_path: Path) -> None:
    from onnx import load_from_string, numpy_helper

    data = int8.seven_bit(_conv_model(tmp_path).read_bytes())
    assert data is not None
    inits = {i.name: numpy_helper.to_array(i) for i in load_from_string(data).graph.initializer}
    assert inits["w"].dtype == np.int8 and int(inits["w"].max()) == 63
    assert float(inits["w_s"][0]) == 2 * W_SCALE
    assert int(inits["b"][0]) == 1300
    assert int8.seven_bit(data) is None  # already in 7 bits: nothing to do


def test_a_sum_that_saturates_in_int16_is_computed_right(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """With 7-bit weights the layer's sum is the exact one to the weights' rounding (63 x 2
    for 127): on a CPU without VNNI the model as shipped sums to about half."""
    path = _conv_model(tmp_path)
    exact = EXACT * X_SCALE * W_SCALE + 2600
    monkeypatch.setenv(int8.ENV, "7bit")
    assert _run(path) == pytest.approx(exact, rel=0.02)
    monkeypatch.setenv(int8.ENV, "auto")
    if int8.saturates():  # this CPU (the project's 2-core AMD EPYC has no VNNI)
        assert _run(path) == pytest.approx(exact, rel=0.02)
        monkeypatch.setenv(int8.ENV, "as-shipped")
        assert _run(path) < 0.6 * exact  # what the reader read before


@pytest.mark.parametrize(("machine", "flags", "want"), [
    ("x86_64", frozenset({"avx2"}), True),
    ("AMD64", frozenset(), True),  # flags unknown: taken to lack VNNI
    ("x86_64", frozenset({"avx2", "avx512_vnni"}), False),
    ("x86_64", frozenset({"avx2", "avx_vnni"}), False),
    ("aarch64", frozenset(), False),  # the Raspberry Pi sums in 32 bits
])
def test_which_cpus_get_7_bit_weights(machine: str, flags: frozenset[str], want: bool,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(int8.ENV, raising=False)
    assert int8.saturates(machine, flags) is want
    monkeypatch.setenv(int8.ENV, "as-shipped")
    assert int8.saturates(machine, flags) is False
    monkeypatch.setenv(int8.ENV, "7bit")
    assert int8.saturates(machine, flags) is True
    monkeypatch.setenv(int8.ENV, "8bit")
    with pytest.raises(ValueError, match="as-shipped"):
        int8.saturates(machine, flags)


def test_a_float_model_is_opened_as_shipped() -> None:
    from vision.onnx_models import DETECTOR_FILE, model_path

    assert int8.seven_bit(model_path(DETECTOR_FILE).read_bytes()) is None
