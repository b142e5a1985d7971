"""The live loop on a scripted table: moves are read once the table is still, recorded with
evidence; an illegal move raises one alert until the table is fixed; a vanished camera is
reopened."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from device.camera import CameraUnavailableError
from device.matches.service import MatchService
from device.runtime import Runtime
from device.store import SQLiteStore
from engine import Observation, get_game
from engine.observation import observe_view
from vision.frame import Frame

GAME = get_game("icedice")


def scene_image(scene: int, moving: int = 0) -> np.ndarray:
    """Scene k: a die-like square whose place says k; ``moving`` shifts it (in flight)."""
    img = np.full((240, 320, 3), (60, 110, 70), np.uint8)
    x = 20 + 25 * scene + 7 * moving
    cv2.rectangle(img, (x, 100), (x + 20, 120), (235, 235, 235), -1)
    img[0, 0] = (scene, scene, scene)
    return img


@dataclass
class ScriptedSource:
    """Each scene: a few frames in motion, then ``still`` still frames."""

    scenes: list[int]
    still: int = 8
    vanish_at: int | None = None
    id: str = "script"
    fps: float = 30.0
    frames: list[np.ndarray] = field(default_factory=list)
    seq: int = 0

    def __post_init__(self) -> None:
        for k in self.scenes:
            self.frames += [scene_image(k, moving=m) for m in range(3, 0, -1)]
            self.frames += [scene_image(k)] * self.still

    def read(self) -> Frame | None:
        if self.vanish_at is not None and self.seq == self.vanish_at:
            self.vanish_at = None
            raise CameraUnavailableError("usb:0 stopped sending frames: was it unplugged?")
        if self.seq >= len(self.frames):
            return None
        frame = Frame(self.frames[self.seq], self.seq, time.monotonic(), self.id)
        self.seq += 1
        return frame

    def close(self) -> None:
        pass


class ScriptedTable:
    """A table reader whose readings are given (frame -> Observation): no pixels are read,
    nothing is learnt or drawn (calibration.table.protocol.TableReading)."""

    def __init__(self, read: Callable[[Frame], Observation]) -> None:
        self._read = read
        self.timings: dict[str, float] = {}

    def read(self, frame: Frame) -> Observation:
        return self._read(frame)

    def expect(self, view: object) -> None:
        return None

    def learn(self, key: int, view: object, posterior: float, live: set[int]) -> None:
        return None

    def outline(self) -> None:
        return None

    def annotated(self, image: np.ndarray) -> np.ndarray:
        return image

    def locate(self, obj: object) -> None:
        return None


def views() -> dict[int, Observation]:
    s0 = GAME.new_state(2)
    s1 = GAME.play(s0, ["roll red S"])
    s2 = GAME.play(s1, ["take red S"])
    wrong = GAME.view_after(s2, GAME.parse_action("take blue S"))  # no roll first
    other = GAME.view_after(s1, GAME.parse_action("take blue S"))  # not the rolled piece
    return {0: observe_view(GAME.expected_view(s0)), 1: observe_view(GAME.expected_view(s1)),
            2: observe_view(GAME.expected_view(s2)), 3: observe_view(wrong),
            4: observe_view(other)}


def make_runtime(tmp_path, source) -> tuple[Runtime, MatchService, str]:  # type: ignore
    service = MatchService(SQLiteStore(tmp_path / "rt.sqlite"))
    mid = service.create("icedice", 2, {}, None, 1, "live")
    table = views()
    read = ScriptedTable(lambda frame: table[int(frame.image[0, 0, 0])])
    runtime = Runtime(source, read, service, mid)
    return runtime, service, mid


def test_moves_read_when_still_with_evidence(tmp_path) -> None:  # type: ignore
    runtime, service, mid = make_runtime(tmp_path, ScriptedSource([0, 1, 2]))
    runtime.run(threading.Event())
    entries = service.view(mid)["entries"]
    assert [e["text"] for e in entries] == ["roll red S", "take red S"]
    assert all(e["source"] == "camera" and e["confidence"] > 0.9 for e in entries)
    jpeg = service.store.thumbnail(mid, 1)
    assert jpeg is not None and jpeg[:2] == b"\xff\xd8"
    # read once per settling, and within a few frames of the table going still
    assert len(runtime.steps) == 3
    assert all(s.frame - s.still_since <= 5 for s in runtime.steps)


def test_illegal_move_alerts_once_and_clears_when_fixed(tmp_path) -> None:  # type: ignore
    runtime, service, mid = make_runtime(tmp_path, ScriptedSource([0, 1, 2, 3, 3, 2]))
    runtime.run(threading.Event())
    kinds = [(e["kind"], e["text"]) for e in service.view(mid)["entries"]]
    violations = [k for k in kinds if k[0] == "violation"]
    assert len(violations) == 1 and "no piece may be taken now" in violations[0][1]
    assert kinds[-1] == ("note", "the table matches the game again")
    assert service.view(mid)["pending"] is None
    match = service.match(mid)
    assert match.actions == ["roll red S", "take red S"]  # the illegal move was not recorded


def test_the_table_put_back_after_an_alert_is_no_move(tmp_path) -> None:  # type: ignore
    """Red S was rolled and a blue S taken: the alert. The hands that come next put the
    table back; that motion is no evidence of a move, so the unchanged table closes the
    alert instead of asking whether the red S was taken and missed by the camera."""
    service = MatchService(SQLiteStore(tmp_path / "rt.sqlite"))
    mid = service.create("icedice", 2, {}, None, 1, "live")
    table = views()
    # as the live camera sees it: the Bank's nested stacks are not read
    seen = frozenset({"counter", "rolling", "vault:0", "vault:1"})
    for k, obs in table.items():
        table[k] = replace(obs, objects=tuple(o for o in obs.objects if o.zone in seen),
                           zones_seen=seen)
    runtime = Runtime(ScriptedSource([0, 1, 4, 1]),
                      ScriptedTable(lambda frame: table[int(frame.image[0, 0, 0])]), service, mid)
    runtime.run(threading.Event())
    kinds = [e["kind"] for e in service.view(mid)["entries"]]
    after = kinds[kinds.index("violation"):]
    assert after == ["violation", "note"]
    assert service.view(mid)["entries"][-1]["text"] == "the table matches the game again"
    assert service.match(mid).actions == ["roll red S"]


def test_pending_violation_is_shown_with_its_rule(tmp_path) -> None:  # type: ignore
    runtime, service, mid = make_runtime(tmp_path, ScriptedSource([0, 1, 2, 3]))
    runtime.run(threading.Event())
    pending = service.view(mid)["pending"]
    assert pending["kind"] == "violation"
    assert pending["data"]["rule"] == "icedice.roll_again"
    assert pending["data"]["rule_text"].startswith("You may continue rolling")


def test_camera_vanishes_and_comes_back(tmp_path) -> None:  # type: ignore
    source = ScriptedSource([0, 1, 2], vanish_at=15)
    runtime, service, mid = make_runtime(tmp_path, source)
    reopened = []

    def reopen() -> ScriptedSource:
        reopened.append(1)
        return source  # the same camera, plugged back in

    runtime.reopen = reopen
    runtime.run(threading.Event(), max_backoff=0.01)
    assert reopened == [1]
    assert service.match(mid).actions == ["roll red S", "take red S"]


def test_stop_event_ends_the_loop(tmp_path) -> None:  # type: ignore
    runtime, _, _ = make_runtime(tmp_path, ScriptedSource([0] * 1000))
    stop = threading.Event()
    stop.set()
    runtime.run(stop)
    assert runtime.steps == []


def test_an_alert_answered_by_the_players_is_closed(tmp_path) -> None:  # type: ignore
    """The foul is alerted; the players act on the phone (here: they undo the roll). That
    closes the alert: the foul still on the table is alerted again, not kept silent as the
    alert already shown (a question answered was not asked again either: Pyramid Dice,
    a second 'pass or no change' went unasked and the pass unrecorded)."""
    runtime, service, mid = make_runtime(tmp_path, ScriptedSource([0, 1, 4, 4, 4]))
    answered = False
    while runtime.step() is not None or runtime.status != "source ended":
        if runtime.status == "source ended":
            break
        pending = service.view(mid)["pending"]
        if pending and pending["kind"] == "violation" and not answered:
            service.undo(mid, None)  # the players take back the roll instead
            answered = True
    kinds = [e["kind"] for e in service.view(mid)["entries"]]
    assert answered and kinds.count("violation") >= 2


def test_a_later_players_snatch_is_one_question_recorded_with_its_answer(
        tmp_path) -> None:  # type: ignore
    """Pyramid Dice, snatch on (pyramid_dice.snatch: '…if that player says nothing the right
    passes to the following player.'): the camera sees P3 snatch after P1 gave up, but not P2
    saying nothing. One yes/no question; the players' yes is logged as the answer to it, then
    the snatch; a no records nothing."""
    pyramid = get_game("pyramid_dice")
    service = MatchService(SQLiteStore(tmp_path / "rt.sqlite"))
    mid = service.create("pyramid_dice", 3, {"snatch": True}, None, 1, "live")
    service.act(mid, "roll 2 3 4", None)
    state = service.match(mid).state
    snatch = next(a for a in pyramid.legal_actions(state) if a.to_str().startswith("snatch P3"))
    assert snatch.to_str().endswith(" after P2 passed")
    table = {0: observe_view(pyramid.expected_view(state)),
             1: observe_view(pyramid.expected_view(pyramid.apply(state, snatch)[0]))}
    for answer in ("no", "yes"):
        read = ScriptedTable(lambda frame: table[int(frame.image[0, 0, 0])])
        runtime = Runtime(ScriptedSource([0, 1]), read, service, mid)
        runtime.run(threading.Event())
        pending = service.view(mid)["pending"]
        assert pending["kind"] == "question"
        assert pending["text"] == (f"Did P2 say nothing (pass) before P3 snatched "
                                   f"{snatch.to_str().split()[2]}? ({snatch.to_str()})")
        assert pending["data"]["confirm"] and pending["data"]["candidates"][0]["actions"] == \
            [snatch.to_str()]
        if answer == "no":
            service.dismiss(mid, pending["seq"], None, "no")
            assert service.match(mid).actions == ["roll 2 3 4"]
        else:
            service.act(mid, snatch.to_str(), None, answer_to=pending["seq"])
    entries = service.view(mid)["entries"]
    assert [(e["kind"], e["text"]) for e in entries[-3:]] == [
        ("question", pending["text"]), ("answer", snatch.to_str()),
        ("action", snatch.to_str())]
    assert entries[-2]["data"] == {"question": pending["seq"]}
    assert service.match(mid).actions == ["roll 2 3 4", snatch.to_str()]
