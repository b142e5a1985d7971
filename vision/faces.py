"""Reading the face of a die whose type is known, and of dice the players enrolled.

:class:`DieFaceReader` runs the shipped face model (``models/die_faces_202611.onnx``): logits
over every catalogued face label and a 96-d embedding from the penultimate layer. For a
catalogued type the logits (averaged over the crop's four 90-degree turns) are restricted to
that type's labels and temperature-scaled (calibrated probabilities); a reading whose best
probability is under :data:`REJECT_BELOW` is rejected (label None), so the rules engine is
asked, not misled.

Enrolled dice are read by nearest class mean in the embedding: each face's mean of the
players' shots. A die that only fixes a symbol face of an ordinary die (a skull on the 1)
keeps the base type's other faces, whose means come from rendered crops of them; which of
those kept faces it is, the classifier says (restricted to them).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from vision.classifier import crop_dice
from vision.dietypes import DieType, get_type
from vision.facecrops import CROP_PX, TRAIN, face_crops
from vision.onnx_models import model_path, open_session

logger = logging.getLogger(__name__)

FACES_FILE = "die_faces_202611.onnx"
FACES_META = "die_faces.json"
#: A face read with less probability than this is rejected (reported, not guessed).
REJECT_BELOW = 0.6
#: Cosine similarity -> logit scale of the nearest-class-mean reader (a softmax temperature).
NCM_SCALE = 25.0
#: An enrolled die's face whose best similarity is under this is rejected.
NCM_MIN_SIMILARITY = 0.1


@dataclass(frozen=True, slots=True)
class FaceReading:
    """The face of one die."""

    dist: dict[str, float]
    """Probability per face label of the die's type (sums to 1)."""
    label: str | None
    """Best label, or None when rejected."""
    probability: float


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.maximum(np.linalg.norm(v, axis=-1, keepdims=True), 1e-9)


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@dataclass
class EnrolledDie:
    """A die the players showed to the camera: shots' embeddings per face label."""

    name: str
    shots: dict[str, list[list[float]]] = field(default_factory=dict)
    base: str | None = None
    """A catalogued type whose faces fill in the labels not enrolled (``d6``)."""

    def add(self, label: str, embeddings: np.ndarray) -> None:
        self.shots.setdefault(label, []).extend(
            [round(float(v), 5) for v in e] for e in np.asarray(embeddings))


class DieFaceReader:
    """Face model for dice of known type (one onnxruntime session, one thread)."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else model_path(FACES_FILE)
        meta_path = self.path.with_name(FACES_META)
        meta = json.loads(meta_path.read_text()) if meta_path.is_file() else {}
        self.labels: list[str] = list(meta.get("labels", []))
        self.temperature = float(meta.get("temperature", 1.0))
        self.crop_px = int(meta.get("crop_px", CROP_PX))
        #: the temperature was fitted on logits averaged over this many 90-degree turns
        self.turns = int(meta.get("test_time_turns", 1))
        self.session = open_session(self.path)
        self._index = {lb: i for i, lb in enumerate(self.labels)}
        self._base_means: dict[str, dict[str, np.ndarray]] = {}

    def crops(self, image: np.ndarray, xyxy: np.ndarray) -> np.ndarray:
        return crop_dice(image, xyxy, self.crop_px)

    def infer(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(logits (N, classes), unit embeddings (N, 96)) of uint8 BGR crops."""
        if len(crops) == 0:
            return np.zeros((0, len(self.labels))), np.zeros((0, 96))
        x = np.ascontiguousarray(crops.transpose(0, 3, 1, 2), np.float32) / 255.0
        logits, emb = self.session.run(None, {"crops": x})
        return logits.astype(np.float64), emb.astype(np.float64)

    def embed(self, crops: np.ndarray) -> np.ndarray:
        """Unit embeddings averaged over the crop turned 0, 90, 180 and 270 degrees: a face
        shot at one rotation then matches the same face at any other."""
        if len(crops) == 0:
            return np.zeros((0, 96))
        turned = np.concatenate([np.rot90(crops, k, axes=(1, 2)) for k in range(4)])
        _, emb = self.infer(np.ascontiguousarray(turned))
        return _unit(emb.reshape(4, len(crops), -1).mean(axis=0))

    def logits(self, crops: np.ndarray) -> np.ndarray:
        """Logits (N, classes), averaged over the crop turned 0, 90, 180, 270 degrees when the
        model's temperature was fitted so (a face seen at any yaw reads alike)."""
        if self.turns <= 1 or len(crops) == 0:
            return self.infer(crops)[0]
        turned = np.concatenate([np.rot90(crops, k, axes=(1, 2)) for k in range(self.turns)])
        logits, _ = self.infer(np.ascontiguousarray(turned))
        return logits.reshape(self.turns, len(crops), -1).mean(axis=0)

    def read_type(self, crops: np.ndarray, dtype: DieType | str) -> list[FaceReading]:
        """Faces of crops of dice of one catalogued type."""
        dt = get_type(dtype) if isinstance(dtype, str) else dtype
        labels = list(dt.labels)
        missing = [lb for lb in labels if lb not in self._index]
        if missing:
            raise ValueError(f"the face model does not know faces {missing} of {dt.name}")
        logits = self.logits(crops)
        sub = logits[:, [self._index[lb] for lb in labels]] / self.temperature
        return [self._reading(labels, p, REJECT_BELOW) for p in _softmax(sub)]

    def read_enrolled(self, crops: np.ndarray, die: EnrolledDie) -> list[FaceReading]:
        """Faces of crops of an enrolled die (nearest class mean in the embedding)."""
        means = self.class_means(die)
        labels = list(means)
        m = np.stack([means[lb] for lb in labels])
        # The embedding (after a ReLU) shares a large common part between all faces:
        # measured from the die's own face means, it is taken out before comparing.
        centre = m.mean(axis=0)
        m = _unit(m - centre)
        sim = _unit(self.embed(crops) - centre) @ m.T
        probs = _softmax(sim * NCM_SCALE)
        kept = [lb for lb in labels if lb not in die.shots]
        if die.base and kept and all(lb in self._index for lb in kept) and len(crops):
            # The base type's own faces (the pips of a d6 with a skull on the 1) are read
            # better by the classifier than by their means: the embedding decides "an
            # enrolled face or not", the classifier, restricted to the kept labels, which one.
            cols = [labels.index(lb) for lb in kept]
            sub = self.logits(crops)[:, [self._index[lb] for lb in kept]] / self.temperature
            rest = probs[:, cols].sum(axis=1, keepdims=True)
            probs[:, cols] = rest * _softmax(sub)
        out = []
        for s, p in zip(sim, probs, strict=True):
            r = self._reading(labels, p, REJECT_BELOW)
            if s.max() < NCM_MIN_SIMILARITY:
                r = FaceReading(r.dist, None, r.probability)
            out.append(r)
        return out

    def class_means(self, die: EnrolledDie) -> dict[str, np.ndarray]:
        """Unit mean embedding per face label: enrolled shots, then the base type's faces."""
        means = {}
        if die.base:
            means.update({k: v for k, v in self.base_means(die.base).items()
                          if k not in die.shots})
        for label, shots in die.shots.items():
            means[label] = _unit(np.asarray(shots, np.float64).mean(axis=0))
        if not means:
            raise ValueError(f"die {die.name} has no enrolled face")
        return means

    def base_means(self, name: str, shots: int = 24) -> dict[str, np.ndarray]:
        """Mean embeddings of a catalogued type's faces from rendered crops (seeded)."""
        if name not in self._base_means:
            dt = get_type(name)
            rng = np.random.default_rng(12345)
            out = {}
            for face in dt.faces:
                if face.label in out:
                    continue
                emb = self.embed(face_crops(dt, face, shots, rng, TRAIN, self.crop_px))
                out[face.label] = _unit(emb.mean(axis=0))
            self._base_means[name] = out
        return self._base_means[name]

    @staticmethod
    def _reading(labels: list[str], p: np.ndarray, reject: float) -> FaceReading:
        i = int(np.argmax(p))
        dist = {lb: float(v) for lb, v in zip(labels, p, strict=True)}
        return FaceReading(dist, labels[i] if p[i] >= reject else None, float(p[i]))
