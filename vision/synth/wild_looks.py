"""Die looks for wild scenes: saturated bodies with white, black, red or yellow pips, pearl
and marbled dice, see-through ones, and Catan-style pairs (red with yellow pips, yellow with
red pips).

The palette of :mod:`vision.synth.scenes` is kept as it is (existing seeds must render the same);
this one leans on the dice the reader missed on real tables: blue dice, small Catan dice,
ivory dice with black pips.
"""

from __future__ import annotations

import dataclasses
import logging

import numpy as np

from vision.synth.textures import DieLook

logger = logging.getLogger(__name__)

#: Body colours (BGR), several shades of each, and pearl / ivory.
BODIES: dict[str, tuple[tuple[float, float, float], ...]] = {
    "blue": ((190, 90, 30), (120, 40, 10), (220, 150, 60), (160, 60, 20)),
    "red": ((40, 35, 200), (30, 25, 140), (50, 40, 220)),
    "yellow": ((40, 215, 235), (60, 200, 240), (20, 180, 230)),
    "green": ((60, 160, 40), (40, 100, 20), (90, 180, 60)),
    "purple": ((140, 40, 110), (100, 25, 70), (170, 80, 150)),
    "black": ((28, 28, 30), (45, 45, 48)),
    "white": ((232, 232, 228), (245, 245, 242)),
    "ivory": ((195, 225, 238), (180, 215, 232)),
    "orange": ((30, 120, 240),),
    "pearl": ((232, 228, 240), (225, 235, 240)),
}
PIPS: dict[str, tuple[float, float, float]] = {
    "white": (235, 235, 235), "black": (22, 22, 24), "red": (40, 35, 200),
    "yellow": (40, 210, 240), "gold": (40, 150, 190), "blue": (190, 90, 30),
}
CATAN: tuple[tuple[str, str], ...] = (("red", "yellow"), ("yellow", "red"))
"""(body, pips) of Catan-style dice."""


def _shade(name: str, rng: np.random.Generator) -> tuple[float, float, float]:
    options = BODIES[name]
    c = np.clip(np.asarray(options[int(rng.integers(len(options)))], np.float32)
                * rng.uniform(0.9, 1.08) + rng.normal(0, 8, 3), 0, 255)
    return float(c[0]), float(c[1]), float(c[2])


def _pip_for(body: tuple[float, float, float], rng: np.random.Generator) -> str:
    """Pips that contrast with the body as real dice's do."""
    light = sum(body) / 3
    if light < 110:
        return str(rng.choice(["white", "white", "white", "yellow", "gold", "red"]))
    if light > 180:
        return str(rng.choice(["black", "black", "black", "red", "blue"])) \
            if rng.random() < 0.9 else "red"
    return str(rng.choice(["white", "black", "yellow"]))


def wild_look(rng: np.random.Generator, body: str | None = None, pips: str | None = None
              ) -> DieLook:
    """A random die look; ``body`` / ``pips`` fix the colour names (see BODIES, PIPS)."""
    body = body or str(rng.choice(list(BODIES)))
    body_bgr = _shade(body, rng)
    pip_name = pips or _pip_for(body_bgr, rng)
    pip_bgr = PIPS[pip_name]
    style = "opaque"
    second = body_bgr
    if body == "pearl":
        style, second = "marbled", (245.0, 230.0, 235.0)
    else:
        style = str(rng.choice(["opaque"] * 11 + ["translucent"] * 4 + ["marbled"] * 2
                               + ["smoky"]))
        if style == "marbled":
            second = _shade(str(rng.choice(list(BODIES))), rng)
        elif style == "smoky":
            second = tuple(v * 0.3 for v in body_bgr)  # type: ignore[assignment]
    clear = style in ("translucent", "smoky")
    return DieLook(
        body_bgr=body_bgr, pip_bgr=(float(pip_bgr[0]), float(pip_bgr[1]), float(pip_bgr[2])),
        style=style, second_bgr=(float(second[0]), float(second[1]), float(second[2])),
        pip_scale=float(rng.uniform(0.8, 1.45)), corner=float(rng.uniform(0.06, 0.3)),
        pattern_seed=int(rng.integers(1 << 30)),
        gloss=float(rng.uniform(0.3, 1.0)) if clear or rng.random() < 0.5 else 0.0,
        see_through=float(rng.uniform(0.2, 0.6)) if clear else 0.0,
    )


#: Bodies of the glossy sets that are hardest to tell from a table's texture: dark smoke,
#: gem-coloured see-through plastic, and the swirled two-colour bodies (BGR).
HARD_BODIES = {
    "smoke": ((38, 38, 42), (55, 52, 50), (30, 32, 45), (60, 45, 40)),
    "gem": ((170, 60, 20), (40, 30, 170), (50, 140, 40), (130, 30, 100), (30, 130, 200),
            (150, 140, 40)),
    "swirl": ((160, 90, 30), (120, 40, 10), (40, 35, 150), (110, 40, 90), (50, 110, 40),
              (30, 30, 32), (200, 200, 200), (40, 150, 200)),
}


def hard_look(rng: np.random.Generator) -> DieLook:
    """A die of one of the glossy sets a reader trained on plain dice takes for texture: dark
    smoky plastic with red, white or gold pips and the far faces' pips showing through;
    gem-coloured see-through dice; swirled two-colour bodies; dark bodies with dark pips."""
    kind = str(rng.choice(["smoke", "smoke", "gem", "swirl", "swirl", "dark"]))
    pips: tuple[float, float, float]
    if kind == "dark":
        body = HARD_BODIES["smoke"][int(rng.integers(len(HARD_BODIES["smoke"])))]
        pips = ((40.0, 35.0, 170.0), (30.0, 90.0, 140.0), (110.0, 40.0, 20.0))[
            int(rng.integers(3))]
        style = "opaque"
    else:
        options = HARD_BODIES[kind]
        body = options[int(rng.integers(len(options)))]
        light = sum(body) / 3
        pips = PIPS[str(rng.choice(["red", "red", "white", "gold"] if light < 110
                                   else ["white", "black", "gold", "red"]))]
        style = {"smoke": "smoky", "gem": "translucent", "swirl": "marbled"}[kind]
    jitter = rng.uniform(0.85, 1.15, 3)
    body_bgr = tuple(float(np.clip(c * j, 0, 255)) for c, j in zip(body, jitter, strict=True))
    if style == "marbled":  # veins darker or lighter than the body
        other = HARD_BODIES["swirl"][int(rng.integers(len(HARD_BODIES["swirl"])))]
        second = tuple(float(np.clip(c, 0, 255)) for c in other)
    elif style == "smoky":
        second = tuple(v * 0.3 for v in body_bgr)
    else:
        second = body_bgr
    clear = style in ("translucent", "smoky")
    return DieLook(
        body_bgr=body_bgr,  # type: ignore[arg-type]
        pip_bgr=(float(pips[0]), float(pips[1]), float(pips[2])),
        style=style, second_bgr=(float(second[0]), float(second[1]), float(second[2])),
        pip_scale=float(rng.uniform(0.7, 1.3)), corner=float(rng.uniform(0.08, 0.3)),
        pattern_seed=int(rng.integers(1 << 30)), gloss=float(rng.uniform(0.4, 1.0)),
        see_through=float(rng.uniform(0.25, 0.7)) if clear else 0.0,
    )


def scene_looks(rng: np.random.Generator, n: int, hard: float = 0.0
                ) -> tuple[list[DieLook], list[float]]:
    """(looks, edge lengths in mm) of ``n`` dice for one scene: a matched set (one body and
    pip colour, as a player's set), a Catan pair or a mixed bag; with chance ``hard`` the
    dice of :func:`hard_look` instead, a matched set or a mixed bag of them (0, the default,
    draws nothing for it: a seed's looks are the same as before it existed)."""
    if hard > 0 and rng.random() < hard:
        size = float(rng.choice([12.0, 14.0, 16.0, 16.0, 16.0, 19.0]))
        if rng.random() < 0.4:
            one = hard_look(rng)
            looks = [dataclasses.replace(one, pattern_seed=int(rng.integers(1 << 30)))
                     for _ in range(n)]
        else:
            looks = [hard_look(rng) for _ in range(n)]
        return looks, [size * float(rng.uniform(0.9, 1.1)) for _ in range(n)]
    mode = rng.random()
    if mode < 0.2:  # Catan: a red and a yellow die, small
        pairs = [CATAN[k % 2] for k in range(n)]
        rng.shuffle(pairs)
        looks = [wild_look(rng, b, p) for b, p in pairs]
        return looks, [float(rng.uniform(12.0, 15.0))] * n
    size = float(rng.choice([12.0, 14.0, 16.0, 16.0, 16.0, 19.0]))
    if mode < 0.55:
        body = str(rng.choice(list(BODIES)))
        pips = _pip_for(_shade(body, rng), rng)
        return [wild_look(rng, body, pips) for _ in range(n)], [size] * n
    return [wild_look(rng) for _ in range(n)], [size * float(rng.uniform(0.85, 1.15))
                                                 for _ in range(n)]
