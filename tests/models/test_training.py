"""Training pieces: network shapes, detector targets, temperature scaling, ECE, ONNX export
loaded back through the runtime wrappers, and the shipped files' checksums and size."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (extra 'train')")
pytest.importorskip("onnx", reason="onnx is not installed (extra 'train')")

from models.training.dice.train_classifier import (  # noqa: E402
    augment,
    ece,
    fit_temperature,
    highlights,
    line_highlights,
)
from models.training.dice.train_detector import make_targets, sample_window  # noqa: E402
from models.training.export import export_classifier, export_detector  # noqa: E402
from models.training.nets import DiceDetector, FaceClassifier, PoolFaceClassifier  # noqa: E402
from vision.dice.classifier import FaceClassifier as OnnxClassifier  # noqa: E402
from vision.dice.detections import NUM_FACE_CLASSES  # noqa: E402
from vision.dice.detector import DiceDetector as OnnxDetector  # noqa: E402
from vision.onnx_models import CLASSIFIER_FILE, DETECTOR_FILE  # noqa: E402

MODELS = Path(__file__).resolve().parents[2] / "models"


def test_network_shapes() -> None:
    det = DiceDetector().eval()
    assert det(torch.zeros(2, 3, 128, 96)).shape == (2, 5, 32, 24)
    cls = FaceClassifier(n_classes=9).eval()
    assert cls(torch.zeros(4, 3, 32, 32)).shape == (4, 9)


def test_targets_peak_at_the_centre_cell() -> None:
    heat, reg, mask = make_targets(np.array([[40.0, 20.0, 72.0, 44.0]]), 128)
    assert heat.shape == (32, 32) and mask.sum() == 1
    iy, ix = np.argwhere(mask == 1)[0]
    assert (ix, iy) == (14, 8)  # centre (56, 32) px / stride 4
    assert heat[iy, ix] == 1.0 and heat.max() == 1.0
    np.testing.assert_allclose(reg[:, iy, ix], [np.log(8), np.log(6), 0.0, 0.0], atol=1e-6)


def test_windows_keep_boxes_on_their_dice() -> None:
    rng = np.random.default_rng(0)
    img = np.zeros((300, 300, 3), np.uint8)
    img[100:140, 150:190] = 255  # one white "die"
    for _ in range(10):
        win, boxes = sample_window(img, np.array([[150.0, 100.0, 190.0, 140.0]]), rng)
        x0, y0, x1, y1 = boxes[0]
        cx, cy = int((x0 + x1) / 2), int((y0 + y1) / 2)
        if 0 <= cx < win.shape[1] and 0 <= cy < win.shape[0]:
            # Brightness/contrast jitter changes the level, not which pixels are the die.
            assert win[cy, cx].mean() > win.mean()


def test_temperature_recovers_overconfidence() -> None:
    gen = torch.Generator().manual_seed(0)
    true_logits = torch.randn(4000, 6, generator=gen) * 2
    labels = torch.multinomial(torch.softmax(true_logits, 1), 1, generator=gen)[:, 0].numpy()
    t = fit_temperature(true_logits * 3, labels)
    assert 2.5 < t < 3.5
    over = torch.softmax(true_logits * 3, 1).numpy()
    fixed = torch.softmax(true_logits * 3 / t, 1).numpy()
    assert ece(fixed, labels) < ece(over, labels) / 2


def test_augment_keeps_shape_and_range() -> None:
    x = torch.rand(8, 3, 32, 32)
    y = augment(x, torch.Generator().manual_seed(1))
    assert y.shape == x.shape and float(y.min()) >= 0 and float(y.max()) <= 1


def test_exported_models_load_in_the_runtime_wrappers(tmp_path: Path) -> None:
    torch.manual_seed(0)
    export_classifier(FaceClassifier(n_classes=9, width=8).eval(), 2.0, tmp_path / "c.onnx")
    export_detector(DiceDetector(width=8).eval(), tmp_path / "d.onnx")
    cls = OnnxClassifier(tmp_path / "c.onnx")
    crops = np.random.default_rng(0).integers(0, 255, (5, 32, 32, 3)).astype(np.uint8)
    faces, not_die = cls.postprocess(cls.infer(crops))
    assert faces.shape == (5, NUM_FACE_CLASSES) and not_die.shape == (5,)
    np.testing.assert_allclose(faces.sum(axis=1), 1, atol=1e-5)
    det = OnnxDetector(tmp_path / "d.onnx", threshold=0.0)
    found = det(np.zeros((100, 150, 3), np.uint8))
    assert np.all(found.xyxy[:, 2] <= 150) and np.all(found.xyxy[:, 3] <= 100)


def test_shipped_models_match_their_checksums_and_budget() -> None:
    import json

    # SHA256SUMS is shared with other models of the project: every line must hold, and the
    # dice reader's own files must be listed there and quoted in its card.
    sums = dict(reversed(line.split()) for line in
                (MODELS / "SHA256SUMS").read_text().splitlines() if line.strip())
    for name, digest in sums.items():
        assert hashlib.sha256((MODELS / name).read_bytes()).hexdigest() == digest, name
    ours = json.loads((MODELS / "dice_reader.json").read_text())["files"]
    # The detector and the int8 classifier (the float classifier is not shipped).
    assert set(ours) == {DETECTOR_FILE, CLASSIFIER_FILE}
    assert sum((MODELS / n).stat().st_size for n in ours) <= 1_300_000, "dice reader over budget"
    card = (MODELS / "dice_reader.md").read_text()
    for name, digest in ours.items():
        assert sums[name] == digest
        assert digest in card, "the model card must quote each model's sha256"
    total = sum(p.stat().st_size for p in MODELS.glob("*.onnx"))
    assert total <= 2_200_000, f"models/*.onnx total {total} bytes: over the ~2 MB budget"


def test_classifier_takes_other_crop_sizes(tmp_path: Path) -> None:
    net = FaceClassifier(n_classes=9, width=8, crop_px=40).eval()
    assert net(torch.zeros(2, 3, 40, 40)).shape == (2, 9)
    export_classifier(net, 1.5, tmp_path / "c40.onnx")
    cls = OnnxClassifier(tmp_path / "c40.onnx")
    assert cls.crop_px == 40
    img = np.random.default_rng(0).integers(0, 255, (120, 160, 3)).astype(np.uint8)
    crops = cls.preprocess(img, np.array([[10.0, 10.0, 50.0, 48.0]]))
    assert crops.shape == (1, 40, 40, 3)


def test_pooling_classifier_exports_at_48_px(tmp_path: Path) -> None:
    net = PoolFaceClassifier(n_classes=9, width=8, crop_px=48).eval()
    x = torch.rand(2, 3, 48, 48)
    assert net(x).shape == (2, 9)
    export_classifier(net, 1.0, tmp_path / "p48.onnx")
    assert OnnxClassifier(tmp_path / "p48.onnx").crop_px == 48


def test_grid_head_sees_where_a_blob_lies_and_exports(tmp_path: Path) -> None:
    torch.manual_seed(0)
    net = PoolFaceClassifier(n_classes=9, width=8, crop_px=48, grid=3).eval()
    # One bright blob at the centre, or the same blob in a corner: global pooling alone gives
    # both (nearly) the same features; the grid cells tell them apart.
    centre, corner = torch.zeros(2, 3, 48, 48), torch.zeros(2, 3, 48, 48)
    centre[:, :, 20:28, 20:28] = 1.0
    corner[:, :, 4:12, 4:12] = 1.0
    with torch.no_grad():
        f_centre, f_corner = net.features(centre), net.features(corner)
        cells = (net.grid(f_centre) - net.grid(f_corner)).abs().amax()
        means = (f_centre.mean(dim=(2, 3)) - f_corner.mean(dim=(2, 3))).abs().amax()
    assert float(cells) > 3 * float(means)
    export_classifier(net, 1.0, tmp_path / "g.onnx")
    crops = np.random.default_rng(0).integers(0, 255, (4, 48, 48, 3)).astype(np.uint8)
    want = net(torch.from_numpy(crops).permute(0, 3, 1, 2).float() / 255).detach().numpy()
    np.testing.assert_allclose(OnnxClassifier(tmp_path / "g.onnx").infer_once(crops), want,
                               atol=1e-4)


def test_highlights_only_brighten_the_chosen_crops() -> None:
    x = torch.full((64, 3, 24, 24), 0.3)
    y = highlights(x, torch.Generator().manual_seed(1), 0.5)
    lit = (y - x).flatten(1).amax(1) > 0.05
    assert 10 < int(lit.sum()) < 54, "about half the crops get a highlight"
    assert float((y - x).min()) >= 0 and float(y.max()) <= 1


def test_highlight_spread_sets_how_far_from_the_centre_streaks_lie() -> None:
    x = torch.zeros(200, 3, 48, 48)

    def peak_offsets(spread: float) -> np.ndarray:
        y = highlights(x, torch.Generator().manual_seed(3), 1.0, spread)[:, 0].flatten(1)
        r, c = np.divmod(y.argmax(1).numpy(), 48)
        return np.maximum(abs(r - 23.5), abs(c - 23.5))

    assert peak_offsets(0.05).max() <= 0.05 * 47 + 1
    assert peak_offsets(0.3).max() > 0.2 * 47, "the default reaches well off the centre"


def test_line_highlights_leave_a_pips_rim_dark_inside_the_band() -> None:
    yy, xx = torch.meshgrid(torch.arange(48.0), torch.arange(48.0), indexing="ij")
    r = ((yy - 23.5) ** 2 + (xx - 23.5) ** 2).sqrt()
    flat = torch.full((100, 3, 48, 48), 0.15)
    pip = torch.where(r < 5, 0.95, 0.15)
    pip = torch.nn.functional.avg_pool2d(pip[None, None], 3, 1, 1)[0, 0].expand_as(flat)
    # One seed draws the same bands on both: the flat face shows the glare alone.
    glare = (line_highlights(flat, torch.Generator().manual_seed(5), 1.0, 0.0) - flat) / 0.85
    y = line_highlights(pip, torch.Generator().manual_seed(5), 1.0, 0.0)
    assert float(glare.amax((1, 2, 3)).min()) > 0.3, "every crop gets a bright band"
    light = torch.full((100, 3, 48, 48), 0.6)
    lit = line_highlights(light, torch.Generator().manual_seed(6), 1.0, 0.3)
    assert float((lit - light).min()) >= 0, "a flat face is only lit: its border is no edge"
    washed = pip + (1 - pip) * glare  # what a glow that ignores the dimple would leave
    rim = ((r >= 4) & (r <= 6.5)) & (glare[:, 0] > 0.4)
    assert int(rim.sum()) > 100
    assert float((washed - y)[:, 0][rim].mean()) > 0.1, "the rim stays darker than the glare"
    assert float(y.min()) >= 0 and float(y.max()) <= 1


def test_strong_augment_keeps_shape_and_range() -> None:
    x = torch.rand(8, 3, 40, 40)
    y = augment(x, torch.Generator().manual_seed(2), strong=True)
    assert y.shape == x.shape and float(y.min()) >= 0 and float(y.max()) <= 1


def test_custom_dice_faces_are_symbols_unless_they_show_pips() -> None:
    from models.training.dice.dataset import classifier_classes
    from vision.dice.detections import FACE_SYMBOL
    from vision.faces.dietypes import get_type
    from vision.synth.renderer import CameraPose, DieSpec, Lighting, Scene, render

    cam = CameraPose(width=320, height=240, fov_deg=60, target_mm=(0.0, 0.0),
                     distance_mm=250.0)
    dice = (DieSpec(-40.0, 0.0, 3, die_type=get_type("icedice-size")),
            DieSpec(0.0, 0.0, 4, die_type=get_type("d6-skull1")),
            DieSpec(40.0, 0.0, 1, die_type=get_type("d6-skull1")),
            DieSpec(0.0, 40.0, 5))
    scene = Scene(dice=dice, camera=cam, lighting=Lighting(), seed=1)
    r = render(scene)
    got = dict(zip(r.die_index.tolist(), classifier_classes(scene, r).tolist(), strict=True))
    assert got == {0: FACE_SYMBOL, 1: 3, 2: FACE_SYMBOL, 3: 4}


def test_validation_photos_are_seeded_train_photos() -> None:
    from models.training.dice.dataset import shared_dir, val_photo_names

    if not (shared_dir() / "data" / "real-dice" / "manifest.csv").is_file():
        pytest.skip("real-dice photos not found")
    names = val_photo_names(40, 0)
    assert len(names) == 40 and names == val_photo_names(40, 0)
    assert val_photo_names(0, 0) == set()
    from vision.measure.evaluate import list_dataset

    test = {it.image.name for it in list_dataset(shared_dir() / "data" / "real-dice", "test")}
    assert not names & test


def test_centre_contrast_classifier_exports_and_reads_dark_dice_alike(tmp_path: Path) -> None:
    from models.training.nets import CentreContrast

    norm = CentreContrast(48)
    x = torch.rand(3, 3, 48, 48) * 0.3 + 0.05  # a dark crop
    z = norm(x)
    assert z.shape == (3, 6, 48, 48) and float(z.min()) >= 0 and float(z.max()) <= 1
    # The added half hardly changes with the crop's brightness and contrast (the spread's
    # floor keeps a flat crop's noise from being blown up, hence not exactly).
    torch.testing.assert_close(norm(x * 1.5 + 0.2)[:, 3:], z[:, 3:], atol=0.06, rtol=0)
    net = PoolFaceClassifier(n_classes=9, width=8, crop_px=48, contrast=True).eval()
    export_classifier(net, 1.0, tmp_path / "c.onnx")
    cls = OnnxClassifier(tmp_path / "c.onnx")
    crops = np.random.default_rng(0).integers(0, 255, (4, 48, 48, 3)).astype(np.uint8)
    want = net(torch.from_numpy(crops).permute(0, 3, 1, 2).float() / 255).detach().numpy()
    np.testing.assert_allclose(cls.infer_once(crops), want, atol=1e-4)


def test_fold_scoring_follows_the_reader() -> None:
    from models.training.dice.folds import Photo, score_photos
    from vision.dice.classifier import NOT_A_DIE

    crops = np.zeros((4, 8, 8, 3), np.uint8)
    crops[:] = np.array([0, 1, 2, 3])[:, None, None, None]  # its canned answer, in any turn
    # Die 0 read 3 (right), die 1 read 5 (wrong, true 2), crop 2 is no die and is dropped,
    # crop 3 is no die but read as a 6 (an extra die). Label 2 was never detected.
    canned = np.full((4, NOT_A_DIE + 1), -10.0, np.float32)
    canned[0, 2] = canned[1, 4] = canned[2, NOT_A_DIE] = canned[3, 5] = 10.0

    def logits(c: np.ndarray) -> np.ndarray:
        return canned[c[:, 0, 0, 0]]

    photo = Photo("a.jpg", crops, np.zeros(4, np.int64), crops, np.array([3, 2, 0, 0]),
                  np.array([0, 1, -1, -1]), 3)
    s = score_photos([photo], logits)
    assert s["dice"] == 3 and s["errors"] == 2 and s["extra"] == 1 and s["image_exact"] == 0
    assert s["wrong"] == {"a.jpg#1": [2, 5, 1.0], "a.jpg#2": [None, None, 0.0]}
    canned[1, 4], canned[1, 1] = -10.0, 10.0
    photo2 = Photo("b.jpg", crops[:2], np.zeros(2, np.int64), crops[:2], np.array([3, 2]),
                   np.array([0, 1]), 2)
    assert score_photos([photo2], logits)["image_exact"] == 1.0


def test_label_fixes_name_dice_as_the_source_labels_them() -> None:
    from models.training.dice.dataset import label_fixes, real_images, shared_dir

    if not (shared_dir() / "data" / "real-dice" / "manifest.csv").is_file():
        pytest.skip("real-dice photos not found")
    fixes = label_fixes("train")
    assert fixes and label_fixes("test") == {}
    seen = {(p.name, j): int(c[j]) for p, _, c in real_images("train")
            for j in range(len(c))}
    for key, (was, now) in fixes.items():
        assert was != now and seen[key] == now  # real_images checks `was` against the source


def test_enrolment_training_dice_cover_the_shipped_face_families() -> None:
    """Every training die of the enrolment embedding has six different faces (its six
    prototypes must be told apart) and the families of the shipped types' faces take part."""
    from models.training.enrol.train_enrol import train_dice

    dice = train_dice(300, 0)
    assert all(len({f.look for f in dt.faces}) == 6 for dt in dice)
    kinds = {f.look_dict()["kind"] for dt in dice for f in dt.faces}
    assert {"colour", "pictogram", "quarriors", "pips", "symbol", "custom"} <= kinds
    assert [dt.to_dict() for dt in train_dice(20, 0)] == [dt.to_dict() for dt in dice[:20]]


def test_a_detector_read_back_from_onnx_gives_its_outputs_and_tunes_with_frozen_norms(
        tmp_path: Path) -> None:
    from models.training.dice.train_detector import train_detector
    from models.training.dice.tune_detector import from_onnx
    from models.training.nets import DetectorExport

    torch.manual_seed(0)
    net = DiceDetector().eval()
    for m in net.modules():  # batch norms with statistics of their own, as a trained net's
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.2, 0.2)
            m.running_var.uniform_(0.5, 2.0)
            m.weight.data.uniform_(0.5, 1.5)
    export_detector(net, tmp_path / "d.onnx")
    back = from_onnx(tmp_path / "d.onnx")
    x = torch.rand(1, 3, 64, 96)
    with torch.no_grad():
        want = DetectorExport(net)(x)
        got = DetectorExport(back)(x)
    for w, g in zip(want, got, strict=True):
        torch.testing.assert_close(g, w, atol=1e-4, rtol=1e-4)
    # Tuning moves the weights but not the frozen statistics.
    img = np.random.default_rng(0).integers(0, 255, (256, 256, 3)).astype(np.uint8)
    tuned = train_detector([img], [np.array([[100.0, 100.0, 140.0, 140.0]], np.float32)],
                           np.ones(1), steps=2, seed=0, batch=2, net=back, lr=1e-3)
    bns = [m for m in tuned.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    assert all(float(m.running_mean.abs().max()) == 0.0 for m in bns)
    with torch.no_grad():
        assert not torch.allclose(DetectorExport(tuned)(x)[0], got[0])


def test_typed_photos_are_at_the_networks_scale_with_their_dice_boxed() -> None:
    from models.training.dice.tune_detector import typed_photos
    from vision.dice.detector import INPUT_LONG_SIDE

    images, boxes = typed_photos(2, seed=5)
    assert len(images) == len(boxes) == 2
    for img, bx in zip(images, boxes, strict=True):
        h, w = img.shape[:2]
        assert max(h, w) == INPUT_LONG_SIDE and h % 16 == 0 and w % 16 == 0
        assert len(bx) >= 1
        assert np.all(bx[:, 2:] > bx[:, :2])
        assert np.all(bx[:, :2] >= -1) and np.all(bx[:, 2] <= w + 1) and np.all(bx[:, 3] <= h + 1)
