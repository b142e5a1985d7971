"""The linear correction of the classifier that table adaptation fits (vision.dice.residual)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.dice.residual import FaceResidual, fit_residual


def _examples(rng: np.random.Generator, n: int = 60):  # noqa: ANN202
    """Two clusters of features; the shipped logits read both as class 0, the labels say
    the second is class 2."""
    f = np.concatenate([rng.normal(0, 1, (n, 8)), rng.normal(0, 1, (n, 8)) + np.eye(8)[0] * 5])
    logits = np.tile([2.0, 0.0, 0.0, 0.0], (2 * n, 1))
    labels = np.array([0] * n + [2] * n)
    return f, logits, labels


def test_fit_moves_the_labelled_cluster_and_keeps_the_other() -> None:
    rng = np.random.default_rng(0)
    f, logits, labels = _examples(rng)
    res = fit_residual(f, logits, labels)
    out = res.apply(logits, f).argmax(axis=1)
    assert (out[:60] == 0).mean() > 0.95
    assert (out[60:] == 2).mean() > 0.95
    # unseen class 3 gains nothing
    assert (res.apply(logits, f)[:, 3] <= logits[:, 3] + 1.0).all()


def test_a_strong_pull_keeps_the_shipped_reading() -> None:
    rng = np.random.default_rng(1)
    f, logits, labels = _examples(rng)
    res = fit_residual(f, logits, labels, l2=1e3)
    assert (res.apply(logits, f).argmax(axis=1) == 0).all()


def test_rows_without_free_bias_keep_their_bias_at_zero() -> None:
    rng = np.random.default_rng(2)
    f, logits, labels = _examples(rng)
    res = fit_residual(f, logits, labels, free_bias=np.array([0.0, 0.0, 0.0, 1.0]))
    assert np.allclose(res.bias[:3], 0.0)


def test_bad_inputs_are_refused() -> None:
    with pytest.raises(ValueError, match="matching"):
        fit_residual(np.zeros((3, 4)), np.zeros((2, 5)), np.zeros(3, int))
    with pytest.raises(ValueError, match="class indices"):
        fit_residual(np.zeros((2, 4)), np.zeros((2, 5)), np.array([0, 7]))
    with pytest.raises(ValueError, match="finite"):
        FaceResidual(np.array([np.nan]), np.ones(1), np.zeros((2, 1)), np.zeros(2))
    with pytest.raises(ValueError, match="shape"):
        FaceResidual(np.zeros(2), np.ones(2), np.zeros((2, 3)), np.zeros(2))
