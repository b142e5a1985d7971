"""Self-test of the calibration on rendered photos: position error, zones, palette accuracy.

For each game a mat is rendered with one die of each palette colour and calibrated from that
one photo (as a player would). Then photos from random camera poses (tilt up to 35 deg, any
rotation, 65-95 % fill, blur, noise, a colour cast and a dimmer or brighter light, half the
markers under hands in every other photo) are read: the dice's boxes come from the renderer's
truth, so the figures measure the calibration, not the dice reader (``--reader`` runs the
shipped dice reader instead and matches its dice to the truth by position: end to end).
Every photo is taken from another pose than the calibration, so every one also exercises the
"camera moved" re-fit.

``dicetable calibrate --selftest --json`` prints the result of :func:`selftest`.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import cv2
import numpy as np

from calibration.geometry.procedure import calibrate_image
from calibration.layouts import load_layout
from calibration.render.synthetic import MatRenderer, Placed, dice_in_zones, enrolment_dice
from calibration.table.fit import current_geometry
from calibration.table.photo import read_detections
from vision.dice.detections import Detections
from vision.synth.renderer import Lighting

logger = logging.getLogger(__name__)

GAMES = ("icedice", "pyramid_dice", "pyradice", "quarriors")


def _stats(values: list[float]) -> dict[str, float | int]:
    if not values:
        return {"n": 0}
    a = np.asarray(values)
    return {"n": len(a), "p50": round(float(np.percentile(a, 50)), 3),
            "p95": round(float(np.percentile(a, 95)), 3), "max": round(float(a.max()), 3)}


def truth_detections(rendered: Any) -> Detections:
    """Detections exactly where the renderer drew the dice, faces certain."""
    n = len(rendered.values)
    probs = np.zeros((n, 8), np.float32)
    probs[np.arange(n), rendered.values - 1] = 1.0
    return Detections(rendered.boxes, np.ones(n, np.float32), probs)


def _match(objects: list[Any], placed: tuple[Placed, ...], within: float = 12.0
           ) -> list[tuple[Any, Placed]]:
    """One-to-one pairs of observed objects and true dice, nearest first, within `within` mm."""
    pairs = sorted((float(np.hypot(o.position_mm[0] - d.x, o.position_mm[1] - d.y)), i, j)
                   for i, o in enumerate(objects) for j, d in enumerate(placed))
    used_o: set[int] = set()
    used_d: set[int] = set()
    out = []
    for dist, i, j in pairs:
        if dist <= within and i not in used_o and j not in used_d:
            used_o.add(i)
            used_d.add(j)
            out.append((objects[i], placed[j]))
    return out


def evaluate_game(game: str, players: int | None = None, poses: int = 8, seed: int = 0,
                  size: tuple[int, int] = (1280, 960), reader: Any = None) -> dict[str, Any]:
    """Figures for one game's mat (see the module docstring).

    With a `reader` (vision.dice.reader.DiceReader), its detections replace the renderer's truth
    and are matched to the true dice by position: the figures are then end to end.
    """
    layout = load_layout(game, players)
    mr = MatRenderer(layout)
    rng = np.random.default_rng(seed)
    fov = float(rng.uniform(55, 70))  # one camera: moved between photos, same lens
    photo = mr.photo(mr.random_pose(rng, size, fov_deg=fov), enrolment_dice(mr.layout, rng),
                     seed=seed, blur=0.7, noise=2.0)
    profile = calibrate_image(photo.image, layout, source="selftest")
    pos_err, grid_err, reproj, refit = [], [], [], 0
    zones_ok = slots_ok = colour_ok = rejected = dice = views_all_seen = 0
    truth_dice = extra = 0
    w, h = layout.size_mm
    grid = np.stack(np.meshgrid(np.linspace(0, w, 15), np.linspace(0, h, 11)), -1).reshape(-1, 2)
    for k in range(poses):
        cam = mr.random_pose(rng, size, fov_deg=fov)
        placed = dice_in_zones(layout, rng, per_zone=1, colours=layout.palette)
        light = Lighting(azimuth_deg=float(rng.uniform(0, 360)),
                         elevation_deg=float(rng.uniform(45, 85)),
                         ambient=float(rng.uniform(0.45, 0.75)),
                         shadow=float(rng.uniform(0.1, 0.4)))
        # A tinted, dimmer light; exposure keeps the paper below clipping, as cameras do.
        tint = rng.uniform(0.85, 1.0, 3)
        cast = tuple(float(v) for v in rng.uniform(0.8, 1.0) * tint / tint.max())
        cover = mr.half_covered(rng) if k % 2 else ()
        shot = mr.photo(cam, placed, seed=seed + 100 + k, lighting=light,
                        blur=float(rng.uniform(0, 1.5)), noise=float(rng.uniform(0, 4)),
                        cover=cover, cast=cast)  # type: ignore[arg-type]
        det = reader.read(shot.image) if reader is not None else \
            truth_detections(shot.rendered)
        fitted, status = current_geometry(profile, shot.image)
        refit += status == "moved"
        g = fitted.geometry
        reproj.append(g.error_px)
        px = cv2.perspectiveTransform(grid[None], shot.true_h)[0]
        errs = np.linalg.norm(g.to_mm(px) - grid, axis=1)
        grid_err += errs.tolist()
        logger.debug("%s photo %d: tilt %.0f, %d/%d markers used, %.2f px rms, table max %.2f mm",
                     layout.key, k, cam.tilt_deg, g.markers_used, g.markers_total, g.error_px,
                     errs.max())
        obs = read_detections(fitted, det, shot.image, refit=False, snap=reader is not None)
        views_all_seen += obs.zones_seen == frozenset(z.name for z in layout.zones)
        in_view = tuple(placed[int(j)] for j in shot.rendered.die_index)
        truth_dice += len(in_view)
        if reader is None:
            pairs = list(zip(obs.objects, in_view, strict=True))
        else:
            pairs = _match(list(obs.objects), in_view)
            extra += len(obs.objects) - len(pairs)
        for o, truth in pairs:
            assert o.position_mm is not None  # (every die read is placed on the mat)
            zone, slot = layout.locate((truth.x, truth.y))
            dice += 1
            zones_ok += o.zone == zone
            slots_ok += (o.zone, o.slot) == (zone, slot)
            pos_err.append(float(np.hypot(o.position_mm[0] - truth.x,
                                          o.position_mm[1] - truth.y)))
            colour = o.dist("colour")
            rejected += not colour
            colour_ok += colour is not None and bool(colour) and colour[0][0] == truth.colour
    return {
        "game": layout.game, "players": layout.players, "photos": poses, "dice": dice,
        "palette": [c.name for c in profile.palette.classes],
        "calibration_error_px": round(profile.geometry.error_px, 3),
        "position_error_mm": _stats(pos_err),
        "table_point_error_mm": _stats(grid_err),
        "reprojection_error_px": _stats(reproj),
        "zone_accuracy": round(zones_ok / max(dice, 1), 4),
        "slot_accuracy": round(slots_ok / max(dice, 1), 4),
        "palette_accuracy": round(colour_ok / max(dice, 1), 4),
        "palette_rejected": round(rejected / max(dice, 1), 4),
        "all_zones_seen": round(views_all_seen / max(poses, 1), 4),
        "camera_moved_refits": refit,
        "detections": "reader" if reader is not None else "truth",
        "found": round(dice / max(truth_dice, 1), 4),
        "extra_objects": extra,
        "_pos": pos_err, "_grid": grid_err, "_truth": truth_dice,
    }


def selftest(games: tuple[str, ...] = GAMES, poses: int = 8, seed: int = 0,
             reader: Any = None) -> dict[str, Any]:
    """Figures for every game and over all of them (the `calibrate --selftest` output)."""
    t0 = time.perf_counter()
    per_game = [evaluate_game(g, poses=poses, seed=seed + i, reader=reader)
                for i, g in enumerate(games)]
    pos = [e for r in per_game for e in r.pop("_pos")]
    grid = [e for r in per_game for e in r.pop("_grid")]
    dice = sum(r["dice"] for r in per_game)

    def overall(key: str) -> float:
        return round(sum(r[key] * r["dice"] for r in per_game) / max(dice, 1), 4)

    return {
        "photos": poses * len(games), "dice": dice, "seed": seed,
        "detections": "reader" if reader is not None else "truth",
        "found": round(dice / max(sum(r.pop("_truth") for r in per_game), 1), 4),
        "extra_objects": sum(r["extra_objects"] for r in per_game),
        "position_error_mm": _stats(pos), "table_point_error_mm": _stats(grid),
        "zone_accuracy": overall("zone_accuracy"), "slot_accuracy": overall("slot_accuracy"),
        "palette_accuracy": overall("palette_accuracy"),
        "palette_rejected": overall("palette_rejected"),
        "seconds": round(time.perf_counter() - t0, 1),
        "games": per_game,
    }
