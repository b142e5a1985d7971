"""A question's crop from a real camera (issue 32, 2): the table reader locates the doubtful
die in the frame it read, and the runtime cuts that part of the frame for the phone, the
die ringed; before, only the demo's rendered table could (serve registered no cropper)."""

from __future__ import annotations

import cv2
import numpy as np

from device.question_crop import ringed_crop
from engine import get_game
from engine.observation import Expected
from vision.frame import Frame


def amber(jpeg: bytes) -> int:
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert image is not None and image.shape[1] == 360
    assert abs(image.shape[0] / image.shape[1] - 0.75) < 0.01  # 4:3
    return int(np.all(np.abs(image.astype(int) - (0, 200, 255)) < 40, axis=2).sum())


def test_a_ringed_crop_holds_its_boxes_with_table_round_them() -> None:
    image = np.full((480, 640, 3), 90, np.uint8)
    assert ringed_crop(image, []) is None
    jpeg = ringed_crop(image, [(np.array([300.0, 200.0, 330.0, 230.0]), True)])
    assert jpeg is not None and amber(jpeg) > 150
    assert image.max() == 90  # the frame itself is not drawn on


def test_the_reader_locates_a_die_where_it_read_it_and_the_runtime_crops_it() -> None:
    from calibration.geometry.procedure import calibrate_image
    from calibration.render.table import TableRenderer
    from calibration.table.reader import TableReader
    from calibration.table.readers import shared_readers
    from device.matches.service import MatchService
    from device.runtime import Runtime
    from device.store import SQLiteStore

    game = get_game("pyramid_dice")
    state = game.apply(game.new_state(2, seed=11), game.parse_action("roll 1 4 5"))[0]
    view = game.expected_view(state)
    tr = TableRenderer("pyramid_dice", 2, seed=11)
    tr.place(view, thrown=True)
    reader, faces = shared_readers(False)
    table = TableReader.build(calibrate_image(tr.calibration_shot(), tr.layout,
                                              colours=tr.dice_colours()),
                              "pyramid_dice", reader, faces, learn=False)
    die = next(e for e in view if e.kind == "die" and e.attr("face") == "4")
    assert table.locate(die) is None  # nothing read yet
    image = tr.render_still(view, seed=1)
    table.observe(image, 0)
    located = table.locate(die)
    assert located is not None and located[1] is True
    box = located[0]
    det = table.dice.last_detections
    assert det is not None
    centre = (box[:2] + box[2:]) / 2
    # the box is round the die the detector found showing 4
    inside = [(d[0] <= centre[0] <= d[2] and d[1] <= centre[1] <= d[3]) for d in det.xyxy]
    assert sum(inside) == 1
    # a die the camera read otherwise: the die read in its place stands in for it
    other = table.locate(Expected.make("die", die.zone, die.slot, face="6"))
    assert other is not None and other[1] is True
    # nothing of its kind read there: the zone's outline; no such zone: not placed
    assert table.last is not None
    empty = next(z for z in tr.layout.zones if not any(o.zone == z.name for o in table.last[1]))
    outline = table.locate(Expected.make("die", empty.name, None, face="6"))
    assert outline is not None and outline[1] is False
    corners = table.last[0].geometry.to_px(np.array(empty.polygon, np.float64))
    assert np.allclose(outline[0], [*corners.min(axis=0), *corners.max(axis=0)])
    assert table.locate(Expected.make("die", "nowhere", None, face="6")) is None

    class Still:
        """The camera: the same frame, again and again (the table settles)."""
        id, fps, seq = "still", 30.0, 0

        def read(self) -> Frame:
            self.seq += 1
            return Frame(image, self.seq, float(self.seq), self.id)

        def close(self) -> None:
            pass

    service = MatchService(SQLiteStore(":memory:"))
    mid = service.create("pyramid_dice", 2, {}, None, None, "Table")
    camera = Still()
    runtime = Runtime(camera, table, service, mid, live_view=False)
    assert runtime.crop([die]) is None  # no frame read yet
    while runtime.step() is None:
        assert camera.seq < 100  # (a still table settles within a few frames)
    jpeg = runtime.crop([die])
    assert jpeg is not None and amber(jpeg) > 150
