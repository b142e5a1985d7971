"""Rendering a calibrated table as a camera sees it (the simulated table, tests)."""
