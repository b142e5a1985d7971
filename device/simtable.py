"""The simulated table: seeded random legal matches, shown as camera frames.

Each move is a short film: a hand reaches in from the edge (motion), the table changes,
the hand leaves, and the table stays still for a while. Now and then the light changes or
the camera is bumped a little. With ``inject_violations`` > 0 a player sometimes makes an
illegal move instead (one the rules name), and puts the table back once the companion
has flagged it.

Two observers (``SimParams.observer``):

- ``real`` (default): the frames are rendered tables (:mod:`calibration.render.table`: the
  printed mat, dice with their faces, pyramids, cards, an arm, light, bumps). The simulated
  camera is calibrated from a photo of the mat with the dice on it, as a user would
  (``dicetable calibrate``, before the cards and pieces are set out),
  and every settled frame is read by :class:`calibration.table.reader.TableReader`: the
  dice reader, the face reader, the pieces readers and the calibration, exactly as for a
  real camera. Whether the dice were thrown comes from its die tracker.
- ``noise``: the frames are abstract squares and each reading is a calibrated noise model
  on the true table of that frame (:mod:`device.observer_sim`), told by the table whether
  the dice were thrown. Fast, for tests of the settle → reconcile → record loop only.
"""

from __future__ import annotations

import random
import time
import zlib
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from device.observer_sim import NoisyObserver, attribute_domains
from engine import Match, Observation, get_game
from engine.core import Game, throws_dice
from engine.observation import Expected, View
from engine.thrower import default_seats
from vision.frame import Frame

if TYPE_CHECKING:
    from calibration.table.protocol import TableReading
    from calibration.table.reader import TableReader


@dataclass
class SimParams:
    fps: float = 30.0
    width: int = 640
    height: int = 480
    still_frames: tuple[int, int] = (8, 20)
    """how long the table stays still after a move (frames, drawn uniformly)"""
    hand_frames: tuple[int, int] = (6, 14)
    """how long a hand is over the table for one move"""
    light_change: float = 0.08
    """chance that the light changes during a move"""
    bump: float = 0.04
    """chance that the camera is bumped during a move"""
    misread: float = 0.03
    """reader noise: chance that an attribute's top reading is wrong"""
    inject_violations: float = 0.0
    """chance that a player makes an illegal move instead of a legal one (one whose table
    differs from the table of every legal move: others cannot be seen)"""
    wrong_answers: float = 0.0
    """chance that the players answer a "which was it?" question with a legal move that
    is not what happened (device.sim_players): the camera must then repair the record"""
    max_moves: int | None = None
    """stop the match after this many true moves (short films for tests); None: play on"""
    observer: str = "real"
    """'real': rendered frames read by the real pipeline; 'noise': abstract frames and the
    noise model (see the module docstring)"""
    dice: str = "plain"
    """how the game's plain d6 look (:data:`DICE_STYLES`): a style the reader was never
    trained on shows what the table learns of its dice during a match
    (``calibration.table.learning``)"""
    learn: bool = True
    """the real observer learns the table's dice from confirmed moves"""
    phone_end: bool = True
    """the players end a stalled match (Pyramid Dice's 'end' by the stall rule) on the
    phone, through ``SimulatedTable.on_phone``, as real players would: it is a match-control
    action, not a table move. False (or no ``on_phone``): played as a move that shows
    nothing, which the camera then asks about"""

    def __post_init__(self) -> None:
        if self.observer not in OBSERVERS:
            raise ValueError(f"observer must be one of {', '.join(OBSERVERS)}")
        if self.dice not in DICE_STYLES:
            raise ValueError(f"dice must be one of {', '.join(DICE_STYLES)}")


#: Looks of the plain d6 of the simulated table, by name: (catalogued die type, body, ink;
#: None keeps the type's own). "skull" is the catalogue's d6 with a skull on the 1, which
#: the pip classifier was trained to call a symbol; "purple-skull" the same in purple with
#: gold pips, a colour pair the renderer's training palette never gives a die.
DICE_STYLES: dict[str, tuple[str, str | None, str | None]] = {
    "plain": ("d6", None, None),
    "skull": ("d6-skull1", None, None),
    "purple-skull": ("d6-skull1", "#5a2d82", "#e6b422"),
}


def dice_style(name: str) -> dict[str, Any]:
    """The renderer's die types for a style: the die type drawn for a plain d6."""
    from vision.faces.dietypes import get_type

    tname, body, ink = DICE_STYLES[name]
    if name == "plain":
        return {}
    dtype = get_type(tname)
    return {"d6": replace(dtype, body=body or dtype.body, ink=ink or dtype.ink)}


OBSERVERS = ("real", "noise")
#: Readings at the start and at the end of a match whose dice read_first / _last count.
DICE_READINGS = 5
OBSERVER_TEXT = {
    "real": "real pipeline on rendered frames: settler, dice reader (ONNX), face reader, "
            "pyramid / card-slot readers, calibration from a photo of the mat with dice, "
            "die tracker",
    "noise": "noise model on the true table (device/observer_sim.py); no pixels are read",
}

@dataclass
class Scene:
    """What is physically on the table from a frame on."""

    view: View
    actions: tuple[str, ...]  # the true actions that led here (empty for a reverted mistake)
    illegal: str | None = None  # rule id, when this scene shows an illegal move
    rolled: bool = False  # the dice were thrown for this scene
    phone: str | None = None  # a move the players enter on the phone here (no frame)
    seat: str | None = None  # the edge the arm of this move came from (truth, for reports)


RENDER_SIDE = {"bottom": 0, "top": 1, "left": 2, "right": 3}
"""calibration.render.table's arm sides by edge of the picture"""


class SimulatedTable:
    """A FrameSource that plays a match by itself.

    The players sit at ``seats`` (engine.thrower.default_seats: two face each other) and
    each move's arm reaches in from the edge of the player who makes it, at a random place
    along that edge. Only that one arm: a second person's hand over the table at the same
    time (a neighbour pointing) is not simulated. A move the players enter on the phone
    (``SimParams.phone_end``) shows no frame: ``on_phone`` is called with its text when the
    frames reach it."""

    def __init__(self, game_name: str, players: int, seed: int,
                 params: SimParams | None = None,
                 options: dict[str, object] | None = None) -> None:
        self.game = get_game(game_name)
        self.params = params or SimParams()
        self.rng = random.Random(seed)
        self.truth = Match(self.game, players, options, seed=seed)
        self.seats = default_seats(players)
        self.on_phone: Callable[[str], None] | None = None
        self.id, self.fps = f"sim:{self.game.info.name}", self.params.fps
        self._queue: deque[tuple[np.ndarray | None, Scene]] = deque()
        self._scene = Scene(self.game.expected_view(self.truth.state), ())
        self._seq = 0
        self._light = 1.0
        self._light_azimuth = 40.0
        self._shift = (0, 0)
        self.renderer = None
        self._camera = None
        if self.params.observer == "real":
            from calibration.render.table import IMAGE_SIZE, TableRenderer

            self.renderer = TableRenderer(self.game.info.name, players, seed,
                                          die_types=dice_style(self.params.dice))
            self._camera = self.renderer.camera
            self.params = replace(self.params, width=IMAGE_SIZE[0], height=IMAGE_SIZE[1])
            self.renderer.place(self._scene.view, thrown=True)
        self._image = self._render(self._scene.view)
        self.calibration_image: np.ndarray = (
            self.renderer.calibration_shot() if self.renderer is not None else self._image)
        self._calibration_colours = (self.renderer.dice_colours()
                                     if self.renderer is not None else None)
        self._views: list[View] = [self._scene.view]
        self.scenes_at: dict[int, Scene] = {}
        self.still_from: dict[int, int] = {}  # frame -> first frame of its still run
        self._last_image: np.ndarray | None = None
        self.injected: list[tuple[int, str]] = []  # (first frame, rule id)
        self.pending_revert = False
        self._still(self._scene)

    # --- frames -----------------------------------------------------------------------------
    def read(self) -> Frame | None:
        if not self._queue:
            if not self._advance():
                return None
        image, scene = self._queue.popleft()
        while image is None:  # the players enter a move on the phone here
            assert scene.phone is not None and self.on_phone is not None
            self.on_phone(scene.phone)
            if not self._queue and not self._advance():
                return None
            image, scene = self._queue.popleft()
        self.scenes_at[self._seq] = scene
        # Still frames share one image object: the table went still at the first of them.
        same = image is self._last_image
        self.still_from[self._seq] = self.still_from[self._seq - 1] if same else self._seq
        self._last_image = image
        frame = Frame(image, self._seq, time.monotonic(), self.id)
        self._seq += 1
        return frame

    def close(self) -> None:
        self._queue.clear()

    @property
    def finished(self) -> bool:
        return self._over() and not self._queue

    def _over(self) -> bool:
        limit = self.params.max_moves
        return self.game.outcome(self.truth.state) is not None or (
            limit is not None and len(self.truth.actions) >= limit)

    def _advance(self) -> bool:
        """Script the next move (or the fix of an illegal one); False when the match is over."""
        if self.pending_revert:
            self.pending_revert = False
            view = self.game.expected_view(self.truth.state)
            self._move(Scene(view, ()), self._seat_of(self.truth.state))
            return True
        if self._over():
            return False
        state = self.truth.state
        if self.params.inject_violations and self.rng.random() < self.params.inject_violations:
            cands = list(self.game.candidates(state))
            legal_views = {self.game.view_after(state, c.action) for c in cands if c.legal}
            wrong = [c for c in cands if not c.legal]
            if wrong:
                cand = self.rng.choice(wrong)
                view = self.game.view_after(state, cand.action)
                # a foul that shows the table as a legal move would (a die set to 5 by hand
                # by a player who holds the set-to-5 card) is that legal move to anyone
                # watching: no observer can flag it, so it is not played as one
                if view != self._scene.view and view not in legal_views:
                    assert cand.error is not None
                    self.injected.append((self._seq, cand.error.rule.id))
                    self.pending_revert = True
                    self._move(Scene(view, (), cand.error.rule.id, throws_dice(cand.action)),
                               self._seat_of(state))
                    return True
        texts = self._play_one(state)
        action = self.game.parse_action(texts[-1])
        scene = Scene(self.game.expected_view(self.truth.state), tuple(texts),
                      rolled=any(throws_dice(self.game.parse_action(t)) for t in texts))
        if self.params.phone_end and self.on_phone is not None and action.to_str() == "end" \
                and len(texts) == 1 and self.game.outcome(self.truth.state) is not None:
            # the stall rule's 'end': the players agree and tap "End match" on the phone
            self._queue.append((None, replace(scene, phone=action.to_str())))
            self._scene = replace(scene, view=self._scene.view)
            self._still(self._scene)
            return True
        self._move(scene, self._seat_of(state))
        return True

    def _play_one(self, state: Any) -> list[str]:
        """Play the next move, and what the same player does with it before the table is
        still, as one scene (the texts played). For a game that reads its chance off the
        table (core.Game.observed_chance, Quarriors): the dice drawn out of the bag and
        rolled together, and after a move that brings a draw or a re-roll, its dice; and
        (core.Game.follow_unseen) after a move that shows nothing ('attack' with nothing to
        attack with), the same player's next move, which shows it."""
        game, truth = self.game, self.truth
        choose = getattr(game, "table_action", game.random_action)
        action = choose(state, self.rng)
        truth.push(action, source="sim")
        texts = [action.to_str()]
        runs = type(game).observed_chance is not Game.observed_chance
        player = game.to_move(state)
        for _ in range(40):
            now = truth.state
            if game.outcome(now) is not None:
                break
            pending = runs and bool(game.chance_outcomes(now)) and (
                action.is_chance or game.to_move(now) == player)
            if not pending and game.follow_unseen and not action.is_chance \
                    and len(texts) == 1 and game.to_move(now) == player \
                    and game.expected_view(now) == self._scene.view:
                follow = choose(now, self.rng)
                if game.is_legal(state, follow):
                    break  # it would not tell the unseen move: that is shown (asked) alone
                action = follow
            elif pending:
                action = choose(now, self.rng)
            else:
                break
            truth.push(action, source="sim")
            texts.append(action.to_str())
        return texts

    def _seat_of(self, state: object) -> str | None:
        """The seat of the player who acts in `state` (None: nobody's turn)."""
        player = self.game.to_move(state)
        return self.seats[player] if player is not None and player < len(self.seats) else None

    def _move(self, scene: Scene, seat: str | None) -> None:
        p, rng = self.params, self.rng
        if rng.random() < p.light_change:
            self._light = rng.uniform(0.8, 1.15)
            if self.renderer is not None:  # (the noise path keeps its random sequence)
                self._light_azimuth = rng.uniform(0, 360)
        if rng.random() < p.bump:
            self._shift = (rng.randint(-3, 3), rng.randint(-3, 3))
            if self.renderer is not None:
                self._camera = self.renderer.bumped(np.random.default_rng(rng.getrandbits(32)))
        before = self._image
        if self.renderer is not None:
            self.renderer.place(scene.view, thrown=scene.rolled)
        after = self._render(scene.view)
        n = rng.randint(*p.hand_frames)
        # the arm comes from the acting player's seat (any edge when it is nobody's turn);
        # the draw is kept so that a seed plays the same match as before seats
        drawn, hand_seed = (rng.randrange(4), rng.getrandbits(32)) if self.renderer else (3, 0)
        side = RENDER_SIDE[seat] if seat is not None else drawn
        scene = replace(scene, seat=[k for k, v in RENDER_SIDE.items() if v == side % 4][0])
        for i in range(n):
            # the hand reaches in, works, and leaves; the table changes under it halfway
            reach = min(i, n - 1 - i) / max(1, n // 2)
            shown = scene if i >= n // 2 else self._scene
            image = after if i >= n // 2 else before
            self._queue.append((self._with_hand(image, reach, i, side, hand_seed), shown))
        self._scene = scene
        self._image = after
        self._views.append(scene.view)
        self._still(scene)

    def _still(self, scene: Scene) -> None:
        image = self._image
        for _ in range(self.rng.randint(*self.params.still_frames)):
            self._queue.append((image, scene))

    # --- drawing ------------------------------------------------------------------------------
    def _render(self, view: View) -> np.ndarray:
        """The still table of a view, as the camera sees it now."""
        if self.renderer is not None:
            return self.renderer.render_still(view, camera=self._camera, light=self._light,
                                              light_azimuth=self._light_azimuth,
                                              seed=self._seq)
        return self._draw(view)

    def _with_hand(self, image: np.ndarray, reach: float, i: int, side: int,
                   seed: int) -> np.ndarray:
        if self.renderer is not None:
            # the arm sways a little from frame to frame
            return self.renderer.with_hand(image, reach, side, seed + i % 3)
        return self._draw(self._scene.view, hand=reach, jitter=i, side=side)

    def _draw(self, view: View, hand: float = 0.0, jitter: int = 0, side: int = 3
              ) -> np.ndarray:
        """A plain top-down picture of the table (observer 'noise'): enough for the
        settler's motion and hand checks, not meant to be read by the dice reader."""
        p = self.params
        img = np.full((p.height, p.width, 3), (70, 105, 60), np.uint8)
        zones = sorted({e.zone for e in view})
        cols = 4
        cell_w, cell_h = p.width // cols, p.height // max(1, (len(zones) + cols - 1) // cols)
        counters: dict[str, int] = {}
        for exp in view:
            z = zones.index(exp.zone)
            k = counters.get(exp.zone, 0)
            counters[exp.zone] = k + 1
            x0 = (z % cols) * cell_w + 6 + (k % 8) * 12
            y0 = (z // cols) * cell_h + 6 + (k // 8) * 12
            colour = zlib.crc32(repr(exp.attrs).encode()) & 0xFFFFFF
            bgr = (colour & 255, (colour >> 8) & 255, (colour >> 16) & 255)
            cv2.rectangle(img, (x0, y0), (x0 + 9, y0 + 9), bgr, -1)
        if hand > 0:
            radius = int(40 + 160 * hand)
            centre = [(p.width // 2 + jitter * 3, p.height), (p.width // 2 + jitter * 3, 0),
                      (0, p.height // 2 + jitter * 3), (p.width, p.height // 2 + jitter * 3)]
            cv2.ellipse(img, centre[side % 4], (radius, 60) if side >= 2 else (60, radius), 0,
                        0, 360, (120, 150, 200), -1)
        out: np.ndarray = cv2.convertScaleAbs(img, alpha=self._light)
        if self._shift != (0, 0):
            m = np.array([[1, 0, self._shift[0]], [0, 1, self._shift[1]]], np.float32)
            out = cv2.warpAffine(out, m, (p.width, p.height), borderMode=cv2.BORDER_REPLICATE)
        return out

    # --- reading --------------------------------------------------------------------------------
    def observer(self) -> TableReading:
        """The reader of its frames (see the module docstring for the two observers)."""
        if self.params.observer == "real":
            return self.real_observer()
        return NoiseReader(self)

    def real_observer(self) -> TableReader:
        """Calibrate the simulated camera from a photo of the mat with the dice on it, as a
        user would with `dicetable calibrate` before setting out the game, and read every
        settled frame with the real pipeline."""
        from calibration.geometry.procedure import calibrate_image
        from calibration.table.reader import TableReader

        assert self.renderer is not None
        profile = calibrate_image(self.calibration_image, self.renderer.layout,
                                  colours=self._calibration_colours,
                                  source=f"sim:{self.game.info.name}")
        return TableReader.build(profile, self.game.info.name, learn=self.params.learn)


class NoiseReader:
    """The noise model on each frame's true table (observer ``noise``); whether the dice
    were thrown is told by the table (a tracker needs positions, which this model has none
    of). It reads no pixels, learns nothing and draws nothing."""

    def __init__(self, table: SimulatedTable) -> None:
        self.sim = table
        self.noisy = NoisyObserver({}, table.rng, table.params.misread)
        self.timings: dict[str, float] = {}
        self._last = -1  # the frame read before this one

    def read(self, frame: Frame) -> Observation:
        sim = self.sim
        self.noisy.domains = attribute_domains(sim._views[-40:])
        obs = self.noisy.observe(sim.scenes_at[frame.seq].view, frame=frame.seq)
        scenes = {id(sim.scenes_at[f]): sim.scenes_at[f]
                  for f in range(self._last + 1, frame.seq + 1)}
        self._last = frame.seq
        rolled = any(s.rolled for s in scenes.values())
        return Observation(obs.objects, obs.zones_seen, obs.moved, obs.frame, rolled)

    def expect(self, view: View) -> None:
        return None

    def learn(self, key: int, view: View, posterior: float, live: set[int]) -> None:
        return None

    def outline(self) -> None:
        return None

    def annotated(self, image: np.ndarray) -> np.ndarray:
        return image

    def locate(self, obj: Expected) -> None:
        return None  # (no pixels: the demo's pictured table locates its own objects)


@dataclass
class SimFigures:
    """What ``dicetable simulate`` reports (see its help for each key)."""

    matches: int = 0
    moves: int = 0
    exact: int = 0
    accepted_without_question: int = 0
    phone_moves: int = 0
    """moves the players entered on the phone by their own initiative (ending a stalled
    match): not questions, so counted with the accepted ones in ``auto_accepted``"""
    violations_injected: int = 0
    violations_flagged: int = 0
    silent_illegal: int = 0
    latency_frames: list[int] = field(default_factory=list)
    processing_ms: list[float] = field(default_factory=list)
    stage_ms: dict[str, list[float]] = field(default_factory=dict)
    """per-stage milliseconds of each reading (the observer's stages, reconcile, record)"""
    dice_reads: list[tuple[int, int, int, int]] = field(default_factory=list)
    """per reading that saw dice: (its index in its match, readings in the match, dice read
    at their true face, dice on the table)"""
    table_fits: int = 0
    """corrections the observers fitted from confirmed moves (calibration.table.learning)"""
    readings: int = 0
    players: dict[str, int] = field(default_factory=dict)
    """the simulated players' counts (device.sim_players.SimPlayers.counts), summed; the
    longest lost spell is the longest of all"""
    ended_lost: int = 0
    """matches that ended with the record off the table by a wrong answer"""
    retold: int = 0
    """readings whose record reached the true table by other moves than the table played
    (device.simulate: taken as the table's own record from then on)"""
    questions: dict[str, int] = field(default_factory=dict)
    """questions asked, by what they were about (device.simulate.question_kind)"""

    def add_players(self, counts: dict[str, int], lost: bool) -> None:
        for key, value in counts.items():
            if key == "lost_longest":
                self.players[key] = max(self.players.get(key, 0), value)
            else:
                self.players[key] = self.players.get(key, 0) + value
        self.ended_lost += int(lost)

    def merge(self, other: SimFigures) -> None:
        for name in ("matches", "moves", "exact", "accepted_without_question", "phone_moves",
                     "violations_injected", "violations_flagged", "silent_illegal", "retold"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.latency_frames += other.latency_frames
        self.dice_reads += other.dice_reads
        self.table_fits += other.table_fits
        self.readings += other.readings
        self.add_players(other.players, False)
        self.ended_lost += other.ended_lost
        for kind, n in other.questions.items():
            self.questions[kind] = self.questions.get(kind, 0) + n
        self.processing_ms += other.processing_ms
        for stage, values in other.stage_ms.items():
            self.stage_ms.setdefault(stage, []).extend(values)

    def to_dict(self) -> dict[str, Any]:
        def pct(values: list[float], q: float) -> float:
            return round(float(np.percentile(values, q)), 2) if values else 0.0

        return {
            "matches": self.matches,
            "moves": self.moves,
            "state_exact": round(self.exact / max(self.matches, 1), 4),
            "auto_accepted": round((self.accepted_without_question + self.phone_moves)
                                   / max(self.moves, 1), 4),
            "phone_moves": self.phone_moves,
            "violations_injected": self.violations_injected,
            "violations_flagged": self.violations_flagged,
            "silent_illegal": self.silent_illegal,
            "latency_frames_p50": pct([float(x) for x in self.latency_frames], 50),
            "latency_frames_p95": pct([float(x) for x in self.latency_frames], 95),
            "processing_ms_p50": pct(self.processing_ms, 50),
            "processing_ms_p95": pct(self.processing_ms, 95),
            "processing_cpu_ms_p50": pct(self.stage_ms.get("cpu", []), 50),
            "processing_cpu_ms_p95": pct(self.stage_ms.get("cpu", []), 95),
            "stage_ms": {k: {"p50": pct(v, 50), "p95": pct(v, 95)}
                         for k, v in self.stage_ms.items() if v},
            "dice_read_first": self._dice_read(first=True),
            "dice_read_last": self._dice_read(first=False),
            "table_fits": self.table_fits,
            "readings": self.readings,
            **{key: self.players.get(key, 0) for key in (
                "wrong_answers", "readings_lost", "lost_longest", "repairs_proposed",
                "repairs_taken", "repairs_declined", "tables_taken", "fixed_by_hand")},
            "ended_lost": self.ended_lost,
            "retold": self.retold,
            "questions": dict(sorted(self.questions.items(), key=lambda kv: -kv[1])),
        }

    def _dice_read(self, first: bool, n: int = DICE_READINGS) -> float | None:
        """Share of the dice read at their true face over the first (last) ``n`` readings
        with dice of each match."""
        rows = [r for r in self.dice_reads
                if (r[0] < n if first else r[0] >= r[1] - n)]
        total = sum(r[3] for r in rows)
        return round(sum(r[2] for r in rows) / total, 4) if total else None
