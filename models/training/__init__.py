"""Training code for the shipped models (extra ``train``: torch, onnx, tqdm); not for run time."""
