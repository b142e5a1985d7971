"""The one result type of the dice reader: a validated, vectorised set of dice in one image.

Every field is an array with one row per die, so a frame with 40 dice is a handful of numpy
arrays rather than 40 objects; ``Detections.empty()`` is the explicit "no dice" value.
Pixel coordinates refer to the original image the reader was given.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np

logger = logging.getLogger(__name__)

#: Class index of the face classifier -> meaning. 0..5 are the pip values 1..6.
FACE_SYMBOL = 6
FACE_UNREADABLE = 7
FACE_NAMES: tuple[str, ...] = ("1", "2", "3", "4", "5", "6", "symbol", "unreadable")
NUM_FACE_CLASSES = len(FACE_NAMES)
#: A die whose reported value is less probable than this is reported unsure: the reader
#: found a die but cannot tell its face (calibrated probabilities: about one such die in
#: four or more is read wrong), which a player should look at rather than trust.
UNSURE_BELOW = 0.8


@dataclass(frozen=True, slots=True)
class Detections:
    """Dice found in one image.

    Attributes are arrays of length N (N dice). ``value`` is the best pip value 1..6, or 0 when
    the face is not readable; ``symbol`` flags a face showing a symbol in place of pips (then
    ``value`` is only a best guess).
    """

    xyxy: np.ndarray
    """(N, 4) float32 box corners x0, y0, x1, y1 in pixels."""
    confidence: np.ndarray
    """(N,) float32 detector confidence in [0, 1] that a die is there."""
    face_probs: np.ndarray = field(default=None)  # type: ignore[arg-type]
    """(N, 8) float32 calibrated probabilities over FACE_NAMES, each row sums to 1."""
    body_colour: tuple[str, ...] = ()
    """N colour names of the die bodies."""
    pip_colour: tuple[str, ...] = ()
    """N colour names of the pips."""

    def __post_init__(self) -> None:
        xyxy = np.asarray(self.xyxy, dtype=np.float32)
        if xyxy.size == 0:
            xyxy = xyxy.reshape(0, 4)
        if xyxy.ndim != 2 or xyxy.shape[1] != 4:
            raise ValueError(f"xyxy must have shape (N, 4), got {xyxy.shape}")
        n = xyxy.shape[0]
        if not np.all(np.isfinite(xyxy)):
            raise ValueError("xyxy must be finite")
        if np.any(xyxy[:, 2] < xyxy[:, 0]) or np.any(xyxy[:, 3] < xyxy[:, 1]):
            raise ValueError("xyxy boxes must have x1 >= x0 and y1 >= y0")
        conf = np.asarray(self.confidence, dtype=np.float32).reshape(-1)
        if conf.shape != (n,):
            raise ValueError(f"confidence must have shape ({n},), got {conf.shape}")
        if np.any((conf < 0) | (conf > 1)):
            raise ValueError("confidence must be in [0, 1]")
        probs = self.face_probs
        if probs is None:
            # Not classified yet: every face equally likely says "we do not know" honestly.
            probs = np.full((n, NUM_FACE_CLASSES), 1.0 / NUM_FACE_CLASSES, np.float32)
        probs = np.asarray(probs, dtype=np.float32)
        if n == 0 and probs.size == 0:
            probs = probs.reshape(0, NUM_FACE_CLASSES)
        if probs.shape != (n, NUM_FACE_CLASSES):
            raise ValueError(f"face_probs must have shape ({n}, {NUM_FACE_CLASSES}), "
                             f"got {probs.shape}")
        if n and (np.any(probs < 0) or not np.allclose(probs.sum(axis=1), 1.0, atol=1e-3)):
            raise ValueError("face_probs rows must be non-negative and sum to 1")
        body = tuple(self.body_colour) or ("unknown",) * n
        pip = tuple(self.pip_colour) or ("unknown",) * n
        if len(body) != n or len(pip) != n:
            raise ValueError(f"body_colour and pip_colour must have {n} names")
        object.__setattr__(self, "xyxy", xyxy)
        object.__setattr__(self, "confidence", conf)
        object.__setattr__(self, "face_probs", probs)
        object.__setattr__(self, "body_colour", body)
        object.__setattr__(self, "pip_colour", pip)

    @classmethod
    def empty(cls) -> Detections:
        """No dice."""
        return cls(xyxy=np.zeros((0, 4), np.float32), confidence=np.zeros(0, np.float32))

    @classmethod
    def concat(cls, parts: list[Detections]) -> Detections:
        """The dice of ``parts`` together, in order, every attribute kept."""
        parts = [p for p in parts if len(p)]
        if len(parts) <= 1:
            return parts[0] if parts else cls.empty()
        return cls(np.concatenate([p.xyxy for p in parts]),
                   np.concatenate([p.confidence for p in parts]),
                   np.concatenate([p.face_probs for p in parts]),
                   tuple(c for p in parts for c in p.body_colour),
                   tuple(c for p in parts for c in p.pip_colour))

    def __len__(self) -> int:
        return int(self.xyxy.shape[0])

    def __getitem__(self, index: int | slice | np.ndarray) -> Detections:
        """Select dice by index, slice or boolean/integer array; always returns Detections."""
        idx = np.arange(len(self))[index]
        idx = np.atleast_1d(idx)
        return Detections(
            xyxy=self.xyxy[idx],
            confidence=self.confidence[idx],
            face_probs=self.face_probs[idx],
            body_colour=tuple(self.body_colour[i] for i in idx),
            pip_colour=tuple(self.pip_colour[i] for i in idx),
        )

    @property
    def center(self) -> np.ndarray:
        """(N, 2) box centres in pixels."""
        return np.stack([(self.xyxy[:, 0] + self.xyxy[:, 2]) / 2,
                         (self.xyxy[:, 1] + self.xyxy[:, 3]) / 2], axis=1)

    @property
    def face_class(self) -> np.ndarray:
        """(N,) most probable class index into FACE_NAMES."""
        return self.face_probs.argmax(axis=1).astype(np.int64)

    @property
    def symbol(self) -> np.ndarray:
        """(N,) bool: the face shows a symbol in place of pips."""
        return self.face_class == FACE_SYMBOL

    @property
    def value(self) -> np.ndarray:
        """(N,) best pip value 1..6; 0 when unreadable.

        A symbol face gets the most probable pip value as its guess (symbols usually stand in
        for the 1), so counting games still get a number while ``symbol`` warns it is a guess.
        """
        cls = self.face_class
        pip_best = self.face_probs[:, :6].argmax(axis=1) + 1
        guess = np.where(cls == FACE_SYMBOL, 1, pip_best)
        return np.where(cls == FACE_UNREADABLE, 0, guess).astype(np.int64)

    @property
    def value_probability(self) -> np.ndarray:
        """(N,) probability of the reported value (of the symbol class for symbol faces)."""
        cls = self.face_class
        return self.face_probs[np.arange(len(self)), cls].astype(np.float32)

    @property
    def unsure(self) -> np.ndarray:
        """(N,) bool: the value is reported unsure (:data:`UNSURE_BELOW`)."""
        return self.value_probability < UNSURE_BELOW

    def with_faces(self, face_probs: np.ndarray, body_colour: tuple[str, ...],
                   pip_colour: tuple[str, ...]) -> Detections:
        """A copy with classification results filled in."""
        return Detections(xyxy=self.xyxy, confidence=self.confidence, face_probs=face_probs,
                          body_colour=body_colour, pip_colour=pip_colour)
