"""IceDice (Andrew Looney, Looney Labs), per shared/rules/icedice-rules.txt.

The table: a Bank in the middle, a Counter beside it and a Vault per player; two dice (a
colour die with five colours and a wild face, a size die with single and pair faces) and
one Rainbow Stash (15 pyramids) per player, at least two.

A turn is a loop of ``roll`` → (``take`` | ``steal``) → ``roll`` again or ``stop``. Two
follow-ups the rules trigger are separate actions because the players carry them out by
hand and the camera sees them happen: ``bust`` (returning the Counter to the Bank after a
Bust Out) and ``rainbow`` (moving a full Rainbow to the Vault). A roll that yields nothing
obtainable changes nothing on the table, so it passes straight to the decision.

Facts the rule text leaves out are named options (see ``OPTIONS``); two UNKNOWNs of
shared/data/games/README.md cannot arise under these rules and need no option:

* an Atom rolled with all five colours on the Counter: the Rainbow Bonus moves them to the
  Vault as soon as the fifth colour arrives, so the Counter never holds five at a roll;
* a piece in neither the Bank nor an opponent's Vault: a colour not on the Counter has all
  its pieces in the Bank and the Vaults, so that piece is all in your own Vault, which the
  rule text covers ("you get nothing for that roll, but may roll again"). The only other
  unobtainable roll comes from the strict FAQ reading, handled by ``unobtainable_roll``.
"""

from engine.games.icedice.game import IceDice
from engine.games.icedice.rules import OPTIONS, RULES
from engine.games.icedice.state import IceDiceState, Roll, Simple, Take, trios

__all__ = ["OPTIONS", "RULES", "IceDice", "IceDiceState", "Roll", "Simple", "Take", "trios"]
