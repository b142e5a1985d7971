"""Die-type catalogue: shipped types, face labels the engine uses, drawing every face."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vision.faces.dietypes import DieTypeError, all_labels, catalogue, get_type, parse_type
from vision.faces.draw import face_texture, ink_mask

ROOT = Path(__file__).resolve().parents[2]
SHARED_QUARRIORS = ROOT.parent / "shared" / "data" / "games" / "quarriors-base.json"


def test_icedice_faces_match_the_engine_data():
    engine = json.loads((ROOT / "engine/games/data/icedice.json").read_text())
    size = get_type("icedice-size")
    assert size.labels == tuple(f["face"] for f in engine["size_die"]["faces"])
    for edition in ("rainbow", "suits"):
        dt = get_type(f"icedice-colour-{edition}")
        assert dt.labels == tuple(f["face"] for f in engine["colour_dice"][edition]["faces"])


def test_eighteen_quarriors_dice_with_provenance():
    q = [t for t in catalogue().values() if t.name.startswith("quarriors-")]
    assert len(q) == 18
    assert all(t.provenance.startswith("VERIFIED") for t in q)
    portal = get_type("quarriors-portal")
    assert portal.labels == ("Q1", "draw1", "draw2")
    assert get_type("quarriors-quake-dragon").faces[5].label == "L3 8/7**"


@pytest.mark.skipif(not SHARED_QUARRIORS.is_file(), reason="../shared data folder absent")
def test_quarriors_file_is_up_to_date_with_the_shared_source():
    from models.training.faces.make_dietypes import convert

    fresh = convert(json.loads(SHARED_QUARRIORS.read_text()))
    shipped = json.loads((ROOT / "vision/data/dietypes/quarriors.json").read_text())
    assert fresh == shipped


def test_every_face_draws_and_distinct_labels_look_distinct():
    for dt in catalogue().values():
        masks = {}
        for face in dt.faces:
            tex = face_texture(dt, face, 48)
            assert tex.shape == (48, 48, 4) and np.isfinite(tex).all()
            masks.setdefault(face.label, ink_mask(face, 48))
        labels = list(masks)
        for i, a in enumerate(labels):
            for b in labels[i + 1:]:
                if dt.faces[0].look_dict()["kind"] == "colour":
                    continue
                diff = np.abs(masks[a] - masks[b]).mean()
                assert diff > 0.01, (dt.name, a, b)


def test_vocabulary_and_errors():
    assert {"red", "atom", "star", "SM", "Q2*", "1", "6"} <= set(all_labels())
    with pytest.raises(DieTypeError, match="unknown die type"):
        get_type("nope")
    with pytest.raises(DieTypeError, match="not 6"):
        parse_type({"name": "x", "body": "#ffffff", "ink": "#000000",
                    "faces": [{"label": "1", "look": {"kind": "pips", "value": 1}}]})
    with pytest.raises(DieTypeError, match="malformed"):
        parse_type({"name": "x"})
