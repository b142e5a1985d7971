"""The k-fold validation and two-stage classifier training (models.training.dice.folds, kfold,
syndata, train_classifier): folds, the reader's second look, fold totals, die-by-die
comparison, the synthetic-only base kept once, fine-tuning from it. Tiny nets, no real
training: every test runs in a second or two."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (extra 'train')")

from models.training.dice import folds, kfold, syndata  # noqa: E402
from models.training.dice import train_classifier as tc  # noqa: E402
from models.training.dice.folds import N_FOLDS, Photo, read_like_the_reader, score_photos  # noqa: E402
from vision.dice.classifier import NOT_A_DIE  # noqa: E402
from vision.dice.detections import NUM_FACE_CLASSES  # noqa: E402

N_CLASSES = NOT_A_DIE + 1


def _logits_for(value_of_crop: dict[int, tuple[int, float]]):  # noqa: ANN202
    """A classifier whose answer depends on the crop's top-left pixel (so on its turn):
    pixel code -> (class, logit margin)."""
    def logits(crops: np.ndarray) -> np.ndarray:
        out = np.zeros((len(crops), N_CLASSES), np.float32)
        for i, c in enumerate(crops):
            cls, margin = value_of_crop[int(c[0, 0, 0])]
            out[i, cls] = margin
        return out
    return logits


def _marked_crop(codes: tuple[int, int, int, int]) -> np.ndarray:
    """An 8x8 crop whose four corners carry codes, so each 90-degree turn shows another one
    at the top left (np.rot90 turns counter-clockwise: top-right comes to the top-left)."""
    c = np.zeros((8, 8, 3), np.uint8)
    c[0, 0], c[0, -1], c[-1, -1], c[-1, 0] = codes
    return c


def test_second_look_reads_unsure_dice_in_all_four_turns() -> None:
    # Upright the crop looks like a weak 2 (class 1); turned, a confident 5 (class 4).
    crop = _marked_crop((10, 20, 20, 20))[None]
    logits = _logits_for({10: (1, 1.0), 20: (4, 12.0)})
    upright = np.exp(1.0) / (np.exp(1.0) + NUM_FACE_CLASSES - 1)  # p(2) among the faces
    assert upright < 0.9
    value, prob, kept = read_like_the_reader(logits, crop)  # the reader's 0.9
    assert value.tolist() == [5] and kept.tolist() == [True] and prob[0] > 0.7
    value, prob, _ = read_like_the_reader(logits, crop, second_look_below=upright / 2)
    assert value.tolist() == [2] and prob[0] == pytest.approx(upright, rel=1e-5)
    # A sure die is never turned: the turns would say 5 but it stays a 2.
    sure = _logits_for({10: (1, 12.0), 20: (4, 12.0)})
    assert read_like_the_reader(sure, crop)[0].tolist() == [2]


def test_second_look_threshold_reaches_the_scores() -> None:
    crops = _marked_crop((10, 20, 20, 20))[None]
    logits = _logits_for({10: (1, 1.0), 20: (4, 12.0)})
    photo = Photo("p.jpg", crops, np.zeros(1, np.int64), crops, np.array([2]), np.array([0]), 1)
    assert score_photos([photo], logits, second_look_below=0.0)["errors"] == 0
    s = score_photos([photo], logits)
    assert s["errors"] == 1 and s["wrong"]["p.jpg#0"][:2] == [2, 5]


def test_an_empty_photo_reads_nothing() -> None:
    empty = np.zeros((0, 8, 8, 3), np.uint8)
    value, prob, kept = read_like_the_reader(_logits_for({}), empty)
    assert len(value) == len(prob) == len(kept) == 0
    photo = Photo("e.jpg", empty, np.zeros(0, np.int64), empty, np.zeros(0, np.int64),
                  np.zeros(0, np.int64), 0)
    s = score_photos([photo], _logits_for({}))
    assert s["image_exact"] == 1.0 and s["dice"] == 0 and s["read_accuracy"] == 0.0


def test_folds_are_seeded_and_fold_zero_is_the_validation_photos(monkeypatch) -> None:  # noqa: ANN001
    names = [f"img{i:03d}.jpg" for i in range(200)]
    monkeypatch.setattr(folds, "_train_items", lambda: [(Path(n), None, None) for n in names])
    val = set(names[5:45])
    monkeypatch.setattr(folds, "val_photo_names", lambda n, seed: val if n == 40 else set())
    f = folds.fold_of(0)
    assert set(f) == set(names) and {n for n, k in f.items() if k == 0} == val
    assert sorted(np.bincount(list(f.values())).tolist()) == [40] * N_FOLDS
    assert folds.fold_of(0) == f
    other = folds.fold_of(1)
    assert {n for n, k in other.items() if k == 0} == val and other != f


def test_mix_gives_real_crops_their_share() -> None:
    syn = (np.zeros((30, 8, 8, 3), np.uint8), np.zeros(30, np.int64))
    crops, labels, w = kfold._mix(syn, np.ones((10, 8, 8, 3), np.uint8), np.ones(10, np.int64),
                                  0.7)
    assert len(crops) == len(labels) == len(w) == 40
    assert w.sum() == pytest.approx(1.0) and w[30:].sum() == pytest.approx(0.7)
    assert (labels[30:] == 1).all() and (crops[30:] == 1).all()


def _fold_result(images: int, dice: int, errors: int, exact: float, wrong: dict) -> dict:
    return {"images": images, "dice": dice, "errors": errors, "image_exact": exact,
            "read_accuracy": 1 - errors / dice, "extra": 1, "wrong": wrong}


def test_fold_totals_and_die_by_die_comparison(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setattr(kfold, "OUT", tmp_path)
    a = kfold._summarise({"folds": {
        "0": _fold_result(40, 260, 2, 0.95, {"x.jpg#1": [2, 5, 0.8], "y.jpg#0": [3, 4, 0.6]}),
        "1": _fold_result(40, 300, 1, 0.975, {"z.jpg#2": [6, 5, 0.9]})}})
    t = a["total"]
    assert (t["images"], t["dice"], t["errors"], t["extra"]) == (80, 560, 3, 2)
    assert t["read_accuracy"] == pytest.approx(557 / 560) and t["image_exact"] == 0.9625
    b = kfold._summarise({"folds": {
        "0": _fold_result(40, 260, 2, 0.95, {"x.jpg#1": [2, 5, 0.7], "w.jpg#3": [1, 2, 0.5]})}})
    kfold._save("A", a)
    kfold._save("B", b)
    cmp = kfold.cmd_compare(type("Args", (), {"a": "A", "b": "B"})())
    assert cmp["folds"] == ["0"] and cmp["dice"] == 260  # fold 1: only A has it
    assert cmp["errors_A"] == cmp["errors_B"] == 2
    assert cmp["only_A_wrong"] == {"y.jpg#0": [3, 4, 0.6]}
    assert cmp["only_B_wrong"] == {"w.jpg#3": [1, 2, 0.5]}
    assert cmp["both_wrong"] == {"x.jpg#1": [[2, 5, 0.8], [2, 5, 0.7]]}


def _photo(name: str, value: int) -> Photo:
    crops = np.full((2, 16, 16, 3), value * 30, np.uint8)
    return Photo(name, crops, np.full(2, value - 1), crops[:1], np.array([value]),
                 np.array([0]), 1)


def test_each_fold_trains_without_its_photos_and_keeps_its_net(tmp_path: Path,
                                                                monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setattr(kfold, "OUT", tmp_path)
    photos = [_photo(f"p{i}.jpg", 1 + i % 6) for i in range(10)]
    monkeypatch.setattr(kfold, "load_photos", lambda *a: photos)
    monkeypatch.setattr(kfold, "fold_of", lambda seed: {p.name: i % N_FOLDS
                                                        for i, p in enumerate(photos)})
    seen: dict[int, int] = {}

    def train_one(crops: np.ndarray, labels: np.ndarray, k: int) -> torch.nn.Module:
        seen[k] = len(crops)
        torch.manual_seed(k)
        return tc.make_classifier("pool", N_CLASSES, 4, 16).eval()

    args = type("Args", (), {"detector": None, "crop_px": 16, "seed": 0, "folds": "0,3",
                             "name": "T"})()
    result = kfold._per_fold(args, train_one)
    assert seen == {0: 16, 3: 16}  # 8 of the 10 photos, 2 crops each
    assert set(result["folds"]) == {"0", "3"} and result["total"]["dice"] == 4
    saved = json.loads((tmp_path / "T.json").read_text())
    assert saved["total"] == result["total"]
    state = torch.load(tmp_path / "T_fold3.pt")
    net = tc.make_classifier("pool", N_CLASSES, 4, 16)
    net.load_state_dict(state)  # the fold's net can be read back to be combined later


def test_base_path_names_every_setting() -> None:
    p = syndata.base_path(0, 3000, 48, 10, 24, "pool", 0.25)
    assert p.parent == syndata.CACHE and f"v{syndata.DATA_VERSION}_" in p.name
    others = {syndata.base_path(1, 3000, 48, 10, 24, "pool", 0.25),
              syndata.base_path(0, 2000, 48, 10, 24, "pool", 0.25),
              syndata.base_path(0, 3000, 40, 10, 24, "pool", 0.25),
              syndata.base_path(0, 3000, 48, 12, 24, "pool", 0.25),
              syndata.base_path(0, 3000, 48, 10, 32, "pool", 0.25),
              syndata.base_path(0, 3000, 48, 10, 24, "contrast", 0.25),
              syndata.base_path(0, 3000, 48, 10, 24, "pool", 0.0)}
    assert len(others) == 7 and p not in others


def _tiny_data(n: int = 64) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return rng.integers(0, 255, (n, 16, 16, 3)).astype(np.uint8), rng.integers(0, N_CLASSES, n)


def test_base_is_trained_once_then_read_from_its_file(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    crops, labels = _tiny_data(256)  # one batch: one step per epoch
    path = tmp_path / "base.pt"
    calls = []
    real_train = tc.train_classifier

    def counting(*a, **kw):  # noqa: ANN002,ANN003,ANN202
        calls.append(kw.get("desc"))
        return real_train(*a, **kw)

    monkeypatch.setattr(tc, "train_classifier", counting)
    kw = {"width": 4, "arch": "pool", "gloss": 0.0}
    state = tc.pretrained(crops, labels, path, 0, 1, N_CLASSES, **kw)
    assert path.is_file() and calls == ["pretrain (synthetic)"]
    again = tc.pretrained(crops, labels, path, 0, 1, N_CLASSES, **kw)
    assert calls == ["pretrain (synthetic)"], "a kept base is not trained again"
    for name, t in state.items():
        torch.testing.assert_close(again[name], t)


def test_fine_tune_starts_from_the_given_weights() -> None:
    crops, labels = _tiny_data()
    torch.manual_seed(123)
    base = tc.make_classifier("pool", N_CLASSES, 4, 16).state_dict()
    args = (crops, labels, np.ones(len(crops)), 0, 0, N_CLASSES)
    tuned = tc.train_classifier(*args, batch=16, width=4, init=base, lr=1e-7, steps=3)
    fresh = tc.train_classifier(*args, batch=16, width=4, lr=1e-7, steps=3)
    tuned_p, fresh_p = dict(tuned.named_parameters()), dict(fresh.named_parameters())
    for name, t in base.items():
        if name in tuned_p:  # weights; batch-norm statistics move in any training step
            torch.testing.assert_close(tuned_p[name].detach(), t, atol=1e-5, rtol=0)
    assert any(not torch.allclose(fresh_p[n].detach(), base[n]) for n in fresh_p)
    assert not tuned.training


def test_draw_weights_keep_the_real_share_and_boost_only_synthetic_symbols() -> None:
    from vision.dice.detections import FACE_SYMBOL

    is_real = np.array([0, 0, 0, 1, 1, 1], bool)
    labels = np.array([FACE_SYMBOL, 1, 2, FACE_SYMBOL, 3, 4])
    plain = tc.draw_weights(is_real, labels, 0.7)
    assert plain[is_real].sum() == pytest.approx(0.7) and plain.sum() == pytest.approx(1.0)
    assert np.allclose(plain[:3], 0.1)
    boosted = tc.draw_weights(is_real, labels, 0.7, symbol_boost=3.0)
    assert boosted[is_real].sum() == pytest.approx(0.7)
    assert np.allclose(boosted[is_real], plain[is_real])  # a real symbol label is not boosted
    assert boosted[0] == pytest.approx(3 * boosted[1])
    only_syn = tc.draw_weights(np.zeros(3, bool), labels[:3], 0.5, symbol_boost=2.0)
    assert only_syn.tolist() == pytest.approx([0.5, 0.25, 0.25])


def test_detector_box_crops_are_cut_round_the_detectors_boxes_with_the_labels_class() -> None:
    from models.training.dice.dataset import detector_box_crops

    img = np.full((120, 200, 3), 200, np.uint8)
    img[20:60, 20:60] = 40  # a dark square "die" labelled 3 (class 2)
    labels = np.array([[18.0, 18.0, 62.0, 62.0], [120.0, 20.0, 160.0, 60.0]])
    classes = np.array([2, 5])
    # The detector boxed the first die tightly (its top face), missed the second, and fired
    # on an empty place.
    found = np.array([[26.0, 26.0, 54.0, 54.0], [150.0, 80.0, 190.0, 118.0]])
    s = detector_box_crops(img, found, labels, classes, np.random.default_rng(0), 3, 16)
    assert s.labels == [2, 2, 2] and len(s.crops) == 3
    # Cut round the tight box: the dark die fills most of each crop (a label-sized crop
    # would show the light table round it).
    assert all((c < 100).mean() > 0.6 for c in s.crops)
    assert detector_box_crops(img, found[1:], labels, classes, np.random.default_rng(0), 3,
                              16).crops == []


def test_training_samples_take_the_first_box_copies() -> None:
    crops = np.zeros((2, 8, 8, 3), np.uint8)
    box = np.arange(6, dtype=np.uint8)[:, None, None, None] * np.ones((1, 8, 8, 3), np.uint8)
    photo = Photo("p.jpg", crops, np.array([0, 1]), crops[:1], np.array([1]), np.array([0]), 1,
                  box, np.array([4, 4, 4, 4, 4, 4]), np.array([0, 0, 1, 1, 2, 2]))
    assert len(folds.training_samples([photo]).crops) == 2
    two = folds.training_samples([photo], box_copies=2)
    assert len(two.crops) == 6 and two.labels == [0, 1, 4, 4, 4, 4]
    assert [int(c[0, 0, 0]) for c in two.crops[2:]] == [0, 1, 2, 3]


def test_camera_shift_keeps_shape_and_range_and_greys_some_crops() -> None:
    x = torch.rand(200, 3, 16, 16)
    y = tc.camera_shift(x, torch.Generator().manual_seed(1))
    assert y.shape == x.shape and float(y.min()) >= 0.0 and float(y.max()) <= 1.0
    grey = ((y[:, 0] - y[:, 1]).abs().amax(dim=(1, 2)) < 0.02) & (
        (y[:, 1] - y[:, 2]).abs().amax(dim=(1, 2)) < 0.02)
    assert 10 <= int(grey.sum()) <= 60  # 15 % of 200, some JPEG'd after greying
    again = tc.camera_shift(x, torch.Generator().manual_seed(1))
    torch.testing.assert_close(y, again)
    assert not torch.allclose(y, x)


def test_robustness_shifts_keep_crops_as_uint8_images() -> None:
    from models.training.dice.shifts import SHIFTS

    crop = np.random.default_rng(0).integers(0, 256, (48, 48, 3)).astype(np.uint8)
    for name, shift in SHIFTS.items():
        out = shift(crop)
        assert out.shape == crop.shape and out.dtype == np.uint8, name
    assert (SHIFTS["none"](crop) == crop).all()
    assert SHIFTS["dark x0.45"](crop).mean() < 0.5 * crop.mean()
    g = SHIFTS["grey"](crop)
    assert (g[..., 0] == g[..., 1]).all() and (g[..., 1] == g[..., 2]).all()


def test_detector_box_crops_come_copy_by_copy() -> None:
    # folds._photo tags the crops by copy on this order (np.repeat over the copies).
    from models.training.dice.dataset import detector_box_crops

    img = np.zeros((200, 300, 3), np.uint8)
    for k, x in enumerate((20, 120, 220)):  # three dice of different greys
        img[80:120, x:x + 40] = 60 + 60 * k
    boxes = np.array([[x, 80, x + 40, 120] for x in (20, 120, 220)], np.float64)
    found = boxes[[2, 0, 1]] + 1.0  # the detector's order is not the labels'
    s = detector_box_crops(img, found, boxes, np.array([0, 1, 2]),
                           np.random.default_rng(0), 2, 32)
    assert len(s.crops) == 6
    assert s.labels[:3] == s.labels[3:] and sorted(s.labels[:3]) == [0, 1, 2]
    greys = [int(c[16, 16, 0]) for c in s.crops]
    assert greys[:3] == greys[3:]  # copy 1 holds the same dice in the same order
