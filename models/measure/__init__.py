"""Measurement scripts: the shipped models and readers measured on rendered photos and
tables (`python -m models.measure.<script>`), apart from the product packages, which never
import them (tests/test_layers.py)."""
