"""Die-face classifier: square crops around detected dice -> calibrated face probabilities.

The ONNX network outputs temperature-scaled logits over FACE_NAMES plus one last class,
"not a die", which lets the reader drop detector false positives. preprocess / infer /
postprocess are separate so a benchmark can time the network alone.
"""

from __future__ import annotations

import logging
from pathlib import Path

import cv2
import numpy as np

from vision.dice.detections import NUM_FACE_CLASSES
from vision.dice.residual import FaceResidual
from vision.onnx_models import CLASSIFIER_FILE, model_path, open_session

logger = logging.getLogger(__name__)

#: The shipped classifier reads 48-px crops: about a real photo's own pixels for a 40-50 px die.
CROP_PX = 48
#: The crop is this much larger than the die's box, so a slightly-off box still holds the die.
CROP_MARGIN = 1.15
NOT_A_DIE = NUM_FACE_CLASSES  # index of the extra class
#: The output holding the pooled features the last layer reads (what table adaptation,
#: ``vision.dice.residual``, corrects the logits from); models exported before it have none.
FEATURES_OUTPUT = "features"
#: Orientations every crop is read in (0, 90, ... degrees), logits averaged: a face's value
#: does not change when it turns, and the average is steadier than any one view.
TURNS = 1


def crop_dice(image: np.ndarray, xyxy: np.ndarray, size: int = CROP_PX,
              margin: float = CROP_MARGIN) -> np.ndarray:
    """(N, size, size, 3) uint8 square crops centred on each box (edges replicated)."""
    n = len(xyxy)
    out = np.empty((n, size, size, 3), np.uint8)
    for i, (x0, y0, x1, y1) in enumerate(np.asarray(xyxy, np.float64)):
        side = max(x1 - x0, y1 - y0, 2.0) * margin
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        s = size / side
        mat = np.array([[s, 0, size / 2 - s * cx], [0, s, size / 2 - s * cy]])
        # Shrinking a lot with bilinear sampling aliases pips away: pre-blur big dice.
        src = image
        if s < 0.5:
            # Only the crop's square and a kernel's width round it: the blur costs its area,
            # and no pixel the warp samples is nearer the patch's edge than half a kernel.
            k = int(1 / s) | 1
            reach = side / 2 + k + 2
            ix0, iy0 = max(int(cx - reach), 0), max(int(cy - reach), 0)
            ix1, iy1 = int(cx + reach) + 1, int(cy + reach) + 1
            patch = image[iy0:iy1, ix0:ix1]
            src = cv2.blur(patch, (k, k))
            mat[:, 2] += s * np.array([ix0, iy0])
        out[i] = cv2.warpAffine(src, mat, (size, size), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE)
    return out


def crops_to_tensor(crops: np.ndarray) -> np.ndarray:
    """uint8 (N, h, w, 3) BGR -> float32 NCHW in [0, 1]."""
    return np.ascontiguousarray(crops.transpose(0, 3, 1, 2), dtype=np.float32) * (1 / 255.0)


def softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


class FaceClassifier:
    """Reads the face of each die crop with the shipped ONNX classifier.

    With ``residual`` (a table's adaptation, :mod:`vision.dice.residual`) every logit is corrected
    by it; that needs a model with the :data:`FEATURES_OUTPUT` output.
    """

    def __init__(self, path: str | Path | None = None, turns: int = TURNS,
                 residual: FaceResidual | None = None) -> None:
        if turns not in (1, 2, 4):
            raise ValueError(f"turns must be 1, 2 or 4, not {turns}")
        self.turns = turns
        self.path = Path(path) if path is not None else model_path(CLASSIFIER_FILE)
        self.session = open_session(self.path)
        self.input_name = self.session.get_inputs()[0].name
        outputs = [o.name for o in self.session.get_outputs()]
        self.has_features = FEATURES_OUTPUT in outputs
        self._outputs = [outputs[0], FEATURES_OUTPUT] if self.has_features else [outputs[0]]
        shape = self.session.get_inputs()[0].shape
        self.crop_px = int(shape[2]) if isinstance(shape[2], int) else CROP_PX
        self.residual: FaceResidual | None = None
        if residual is not None:
            self.adapt(residual)

    def adapt(self, residual: FaceResidual | None) -> None:
        """Read with this table's correction from now on (None: as shipped)."""
        if residual is not None:
            if not self.has_features:
                raise ValueError(f"{self.path.name} has no {FEATURES_OUTPUT!r} output to "
                                 "adapt from")
            width = next(o.shape[-1] for o in self.session.get_outputs()
                         if o.name == FEATURES_OUTPUT)
            if isinstance(width, int) and width != residual.features:
                raise ValueError(f"the adaptation has {residual.features} features, the "
                                 f"model {width}")
        self.residual = residual

    def preprocess(self, image: np.ndarray, xyxy: np.ndarray) -> np.ndarray:
        return crop_dice(image, xyxy, self.crop_px)

    def infer(self, crops: np.ndarray) -> np.ndarray:
        """Logits (N, classes) for uint8 crops, averaged over ``turns`` orientations."""
        if self.turns == 1 or len(crops) == 0:
            return self.infer_once(crops)
        turned = np.concatenate([crops] + [np.rot90(crops, k, axes=(1, 2))
                                           for k in range(1, self.turns)])
        logits = self.infer_once(np.ascontiguousarray(turned))
        return logits.reshape(self.turns, len(crops), -1).mean(axis=0)

    def infer_once(self, crops: np.ndarray) -> np.ndarray:
        """Logits (N, classes) for uint8 crops as they are (corrected by the residual)."""
        logits, features = self.infer_features(crops)
        if self.residual is not None and len(logits):
            return self.residual.apply(logits, features)
        return logits

    def infer_features(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The shipped logits (N, classes), uncorrected, and the features (N, F) (F = 0
        for a model without them)."""
        if len(crops) == 0:
            return np.zeros((0, NUM_FACE_CLASSES + 1), np.float32), np.zeros((0, 0), np.float32)
        out = self.session.run(self._outputs, {self.input_name: crops_to_tensor(crops)})
        features = out[1] if self.has_features else np.zeros((len(crops), 0), np.float32)
        return out[0], features

    @staticmethod
    def postprocess(logits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(face probabilities (N, 8) renormalised without 'not a die', P(not a die) (N,))."""
        probs = softmax(logits.astype(np.float64))
        not_die = probs[:, NOT_A_DIE] if probs.shape[1] > NOT_A_DIE else np.zeros(len(probs))
        faces = probs[:, :NUM_FACE_CLASSES]
        faces = faces / np.maximum(faces.sum(axis=1, keepdims=True), 1e-12)
        return faces.astype(np.float32), not_die.astype(np.float32)
