"""Measuring a calibrated table's readings on rendered tables."""
