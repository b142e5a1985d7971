"""Pyramid Dice (ピラミッド・ダイス) to the camera: three d6 thrown in the rolling area, the
card pyramid's slots, the side area and the players' areas (cards in columns, each card's
top band showing; a side card is known by the look of its band)."""

from calibration.games.spec import Perception, register
from calibration.table.cards import Cards

SPEC = register(Perception(
    "pyramid_dice",
    read_zones=("rolling", "pyramid", "side", "area:*"),
    dice_zones=("rolling",),
    pieces=(Cards(slots="pyramid", areas=("side", "area:*"), known_by_look=("side",)),),
))
