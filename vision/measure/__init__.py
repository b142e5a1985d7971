"""Measuring the readers: accuracy on labelled photos and renders, speed."""
