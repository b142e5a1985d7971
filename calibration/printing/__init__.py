"""The printed mat: drawing, tiling onto sheets, PDF."""
