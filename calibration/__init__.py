"""Camera to table: markers, homography, colour palette, zone layouts, face enrolment.

- ``calibration.geometry``: markers, homography, lens, the calibration procedure;
- ``calibration.table``: the table reader (a settled frame to the engine's Observation);
- ``calibration.games``: each game's perception spec;
- ``calibration.printing``: the printed mat (drawing, raster, tiling, PDF);
- ``calibration.render``: the table as a camera sees it (the simulated table, tests);
- ``calibration.measure``: the table reader measured on rendered tables;
- here: layouts, profiles, the palette, enrolment and adaptation storage.
"""
