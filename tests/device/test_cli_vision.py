"""`dicetable read / eval / bench`: JSON shapes, bad input per file, exit statuses."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from device.cli import main
from vision.synth.renderer import CameraPose, DieSpec, Scene, render
from vision.synth.textures import DieLook

DIE_KEYS = {"box", "center", "value", "probability", "unsure", "symbol", "body_colour",
            "pip_colour"}
EVAL_KEYS = {"images", "dice", "detected_recall", "precision", "value_accuracy",
             "read_accuracy", "image_exact", "ms_per_image"}


def table_photo(values: tuple[int, ...] = (2, 5, 6)) -> tuple[np.ndarray, np.ndarray,
                                                             np.ndarray]:
    """A photo of red dice with white pips, its truth boxes and their values (same order)."""
    look = DieLook(body_bgr=(40.0, 40.0, 200.0), pip_bgr=(240.0, 240.0, 240.0))
    dice = tuple(DieSpec(x_mm=-60 + 60 * i, y_mm=0, value=v, yaw_deg=20.0 * i, look=look)
                 for i, v in enumerate(values))
    out = render(Scene(dice=dice, camera=CameraPose(width=480, height=360, distance_mm=350),
                       seed=1), jpeg_quality=90)
    return out.image, out.boxes, out.values


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("photos")
    img, _, _ = table_photo()
    jpg = cv2.imencode(".jpg", img)[1].tobytes()
    paths = {
        "good": d / "good.jpg", "truncated": d / "truncated.jpg", "empty": d / "empty.jpg",
        "text": d / "notes.jpg", "grey": d / "grey.png", "deep": d / "deep.png",
        "tiny": d / "tiny.png", "huge": d / "huge.png",
    }
    paths["good"].write_bytes(jpg)
    paths["truncated"].write_bytes(jpg[: len(jpg) // 2])
    paths["empty"].write_bytes(b"")
    paths["text"].write_text("not a photo\n")
    cv2.imwrite(str(paths["grey"]), cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))
    cv2.imwrite(str(paths["deep"]), img.astype(np.uint16) * 257)
    cv2.imwrite(str(paths["tiny"]), np.zeros((1, 1, 3), np.uint8))
    cv2.imwrite(str(paths["huge"]), np.zeros((9000, 12000), np.uint8))
    return paths


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, object, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, json.loads(out), err


def test_read_json_shape(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    status, result, _ = run_json(capsys, "read", str(files["good"]), "--json")
    assert status == 0
    assert isinstance(result, list) and len(result) == 1
    item = result[0]
    assert set(item) == {"image", "width", "height", "error", "dice"}
    assert (item["width"], item["height"], item["error"]) == (480, 360, None)
    assert len(item["dice"]) == 3
    for die in item["dice"]:
        assert set(die) == DIE_KEYS
        x0, y0, x1, y1 = die["box"]
        assert 0 <= x0 < x1 <= 480 and 0 <= y0 < y1 <= 360
        assert die["center"] == [pytest.approx((x0 + x1) / 2, abs=0.1),
                                 pytest.approx((y0 + y1) / 2, abs=0.1)]
        assert 0 < die["probability"] <= 1
    assert sorted(d["value"] for d in item["dice"]) == [2, 5, 6]
    assert {d["body_colour"] for d in item["dice"]} == {"red"}


@pytest.mark.parametrize(("key", "message"), [
    ("truncated", "truncated JPEG"), ("empty", "empty file"), ("text", "not an image"),
    ("tiny", "1x1"), ("huge", "12000x9000"),
])
def test_bad_file_gets_its_message_and_others_are_read(
        files: dict[str, Path], capsys: pytest.CaptureFixture[str], key: str,
        message: str) -> None:
    status, result, err = run_json(capsys, "read", str(files[key]), str(files["good"]),
                                   str(files["grey"]), str(files["deep"]), "--json")
    assert status == 1
    assert message in result[0]["error"] and result[0]["dice"] == []
    assert message in err and "Traceback" not in err
    for item in result[1:]:
        assert item["error"] is None and len(item["dice"]) == 3


def test_read_text_and_annotate(files: dict[str, Path], tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["read", str(files["good"]), "--annotate", str(tmp_path / "out")])
    out = capsys.readouterr().out
    assert status == 0
    assert out.startswith(f"{files['good']}: 3 dice, total 13")
    drawn = cv2.imread(str(tmp_path / "out" / "good.annotated.jpg"))
    assert drawn is not None and drawn.shape == (360, 480, 3)


def write_dataset(root: Path) -> None:
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    rows = ["image,split_in_source"]
    for i, values in enumerate([(1, 3, 4), (2, 5, 6)]):
        img, boxes, truth = table_photo(values)
        cv2.imwrite(str(root / "images" / f"t{i}.png"), img)
        h, w = img.shape[:2]
        lines = [f"{v - 1} {(b[0] + b[2]) / 2 / w} {(b[1] + b[3]) / 2 / h} "
                 f"{(b[2] - b[0]) / w} {(b[3] - b[1]) / h}" for v, b in zip(truth, boxes,
                                                                           strict=True)]
        (root / "labels" / f"t{i}.txt").write_text("\n".join(lines) + "\n")
        rows.append(f"t{i}.png,{'test' if i else 'train'}")
    (root / "manifest.csv").write_text("\n".join(rows) + "\n")


def test_eval_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_dataset(tmp_path)
    status, metrics, _ = run_json(capsys, "eval", str(tmp_path), "--json")
    assert status == 0
    assert EVAL_KEYS <= set(metrics)
    assert (metrics["images"], metrics["dice"]) == (2, 6)
    assert metrics["read_accuracy"] == 1.0 and metrics["image_exact"] == 1.0
    status, metrics, _ = run_json(capsys, "eval", str(tmp_path), "--split", "test", "--json")
    assert (status, metrics["images"], metrics["dice"]) == (0, 1, 3)


def test_eval_label_fixes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_dataset(tmp_path / "set")
    fixes = tmp_path / "fixes.csv"
    header = "image,die_index,pip_value_in_source,pip_value_seen,what\n"
    # Die 0 of t1 shows 2; a fix saying the photo shows 3 makes the (right) reading wrong.
    fixes.write_text(header + "t1.png,0,2,3,as if the source were right\n")
    status, metrics, _ = run_json(capsys, "eval", str(tmp_path / "set"), "--label-fixes",
                                  str(fixes), "--json")
    assert (status, metrics["labels_fixed"]) == (0, 1)
    assert metrics["read_accuracy"] == pytest.approx(5 / 6) and metrics["image_exact"] == 0.5
    status, metrics, _ = run_json(capsys, "eval", str(tmp_path / "set"), "--json")
    assert (status, metrics["labels_fixed"], metrics["read_accuracy"]) == (0, 0, 1.0)
    fixes.write_text(header + "t1.png,0,4,3,names a die the folder labels 2\n")
    assert main(["eval", str(tmp_path / "set"), "--label-fixes", str(fixes)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "expects 4 in the source" in err
    assert main(["eval", str(tmp_path / "set"), "--label-fixes", str(tmp_path / "no.csv")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot read the label fixes" in err


def test_eval_missing_folder_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "/nonexistent/dir"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "images/ and labels/" in err


def test_read_without_images_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["read", "--json"])
    assert exc.value.code == 2
    assert "Traceback" not in capsys.readouterr().err


def test_eval_unknown_split(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_dataset(tmp_path)
    assert main(["eval", str(tmp_path), "--split", "valid"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "splits are" in err


def test_bench_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, result, _ = run_json(capsys, "bench", "--json", "--frames", "1", "--repeat", "1")
    assert status == 0
    assert {"frames_per_s", "crops_per_s", "floor_ratio", "peak_rss_mb"} <= set(result)
    assert result["frames_per_s"] > 0 and result["crops_per_s"] > 0
    assert result["floor_ratio"] >= 1.0
    assert 20 < result["peak_rss_mb"] < 2000
    assert result["dice_per_frame"] >= 30
