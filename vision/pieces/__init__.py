"""Game pieces seen from above: pyramids, cards and their slots."""
