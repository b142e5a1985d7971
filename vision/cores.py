"""Reading runs on one core: the Raspberry Pi's others serve the camera and the phone."""

from __future__ import annotations

import cv2
from threadpoolctl import threadpool_limits


def use_one_core() -> None:
    """OpenCV's thread pool and numpy's BLAS threads (the face matcher's matrix products,
    :class:`vision.faces.match.WindowBank`) limited to one. On this 2-core machine a second BLAS
    thread made those products no faster with the other core idle (10.2 against 9.3 ms a
    crop, 1.6 times the CPU time) and twice as slow with it busy (19.7-25.0 against 9.7 ms):
    the threads wait for each other."""
    cv2.setNumThreads(1)
    threadpool_limits(1, user_api="blas")
