"""The models' manifest (vision.manifest): every shipped model by role, its file's checksum,
card and training record; no model file outside it."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision import manifest as mf
from vision.onnx_models import CLASSIFIER_FILE, DETECTOR_FILE, ModelNotFoundError, models_dir


def test_every_shipped_model_is_in_the_manifest_with_its_checksum_card_and_record() -> None:
    models = mf.manifest()
    folder = models_dir()
    assert {"detector", "classifier", "faces", "enrol", "top_face_choice"} <= set(models)
    for m in models.values():
        assert m.verify(), f"{m.file}: not the manifest's SHA-256"
        assert (folder / m.card).is_file() and (folder / m.record).is_file(), m.role
    listed = {m.file for m in models.values()}
    assert {p.name for p in folder.glob("*.onnx")} <= listed
    sums = dict(reversed(line.split()) for line in
                (folder / "SHA256SUMS").read_text().splitlines() if line.strip())
    assert all(sums[m.file] == m.sha256 for m in models.values() if m.file in sums)
    # (vision.onnx_models still names the reader's two files itself: they must agree)
    assert (DETECTOR_FILE, CLASSIFIER_FILE) == (mf.file_of("detector"),
                                               mf.file_of("classifier"))


def test_a_changed_file_fails_its_check_and_an_unknown_role_says_so(tmp_path: Path) -> None:
    faces = mf.model("faces")
    (tmp_path / faces.file).write_bytes(b"not the model")
    assert not faces.verify(tmp_path)
    with pytest.raises(ModelNotFoundError, match="roles:"):
        mf.model("oracle")


def test_a_models_folder_without_a_manifest_is_read_with_the_shipped_names(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DICETABLE_MODELS_DIR", str(tmp_path))
    assert mf.file_of("faces") == mf.model("faces").file
    (tmp_path / mf.MANIFEST).write_text('{"format": "something else"}')
    mf._read.cache_clear()
    with pytest.raises(ModelNotFoundError, match="manifest"):
        mf.manifest()
    mf._read.cache_clear()


def test_a_retrained_model_s_checksum_reaches_the_manifest(tmp_path: Path) -> None:
    """models.training.export.update_sha256sums, which every training script calls, sets the
    checksums of the manifest's files as well as SHA256SUMS'."""
    pytest.importorskip("torch")
    import json
    import shutil

    from models.training.export import update_sha256sums

    shutil.copy(models_dir() / mf.MANIFEST, tmp_path / mf.MANIFEST)
    faces = mf.model("faces")
    update_sha256sums(tmp_path, {faces.file: "0" * 64})
    data = json.loads((tmp_path / mf.MANIFEST).read_text())
    assert data["models"]["faces"]["sha256"] == "0" * 64
    assert data["models"]["enrol"]["sha256"] == mf.model("enrol").sha256
    assert f"{'0' * 64}  {faces.file}" in (tmp_path / "SHA256SUMS").read_text()
