"""Pixels to dice: OpenCV, numpy, onnxruntime. Imports nothing else of ours."""
