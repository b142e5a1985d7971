"""The model card's template is filled placeholder by placeholder, whole words only."""

from __future__ import annotations

import pytest

pytest.importorskip("tqdm", reason="models.training needs tqdm (extra 'train')")

from models.training.card import fill_template  # noqa: E402


def test_placeholders_are_whole_words_and_fills_are_not_filled_again() -> None:
    text = "SCENES scenes, see `dataset.TYPED_SCENES`; BENCH (NVAL photos)"
    fills = {"SCENES": "3000", "BENCH": "{'note': 'SCENES'}", "NVAL": "40"}
    assert fill_template(text, fills) == (
        "3000 scenes, see `dataset.TYPED_SCENES`; {'note': 'SCENES'} (40 photos)")
    assert fill_template("NVAL", {}) == "NVAL"
