"""Typed dice's faces read from the photo as taken or from its balanced copy
(``vision.dice.photometry.normalise_light``), under photometric shifts of the whole photo.

Usage::

    python -m models.measure.light_faces [--scenes N] [--throws N] [--enrolled N] [--json]

``DiceReader.read`` balances each photo before it finds and reads the pip dice; the face
model's readings of typed dice (``dicetable read --game``), of enrolled dice and of the live
table's dice (``calibration.table.dice_top.read_top_faces``) cut their crops from a photo too.
This reads each die's face both ways, (a) the photo as given to the reader and (b)
``normalise_light`` of it, under each shift of :data:`models.training.dice.shifts.SHIFTS` named in
:data:`SHIFT_NAMES` (the photo's every pixel, as another lamp or exposure would):

- ``photos``: rendered tables of one game's catalogued dice (``vision.synth.scenes`` cameras and
  light; IceDice: colour dice of both editions and the size die; Quarriors: every type) on a
  table of each kind in :data:`TABLES` (a grey table, the renderer's random tables, green
  felt, a red cloth, wood), read as ``read --game`` reads them
  (``calibration.table.typed.read_dice_types``: type by nearest face means, then the face) at
  each die's true box: detection is the same both ways (the reader balances before it), so
  only the face reading differs. A die counts right when type (either colour die's edition:
  they share faces) and face are both right.
- ``live``: rendered IceDice throws (``calibration.render.table``, each edition's colour die
  and the size die, light 0.8-1.15 from any side) read square-on at the true place by
  ``read_top_faces`` with the observer's types of that edition.
- ``enrolled``: new dice (``vision.measure.faces.novel_dice``) enrolled from 3 shots per face
  cut from unshifted grey-table photos, then read from shifted photos of the same tables
  (each die's true box, ``read_enrolled``): the players enrolled in one light and play in
  another. (b) balances the shots' photos as well as the read ones.

Measured (``python -m models.measure.light_faces``, defaults: 40 photos per game and table,
30 throws per edition, 6 new dice; right as taken -> balanced, per shift none / dark x0.45 /
warm cast / cool cast):

- photos, IceDice (199 dice a table, 219 on the random ones): grey 117->117 / 121->118 /
  116->118 / 121->116; random 140->140 / 140->134 / 139->137 / 135->137; green felt
  123->111 / 116->110 / 124->110 / 115->114; red cloth 118->118 / 123->113 / 119->124 /
  120->101; wood 121->118 / 124->116 / 124->126 / 120->106.
- photos, Quarriors: grey 105->105 / 107->107 / 94->107 / 92->103; random 126->118 /
  130->121 / 110->120 / 118->120; green felt 107->78 / 108->79 / 100->66 / 95->98; red
  cloth 102->75 / 101->78 / 93->90 / 85->68; wood 103->87 / 103->91 / 95->98 / 94->84.
- live, IceDice (60 dice an edition): rainbow 60->60 / 59->60 / 60->60 / 60->60; suits 60
  each, both ways.
- enrolled new dice (100 reads): 53->53 / 52->53 / 53->52 / 54->52.

The photos' figures above were measured when ``read_dice_types`` read each die from its whole
box's crop, which mixes the top face with the printed sides a wide camera shows (most of
the misreadings: given the true type that crop read 123 of 199 grey-table dice of each game,
a crop around the true top face 187 IceDice, 173 Quarriors). It now reads the square inside
the box nearest a face mean (``vision.faces.topface.top_candidates``); ``--seed 1``, unshifted, as
taken, box -> squares: IceDice grey 112->145 of 181, random 104->147 of 201, green felt
111->141, red cloth 111->146, wood 115->147; Quarriors grey 105->132, random 95->137,
green felt 88->127, red cloth 88->139, wood 98->141 (the balanced column not measured again).
Since then IceDice's dice are read from the square a learnt score chooses
(``vision.faces.topface.TopFaceChooser``; ``models.measure.photo_angles`` measures it); the photos'
rows
above were not measured again with it.

So the balance is no cure for a photo of no known table: on a coloured table the grey world
takes the table's colour for the light's (unshifted green felt, red cloth, wood: every one of
10 photos a game is changed, gains up to 1.4 a channel and more with the exposure lift, a
probe) and costs a Quarriors die in four on them; it gains only under a cast on a grey table.
``read --game`` and the enrolled dice (which gain nothing) keep the photo as taken. The live
table is the printed white mat, whose grey world is the paper's: there it costs nothing, and
under the :data:`STRONG` shifts (``--strong``) it keeps every face that the photo as taken
loses: ``--strong`` (strong warm / strong cool / dark x0.25), live rainbow 58->60 /
50->59 / 44->59, suits 55->60 / 52->60 / 44->59; photos on the grey table IceDice 108->114 /
117->113 / 111->114, Quarriors 68->104 / 71->103 / 82->108, but on the red cloth under the
strong cool lamp IceDice 106->86, Quarriors 75->53.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from models.training.dice.shifts import SHIFTS
from vision.dice.detections import Detections
from vision.dice.photometry import normalise_light
from vision.faces.dietypes import DieType, die_of, game_types, get_type
from vision.synth.renderer import Scene, render
from vision.synth.scenes import TABLES, random_scene, table_of_kind, typed_scene

SHIFT_NAMES = ("none", "dark x0.45", "warm cast", "cool cast")
STRONG: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "strong warm": lambda c: np.clip(c * np.array([0.5, 0.9, 1.35]), 0, 255).astype(np.uint8),
    "strong cool": lambda c: np.clip(c * np.array([1.4, 1.0, 0.55]), 0, 255).astype(np.uint8),
    "dark x0.25": lambda c: (c * 0.25).astype(np.uint8),
}
"""Beyond the robustness shifts (``--strong``): a lamp far warmer or cooler than any the face
models trained with, and a quarter of the exposure."""
_SHIFTS = {**SHIFTS, **STRONG}
def true_boxes(xyxy: np.ndarray) -> Detections:
    """A render's true boxes as detections (read_dice_types reads the boxes only)."""
    return Detections(xyxy=xyxy, confidence=np.ones(len(xyxy), np.float32))


def _type_name(die: Any) -> str:
    """A typed scene's die's type name."""
    assert die.die_type is not None  # (typed scenes: every die has its type)
    return str(die.die_type.name)


def _both(image: np.ndarray, read: Callable[[np.ndarray], list[bool]]) -> tuple[list, list]:
    return read(image), read(normalise_light(image))


def photos(reader, game: str, table: str, scenes: int, seed: int,
           shifts: tuple[str, ...] = SHIFT_NAMES) -> dict[str, dict]:
    """Per shift: dice, right as taken (a), right balanced (b), `read --game`'s way."""
    from calibration.table.typed import read_dice_types

    types = [get_type(t) for t in game_types(game)]
    rng = np.random.default_rng(seed)
    out = {s: {"dice": 0, "a": 0, "b": 0} for s in shifts}
    for _ in range(scenes):
        scene = typed_scene(rng, types, table)
        r = render(scene)
        if len(r.boxes) == 0:
            continue
        truth = [(_type_name(scene.dice[int(k)]), lb)
                 for k, lb in zip(r.die_index, r.labels, strict=True)]

        def read(im: np.ndarray, r=r, truth=truth) -> list[bool]:
            got = read_dice_types(reader, im, true_boxes(r.boxes), game)
            return [g is not None and (die_of(g["type"]), g["face"]) == (die_of(t[0]), t[1])
                    for g, t in zip(got, truth, strict=True)]

        for s in shifts:
            a, b = _both(_SHIFTS[s](r.image), read)
            out[s]["dice"] += len(a)
            out[s]["a"] += sum(a)
            out[s]["b"] += sum(b)
    return out


SIZES = ("S", "M", "L", "SM", "SL", "ML")


def live(faces, edition: str, throws: int, seed: int,
         shifts: tuple[str, ...] = SHIFT_NAMES) -> dict[str, dict]:
    """Per shift: dice, right as taken (a), right balanced (b), read square-on as the live
    table reads them (the observer's types of `edition`)."""
    from calibration.geometry.procedure import calibrate_image
    from calibration.perception import perception
    from calibration.render.table import TableRenderer
    from calibration.table.dice_top import read_top_faces
    from engine.observation import Expected, make_view

    colour = get_type(f"icedice-colour-{edition}")
    types = [colour.name, "icedice-size"]
    tr = TableRenderer("icedice", 2, seed=seed)
    rng = np.random.default_rng(seed)
    geometry = calibrate_image(tr.calibration_shot(), tr.layout,
                               colours=tr.dice_colours()).geometry
    edge = perception("icedice").die_mm
    out = {s: {"dice": 0, "a": 0, "b": 0} for s in shifts}
    for k in range(throws):
        want = {"icedice-size": SIZES[k % 6], colour.name: colour.faces[k % 6].label}
        view = make_view([Expected.make("die", "rolling", type=t, face=f)
                          for t, f in want.items()])
        tr.place(view, thrown=True)
        image = tr.render_still(view, light=float(rng.uniform(0.8, 1.15)),
                                light_azimuth=float(rng.uniform(0, 360)), seed=seed * 1000 + k)
        placed = [(e.attr("type"), np.array([x, y])) for e, x, y, _, _ in tr.placement.dice]

        def read(im: np.ndarray, placed=placed, want=want) -> list[bool]:
            got = read_top_faces(faces, im, geometry, np.array([p for _, p in placed]),
                                 edge, types)
            return [g.type == t and max(g.faces, key=g.faces.__getitem__) == want[t]
                    for g, (t, _) in zip(got, placed, strict=True)]

        for s in shifts:
            a, b = _both(_SHIFTS[s](image), read)
            out[s]["dice"] += len(a)
            out[s]["a"] += sum(a)
            out[s]["b"] += sum(b)
    return out


def _die_scene(rng: np.random.Generator, dtype: DieType, values: list[int]) -> Scene:
    scene = random_scene(rng, n_dice=(len(values), len(values)), die_px=(36, 64),
                         unreadable_rate=0.0)
    dice = tuple(dataclasses.replace(d, die_type=dtype, value=v)
                 for d, v in zip(scene.dice, values, strict=False))
    return dataclasses.replace(scene, dice=dice, mat=table_of_kind("grey", rng), mat_mm_per_px=1.0)


def enrolled(faces, dice: int, seed: int, shots: int = 3, tests: int = 3,
             shifts: tuple[str, ...] = SHIFT_NAMES) -> dict[str, dict]:
    """Per shift: dice, right as taken (a), right balanced (b), of new dice enrolled from
    `shots` photos of the die's six faces under the renderer's light, read in `tests` shifted
    photos."""
    from vision.faces.reading import EnrolledDie
    from vision.measure.faces import novel_dice

    rng = np.random.default_rng(seed)
    out = {s: {"dice": 0, "a": 0, "b": 0} for s in shifts}
    for dt in novel_dice(dice, seed):
        die = {"a": EnrolledDie(dt.name), "b": EnrolledDie(dt.name + "-b")}
        for _ in range(shots):
            r = render(_die_scene(rng, dt, [1, 2, 3, 4, 5, 6]))
            for key, im in (("a", r.image), ("b", normalise_light(r.image))):
                crops = faces.crops(im, r.boxes)
                for c, lb in zip(crops, r.labels, strict=True):
                    die[key].add(lb, c[None])
        for _ in range(tests):
            r = render(_die_scene(rng, dt, [int(v) for v in rng.integers(1, 7, 6)]))
            for s in shifts:
                img = _SHIFTS[s](r.image)
                for key, im in (("a", img), ("b", normalise_light(img))):
                    got = faces.read_enrolled(faces.crops(im, r.boxes), die[key])
                    out[s][key] += sum(g.label == lb for g, lb in zip(got, r.labels,
                                                                       strict=True))
                out[s]["dice"] += len(r.labels)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenes", type=int, default=40, help="photos per game and table")
    ap.add_argument("--throws", type=int, default=30, help="live throws per edition")
    ap.add_argument("--enrolled", type=int, default=6, help="new dice enrolled")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--strong", action="store_true", help="the STRONG shifts instead")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    shifts: tuple[str, ...] = SHIFT_NAMES
    if args.strong:
        shifts = tuple(STRONG)
    from vision.faces.reading import DieFaceReader

    faces = DieFaceReader()
    results: dict[str, dict] = {}

    def show(name: str, res: dict) -> None:
        results[name] = res
        if not args.json:
            print(name, "  ".join(f"{s}: {v['a']}/{v['dice']} -> {v['b']}"
                                  for s, v in res.items()), flush=True)

    for game in ("icedice", "quarriors"):
        for table in TABLES:
            show(f"photos {game} {table}", photos(faces, game, table, args.scenes, args.seed,
                                                        shifts))
    for edition in ("rainbow", "suits"):
        show(f"live icedice {edition}", live(faces, edition, args.throws, args.seed, shifts))
    if args.enrolled:
        show("enrolled new dice", enrolled(faces, args.enrolled, args.seed, shifts=shifts))
    if args.json:
        json.dump(results, sys.stdout, indent=1)
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
