"""The calibration profile: which mat, where it lies in the camera's view, and the palette.

Saved as TOML (read with ``tomllib``, written by :mod:`calibration.tomlwriter`). A profile is
tied to one camera placement and one image size; a frame of another size with the same aspect
ratio is handled by scaling, and a moved camera by :func:`calibration.geometry.homography.check`.
"""

from __future__ import annotations

import logging
import tomllib
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from calibration.atomicfile import write_atomic
from calibration.geometry.homography import Geometry
from calibration.layouts import Layout, LayoutError, load_layout
from calibration.palette import ColourClass, Palette
from calibration.tomlwriter import dumps

logger = logging.getLogger(__name__)

FORMAT = "dicetable-profile/1"


class ProfileError(ValueError):
    """A profile file is missing, unreadable or not a profile; the message says which."""


@dataclass(frozen=True, slots=True)
class Profile:
    """Everything calibration learnt about one table and camera."""

    layout: Layout
    geometry: Geometry
    palette: Palette = Palette(())
    white_bgr: tuple[float, float, float] = (235.0, 235.0, 235.0)
    """The paper's colour when the palette was measured."""
    created: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    source: str = ""
    """Where the calibration image came from (file path or camera spec)."""

    def for_image(self, width: int, height: int) -> Profile:
        """The profile for frames of another size (same camera, same aspect ratio)."""
        w0, h0 = self.geometry.image_size
        if (w0, h0) == (width, height):
            return self
        if abs(width / height - w0 / h0) > 0.01:
            raise ProfileError(f"the profile was made on {w0}x{h0} images; a {width}x{height} "
                               "image has another shape: calibrate again for this camera mode")
        s = width / w0
        g = self.geometry
        scale = np.diag([s, s, 1.0])
        return replace(self, geometry=replace(
            g, homography=scale @ g.homography, image_size=(width, height),
            focal_px=g.focal_px * s, error_px=g.error_px * s))


def to_dict(p: Profile) -> dict[str, Any]:
    g = p.geometry
    return {
        "format": FORMAT,
        "game": p.layout.game,
        "players": p.layout.players,
        "layout": p.layout.key,
        "created": p.created,
        "source": p.source,
        "camera": {"image_size": list(g.image_size), "focal_px": float(g.focal_px),
                   "position_mm": [float(v) for v in g.camera_mm], "k1": float(g.k1)},
        "table": {"homography": [[float(v) for v in row] for row in g.homography],
                  "error_px": float(g.error_px), "error_mm": float(g.error_mm),
                  "markers_seen": g.markers_seen, "markers_used": g.markers_used,
                  "markers_total": g.markers_total,
                  "white_bgr": [float(v) for v in p.white_bgr]},
        "palette": [{"name": c.name, "mean_lab": list(c.mean),
                     "cov_lab": [list(r) for r in c.cov], "samples": c.samples}
                    for c in p.palette.classes],
    }


def from_dict(d: dict[str, Any], source: str = "profile") -> Profile:
    if d.get("format") != FORMAT:
        raise ProfileError(f"{source} is not a dicetable profile (format {FORMAT!r} expected)")
    try:
        layout = load_layout(str(d["game"]), int(d["players"]))
        cam, table = d["camera"], d["table"]
        homography = np.array(table["homography"], np.float64).reshape(3, 3)
        numbers = [*homography.ravel(), float(cam["focal_px"]),
                   *(float(v) for v in cam["position_mm"]), float(cam.get("k1", 0.0))]
        if not np.isfinite(numbers).all() or float(cam["focal_px"]) <= 0:
            raise ProfileError(f"{source}: the camera or table fields hold a number that is "
                               "not finite or not positive (a damaged profile): calibrate again")
        # A singular homography maps the table to a line; inverting it fails deep inside
        # reading (issue 29: "internal error: LinAlgError"), so it is refused here.
        if np.linalg.cond(homography) > 1e12:
            raise ProfileError(f"{source}: the table's homography is singular (a damaged "
                               "profile): calibrate again")
        geometry = Geometry(
            homography,
            (int(cam["image_size"][0]), int(cam["image_size"][1])), float(cam["focal_px"]),
            tuple(float(v) for v in cam["position_mm"]),  # type: ignore[arg-type]
            float(table["error_px"]), float(table["error_mm"]), int(table["markers_seen"]),
            int(table["markers_used"]), int(table["markers_total"]),
            float(cam.get("k1", 0.0)))
        classes = tuple(ColourClass(
            str(c["name"]), tuple(float(v) for v in c["mean_lab"]),  # type: ignore[arg-type]
            tuple((float(r[0]), float(r[1]), float(r[2])) for r in c["cov_lab"]),
            int(c["samples"]))
            for c in d.get("palette", []))
        white = tuple(float(v) for v in table.get("white_bgr", (235.0,) * 3))
        return Profile(layout, geometry, Palette(classes), white,  # type: ignore[arg-type]
                       str(d.get("created", "")), str(d.get("source", "")))
    except ProfileError:
        raise
    except LayoutError as exc:
        raise ProfileError(f"{source}: {exc}") from None
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise ProfileError(f"{source}: missing or malformed field ({exc})") from None


def save(profile: Profile, path: str | Path) -> None:
    """Write the profile (replacing the file whole: a crash leaves the old one); OSError
    when it cannot be written."""
    write_atomic(path, "# dicetable calibration profile: `dicetable calibrate` writes it\n"
                 + dumps(to_dict(profile)))


def load(path: str | Path) -> Profile:
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ProfileError(f"no profile at {p}: run `dicetable calibrate` first") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ProfileError(f"cannot read {p}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"{p} is not valid TOML: {exc}") from None
    return from_dict(data, str(p))
