"""Dice detector: a small CenterNet-style ONNX network, as preprocess / infer / postprocess.

The image is resized so its longer side is ``input_long_side`` pixels (dice are then roughly
10-80 px), padded to a multiple of 16, and the network predicts at 1/4 resolution a centre
heat map plus box size and sub-cell offset. Peaks of the heat map above a threshold become
boxes in original-image pixels; a light NMS removes duplicate peaks on large dice.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.dice.detections import Detections
from vision.onnx_models import DETECTOR_FILE, model_path, open_session

logger = logging.getLogger(__name__)

STRIDE = 4
INPUT_LONG_SIDE = 512
PAD_MULTIPLE = 16

FAINT_PEAK = 0.2
"""Heat peaks between this and the detector's threshold are dice too where every die of the
image is small and they are of the sure dice's size (:func:`keep_faint_small`): a die of
18-21 px at the network's scale (a camera farther off, a phone photo of the whole table)
raises a weaker peak than the 32-px dice of the real photos, and the main pass lost 5-6 %
of them (test / train photos shrunk to 55 %). Chosen on the train photos shrunk to 55 /
66 % (``models.training.dice.scale_table --split train``, main pass): with the conditions below
the share found goes 0.938 -> 0.951 / 0.979 -> 0.985; every peak over 0.2 kept, 0.954 /
0.986, but the photos as published got boxes on nothing (6 -> 15); with the size band
alone, 0.2 gave 6 -> 7 and 0.15 gave 0.953 / 0.985 and 6 -> 10."""
SMALL_DIE_PX = 24
"""Faint peaks count only when the sure dice's median side is under this at the network's
scale (the real photos' dice are 32 px there, the bench frames' about 20)."""
SIZE_BAND = 1.25
"""... and only those within this factor of that median side, ..."""
ALIKE_SHARE = 0.75
"""... and only when this share of the sure boxes are within it too: a close-up's main pass
boxes pips beside its dice, and faint pip-sized boxes made its pip rule
(:func:`vision.dice.scales.inside_bigger`) take a die for a cluster (one die lost on the test
photos zoomed to 20 %)."""
MIN_SURE = 3
"""Sure dice needed before their size is trusted."""


@dataclass(frozen=True, slots=True)
class Letterbox:
    """How an image was resized for the network: network px = original px * scale."""

    scale: float
    width: int
    height: int


def resize_long_side(image: np.ndarray, long_side: int) -> tuple[np.ndarray, float]:
    """``image`` resized so its longer side is ``long_side`` px, and the scale applied."""
    h, w = image.shape[:2]
    scale = long_side / max(h, w)
    nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    return cv2.resize(image, (nw, nh), interpolation=interp), scale


def preprocess_image(image: np.ndarray, long_side: int = INPUT_LONG_SIDE
                     ) -> tuple[np.ndarray, Letterbox]:
    """BGR uint8 image -> resized, padded uint8 image (h, w, 3) and its Letterbox."""
    h, w = image.shape[:2]
    small, scale = resize_long_side(image, long_side)
    nh, nw = small.shape[:2]
    ph = -nh % PAD_MULTIPLE
    pw = -nw % PAD_MULTIPLE
    if ph or pw:
        small = cv2.copyMakeBorder(small, 0, ph, 0, pw, cv2.BORDER_REPLICATE)
    return small, Letterbox(scale=scale, width=w, height=h)


def to_tensor(images: np.ndarray) -> np.ndarray:
    """uint8 (h, w, 3) or (n, h, w, 3) BGR -> float32 NCHW in [0, 1]."""
    arr = images[None] if images.ndim == 3 else images
    return np.ascontiguousarray(arr.transpose(0, 3, 1, 2), dtype=np.float32) * (1 / 255.0)


def decode(heat: np.ndarray, peak: np.ndarray, geom: np.ndarray, box: Letterbox,
           threshold: float, max_dice: int = 300) -> Detections:
    """Network outputs for one image -> Detections in original pixels."""
    h2 = heat[0, 0]
    ys, xs = np.nonzero((h2 >= peak[0, 0]) & (h2 > threshold))
    if len(ys) == 0:
        return Detections.empty()
    conf = h2[ys, xs]
    order = np.argsort(-conf)[:max_dice]
    ys, xs, conf = ys[order], xs[order], conf[order]
    g = geom[0][:, ys, xs]
    size = np.exp(np.clip(g[0:2], -3, 6)) * STRIDE
    cx = (xs + g[2]) * STRIDE
    cy = (ys + g[3]) * STRIDE
    xyxy = np.stack([cx - size[0] / 2, cy - size[1] / 2, cx + size[0] / 2, cy + size[1] / 2],
                    axis=1) / box.scale
    xyxy = np.clip(xyxy, 0, [box.width, box.height, box.width, box.height])
    keep = nms(xyxy, conf, 0.45)
    return Detections(xyxy=xyxy[keep], confidence=np.clip(conf[keep], 0, 1))


def keep_faint_small(det: Detections, box: Letterbox, sure: float) -> Detections:
    """The dice at least `sure`, and the fainter ones that are small dice among small dice
    (the conditions of :data:`FAINT_PEAK` and the constants after it). Greedy NMS never
    lets a fainter box suppress a surer one, so the sure dice are those a decode at `sure`
    gives."""
    is_sure = det.confidence >= sure
    if is_sure.sum() < MIN_SURE or is_sure.all():
        return det[is_sure]
    side = np.sqrt((det.xyxy[:, 2] - det.xyxy[:, 0]) * (det.xyxy[:, 3] - det.xyxy[:, 1]))
    med = float(np.median(side[is_sure]))
    alike = (side >= med / SIZE_BAND) & (side <= med * SIZE_BAND)
    if med * box.scale >= SMALL_DIE_PX or alike[is_sure].mean() < ALIKE_SHARE:
        return det[is_sure]
    return det[is_sure | alike]


def nms(xyxy: np.ndarray, conf: np.ndarray, iou: float) -> np.ndarray:
    """Indices kept by greedy NMS (boxes sorted by confidence already)."""
    if len(xyxy) < 2:
        return np.arange(len(xyxy))
    wh = xyxy[:, 2:] - xyxy[:, :2]
    idx = cv2.dnn.NMSBoxes(np.column_stack([xyxy[:, :2], wh]).tolist(), conf.tolist(), 0.0, iou)
    return np.sort(np.asarray(idx, np.int64).reshape(-1))


class DiceDetector:
    """Finds dice in BGR images with the shipped ONNX detector."""

    def __init__(self, path: str | Path | None = None, threshold: float = 0.3,
                 long_side: int = INPUT_LONG_SIDE, faint: float | None = FAINT_PEAK) -> None:
        """``faint``: the lowest peak kept as a small die (:func:`keep_faint_small`); None
        keeps none under ``threshold`` (the training code, whose crops must not change)."""
        self.path = Path(path) if path is not None else model_path(DETECTOR_FILE)
        self.session = open_session(self.path)
        self.input_name = self.session.get_inputs()[0].name
        self.threshold = threshold
        self.long_side = long_side
        self.faint = faint

    def preprocess(self, image: np.ndarray, long_side: int | None = None
                   ) -> tuple[np.ndarray, Letterbox]:
        small, box = preprocess_image(image, long_side or self.long_side)
        return to_tensor(small), box

    def infer(self, tensor: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        heat, peak, geom = self.session.run(None, {self.input_name: tensor})
        return heat, peak, geom

    def postprocess(self, outputs: tuple[np.ndarray, np.ndarray, np.ndarray], box: Letterbox,
                    coarse: bool | None = None) -> Detections:
        """``coarse``: whether the image was seen smaller than the detector's home scale
        (None: told by its size; a part cut from a frame seen at the frame's scale is not)."""
        if coarse is None:
            coarse = round(max(box.width, box.height) * box.scale) < self.long_side
        if self.faint is None or self.faint >= self.threshold or coarse:
            # A coarse pass looks for big dice; its small boxes are pips and specks.
            return decode(*outputs, box=box, threshold=self.threshold)
        return keep_faint_small(decode(*outputs, box=box, threshold=self.faint), box,
                                self.threshold)

    def __call__(self, image: np.ndarray, long_side: int | None = None,
                 coarse: bool | None = None) -> Detections:
        """Dice in ``image`` seen at ``long_side`` px (default: this detector's); the network
        is fully convolutional, so one session serves every scale. ``coarse``: as
        :meth:`postprocess`'s."""
        tensor, box = self.preprocess(image, long_side)
        return self.postprocess(self.infer(tensor), box, coarse)
