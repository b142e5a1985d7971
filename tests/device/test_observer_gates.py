"""The table reader's cheap paths: a light change or a knocked camera does not make it read
the table again (calibration.table.gate.lit_alike, CameraFit._shifted_markers)."""

from __future__ import annotations

import random

import numpy as np
import pytest

import calibration.geometry.homography as homography
from calibration.geometry.homography import check
from device.simtable import SimParams, SimulatedTable
from engine import get_game


@pytest.fixture()
def table() -> tuple:
    """A simulated IceDice table some moves into a match (pieces in the Counter and the
    Vaults), read once."""
    t = SimulatedTable("icedice", 2, 11, SimParams())
    game, state, rng = get_game("icedice"), t.truth.state, random.Random(0)
    for _ in range(40):
        state, _ = game.apply(state, game.random_action(state, rng))
    view = game.expected_view(state)
    t.renderer.place(view, thrown=True)
    observer = t.observer()
    observer.observe(t.renderer.render_still(view, seed=1), 0)
    return t.renderer, observer, view


def _pieces(objects: tuple) -> list:
    return sorted((o.zone, o.top("colour"), o.top("size")) for o in objects
                  if o.kind == "piece")


def test_a_light_change_alone_reads_nothing_again(table: tuple) -> None:
    """The light turned to another side moves every shadow and lights each pyramid's faces
    anew: every zone's look changed, nothing on the table did. Before, every zone was read
    again (two vaults and the dice: 100-150 ms of one core); now only the dice are."""
    renderer, observer, view = table
    observer.expect(view)  # each zone's reading is the table the match believes in
    before = _pieces(observer.observe(renderer.render_still(view, seed=1), 1).objects)
    for light, azimuth in ((0.85, 220.0), (1.1, 130.0)):
        image = renderer.render_still(view, light=light, light_azimuth=azimuth, seed=2)
        lit = {k: v[1] for k, v in observer.gate.readings.items()}
        obs = observer.observe(image, 2)
        assert _pieces(obs.objects) == before
        assert all(observer.gate.readings[k][1] is lit[k] for k in lit if k != "dice"), \
            "a zone was read again though only the light changed"


def test_a_stale_zone_is_read_again_when_only_the_light_changed(table: tuple) -> None:
    """A vault's last reading lacks a piece the match believes is there (as after a foul
    that moved it out, put back as the light changed): the light's change alone makes that
    vault be read again, and the piece is seen; a vault whose reading agrees is not read."""
    renderer, observer, view = table
    observer.expect(view)
    zones = sorted({e.zone for e in view if e.kind == "piece" and e.zone.startswith("vault")
                    and e.zone in observer.gate.readings})
    stale = zones[0]
    other = [z for z in observer.gate.readings if z not in (stale, "dice")]
    assert other
    look, objects = observer.gate.readings[stale]
    observer.gate.readings[stale] = (look, objects[1:])
    kept = {z: observer.gate.readings[z][1] for z in other}
    obs = observer.observe(renderer.render_still(view, light=0.9, light_azimuth=160.0,
                                                 seed=5), 5)
    want = sorted((e.zone, e.attr("colour"), e.attr("size")) for e in view
                  if e.kind == "piece" and e.zone == stale)
    assert [p for p in _pieces(obs.objects) if p[0] == stale] == want
    assert all(observer.gate.readings[z][1] is kept[z] for z in other), \
        "a zone whose reading agrees was read again though only the light changed"


def test_a_piece_taken_under_a_new_light_is_seen(table: tuple) -> None:
    renderer, observer, view = table
    vault = [e for e in view if e.kind == "piece" and e.zone.startswith("vault")]
    after = tuple(e for e in view if e is not vault[0])
    renderer.place(after, thrown=False)
    obs = observer.observe(renderer.render_still(after, light=0.9, light_azimuth=250.0,
                                                 seed=3), 3)
    got = [p for p in _pieces(obs.objects) if p[0] == vault[0].zone]
    want = sorted((e.zone, e.attr("colour"), e.attr("size")) for e in after
                  if e.kind == "piece" and e.zone == vault[0].zone)
    assert got == want


def test_a_knocked_camera_is_refitted_from_the_markers_shifted_patches(table: tuple,
                                                                       monkeypatch) -> None:
    """The markers are found where their patches moved to, not searched for in the whole
    image again (~40 ms of one core on this frame), and the fit agrees with that search."""
    renderer, observer, view = table
    for k in range(3):
        image = renderer.render_still(view, camera=renderer.bumped(np.random.default_rng(k)),
                                      seed=4 + k)
        full = check(observer.fit.profile.layout, observer.fit.profile.geometry, image).geometry
        with monkeypatch.context() as m:
            m.setattr(homography, "detect_markers", lambda *a, **kw: pytest.fail(
                "the whole image was searched for the markers"))
            observer.observe(image, 10 + k)
        assert observer.camera_status == "moved"
        pts = np.array([[100.0, 100.0], [500.0, 300.0], [300.0, 500.0], [700.0, 200.0]])
        assert np.abs(observer.fit.fitted.geometry.to_px(pts) - full.to_px(pts)).max() < 0.3


# The pyramid these tables were first read with: dealt unseeded, it changed every run, and
# about one deal in twenty made the observer lose a die (the failure that looked random,
# session 7): a white die's 1 beside a 6 had its loose box snapped onto the 6
# (calibration.table.refine.refine_boxes now keeps a blob only inside the detection's own box).
_SNAPPED_ONTO_A_NEIGHBOUR = {
    "r1c1": "t18", "r2c1": "t15", "r2c2": "t20", "r3c1": "g7", "r3c2": "t14", "r3c3": "g6",
    "r4c1": "t19", "r4c2": "t17", "r4c3": "t16", "r4c4": "t21", "r5c1": "g1", "r5c2": "g3",
    "r5c3": "t7", "r5c4": "g4", "r5c5": "t9", "r6c1": "t3", "r6c2": "t2", "r6c3": "t13",
    "r6c4": "g2", "r6c5": "t4", "r6c6": "t6", "r7c1": "t5", "r7c2": "t10", "r7c3": "g5",
    "r7c4": "t11", "r7c5": "t1", "r7c6": "t8", "r7c7": "t12"}


def test_a_pip_across_four_cells_counts_whole_in_sliding_windows() -> None:
    """A pip that appears where four 6 px cells meet gives each a quarter of its change on
    the grid, under ZONE_CHANGE (a purple die with gold pips turned from 4 to 5 went unseen
    in a simulated match: its dice read 4 for the rest of the turn); in sliding windows the
    cell holding the window round the pip shows the whole change."""
    from calibration.table.gate import ZONE_CHANGE, _cells

    before = np.zeros((36, 36, 3), np.float32)
    after = before.copy()
    after[15:21, 15:21] = 60.0  # a 6 px pip centred on the corner of four cells
    grid = _cells(after, before, 6)
    assert grid.max() == pytest.approx(15.0)
    assert grid.max() < ZONE_CHANGE
    slid = _cells(after, before, 6, sliding=True)
    assert slid.shape == grid.shape
    assert slid.max() == pytest.approx(60.0)
    assert not _cells(before, before.copy(), 6, sliding=True).any()


@pytest.mark.parametrize("seed,light,azimuth,placement,style,turn", [
    (11, 0.99, 210.0, None, "plain", ("4", "6")), (14, 1.05, 300.0, None, "plain", ("4", "6")),
    (11, 0.99, 210.0, _SNAPPED_ONTO_A_NEIGHBOUR, "plain", ("4", "6")),
    (10, 1.0, 0.0, None, "purple-skull", ("4", "5"))])
def test_a_die_turned_by_hand_is_read_again(seed: int, light: float, azimuth: float,
                                            placement: dict | None, style: str,
                                            turn: tuple[str, str]) -> None:
    """A die turned from 4 to 6 (or, purple with gold pips, 4 to 5) where it lay, as the
    light changes, changes only a pip or two of its cells: the dice zone is read again on
    any change (the light's test let these through: the 4 kept, or the die lost; simulated
    Pyramid Dice, fouls unflagged)."""
    from calibration.geometry.procedure import calibrate_image
    from calibration.render.table import TableRenderer
    from calibration.table.reader import TableReader
    from calibration.table.readers import shared_readers
    from device.simtable import dice_style
    from engine.observation import Expected

    game = get_game("pyramid_dice")
    first = game.new_state(2, seed=seed) if placement is None else \
        game.new_state(2, setup={"placement": placement})
    state = game.apply(first, game.parse_action("roll 1 4 5"))[0]
    view = game.expected_view(state)
    tr = TableRenderer("pyramid_dice", 2, seed=seed, die_types=dice_style(style))
    tr.place(view, thrown=True)
    reader, faces = shared_readers(False)
    observer = TableReader.build(calibrate_image(tr.calibration_shot(), tr.layout,
                                             colours=tr.dice_colours()),
                             "pyramid_dice", reader, faces)

    def dice(v: tuple, **lit: float) -> list:
        obs = observer.observe(tr.render_still(v, seed=1, **lit), 0)
        return sorted(o.top("face") for o in obs.objects if o.kind == "die")

    assert dice(view) == ["1", "4", "5"]
    turned = tuple(Expected.make("die", e.zone, e.slot, face=turn[1]) if e.kind == "die"
                   and e.attr("face") == turn[0] else e for e in view)
    tr.place(turned, thrown=False)
    assert dice(turned, light=light, light_azimuth=azimuth) == sorted(["1", "5", turn[1]])
