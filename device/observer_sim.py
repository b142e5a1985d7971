"""A stand-in for the camera side: noisy observations of what the engine expects to see.

Each object of the true view is reported with a detector confidence and, per attribute, a
distribution whose top value is wrong with probability ``misread`` (the rest of the mass on
the true value), like a real reader's calibrated output. The simulated table's ``noise``
observer (``dicetable demo`` by default, ``simulate --observer noise``, fast tests of the
reconcile loop); the ``real`` observer reads rendered frames instead (device/observer.py).
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.observation import Observation, Observed, View


def attribute_domains(views: Iterable[View]) -> dict[str, list[str]]:
    """Every value each attribute takes in these views (what a reader could confuse)."""
    domains: dict[str, set[str]] = defaultdict(set)
    for view in views:
        for exp in view:
            for name, value in exp.attrs:
                domains[name].add(value)
    return {k: sorted(v) for k, v in domains.items()}


@dataclass
class NoisyObserver:
    """Turns true views into observations with reader-like noise (seeded)."""

    domains: Mapping[str, list[str]]
    rng: random.Random
    misread: float = 0.03
    min_confidence: float = 0.8

    def observe(self, view: View, *, moved: bool | None = True,
                frame: int | None = None) -> Observation:
        objects = []
        for exp in view:
            dists: dict[str, Any] = {}  # (keyword distributions of Observed.make)
            for name, value in exp.attrs:
                others = [v for v in self.domains.get(name, []) if v != value]
                # Calibrated: the mass left off the true value averages the misread rate.
                p_true = min(0.9999, max(0.5, 1 - self.rng.expovariate(1 / self.misread)))
                if others and self.rng.random() < self.misread:
                    # A misread: a wrong value on top, the true one still given some mass.
                    wrong = self.rng.choice(others)
                    p_wrong = self.rng.uniform(0.5, 0.8)
                    dists[name] = {wrong: p_wrong, value: (1 - p_wrong) * 0.9}
                elif others:
                    dists[name] = {value: p_true, self.rng.choice(others): 1 - p_true}
                else:
                    dists[name] = {value: 1.0}
            conf = self.rng.uniform(self.min_confidence, 0.999)
            objects.append(Observed.make(exp.kind, exp.zone, exp.slot, confidence=conf,
                                         **dists))
        return Observation(tuple(objects), moved=moved, frame=frame)
