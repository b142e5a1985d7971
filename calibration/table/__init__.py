"""The table reader: a camera picture of a calibrated table → the engine's Observation.

One reader (:class:`calibration.table.reader.TableReader`) composed of stages, each a module
here: camera fit (``fit``) → light (``sight``) → dice (``dice``, with ``objects``,
``dice_top``, ``refine``, ``enrolled``, ``tracker``, ``learning``) → pieces (``pyramids``,
``cards``) → zones (``zones``) → Observation, each zone re-read only where it changed
(``gate``). What it reads of each game comes from the game's perception spec
(calibration.games). The live runtime talks to it through ``protocol.TableReading``; one
photo is read with the same stages by ``photo`` (`dicetable read --profile`, the
calibration's self-test) and ``typed`` (`read --game`).
"""
