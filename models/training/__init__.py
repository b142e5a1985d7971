"""Training code for the shipped models (extra ``train``: torch, onnx, tqdm); not for run time.

One subpackage per model family: ``dice`` (the pip reader's detector and classifier, and the
real domains they are judged on), ``faces`` (the typed dice's face models), ``enrol`` (the
enrolment embedding); here what they share (networks, export, quantisation, errors).
"""
