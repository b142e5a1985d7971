"""Camera to table: markers, homography, colour palette, zone layouts, face enrolment."""
