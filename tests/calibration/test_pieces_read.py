"""Pieces of a calibrated photo as `read --game` objects (calibration.table.photo)."""

from __future__ import annotations

import numpy as np

from calibration.geometry.homography import Geometry
from calibration.layouts import load_layout
from calibration.measure.pieces import PPM, draw_cards, pyramid_photo
from calibration.profile import Profile
from calibration.render.synthetic import MatRenderer
from calibration.table.photo import read_table_pieces
from vision.pieces.pyramids import Pyramid
from vision.synth.renderer import Lighting, Scene, render_table


def _profile(mr: MatRenderer, cam) -> Profile:
    _, centre = cam.extrinsics()
    nadir = np.linalg.solve(mr.to_table_h, [centre[0], centre[1], 1.0])[:2]
    geometry = Geometry(mr.true_homography(cam), (cam.width, cam.height), cam.focal_px,
                        (float(nadir[0]), float(nadir[1]), float(centre[2])), 0.1, 0.1, 20,
                        20, 20)
    return Profile(mr.layout, geometry)


def test_pyramids_in_their_zones():
    layout = load_layout("icedice", 2)
    mr = MatRenderer(layout, ppm=PPM)
    bank = layout.zone("bank").polygon
    vault = layout.zone("vault:0").polygon
    pieces = [Pyramid(bank[0][0] + 30, bank[0][1] + 30, "green", "L", 20.0),
              Pyramid(vault[0][0] + 60, vault[0][1] + 40, "red", "S", 5.0)]
    img, cam = pyramid_photo(mr, pieces, np.random.default_rng(2))
    got = read_table_pieces(_profile(mr, cam), img)
    seen = sorted((p["zone"], p["colour"], p["size"]) for p in got)
    assert seen == [("bank", "green", "L"), ("vault:0", "red", "S")]


def test_cards_present_in_their_slots():
    layout = load_layout("pyramid_dice", 2)
    mr = MatRenderer(layout, ppm=PPM)
    empty = mr.mat
    filled = {s.id for s in layout.zone("pyramid").slots} - {"r7c1", "r7c2", "r6c1"}
    filled |= {"s2", "s5"}  # two cards removed to the side area
    rng = np.random.default_rng(4)
    mr.mat = np.ascontiguousarray(draw_cards(empty[::-1], layout, filled, PPM, rng)[::-1])
    cam = mr.random_pose(rng, size=(1280, 960), max_tilt=20.0)
    img = render_table(Scene((), cam, Lighting(), 0, mr.mat, 1 / mr.ppm), rng)
    photo = np.clip(img * 255, 0, 255).astype(np.uint8)
    got = read_table_pieces(_profile(mr, cam), photo)
    assert {p["slot"] for p in got if p["present"]} == filled
    assert {p["zone"] for p in got if p["slot"] in ("s2", "s5")} == {"side"}


def test_a_large_piece_leaning_over_a_marker_is_one_large_piece():
    """On the far vault a large black piece's apex leans over a printed marker, where black
    on black shows no outline: its base is measured from what shows (it read as two medium
    pieces, and the match stalled on a piece that was never there)."""
    from calibration.printing.mat import mat_raster
    from calibration.render.table import Placement, TableRenderer
    from engine.observation import Expected, make_view
    from vision.pieces.pyramids import read_pyramids

    r = TableRenderer("icedice", 2, seed=0)
    g = _profile(r.mr, r.camera).geometry
    region = (28.0, 28.0, 452.0, 132.0)  # the vault and 12 mm round it (calibration.table.pyramids)
    ref = mat_raster(r.layout)[56:56 + 208, 56:56 + 848]
    piece = Expected.make("piece", "vault:1", colour="black", size="L")
    for x, y in ((112, 56), (118, 58), (124, 60), (148, 58)):  # (all four read wrong before)
        r.placement = Placement([], {"vault:1": [(piece, float(x), float(y), 3.0)]})
        image = r.render_still(make_view([piece]))
        got = [(max(p.colour, key=p.colour.get), max(p.size, key=p.size.get))
               for p in read_pyramids(image, g.homography, region, reference=ref,
                                      nadir=g.camera_mm[:2])]
        assert got == [("black", "L")], (x, y)


def _typed_photos(game: str, photos: int, seed: int):
    """Rendered photos of a game's catalogued dice on a grey table (models.measure.light_faces'
    scenes, on a flat table): wide cameras, dice whose printed sides show beside the top face."""
    import dataclasses

    from vision.faces.dietypes import game_types, get_type
    from vision.synth.renderer import render
    from vision.synth.scenes import random_scene

    types = [get_type(t) for t in game_types(game)]
    rng = np.random.default_rng(seed)
    mat = np.full((800, 800, 3), 200, np.uint8)
    for _ in range(photos):
        scene = random_scene(rng, n_dice=(3, 8), die_px=(36, 64), unreadable_rate=0.0)
        dice = tuple(dataclasses.replace(d, die_type=types[int(rng.integers(len(types)))],
                                         value=int(rng.integers(1, 7))) for d in scene.dice)
        scene = dataclasses.replace(scene, dice=dice, mat=mat, mat_mm_per_px=1.0)
        yield scene, render(scene)


def test_read_dice_types_finds_the_top_face_beside_printed_sides(monkeypatch):
    """The box's crop mixes the top face with the printed sides; a square inside it reads
    the top face: the one nearest a face mean, or the shipped chooser's (seeded photos apart
    from those the candidates were chosen on and the chooser learnt from)."""
    import calibration.table.typed as typed
    import vision.faces.topface as tf
    from models.measure.light_faces import true_boxes
    from vision.faces.dietypes import die_of
    from vision.faces.reading import DieFaceReader

    reader = DieFaceReader()
    assert tf.TopFaceChooser.beside(reader) is not None  # shipped, made for this face model
    right = nearest_right = box_right = total = 0
    for scene, r in _typed_photos("icedice", 12, 4243):
        truth = [(scene.dice[int(i)].die_type.name, lb)
                 for i, lb in zip(r.die_index, r.labels, strict=True)]

        def n_right(got, truth=truth):
            return sum(die_of(g["type"]) == die_of(t) and g["face"] == lb
                       for g, (t, lb) in zip(got, truth, strict=True))

        total += len(truth)
        right += n_right(typed.read_dice_types(reader, r.image, true_boxes(r.boxes), "icedice"))
        nearest_right += n_right(typed.read_dice_types(reader, r.image, true_boxes(r.boxes),
                                                    "icedice", chooser=None))
        with monkeypatch.context() as m:
            m.setattr(tf, "TOP_FRACTIONS", ())  # the box's crop only, as before
            box_right += n_right(typed.read_dice_types(reader, r.image, true_boxes(r.boxes),
                                                    "icedice", chooser=None))
    # measured: 57 dice; the chooser 48, the nearest square 47, the box's crop alone 32
    assert total >= 50
    assert nearest_right >= 0.75 * total and nearest_right >= box_right + 8
    assert right >= nearest_right
