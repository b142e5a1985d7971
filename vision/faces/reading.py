"""Reading the face of a die whose type is known, and of dice the players enrolled.

:class:`DieFaceReader` runs the shipped face model (:data:`FACES_FILE`): logits over every
catalogued face label. For a catalogued type the logits (averaged over the crop's four
90-degree turns) are restricted to that type's labels and temperature-scaled (calibrated
probabilities); a reading whose best probability is under :data:`REJECT_BELOW` is rejected
(label None), so the rules engine is asked, not misled.

Enrolled dice are known only from the players' shots (crops of the die, a few per face).
Two opinions are fused: the normalised cross-correlation of the face's print against the
shots (:mod:`vision.faces.match`, no training at all) and, with :data:`ENROL_WEIGHT`, the
enrolment embedding (:mod:`vision.faces.embed`, a network trained for matching faces of random
dice to their shots; cosine to each face's prototype, the mean over its shots and degraded
copies of them, :mod:`vision.faces.shotaug`). Without that model the face model's embedding output
stands in (:data:`EMBED_WEIGHT`, centred on the die's own face means), as before it.
A die that only fixes a symbol face of an ordinary die (a skull on the 1) keeps the base
type's other faces, stood for by rendered crops of them; which of those kept faces it is,
the classifier says (restricted to them).
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.cores import use_one_core
from vision.dice.classifier import crop_dice
from vision.faces.dietypes import DieType, get_type
from vision.faces.embed import ENROL_FILE, FaceEmbedder
from vision.faces.match import ShotMatcher
from vision.faces.shotaug import degraded
from vision.faces.verify import REFS, FaceVerifier
from vision.manifest import file_of, manifest, model
from vision.onnx_models import model_path, open_session
from vision.synth.facecrops import CROP_PX, STEADY, TRAIN, face_crops

logger = logging.getLogger(__name__)

FACES_FILE = file_of("faces")
FACES_META = model("faces").record
#: Expert models for the types the shared model reads least well (models.training.
#: train_face_expert): same input, logits over those types' labels only.
EXPERTS_META = next(m.record for role, m in manifest().items()
                    if role.startswith("faces_expert:"))
#: A face read with less probability than this is rejected (reported, not guessed).
REJECT_BELOW = 0.6
#: A type with an expert is read by (1 - EXPERT_WEIGHT) x the shared model's calibrated
#: distribution + EXPERT_WEIGHT x the expert's. Chosen on validation renders (seed 777 000,
#: 100 crops per face, box and square-on cuts; models/die_faces.md): 0.5 left 43-54 of
#: 15 600 crops rejected where the two disagreed, 0.7 leaves 8 with the same 9 errors.
EXPERT_WEIGHT = 0.7
#: An enrolled die's reading: score = correlation + EMBED_WEIGHT x cosine, probabilities
#: softmax(FUSED_SCALE x score). Chosen on validation dice (16 new dice of vision.measure.faces
#: seed 60 000, 5 shots, 20 crops per face; apart from the measuring ones: models/
#: die_faces.md): the weight by accuracy (0.05-0.3: 0.9807-0.9818, 0.15 best with 0.1),
#: the scale by the log-loss of the true face (0.077 at 20, 0.052 at 40, 0.060 at 60, 0.073
#: at 80 as before: surer than right, 0.103 at 120). A face model without an ``embedding``
#: output is read by the correlation alone.
EMBED_WEIGHT = 0.15
FUSED_SCALE = 40.0
#: With the enrolment embedding (vision.faces.embed, ENROL_FILE beside the face model): score =
#: correlation + ENROL_WEIGHT x the cosine to each face's prototype (mean enrolment embedding
#: of its shots and ENROL_COPIES degraded copies of each) + WITH_ENROL_EMBED_WEIGHT x the face
#: model's centred cosine, softmax(ENROL_SCALE x score). Chosen on the validation dice
#: (``python -m models.training.enrol.validate_enrol``: 16 new dice of seed 60 000, 20 HARSH crops
#: per face; models/die_enrol.md): 5 / 3 shots, new dice 0.9750 / 0.9760 as before (0.15 x
#: the face model's cosine, scale 40); adding 0.3 / 0.5 / 1.0 x the enrolment cosine 0.9854 /
#: 0.9859 / 0.9818 (3 shots 0.9792 / 0.9797 / 0.9755); without the face model's cosine 0.9880 /
#: 0.9891 / 0.9839 (3 shots 0.9865 / 0.9870 / 0.9802); the enrolment cosine alone 0.9161.
#: Scale 40 has the least log-loss of the true face (0.036 / 0.023; 60: 0.044 / 0.027).
#: Kept with the embedding retrained on broader dice (``validate_enrol --catalogue-tests 10``):
#: correlation + 0.5 x its cosine, 5 / 3 shots 0.9901 / 0.9891 (0.3: 0.9891 / 0.9896; 1.0:
#: 0.9906 / 0.9854), log-loss 0.035 / 0.019 the least (60: 0.042 / 0.021).
ENROL_WEIGHT = 0.5
WITH_ENROL_EMBED_WEIGHT = 0.0
ENROL_SCALE = 40.0
ENROL_COPIES = 30
#: A die enrolled without a base type (every face its own shots) is also read by a per-die linear
#: verifier (vision.faces.verify, learnt at enrolment on the shots and the same ENROL_COPIES
#: copies):
#: score += VERIFY_WEIGHT x each face's log-likelihood ratio against the die's others. 0.0025 was
#: the best with 5 shots on the validation dice (``validate_enrol --verify``, seed 60 000: 0.9901 ->
#: 0.9917, 3 shots 0.9891 -> 0.9911; seed 70 000 by a probe 0.9885 -> 0.9927), but short of the bar
#: set there (+4 crops in 1920; it gained 3), so it was off until its enrolment was made fast (its
#: part of preparing a 5-shot die 11.1 -> 2.1 s: one search of every reference's windows,
#: vision.faces.match.WindowBank) and two fresh validation seeds were read, with the bar set before
#: reading them (+8 crops in their 3840 with 5 shots, none lost with 3): seed 80 000 5 / 3 shots
#: 0.9859 -> 0.9885 / 0.9823 -> 0.9849, seed 90 000 0.9818 -> 0.9906 / 0.9682 -> 0.9760 (+22 and +20
#: crops; symbol faces unchanged, the log-loss of the true face 0.030 -> 0.027 and 0.032 -> 0.024
#: with 5 shots).
VERIFY_WEIGHT = 0.0025
#: Rendered shots standing for each face a die keeps of its base type (``--base d6``).
BASE_SHOTS = 8
#: Degraded copies of each shot (vision.faces.shotaug) whose embeddings join the shots' own in
#: each enrolled face's mean: the die is read thrown, in other light, blurred. On the
#: validation dice the centred cosine alone reads 0.7927 without them, 0.8094 with them;
#: fused with the correlation (0.9740 alone) at best 0.9755 without, 0.9833 with them.
AUG_PER_SHOT = 30


@dataclass(frozen=True, slots=True)
class FaceReading:
    """The face of one die."""

    dist: dict[str, float]
    """Probability per face label of the die's type (sums to 1)."""
    label: str | None
    """Best label, or None when rejected."""
    probability: float


def _wants_verifier(die: EnrolledDie, verify: bool) -> bool:
    """Whether `die` is read with a verifier when `verify` asks for one: not a symbol on a
    catalogued die (a d6's kept faces are rendered, the classifier reads them)."""
    return verify and not die.base


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.maximum(np.linalg.norm(v, axis=-1, keepdims=True), 1e-9)


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@dataclass
class EnrolledDie:
    """A die the players showed to the camera: crops of it per face label."""

    name: str
    shots: dict[str, list[np.ndarray]] = field(default_factory=dict)
    """Per face label, uint8 BGR crops (crop_px square, as :meth:`DieFaceReader.crops`)."""
    base: str | None = None
    """A catalogued type whose faces fill in the labels not enrolled (``d6``)."""
    stale: bool = False
    """Enrolled by an older version that kept embeddings but no crops: cannot be read."""

    def add(self, label: str, crops: np.ndarray) -> None:
        self.shots.setdefault(label, []).extend(
            np.ascontiguousarray(c, np.uint8) for c in np.asarray(crops))

    def key(self) -> tuple[Any, ...]:
        """What a prepared die is known by: its shots' bytes too, not only their count (a
        profile file replaced by another whose die has the name and counts of this one's)."""
        digest = hashlib.blake2b(digest_size=16)
        for lb, v in self.shots.items():
            digest.update(lb.encode())
            for c in v:
                digest.update(c.tobytes())
        return (self.name, self.base, tuple((lb, len(v)) for lb, v in self.shots.items()),
                digest.hexdigest())


@dataclass
class _Expert:
    """An expert face model, opened on first use."""

    path: Path
    labels: list[str]
    temperature: float
    turns: int
    session: Any = None


@dataclass
class _Enrolled:
    """What reading one enrolled die needs, computed once from its shots."""

    labels: list[str]
    shots: dict[str, np.ndarray]
    """Per label, the crops standing for the face (the players' shots, or a base type's
    rendered ones)."""
    matcher: ShotMatcher
    protos: np.ndarray | None = None
    """(labels, D) unit prototype of each face in the enrolment embedding (None without it)."""
    verifier: FaceVerifier | None = None
    """The die's per-face linear verifier (None: not read by one)."""
    means: np.ndarray | None = None
    """(labels, D) unit mean face-model embedding of each face's shots, less :attr:`centre`;
    made on first use (:meth:`DieFaceReader.face_means`): the shipped reading gives it no
    weight, and it took a quarter of a die's preparation."""
    centre: np.ndarray | None = None
    """The mean of the faces' means: the embedding's part common to every face of the die."""


class DieFaceReader:
    """Face model for dice of known type, and the reading of enrolled dice."""

    def __init__(self, path: str | Path | None = None, experts: bool = True) -> None:
        """`path`: the shared face model (default: the shipped one); `experts`: read the types
        an expert model is shipped for (``die_faces_experts.json`` beside it) with it."""
        use_one_core()
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
        self._experts: dict[str, _Expert] = {}
        experts_meta = self.path.with_name(EXPERTS_META)
        if experts and experts_meta.is_file():
            for e in json.loads(experts_meta.read_text()).get("experts", {}).values():
                ex = _Expert(self.path.with_name(e["file"]), list(e["labels"]),
                             float(e["temperature"]), int(e.get("test_time_turns", 4)))
                # listed later, trained on fewer types: it reads them instead of the other
                self._experts.update(dict.fromkeys(e["types"], ex))
        self._has_embedding = "embedding" in [o.name for o in self.session.get_outputs()]
        self.embed_weight = EMBED_WEIGHT if self._has_embedding else 0.0
        self.fused_scale = FUSED_SCALE
        enrol_path = self.path.with_name(ENROL_FILE)
        #: the enrolment embedding, when shipped beside the face model
        self.enroller = FaceEmbedder(enrol_path) if enrol_path.is_file() else None
        self.enrol_weight = ENROL_WEIGHT if self.enroller is not None else 0.0
        #: weight of the per-die verifier's log-likelihood ratios (vision.faces.verify)
        self.verify_weight = VERIFY_WEIGHT
        if self.enroller is not None:
            self.fused_scale = ENROL_SCALE
            self.embed_weight = WITH_ENROL_EMBED_WEIGHT
        self._base_shots: dict[str, dict[str, np.ndarray]] = {}
        self._base_means: dict[str, dict[str, np.ndarray]] = {}
        self._enrolled: dict[tuple[Any, ...], _Enrolled] = {}
        # Held while a die is prepared: the live table prepares its enrolled dice on a
        # thread of their own (device.observer_dice), and a reading that needs a die being
        # prepared waits for it rather than preparing it a second time.
        self._prepare_lock = threading.Lock()

    def has_expert(self, type_name: str) -> bool:
        """Whether `type_name` is read by a shipped expert model as well as the shared one."""
        return type_name in self._experts

    def crops(self, image: np.ndarray, xyxy: np.ndarray) -> np.ndarray:
        return crop_dice(image, xyxy, self.crop_px)

    @staticmethod
    def _x(crops: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(np.asarray(crops).transpose(0, 3, 1, 2), np.float32) / 255.0

    @staticmethod
    def _turned(crops: np.ndarray, turns: int) -> np.ndarray:
        return np.ascontiguousarray(np.concatenate([np.rot90(crops, k, axes=(1, 2))
                                                    for k in range(turns)]))

    def logits(self, crops: np.ndarray) -> np.ndarray:
        """Logits (N, classes), averaged over the crop turned 0, 90, 180, 270 degrees when the
        model's temperature was fitted so (a face seen at any yaw reads alike)."""
        return self._turned_logits(self.session, crops, self.turns, len(self.labels))

    def _turned_logits(self, session: Any, crops: np.ndarray, turns: int, n: int
                       ) -> np.ndarray:
        if len(crops) == 0:
            return np.zeros((0, n))
        turns = max(turns, 1)
        out = session.run(None, {"crops": self._x(self._turned(crops, turns))})[0]
        return out.astype(np.float64).reshape(turns, len(crops), -1).mean(axis=0)

    def embed(self, crops: np.ndarray) -> np.ndarray:
        """Unit embeddings averaged over the crop turned 0, 90, 180 and 270 degrees (a face
        shot at one rotation then matches the same face at any other); (N, 0) when the face
        model has no embedding output."""
        if not self._has_embedding or len(crops) == 0:
            return np.zeros((len(crops), 96 if self._has_embedding else 0))
        emb = self.session.run(["embedding"], {"crops": self._x(self._turned(crops, 4))})[0]
        return _unit(_unit(emb.astype(np.float64)).reshape(4, len(crops), -1).mean(axis=0))

    def read_type(self, crops: np.ndarray, dtype: DieType | str,
                  logits: np.ndarray | None = None) -> list[FaceReading]:
        """Faces of crops of dice of one catalogued type (with its expert model too when one
        is shipped for it). ``logits``: the shared model's :meth:`logits` of these crops,
        when the caller has them already (the model is not run again)."""
        dt = get_type(dtype) if isinstance(dtype, str) else dtype
        labels = list(dt.labels)
        missing = [lb for lb in labels if lb not in self._index]
        if missing:
            raise ValueError(f"the face model does not know faces {missing} of {dt.name}")
        if logits is None:
            logits = self.logits(crops)
        probs = _softmax(logits[:, [self._index[lb] for lb in labels]] / self.temperature)
        ex = self._experts.get(dt.name)
        if ex is not None and all(lb in ex.labels for lb in labels) and len(crops):
            if ex.session is None:
                ex.session = open_session(ex.path)
            logits = self._turned_logits(ex.session, crops, ex.turns, len(ex.labels))
            sub = logits[:, [ex.labels.index(lb) for lb in labels]] / ex.temperature
            # Both calibrated distributions: the expert, sharper on its faces, mostly
            # decides; but it never saw anything else (a blank or a cut-off crop), where the
            # shared model's doubt keeps the reading from being sure.
            probs = (1 - EXPERT_WEIGHT) * probs + EXPERT_WEIGHT * _softmax(sub)
        return [self._reading(labels, p, REJECT_BELOW) for p in probs]

    def _enrolled_scores(self, crops: np.ndarray, die: EnrolledDie
                         ) -> tuple[list[str], np.ndarray]:
        """(labels, (N, labels) scores) of crops against an enrolled die's faces: the
        correlation's best over every shot, plus EMBED_WEIGHT x the cosine to each face's
        mean shot embedding."""
        labels, corr, cos, near, verify = self.enrolled_parts(
            crops, die, self.embed_weight > 0, self.verify_weight > 0)
        return labels, (corr + self.embed_weight * cos + self.enrol_weight * near
                        + self.verify_weight * verify)

    def enrolled_parts(self, crops: np.ndarray, die: EnrolledDie, face_model: bool = True,
                       verify: bool = False
                       ) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(labels, correlation, face model's centred cosine, enrolment embedding's cosine to
        each face's prototype, verifier's log-likelihood ratio), each (N, labels); the fourth
        is zeros without that model, the second without `face_model` (its weight is 0: not
        worth its time), the last without `verify` or for a die with a base type."""
        known = self._prepare(die, verify)
        if face_model:
            means, centre = self.face_means(known)
            cos = _unit(self.embed(crops) - centre) @ means.T
        else:
            cos = np.zeros((len(crops), len(known.labels)))
        near = (self.enroller.embed(crops) @ known.protos.T
                if known.protos is not None and self.enroller is not None
                else np.zeros_like(cos))
        if known.verifier is None:
            return known.labels, known.matcher.scores(crops), cos, near, np.zeros_like(cos)
        corr, where = known.matcher.scores_where(crops, REFS)
        return known.labels, corr, cos, near, known.verifier.scores(crops, where)

    def read_enrolled(self, crops: np.ndarray, die: EnrolledDie) -> list[FaceReading]:
        """Faces of crops of an enrolled die."""
        labels, score = self._enrolled_scores(crops, die)
        probs = _softmax(score * self.fused_scale)
        kept = [lb for lb in labels if lb not in die.shots]
        if die.base and kept and all(lb in self._index for lb in kept) and len(crops):
            # The base type's own faces (the pips of a d6 with a skull on the 1) are read
            # better by the classifier than by their rendered stand-ins: the shots decide
            # "an enrolled face or not", the classifier, restricted to the kept labels, which.
            cols = [labels.index(lb) for lb in kept]
            sub = self.logits(crops)[:, [self._index[lb] for lb in kept]] / self.temperature
            rest = probs[:, cols].sum(axis=1, keepdims=True)
            probs[:, cols] = rest * _softmax(sub)
        return [self._reading(labels, p, REJECT_BELOW) for p in probs]

    def prepare(self, die: EnrolledDie) -> None:
        """Make ahead what reading `die` needs (its windows, prototypes and, for a wholly new
        die, its verifier: 2-3 s for five shots a face), so that its first reading does not
        wait for it. ValueError as :meth:`read_enrolled` for a die it cannot read."""
        self._prepare(die, self.verify_weight > 0)

    def is_prepared(self, die: EnrolledDie) -> bool:
        """Whether :meth:`read_enrolled` reads `die` without preparing it first."""
        known = self._enrolled.get(die.key())
        return known is not None and (known.verifier is not None
                                      or not _wants_verifier(die, self.verify_weight > 0))

    def _prepare(self, die: EnrolledDie, verify: bool = False) -> _Enrolled:
        with self._prepare_lock:
            return self._prepare_locked(die, verify)

    def _prepare_locked(self, die: EnrolledDie, verify: bool) -> _Enrolled:
        if die.stale:
            raise ValueError(f"die {die.name} was enrolled by an older version; enrol it again")
        key = die.key()
        verify = _wants_verifier(die, verify)
        if key in self._enrolled and verify and self._enrolled[key].verifier is None:
            del self._enrolled[key]  # prepared before without the verifier
        if key not in self._enrolled:
            shots = {}
            if die.base:
                shots.update({k: v for k, v in self.base_shots(die.base).items()
                              if k not in die.shots})
            shots.update({lb: self._sized(np.stack(v)) for lb, v in die.shots.items() if v})
            if not shots:
                raise ValueError(f"die {die.name} has no enrolled face")
            labels = list(shots)
            protos = verifier = None
            if self.enroller is not None or verify:
                rng = np.random.default_rng(1)
                samples = {lb: self._with_copies(shots[lb], rng, ENROL_COPIES) for lb in labels}
                if self.enroller is not None:
                    protos = _unit(np.stack([self.enroller.embed(samples[lb]).mean(axis=0)
                                             for lb in labels]))
                if verify:
                    verifier = FaceVerifier(samples)
            self._enrolled[key] = _Enrolled(labels, shots, ShotMatcher(shots), protos, verifier)
        return self._enrolled[key]

    def face_means(self, known: _Enrolled) -> tuple[np.ndarray, np.ndarray]:
        """(means, centre) of an enrolled die's faces in the face model's embedding, made on
        first use."""
        if known.means is None or known.centre is None:
            # The embedding shares a large part between all faces (it was trained to tell
            # faces of many dice apart): measured from this die's own face means, it is taken
            # out before comparing.
            rng = np.random.default_rng(0)  # the same means every time the die is read
            means = _unit(np.stack([self.embed(self._with_copies(known.shots[lb], rng))
                                    .mean(axis=0) for lb in known.labels]))
            known.centre = means.mean(axis=0)
            known.means = _unit(means - known.centre)
        return known.means, known.centre

    @staticmethod
    def _with_copies(shots: np.ndarray, rng: np.random.Generator,
                     copies: int = AUG_PER_SHOT) -> np.ndarray:
        """The shots and `copies` degraded copies of each."""
        if copies <= 0:
            return shots
        return np.concatenate([shots, *(degraded(s, copies, rng) for s in shots)])

    def _sized(self, crops: np.ndarray) -> np.ndarray:
        """Shots cut at another crop size (an older model's) brought to this one's."""
        if crops.shape[1] == self.crop_px:
            return crops
        return np.stack([cv2.resize(c, (self.crop_px, self.crop_px),
                                    interpolation=cv2.INTER_AREA) for c in crops])

    def base_shots(self, name: str) -> dict[str, np.ndarray]:
        """Rendered shots of a catalogued type's faces (seeded: the same every run)."""
        if name not in self._base_shots:
            dt = get_type(name)
            rng = np.random.default_rng(12345)
            self._base_shots[name] = {
                f.label: face_crops(dt, f, BASE_SHOTS, rng, STEADY, self.crop_px)
                for f in {f.label: f for f in dt.faces}.values()}
        return self._base_shots[name]

    def base_means(self, name: str, shots: int = 24) -> dict[str, np.ndarray]:
        """Mean embeddings of a catalogued type's faces from rendered crops (seeded): which
        type a die of a game is (calibration.pieces_read) is told by the nearest of them."""
        if name not in self._base_means:
            dt = get_type(name)
            rng = np.random.default_rng(12345)
            self._base_means[name] = {
                f.label: _unit(self.embed(face_crops(dt, f, shots, rng, TRAIN,
                                                     self.crop_px)).mean(axis=0))
                for f in {f.label: f for f in dt.faces}.values()}
        return self._base_means[name]

    @staticmethod
    def _reading(labels: list[str], p: np.ndarray, reject: float) -> FaceReading:
        i = int(np.argmax(p))
        dist = {lb: float(v) for lb, v in zip(labels, p, strict=True)}
        return FaceReading(dist, labels[i] if p[i] >= reject else None, float(p[i]))
