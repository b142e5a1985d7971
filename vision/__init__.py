"""Pixels to dice: OpenCV, numpy, onnxruntime. Imports nothing else of ours.

- ``vision.dice``: reading pip dice in any photo (detector, face classifier, the image
  pyramid, table adaptation);
- ``vision.faces``: die types as data, the faces of typed and enrolled dice;
- ``vision.pieces``: game pieces seen from above (pyramids, cards and their slots);
- ``vision.synth``: rendering scenes, wild tables and look-alikes (training, tests, the
  simulated table) - nothing that reads a table at run time imports it;
- ``vision.measure``: accuracy and speed of the readers;
- here: frames, safe image loading, the settler, the shipped models' files and manifest.
"""
