"""The shipped ONNX models, their model cards, and the code that trains them."""
