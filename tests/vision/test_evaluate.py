"""Matching and metrics of `eval`: centre inside the label's box, one to one."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.dice.detections import NUM_FACE_CLASSES, Detections
from vision.measure.evaluate import (
    DatasetError,
    evaluate,
    fix_labels,
    list_dataset,
    match,
    read_label_fixes,
)


def test_match_is_one_to_one_and_needs_the_centre_inside() -> None:
    labels = np.array([[0, 0, 10, 10], [20, 0, 30, 10]], float)
    preds = np.array([[1, 1, 9, 9],        # centre (5, 5) in label 0
                      [2, 2, 10, 10],      # also in label 0, further: unmatched
                      [12, 0, 40, 10],     # centre (26, 5) in label 1
                      [50, 50, 60, 60]], float)
    assert sorted(match(preds, labels)) == [(0, 0), (2, 1)]
    assert match(np.zeros((0, 4)), labels) == []
    assert match(preds, np.zeros((0, 4))) == []


def make_dataset(root: Path, manifest: bool = True) -> None:
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    for name in ("a", "b"):
        cv2.imwrite(str(root / "images" / f"{name}.png"), np.zeros((100, 200, 3), np.uint8))
        (root / "labels" / f"{name}.txt").write_text("2 0.25 0.5 0.1 0.2\n4 0.75 0.5 0.1 0.2\n")
    if manifest:
        (root / "manifest.csv").write_text("image,split_in_source\na.png,train\nb.png,test\n")


def fake_reader(values: list[int], extra: bool = False):  # noqa: ANN201
    def read(img: np.ndarray) -> Detections:
        boxes = [[45, 40, 55, 60], [145, 40, 155, 60]] + ([[0, 0, 5, 5]] if extra else [])
        probs = np.zeros((len(boxes), NUM_FACE_CLASSES), np.float32)
        for i, v in enumerate(values + ([1] if extra else [])):
            probs[i, v - 1] = 1.0
        return Detections(xyxy=boxes, confidence=[0.9] * len(boxes), face_probs=probs)
    return read


def test_metrics(tmp_path: Path) -> None:
    make_dataset(tmp_path)
    items = list_dataset(tmp_path)
    assert [i.values.tolist() for i in items] == [[3, 5], [3, 5]]
    perfect = evaluate(items, fake_reader([3, 5]))
    assert perfect["read_accuracy"] == perfect["image_exact"] == perfect["precision"] == 1.0
    half = evaluate(items, fake_reader([3, 6], extra=True))
    assert half["dice"] == 4 and half["images"] == 2
    assert half["detected_recall"] == 1.0
    assert half["precision"] == pytest.approx(4 / 6)
    assert half["value_accuracy"] == half["read_accuracy"] == 0.5
    assert half["image_exact"] == 0.0


def test_split_uses_the_manifest(tmp_path: Path) -> None:
    make_dataset(tmp_path)
    assert [i.image.name for i in list_dataset(tmp_path, "test")] == ["b.png"]
    with pytest.raises(DatasetError, match="splits are"):
        list_dataset(tmp_path, "valid")


def test_split_without_manifest_or_folders_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="images/ and labels/"):
        list_dataset(tmp_path)
    make_dataset(tmp_path, manifest=False)
    with pytest.raises(DatasetError, match="manifest"):
        list_dataset(tmp_path, "test")


FIX_HEADER = "image,die_index,pip_value_in_source,pip_value_seen,what\n"


def test_label_fixes_relabel_only_the_named_dice(tmp_path: Path) -> None:
    make_dataset(tmp_path / "set")
    csv_path = tmp_path / "fixes.csv"
    csv_path.write_text(FIX_HEADER + "b.png,1,5,4,four pips\nother.png,0,1,2,not in this set\n")
    fixes = read_label_fixes(csv_path)
    assert [(f.image, f.die_index, f.in_source, f.seen) for f in fixes] == [
        ("b.png", 1, 5, 4), ("other.png", 0, 1, 2)]
    items = list_dataset(tmp_path / "set")
    fixed, applied = fix_labels(items, fixes)
    assert applied == 1
    assert [i.values.tolist() for i in fixed] == [[3, 5], [3, 4]]
    assert [i.values.tolist() for i in items] == [[3, 5], [3, 5]]  # the originals untouched
    # A reader that reads 3, 4 in both photos: b's second die is right only against the fix.
    assert evaluate(fixed, fake_reader([3, 4]))["read_accuracy"] == 0.75
    assert evaluate(items, fake_reader([3, 4]))["read_accuracy"] == 0.5
    test_only, applied = fix_labels(list_dataset(tmp_path / "set", "train"), fixes)
    assert applied == 0 and test_only[0].values.tolist() == [3, 5]


@pytest.mark.parametrize(("row", "message"), [
    ("b.png,1,6,4,x\n", "expects 6 in the source, but the folder labels 5"),
    ("b.png,7,5,4,x\n", "die 7 expects 5 in the source, but the folder has 2 dice"),
])
def test_a_fix_that_does_not_fit_the_folder_is_refused(tmp_path: Path, row: str,
                                                       message: str) -> None:
    make_dataset(tmp_path / "set")
    (tmp_path / "fixes.csv").write_text(FIX_HEADER + row)
    with pytest.raises(DatasetError, match=message):
        fix_labels(list_dataset(tmp_path / "set"), read_label_fixes(tmp_path / "fixes.csv"))


@pytest.mark.parametrize(("text", "message"), [
    ("image,value\nb.png,4\n", "needs the columns"),
    (FIX_HEADER + "b.png,one,5,4,x\n", "line 2: die_index and the pip values"),
    (FIX_HEADER + "b.png,1,5,9,x\n", "line 2: pip values are 1..6"),
    (None, "cannot read the label fixes"),
])
def test_malformed_label_fixes_are_a_clear_error(tmp_path: Path, text: str | None,
                                                  message: str) -> None:
    path = tmp_path / "fixes.csv"
    if text is not None:
        path.write_text(text)
    with pytest.raises(DatasetError, match=message):
        read_label_fixes(path)


def test_regions_to_ignore_count_neither_right_nor_on_no_die(tmp_path: Path) -> None:
    make_dataset(tmp_path)
    # the fake reader's extra box [0, 0, 5, 5] lies in a d6 left unlabelled on a.png; an RPG
    # die (kind non-d6) is no region to ignore, a box on it is a box on no die
    (tmp_path / "unlabelled.csv").write_text(
        "image,kind,x_center_px,y_center_px,width_px,height_px,note\n"
        "a.png,d6-unlabelled,2,2,10,10,blurred\n"
        "b.png,non-d6,2,2,,,d20\n")
    items = list_dataset(tmp_path)
    assert [len(i.ignore) for i in items] == [1, 0]
    m = evaluate(items, fake_reader([3, 5], extra=True))
    assert (m["ignored"], m["extra"]) == (1, 1)
    assert m["extra_share"] == pytest.approx(1 / 5)
    assert m["precision"] == pytest.approx(4 / 5)
    assert m["image_exact"] == 0.5  # a.png exact once its extra box is ignored


def test_a_region_of_unknown_size_takes_the_photo_s_die_size(tmp_path: Path) -> None:
    make_dataset(tmp_path)
    (tmp_path / "unlabelled.csv").write_text(
        "image,kind,x_center_px,y_center_px,width_px,height_px,note\n"
        "a.png,numeral-d6,100,100,,,a die with numerals\n")
    item = list_dataset(tmp_path)[0]
    w, h = 200, 100
    box = item.ignore_xyxy(w, h)[0]
    side = float(np.median(np.maximum(item.boxes[:, 2] * w, item.boxes[:, 3] * h)))
    assert box.tolist() == pytest.approx([100 - side / 2, 100 - side / 2,
                                          100 + side / 2, 100 + side / 2])


def test_a_malformed_ignore_file_is_a_clear_error(tmp_path: Path) -> None:
    make_dataset(tmp_path)
    (tmp_path / "unlabelled.csv").write_text("image,kind,x_center_px,y_center_px\n"
                                             "a.png,d6-unlabelled,left,2\n")
    with pytest.raises(DatasetError, match="line 2"):
        list_dataset(tmp_path)


def test_unsure_dice_and_sure_misreads_are_counted(tmp_path: Path) -> None:
    make_dataset(tmp_path)
    items = list_dataset(tmp_path)

    def read(img: np.ndarray) -> Detections:
        probs = np.zeros((2, NUM_FACE_CLASSES), np.float32)
        probs[0, 2] = 1.0  # a sure 3: right
        probs[1, [3, 5]] = 0.5  # an unsure die: read 4 at 0.5, its label says 5
        return Detections(xyxy=[[45, 40, 55, 60], [145, 40, 155, 60]], confidence=[0.9, 0.9],
                          face_probs=probs)

    m = evaluate(items, read)
    assert (m["unsure"], m["sure_wrong"]) == (2, 0)
    m = evaluate(items, fake_reader([3, 6]))
    assert (m["unsure"], m["sure_wrong"]) == (0, 2)
