"""Write the model card ``models/dice_reader.md`` from the training record and fresh measurements.

Usage::

    python -m models.training.card [--models models] [--skip-bench]
        [--bench-json models/results/bench_20261126.json]

Runs the reader on the real-dice test split (as published and with ``LABEL_FIXES``) and on all
250 photos, and the benchmark, with
the models in ``--models``, then fills ``card_template.md``. Needs ``../shared`` (or
``DICETABLE_SHARED``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

from models.training.dataset import LABEL_FIXES, shared_dir
from models.training.validate import val_items
from vision.bench import bench_frames, run_bench
from vision.evaluate import evaluate, fix_labels, list_dataset, read_label_fixes
from vision.onnx_models import CLASSIFIER_FILE, DETECTOR_FILE

HERE = Path(__file__).resolve().parent
#: Validation photos of the recipe experiments (``train --val-photos``).
VAL_PHOTOS = 40
#: The card's free text that no measurement writes (the test misses read by eye, the
#: simulate figures, how the quiet bench was measured).
NOTES = HERE.parent / "results" / "card_notes.json"


def fill_template(text: str, fills: dict[str, str]) -> str:
    """``text`` with each placeholder (a whole word, e.g. ``SCENES`` but not the one inside
    ``TYPED_SCENES``) replaced by its fill, in one pass, so no fill is filled again."""
    if not fills:
        return text
    keys = sorted(fills, key=len, reverse=True)
    return re.sub(r"\b(" + "|".join(map(re.escape, keys)) + r")\b",
                  lambda m: fills[m.group(1)], text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", type=Path, default=HERE.parent)
    ap.add_argument("--skip-bench", action="store_true")
    ap.add_argument("--bench-json", type=Path,
                    help="use this `dicetable bench --json` output (measured when the machine "
                         "was quiet) instead of measuring now")
    ap.add_argument("--bench-note",
                    help="how and when the bench figures were measured (the machine's load; "
                         "default: the notes' LOADNOTE with --bench-json, else 'measured as "
                         "this card was written')")
    ap.add_argument("--notes", type=Path, default=NOTES,
                    help="a JSON object of further fills for the template (free text the "
                         "measurements cannot write: TESTERRORS, SIMCOST, LOADNOTE; default "
                         "the card's own, so that writing the card again keeps them)")
    args = ap.parse_args(argv)
    os.environ["DICETABLE_MODELS_DIR"] = str(args.models)
    from vision.reader import DiceReader

    record = json.loads((args.models / "dice_reader.json").read_text())
    reader = DiceReader()
    real = shared_dir() / "data" / "real-dice"
    held = int(record.get("val_photos", 0))
    n_val = held or VAL_PHOTOS
    val = evaluate(val_items(n_val, int(record.get("seed", 0))), reader.read)
    test_items = list_dataset(real, "test")
    test = evaluate(test_items, reader.read)
    fixed_items, n_fixed = fix_labels(test_items, read_label_fixes(LABEL_FIXES))
    test_fixed = dict(evaluate(fixed_items, reader.read), labels_fixed=n_fixed)
    every = evaluate(list_dataset(real), reader.read)
    if args.bench_json:
        bench = json.loads(args.bench_json.read_text())
    else:
        bench = {} if args.skip_bench else run_bench(reader, bench_frames(3))
    cls = record["classifier"]
    fills = {
        "DETSIZE": f"{(args.models / DETECTOR_FILE).stat().st_size / 1e6:.2f} MB",
        "INTSIZE": f"{(args.models / CLASSIFIER_FILE).stat().st_size / 1e6:.2f} MB",
        "SCENES": str(record["scenes"]),
        "REALSHARE": f"real photos {record['real_share']:.0%} of the draws, synthetic the rest",
        "COMMANDS": "Commands that made the shipped files:\n\n```\n" + "\n".join(
            v for k, v in sorted(record.items()) if k.startswith("command_")) + "\n```",
        "RECORDNOTE": f"The shipped files were {record['note']}." if record.get("note") else "",
        "MINUTES": str(round(sum(v for k, v in record.items() if k.startswith("minutes_")))),
        "CALIB": (f"temperature {cls['temperature']:.3f}; ECE {cls['ece_before']:.4f} before, "
                  f"{cls['ece_after']:.4f} after; held-out accuracy "
                  f"{cls['held_out_accuracy']:.4f} (synthetic + real-train crops). On real "
                  f"test dice the ECE of the reported value is {test['ece']:.4f}."),
        "CROPPX": str(reader.classifier.crop_px),
        "NTURNS": str(reader.classifier.turns),
        "NVAL": str(n_val),
        "REALPHOTOS": str(record.get("real_train_photos", 200)),
        "VALNOTE": ("held out of all classifier training by seed; neither model saw them in "
                    "training" if held else
                    "seeded; the shipped classifier was trained on all 200 train photos, "
                    "these included, so its figures here are optimistic: the honest ones "
                    "are the recipe experiments below"),
        "SYMBOLBOOST": f"{float(record.get('symbol_boost', 1.0)):g}",
        "EVALVAL": json.dumps(val, indent=2),
        "EVALTEST": json.dumps(test, indent=2),
        "EVALFIXED": json.dumps(test_fixed, indent=2),
        "EVALALL": json.dumps(every, indent=2),
        "BENCH": json.dumps(bench, indent=2) if bench else "(skipped)",
        "SUMS": "\n".join(f"- `{name}`: `{digest}`" for name, digest in
                          sorted(record["files"].items())),
    }
    notes = json.loads(args.notes.read_text()) if args.notes and args.notes.is_file() else {}
    # The notes' LOADNOTE describes the quiet run kept for --bench-json, not a fresh one.
    fills["LOADNOTE"] = args.bench_note or (
        notes.get("LOADNOTE") if args.bench_json else None) or "measured as this card was written"
    fills.update({key: notes.get(key, "") for key in ("TESTERRORS", "SIMCOST")})
    text = fill_template((HERE / "card_template.md").read_text(), fills)
    (args.models / "dice_reader.md").write_text(text)
    print(json.dumps({"val": val, "test": test, "test_fixed": test_fixed, "all": every,
                      "bench": bench}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
