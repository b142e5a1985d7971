"""A game's spec outside its rules: what the camera reads of its table, and what the phone
asks for its setup; and the registry of specs (the specs themselves are
calibration/games/<game>.py).

The engine knows a game's rules and what its table should show (``Game.expected_view``);
the spec says how the camera reads that table: which zones it reads, where dice may lie,
which piece readers run over which zones, which catalogued die types are in play, how large
the dice are. The table reader (:mod:`calibration.table`) is built from it and names no game.

Zones are given as patterns (:func:`fnmatch.fnmatchcase`: ``vault:*`` is every player's
vault, whatever the number of players) and resolved against a layout in the layout's order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np

    from calibration.layouts import Layout
    from calibration.profile import Profile
    from calibration.table.gate import ChangeGate
    from calibration.table.sight import Sight
    from calibration.table.slot_dice import SlotDice
    from engine.observation import Observed

DEFAULT_DIE_MM = 16.0
HEAP_MISS = 0.1
"""Probability that a die in a heap zone (Perception.heap_zones) is not found, for the rules
(engine.observation.Observation.miss; elsewhere the reconcile's 0.02). Counted on the
simulated table by a probe, not a shipped command (Quarriors seed 0, 261 readings, 3 599
Used Pile dice, each reading's against the rendered table's): 2.0 % of the Used
Piles' dice missed once their blobs are split (7.3 % before), but missed together, three of
one packed row, which at 0.02 each cost past the reconcile's line of "unexplained". 0.1 and
0.25 gave the same figures on seeds 0-1, simulate_match run with the constant patched
(auto-accepted 0.683 / 0.681, 4 / 3 wrong acceptances, 21 / 26 questions on culls, which
only the Used Pile shows)."""

HEAP_CONFUSION = 0.1
"""Share of a heap die's type reading (Perception.heap_zones) spread over the types read in
its heap: a die there is read, now and then, as one beside or on it, surely (simulated
Quarriors, seeds 0-4: of the Used Piles' dice read as another type, the median read the
wrong type at 0.99; Basic Quiddity as Assistant 52 times, Assistant as Warrior of the Quay
40). Two such readings put the true table past the rules' line of "unexplained" (178 of
1 533 readings, most of them this). The share is about twice the rate of those misreads
(typed right 0.96-0.97 by a probe): chosen, UNMEASURED on real tables."""

Path = list[str | int]
"""Where in the entered setup a problem is: keys and list indices from the outermost."""


@dataclass(frozen=True)
class Problem:
    """One problem of an entered setup: the field it is about and the engine's message."""

    path: Path
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "message": self.message}


def problem(exc: Any, *prefix: str | int) -> Problem:
    """The Problem an engine error names (``prefix``: where the checked part lies)."""
    return Problem([*prefix, *exc.path], exc.field_message or str(exc))
"""Edge of a standard d6, mm."""


class PieceStage(Protocol):
    """One table's reader of some pieces (it may learn as the match goes: card looks)."""

    def read(self, sight: Sight, gate: ChangeGate) -> list[Observed]:
        """The pieces of the zones it reads in this frame (re-read only where they changed,
        through ``gate``)."""
        ...


class PieceReading(Protocol):
    """A piece reader as a spec lists it: its zones and settings, started per table."""

    def start(self, layout: Layout, edition: str) -> PieceStage:
        """This reader for one table (of ``layout``, the game's ``edition``)."""
        ...

    def photo(self, image: np.ndarray, table: Profile, edition: str) -> list[dict[str, Any]]:
        """Every piece of one photo of a calibrated table, as `dicetable read --json` rows."""
        ...


@dataclass(frozen=True)
class Perception:
    """What one game is to the camera (see the module docstring)."""

    game: str
    """The game's name, as the engine and the layouts spell it."""
    read_zones: tuple[str, ...] | None = None
    """Zone patterns whose content the camera reads and reports as seen (None: every zone).
    A zone left out is one whose content the camera cannot read (IceDice's Bank: nested
    stacks show only their largest piece); the rules know it from the moves."""
    dice_zones: tuple[str, ...] | None = None
    """Zone patterns where the game's dice lie (None: anywhere). A 'die' found elsewhere is
    a piece's or a card's detail, and dice are looked for on the mat only here; a game that
    lists them also gets its plain dice confirmed by a sure face (table.dice)."""
    pieces: tuple[PieceReading, ...] = ()
    """The piece readers that run, in order."""
    die_types: tuple[str, ...] = ()
    """Catalogued die types in play (vision.faces.dietypes), empty for plain d6."""
    editions: tuple[str, ...] = ()
    """Editions whose dice differ by a type-name suffix (IceDice: rainbow, suits): a table
    has one of them, and the other's types are left out."""
    die_mm: float = DEFAULT_DIE_MM
    """Edge of the game's dice, mm."""
    top_face_chooser: bool = False
    """A photo's typed dice have their top face chosen by the shipped learnt score
    (vision.faces.topface.TopFaceChooser) rather than the nearest face mean."""
    setup_form: Callable[[], dict[str, Any]] | None = None
    """What the new-match page offers for the game's setup (the shipped example and the
    vocabulary to edit it with; None: the game takes no setup from the players)."""
    setup_rows: Callable[[Mapping[str, Any]], list[Problem]] | None = None
    """The engine's verdict on each row of an entered setup (a card, a sheet's definition),
    every wrong row with its message: the rules stop at the first wrong one."""
    table_script: str | None = None
    """The phone page's drawing of the game's table: a script of the page's static files
    (``games/<game>.js``) that registers it (None: the state shown as rows)."""
    in_play: tuple[str, ...] = ()
    """Die types always in a match, besides those its expected view shows (Quarriors: the
    Basic Quiddity dice are all in the bags at the start, their card empty): the dice stage
    reads the types of the expected view and these, not every type of the box."""
    type_only_zones: tuple[str, ...] = ()
    """Zone patterns whose dice the rules know by type only (Quarriors' Used Pile): their
    faces are not read, and dice told apart by colour are typed by their colours alone."""
    watched_zones: tuple[str, ...] = ()
    """Zone patterns the camera watches without reading (calibration.table.watch; the rules
    are told whether each looks changed since the record last changed what lies there:
    engine.observation.Observation.changed). Quarriors' Wilds: a capture takes a die from
    its card, a cull puts one back."""
    heap_zones: tuple[str, ...] = ()
    """Zone patterns where the players heap their dice (Quarriors' Used Pile: a dozen dice
    and more swept together, touching, some against or on others): a die there is likelier
    not to be found (HEAP_MISS) than one lying apart, and the rules weigh a missing one
    so (engine.observation.Observation.miss)."""
    partial_dice: bool = False
    """Read the dice again only round what changed (calibration.table.dice: the detector
    and the mat search run on those parts alone, each group of changes apart on its own),
    the dice elsewhere kept from the reading before. Quarriors: a move changes one or two of
    the mat's eight dice zones, and reading them all cost two thirds of a reading"""
    slot_dice: SlotDice | None = None
    """Dice that lie in the slots of some zones, read slot by slot (calibration.table.
    slot_dice) instead of found by the dice reader (None: found by the dice reader)."""

    def types(self, edition: str | None = None) -> tuple[str, ...]:
        """The die types on a table of ``edition`` (every type when None)."""
        if edition is None or not self.editions:
            return self.die_types
        others = [e for e in self.editions if e != edition]
        return tuple(t for t in self.die_types if not any(t.endswith("-" + e) for e in others))

    def reads(self, zone: str) -> bool:
        """Whether the camera reads ``zone`` (see read_zones)."""
        return self.read_zones is None or matches(zone, self.read_zones)

    def dice_may_lie(self, zone: str | None) -> bool:
        """Whether a die found in ``zone`` (None: outside every zone) can be a die."""
        return self.dice_zones is None or (zone is not None and matches(zone, self.dice_zones))


def matches(zone: str, patterns: Iterable[str]) -> bool:
    """Whether a zone name matches any of the patterns."""
    return any(fnmatchcase(zone, p) for p in patterns)


def resolve(layout: Layout, patterns: Iterable[str]) -> tuple[str, ...]:
    """The layout's zones matching the patterns, in the layout's order."""
    pats = tuple(patterns)
    return tuple(z.name for z in layout.zones if matches(z.name, pats))


_SPECS: dict[str, Perception] = {}


def register(spec: Perception) -> Perception:
    """Make a spec findable by its game's name (each game module registers on import)."""
    _SPECS[spec.game] = spec
    return spec


def perception(game: str) -> Perception:
    """The spec of ``game``; a game with none registered is read with the defaults (dice
    anywhere, every zone read, no pieces, plain d6)."""
    import calibration.games  # noqa: F401  (importing registers the games)

    return _SPECS.get(game) or Perception(game)


def registered() -> tuple[str, ...]:
    """The games with a spec, by name."""
    import calibration.games  # noqa: F401

    return tuple(sorted(_SPECS))
