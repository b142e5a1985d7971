"""A table's adaptation kept in its profile file (calibration.adaptation_store)."""

from __future__ import annotations

import tomllib

import numpy as np
import pytest

from calibration.adaptation_store import load_from_profile, save_to_profile
from vision.dice.adapt import Adaptation, AdaptationError
from vision.dice.residual import FaceResidual


def _adaptation() -> Adaptation:
    rng = np.random.default_rng(0)
    res = FaceResidual(rng.normal(0, 1, 96), np.ones(96), rng.normal(0, 0.1, (9, 96)),
                       np.zeros(9))
    return Adaptation(classifier_sha256="ab" * 32, residual=res, die_side=None, dice=30,
                      source="live")


def test_kept_beside_what_the_profile_holds(tmp_path) -> None:  # noqa: ANN001
    path = tmp_path / "table.toml"
    path.write_text('[enrolment.skull]\nbase = "d6"\n\n[camera]\nsize = [640, 480]\n')
    save_to_profile(path, _adaptation())
    data = tomllib.loads(path.read_text())
    assert data["enrolment"]["skull"]["base"] == "d6" and data["camera"]["size"] == [640, 480]
    back = load_from_profile(path)
    assert back is not None and back.source == "live" and back.dice == 30
    assert back.die_side is None
    assert np.allclose(back.residual.weight, _adaptation().residual.weight, rtol=1e-6)


def test_a_profile_without_one_or_unreadable(tmp_path) -> None:  # noqa: ANN001
    path = tmp_path / "table.toml"
    assert load_from_profile(path) is None
    path.write_text("[camera]\n")
    assert load_from_profile(path) is None
    path.write_text("[adaptation\n")
    with pytest.raises(AdaptationError, match="cannot read"):
        load_from_profile(path)
    with pytest.raises(AdaptationError, match="folder"):
        save_to_profile(tmp_path, _adaptation())
