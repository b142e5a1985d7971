"""Reading a die's top face square-on on a calibrated mat (calibration.table.dice_top)."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.geometry.procedure import calibrate_image
from calibration.render.table import TableRenderer
from calibration.table.dice_top import locate_top, read_top_faces
from calibration.table.readers import shared_readers
from engine.observation import Expected, make_view

SIZES = ("S", "M", "L", "SM", "SL", "ML")


@pytest.fixture(scope="module")
def throws() -> tuple[list, object]:
    """Rendered IceDice throws under a light from any side (so the die's shadow falls on any
    side of it) and a camera bumped now and then, as the simulated table films them."""
    tr = TableRenderer("icedice", 2, seed=7)
    rng = np.random.default_rng(0)
    geometry = calibrate_image(tr.calibration_shot(), tr.layout,
                               colours=tr.dice_colours()).geometry
    out = []
    for k in range(18):
        view = make_view([Expected.make("die", "rolling", type="icedice-size",
                                        face=SIZES[k % 6]),
                          Expected.make("die", "rolling", type="icedice-colour-rainbow",
                                        face="red")])
        tr.place(view, thrown=True)
        image = tr.render_still(view, light=float(rng.uniform(0.8, 1.15)),
                                light_azimuth=float(rng.uniform(0, 360)), seed=k)
        size = [(x, y) for e, x, y, _, _ in tr.placement.dice
                if e.attr("type") == "icedice-size"][0]
        out.append((image, np.array(size), SIZES[k % 6]))
    return out, geometry


def test_the_top_face_is_found_by_its_outline_from_an_estimate_5_mm_off(throws) -> None:
    """The die's place as the reader estimates it is off by 2-8 mm (its shadow and sides
    shift the blob the mat shows); the outline puts it within a millimetre."""
    shots, geometry = throws
    rng = np.random.default_rng(1)
    for image, true, _ in shots:
        a = rng.uniform(0, 2 * np.pi)
        outline = locate_top(image, geometry, true + 5.0 * np.array([np.cos(a), np.sin(a)]),
                             18.0)
        assert outline is not None
        assert np.hypot(*(np.array(outline.centre_mm) - true)) < 1.0


def test_nothing_is_found_where_no_die_lies(throws) -> None:
    shots, geometry = throws
    image, true, _ = shots[0]
    assert locate_top(image, geometry, true + np.array([0.0, 45.0]), 18.0) is None


def test_the_size_die_reads_right_from_an_estimate_5_mm_off(throws) -> None:
    """Keeping the surest of crops round the estimate read a crop shifted onto a side face,
    whose pictograms joined the top face's: S as SM, SL as ML, sure of it (the live misreads
    of the size die). Centred on the outline, every throw reads right, and sure."""
    shots, geometry = throws
    _, faces = shared_readers(True)
    rng = np.random.default_rng(2)
    types = ["icedice-size", "icedice-colour-rainbow"]
    for image, true, size in shots:
        a = rng.uniform(0, 2 * np.pi)
        got = read_top_faces(faces, image, geometry,
                             true + 5.0 * np.array([np.cos(a), np.sin(a)]), 18.0, types)[0]
        assert got.type == "icedice-size"
        assert max(got.faces, key=got.faces.get) == size and got.probability > 0.9


def test_a_die_unsure_of_its_type_reads_the_faces_of_its_other_types() -> None:
    """A die typed by colour keeps its likeliest type's face reading, and adds the faces its
    other likely types have and it lacks, each weighed by its type's share: the rules that
    know it for the less likely type (what the bag held) weigh that type's faces as read,
    not only the faces it shares with the likelier."""
    from calibration.table.dice_top import MIXED_CAP, TopReading, _mixed
    from engine.games.quarriors.observe import _choices
    from engine.observation import Observed

    devotee, quiddity = "quarriors-devotee-of-the-holy-query", "quarriors-basic-quiddity"
    read = TopReading(devotee, {"Q1": 0.02, "L1 0/3": 0.98}, 0.98, (0.0, 0.0),
                      types={devotee: 0.9, quiddity: 0.1})
    mixed = _mixed(read, {devotee: {"Q1": 0.5, "L1 0/3": 0.5},  # (the expert's is read's)
                          quiddity: {"Q1": 0.03, "Q2": 0.95, "Q3": 0.02}})
    assert mixed.faces == pytest.approx({"Q1": 0.02, "L1 0/3": 0.98, "Q2": 0.1 * 0.95,
                                         "Q3": 0.1 * 0.02}, abs=1e-4)
    assert (mixed.type, mixed.probability, mixed.types) == (read.type, 0.98, read.types)
    die = Observed.make("die", "active:0", type={devotee: 0.9, quiddity: 0.1},
                        face=mixed.faces)
    assert _choices(die, {"basic_quiddity"})[0][1] == ("basic_quiddity", "Q2")
    before = Observed.make("die", "active:0", type={devotee: 0.9, quiddity: 0.1},
                           face=read.faces)
    assert _choices(before, {"basic_quiddity"})[0][1] == ("basic_quiddity", "Q1")
    # another type's face never tops the die's own
    unsure = TopReading(devotee, {"Q1": 0.5, "L1 0/3": 0.5}, 0.5, (0.0, 0.0),
                        types={devotee: 0.5, quiddity: 0.5})
    assert _mixed(unsure, {quiddity: {"Q2": 1.0}}).faces["Q2"] == MIXED_CAP * 0.5
    # a die sure of its type keeps its reading
    sure = TopReading(quiddity, {"Q2": 1.0}, 1.0, (0.0, 0.0), types={quiddity: 1.0})
    assert _mixed(sure, {quiddity: {"Q2": 0.7, "Q1": 0.3}}) == sure
