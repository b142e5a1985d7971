"""Looney pyramids and card slots read from rendered tables."""

from __future__ import annotations

import numpy as np

from calibration.layouts import load_layout
from calibration.measure.pieces import PPM, eval_pyramids, place_stash, pyramid_photo
from calibration.render.synthetic import MatRenderer
from vision.pieces.pyramids import BASE_MM, RAINBOW, Pyramid, label_pixels, read_pyramids


def test_all_thirty_pieces_of_a_table_are_placed():
    layout = load_layout("icedice", 2)
    pieces = place_stash(layout, np.random.default_rng(0), RAINBOW)
    assert len(pieces) == 30
    assert {(p.colour, p.size) for p in pieces} == {(c, s) for c in RAINBOW for s in BASE_MM}


def test_one_table_of_thirty_is_read():
    # The measured figure comes from `dicetable pieces`; here one table must be all right
    # but for at most one piece (same-colour pieces touching are separated by their cores).
    r = eval_pyramids(tables=1, seed=3)
    assert r["pieces"] == 30
    assert r["colour_accuracy"] >= 29 / 30 and r["size_accuracy"] >= 29 / 30
    assert r["extra_readings"] <= 1


def test_pieces_standing_on_the_mats_print_are_sized_from_their_whole_outline():
    # `dicetable pieces`' rainbow tables 2 and 8 (seed 30 000): a large blue piece and a large
    # yellow one stand on the mat's black print, half their outline on it. Left out of the
    # fit, the rest read one as two pieces and the other as small.
    r = eval_pyramids(tables=8, seed=30_000)
    assert r["pieces"] == 240 and r["found"] == 1.0
    assert r["size_accuracy"] == 1.0 and r["colour_accuracy"] == 1.0
    assert r["extra_readings"] == 0


def test_touching_same_colour_pieces_are_separated_and_sized():
    layout = load_layout("icedice", 2)
    mr = MatRenderer(layout, ppm=PPM)
    mat = np.ascontiguousarray(mr.mat[::-1])
    rng = np.random.default_rng(7)
    # a large and a small blue piece corner to corner, a large one turned 45 degrees
    pieces = [Pyramid(150.0, 200.0, "blue", "L", 45.0), Pyramid(181.0, 200.0, "blue", "S", 45.0),
              Pyramid(330.0, 200.0, "red", "L", 40.0)]
    img, cam = pyramid_photo(mr, pieces, rng)
    got = read_pyramids(img, mr.true_homography(cam), (0.0, 0.0, *layout.size_mm),
                        reference=mat, ppm=PPM)
    seen = sorted((max(g.colour, key=g.colour.get), max(g.size, key=g.size.get)) for g in got)
    assert seen == [("blue", "L"), ("blue", "S"), ("red", "L")]


def test_an_isolated_piece_of_each_size_and_the_empty_mat():
    layout = load_layout("icedice", 2)
    mr = MatRenderer(layout, ppm=PPM)
    mat = np.ascontiguousarray(mr.mat[::-1])
    rng = np.random.default_rng(1)
    pieces = [Pyramid(100.0, 180.0, "black", "S", 10.0), Pyramid(240.0, 180.0, "yellow", "M"),
              Pyramid(380.0, 280.0, "blue", "L", 30.0)]
    img, cam = pyramid_photo(mr, pieces, rng)
    got = read_pyramids(img, mr.true_homography(cam), (0.0, 0.0, *layout.size_mm),
                        reference=mat, ppm=PPM)
    seen = sorted((max(g.colour, key=g.colour.get), max(g.size, key=g.size.get)) for g in got)
    assert seen == [("black", "S"), ("blue", "L"), ("yellow", "M")]
    empty, cam = pyramid_photo(mr, [], rng)
    assert read_pyramids(empty, mr.true_homography(cam), (0.0, 0.0, *layout.size_mm),
                         reference=mat, ppm=PPM) == []


def test_grey_ink_and_shadow_are_table_not_pieces():
    top = np.full((20, 20, 3), 230, np.uint8)
    top[5:10] = 90  # a shadow: darker, no chroma
    top[12:14] = 20  # printed ink that the reference has too
    ref = np.full((20, 20, 3), 230, np.uint8)
    ref[12:14] = 20
    assert (label_pixels(top, ref, RAINBOW) == -1).all()


def test_card_slots_front_rows_first_with_their_neighbours():
    from calibration.printing.card_layout import card_slots

    slots = card_slots(load_layout("pyramid_dice", 2))
    assert len(slots) == 28 and slots[0].id.startswith("r7")
    side = card_slots(load_layout("pyramid_dice", 2), "side")
    assert [s.id for s in side] == [f"s{i}" for i in range(1, 9)]
    assert all(s.behind == () and s.in_front == () for s in side)
    by_id = {s.id: s for s in slots}
    assert set(by_id["r3c2"].in_front) == {"r4c2", "r4c3"}
    assert set(by_id["r3c2"].behind) == {"r2c1", "r2c2"}
    assert by_id["r1c1"].behind == ()


def test_card_slots_on_rendered_tables_with_hand_shadows():
    from calibration.measure.pieces import eval_card_slots

    r = eval_card_slots(tables=2, seed=5)
    assert r["slots"] == 72 and r["side_slots"] == 16 and r["slot_accuracy"] == 1.0


def test_a_shadow_is_not_a_card():
    from vision.pieces.card_slots import not_mat

    ref = np.full((60, 60, 3), 235, np.uint8)
    top = ref.copy()
    top[:, :30] = (top[:, :30] * 0.55).astype(np.uint8)  # a hand's shadow, soft-edged
    import cv2

    top = cv2.GaussianBlur(top, (0, 0), 6)
    assert not_mat(top, ref).mean() < 0.02
    top[20:40, 20:40] = (40, 90, 200)  # a card
    assert not_mat(top, ref)[25:35, 25:35].all()


def test_base_side_fits_every_yaw_as_separate_least_squares_would():
    """The batched normal equations of _base_side give each yaw's lstsq solution (the
    refits dropping hidden directions included): same side, to rounding."""
    from vision.pieces.pyramids import _K, _U, _fit

    rng = np.random.default_rng(3)
    for _ in range(5):
        free = rng.random(len(_U)) < 0.6
        h = rng.uniform(10, 30, free.sum())
        m = np.empty((len(_K), free.sum(), 3))
        m[:, :, :2], m[:, :, 2] = _U[free], _K[:, free]
        w = (rng.random(m.shape[:2]) < 0.8).astype(np.float64)
        got = _fit(m, h, w)
        for y in range(0, len(_K), 7):
            keep = w[y] > 0
            want, *_ = np.linalg.lstsq(m[y][keep], h[keep], rcond=None)
            assert np.allclose(got[y], want, atol=1e-8)
