"""The enrolment embedding: a small network trained for matching a die's faces.

Enrolled dice are known only from a few shots per face; reading one is telling which of its
faces a crop shows. The shipped face model's embedding was trained for classifying the
catalogued faces and reads new dice poorly alone; this one (``die_enrol_202611_int8.onnx``,
``models.training.enrol.train_enrol``) was trained on nothing else: rendered dice of random glyph
designs, a prototype per face from one to five steady shots, crops of the same face under
other light, pose, blur and JPEG pulled towards it and away from the die's other faces
(prototypical loss). It reads a crop turned upright by its die's edges (:func:`upright_bgr`,
as :mod:`vision.faces.match` does) and averaged over the four quarter turns, so a face shot at
one yaw matches the same face at any other.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.faces.match import YAW_BLUR, yaw_mod90
from vision.manifest import file_of

ENROL_FILE = file_of("enrol")
TURNS = 4


def upright_bgr(crop: np.ndarray) -> np.ndarray:
    """A uint8 BGR crop turned by its die's edges' yaw (up to a quarter turn) to upright."""
    h, w = crop.shape[:2]
    g = cv2.GaussianBlur(crop.astype(np.float32).mean(axis=2), (0, 0), YAW_BLUR)
    m = cv2.getRotationMatrix2D((w / 2, h / 2), yaw_mod90(g), 1.0)
    return cv2.warpAffine(crop, m, (w, h), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)


def prepared(crops: np.ndarray) -> np.ndarray:
    """(N, 3, h, w) float32 in [0, 1]: uint8 BGR crops turned upright, as the network reads."""
    up = np.stack([upright_bgr(c) for c in crops]) if len(crops) else np.asarray(crops)
    return np.ascontiguousarray(up.transpose(0, 3, 1, 2), np.float32) * (1 / 255.0)


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.maximum(np.linalg.norm(v, axis=-1, keepdims=True), 1e-9)


class FaceEmbedder:
    """The enrolment embedding network (onnxruntime, one thread)."""

    def __init__(self, path: str | Path) -> None:
        from vision.onnx_models import open_session

        self.path = Path(path)
        self.session = open_session(self.path)
        shape = self.session.get_inputs()[0].shape
        self.crop_px = int(shape[2]) if isinstance(shape[2], int) else 48
        self.dim = int(self.session.get_outputs()[0].shape[1])

    def embed(self, crops: np.ndarray) -> np.ndarray:
        """(N, D) unit embeddings of uint8 BGR crops: upright, averaged over four turns."""
        if len(crops) == 0:
            return np.zeros((0, self.dim))
        if crops.shape[1] != self.crop_px:
            crops = np.stack([cv2.resize(c, (self.crop_px, self.crop_px),
                                         interpolation=cv2.INTER_AREA) for c in crops])
        x = prepared(crops)
        x = np.ascontiguousarray(np.concatenate([np.rot90(x, k, axes=(2, 3))
                                                 for k in range(TURNS)]))
        e = self.session.run(None, {"crops": x})[0].astype(np.float64)
        return _unit(_unit(e).reshape(TURNS, len(crops), -1).mean(axis=0))
