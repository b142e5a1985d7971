"""The live table learns its own dice from the moves the rules and the players confirm.

Every reading's dice are kept a while with what the classifier saw of each (its pooled
features and shipped logits). When the rules explain that reading surely (a move accepted, or
the table unchanged, with a posterior of at least :data:`CONFIRM`), the state the match is
then in says what each die shows: the reading's dice are matched to the state's dice zone by
zone, the most probable assignment by the reader's own face probabilities, and each die's
crop is labelled with its state face. A zone whose dice the reader counted wrong teaches
nothing.

What it learnt is a correction of the classifier (``vision.dice.residual``, the same that
``dicetable adapt`` fits from labelled photos), refitted as confirmed dice come in. Guarded
against learning its own mistakes: a reading is labelled under the match's last live entry,
and only labels whose entry is still live count at a fit, so a move the players corrected or
undid takes its labels with it (the corrected move's own readings label the die anew, with
the value the players gave); a reading the rules were unsure of (asked, a violation, or a
posterior under CONFIRM) teaches nothing until the players answer.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from engine.observation import Observed, View
from vision.dice.adapt import FREE_BIAS, PULL
from vision.dice.residual import FaceResidual, fit_residual

logger = logging.getLogger(__name__)

#: Least posterior of the reading's explanation for its dice to be labelled by the state.
CONFIRM = 0.95
#: Confirmed dice needed before the first fit, and new ones before each refit.
MIN_DICE = 9
REFIT_EVERY = 6
#: At most this many labelled readings are kept (the oldest go first): the Pi's memory, and
#: a correction should follow the table's light as it changes during an evening.
MAX_READINGS = 200
#: Brute force over assignments up to this many dice in a zone (6! = 720), greedy beyond.
EXACT_UP_TO = 6
FACES = ("1", "2", "3", "4", "5", "6")
#: The key of readings made before the match's first entry (the table as set up).
START = -1


@dataclass(frozen=True)
class SeenDie:
    """One die of a reading: where the rules will place it and what the classifier saw."""

    zone: str | None
    features: np.ndarray
    logits: np.ndarray
    faces: dict[str, float]
    """The face probabilities the observation carried (pip values only)."""


def assign(seen: list[dict[str, float]], faces: list[str]) -> list[str]:
    """The faces of ``faces`` (a zone's dice in the state) given to the dice ``seen`` in
    order, the assignment the reader's own probabilities make most probable."""
    def cost(order: Iterable[str]) -> float:
        return -sum(np.log(s.get(f, 0.0) + 1e-6) for s, f in zip(seen, order, strict=True))

    if len(faces) <= EXACT_UP_TO:
        return list(min(set(itertools.permutations(faces)), key=cost))
    left = list(faces)
    out = []
    for s in seen:  # greedy: each die takes the remaining face it reads most probably
        best = max(left, key=lambda f: s.get(f, 0.0))
        left.remove(best)
        out.append(best)
    return out


@dataclass
class TableLearner:
    """See the module docstring. ``residual`` is what the reader should read with now."""

    residual: FaceResidual | None = None
    prior: FaceResidual | None = None
    """what an earlier session of this table learnt (from its profile): read with until
    this session has confirmed MIN_DICE dice of its own"""
    last: list[SeenDie] = field(default_factory=list)
    labelled: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=dict)
    """live entry seq -> (features, logits, labels) of the reading the state then explained"""
    fitted_on: int = 0
    """dice in the last fit"""
    fits: int = 0

    def seen(self, dice: list[SeenDie]) -> None:
        """The dice of the reading just made (before the rules judge it)."""
        self.last = dice

    def confirm(self, key: int, view: View, posterior: float) -> int:
        """Label the last reading's dice by ``view`` (the state's view after the rules
        explained the reading with ``posterior``) under the live entry ``key``; returns how
        many dice were labelled."""
        if posterior < CONFIRM or not self.last:
            return 0
        want: dict[str | None, list[str]] = {}
        for e in view:
            face = e.attr("face")
            if e.kind == "die" and face in FACES:
                want.setdefault(e.zone, []).append(face)
        feats, logits, labels = [], [], []
        for zone, faces in want.items():
            dice = [d for d in self.last if d.zone == zone]
            if len(dice) != len(faces):
                continue  # a die missed or one too many: which is which cannot be told
            for d, face in zip(dice, assign([d.faces for d in dice], faces), strict=True):
                feats.append(d.features)
                logits.append(d.logits)
                labels.append(int(face) - 1)
        if not labels:
            return 0
        self.labelled.pop(key, None)  # the latest reading of a state stands for it
        self.labelled[key] = (np.array(feats), np.array(logits), np.array(labels))
        while len(self.labelled) > MAX_READINGS:
            self.labelled.pop(next(iter(self.labelled)))
        return len(labels)

    def refit(self, live: set[int]) -> bool:
        """Fit again from the labels of live entries (``live``: their seqs) when enough new
        dice came in since the last fit, or labels it stood on were taken back; True when
        ``residual`` changed."""
        for key in [k for k in self.labelled if k not in live and k != START]:
            del self.labelled[key]  # corrected or undone: its labels go with it
        parts = list(self.labelled.values())
        n = sum(len(p[2]) for p in parts)
        if n < MIN_DICE:
            # too few of this session's own: the earlier session's (if any), or nothing when
            # what the last fit stood on was taken back
            changed = self.residual is not self.prior
            self.residual, self.fitted_on = self.prior, 0
            return changed
        if self.fits and self.residual is not None and \
                self.fitted_on <= n < self.fitted_on + REFIT_EVERY:
            return False
        feats = np.concatenate([p[0] for p in parts])
        logits = np.concatenate([p[1] for p in parts])
        labels = np.concatenate([p[2] for p in parts])
        # dicetable adapt's pull and free biases, where they were chosen (in examples: here
        # confirmed dice): faces the table has not shown yet keep their shipped reading
        self.residual = fit_residual(feats, logits, labels, l2=PULL, free_bias=FREE_BIAS)
        self.fitted_on, self.fits = n, self.fits + 1
        logger.info("table adaptation refitted on %d confirmed dice", n)
        return True


def seen_dice(objects: list[Observed], features: np.ndarray, logits: np.ndarray
              ) -> list[SeenDie]:
    """The reading's dice (``objects``, in the order of the classifier's rows) as SeenDie."""
    out = []
    for o, f, lg in zip(objects, features, logits, strict=True):
        face = dict(o.dist("face") or ())
        out.append(SeenDie(o.zone, np.asarray(f, np.float32), np.asarray(lg, np.float32), face))
    return out
