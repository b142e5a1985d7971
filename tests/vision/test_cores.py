"""Reading keeps to one core."""

from __future__ import annotations

import cv2
from threadpoolctl import threadpool_info, threadpool_limits

from vision.cores import use_one_core


def test_one_core_limits_opencv_and_blas():
    with threadpool_limits(limits=None):  # restores what the other tests had
        cv2.setNumThreads(2)
        use_one_core()
        assert cv2.getNumThreads() == 1
        blas = [p for p in threadpool_info() if p["user_api"] == "blas"]
        assert blas and all(p["num_threads"] == 1 for p in blas)
