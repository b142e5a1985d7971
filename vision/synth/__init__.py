"""Rendering dice scenes, wild tables and look-alikes (training, tests, the simulated table)."""
