"""ONNX export of the trained networks (legacy TorchScript exporter, opset 17, dynamic sizes)."""

from __future__ import annotations

import json
import logging
import warnings
from pathlib import Path

import onnx
import torch
from torch import nn

from models.training.nets import DetectorExport, DiceDetector

logger = logging.getLogger(__name__)


class _Tempered(nn.Module):
    """Logits divided by the fitted temperature, so softmax gives calibrated probabilities."""

    def __init__(self, net: nn.Module, temperature: float) -> None:
        super().__init__()
        self.net = net
        self.register_buffer("inv_t", torch.tensor(1.0 / temperature))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x) * self.inv_t


def _export(module: nn.Module, example: torch.Tensor, path: Path, inputs: list[str],
            outputs: list[str], dynamic: dict) -> None:
    module.eval()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, (example,), str(path), input_names=inputs,
                          output_names=outputs,
                          dynamic_axes=dynamic, opset_version=17, dynamo=False)
    model = onnx.load(str(path))
    onnx.checker.check_model(model)
    logger.info("wrote %s (%d bytes)", path, path.stat().st_size)


def export_crop_net(net: nn.Module, path: Path, crop_px: int,
                    outputs: tuple[str, ...] = ("logits",)) -> None:
    """A network that reads (N, 3, crop_px, crop_px) crops, as float ONNX with input
    ``crops`` and these outputs, all with a dynamic batch (the face models, the enrolment
    embedding)."""
    _export(net, torch.zeros(1, 3, crop_px, crop_px), path, ["crops"], list(outputs),
            {name: {0: "n"} for name in ("crops", *outputs)})


def export_classifier(net: nn.Module, temperature: float, path: Path) -> None:
    export_crop_net(_Tempered(net, temperature), path, int(net.crop_px))  # type: ignore[arg-type]


def export_detector(net: DiceDetector, path: Path) -> None:
    _export(DetectorExport(net), torch.zeros(1, 3, 256, 256), path, ["image"],
            ["heat", "peak", "geom"],
            {"image": {0: "n", 2: "h", 3: "w"}, "heat": {0: "n", 2: "gh", 3: "gw"},
             "peak": {0: "n", 2: "gh", 3: "gw"}, "geom": {0: "n", 2: "gh", 3: "gw"}})


def update_sha256sums(folder: Path, digests: dict[str, str], drop: tuple[str, ...] = ()
                      ) -> None:
    """Set these files' lines in ``folder/SHA256SUMS``, keeping other models' lines, and
    their checksums in ``folder/manifest.json`` when the folder has one (a model of a new
    role is added to the manifest by hand, with its card).

    Lines of the files named in ``drop`` (no longer shipped) are removed.
    """
    path = folder / "SHA256SUMS"
    lines = path.read_text().splitlines() if path.exists() else []
    kept = {ln.split()[1]: ln.split()[0] for ln in lines
            if len(ln.split()) == 2 and ln.split()[1] not in drop}
    kept.update(digests)
    path.write_text("".join(f"{h}  {n}\n" for n, h in sorted(kept.items())))
    # the manifest (vision.manifest) names the same files by role: their checksums follow
    manifest = folder / "manifest.json"
    if manifest.exists():
        data = json.loads(manifest.read_text(encoding="utf-8"))
        for entry in data["models"].values():
            if entry["file"] in digests:
                entry["sha256"] = digests[entry["file"]]
        manifest.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def add_features_output(src: Path, dst: Path, name: str = "features") -> None:
    """A copy of the classifier ``src`` at ``dst`` that also outputs the float features its
    last linear layer reads (``vision.dice.classifier.FEATURES_OUTPUT``: table adaptation needs
    them), the same network otherwise.

    The features are the input of the last Gemm (float model) or QGemm (int8 model, behind
    its QuantizeLinear), with the batch dimension dynamic.
    """
    model = onnx.load(str(src))
    graph = model.graph
    if any(o.name == name for o in graph.output):
        raise ValueError(f"{src} already has an output {name!r}")
    producer = {out: node for node in graph.node for out in node.output}
    gemms = [n for n in graph.node if n.op_type in ("Gemm", "QGemm")]
    if not gemms:
        raise ValueError(f"{src} has no Gemm layer to take features from")
    tensor = gemms[-1].input[0]
    if tensor in producer and producer[tensor].op_type == "QuantizeLinear":
        tensor = producer[tensor].input[0]
    graph.node.append(onnx.helper.make_node("Identity", [tensor], [name]))
    graph.output.append(onnx.helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT,
                                                           ["n", None]))
    onnx.checker.check_model(model)
    onnx.save(model, str(dst))
