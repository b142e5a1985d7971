"""Camera to table: markers, homography, lens, the calibration procedure."""
