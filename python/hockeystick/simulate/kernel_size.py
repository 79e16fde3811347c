"""How many of numba's threads a kernel over clients runs on: one, the calling thread, for little work.

A parallel region wakes the thread team and waits for every thread: tens of microseconds on an idle
machine, and milliseconds of CPU on a loaded one, where the woken threads spin before they sleep
again, a hundred times the work of a round on a few hundred samples.  A kernel whose work, the
rows it reads times the model's coefficients, is below ``PARALLEL_MIN_WORK`` runs on one thread
(``numba.set_num_threads``, which sets the calling thread's count).  Every kernel of the simulator
gives the same bits on any number of threads (per-client results, sums in a fixed order), so the
results are bit-identical.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numba

PARALLEL_MIN_WORK = 1 << 16  # rows x coefficients: about 0.1 ms of one thread's work


@contextmanager
def threads_for(rows: int, coefficients: int) -> Iterator[None]:
    """numba's threads for a kernel reading ``rows`` samples of a model of ``coefficients``
    coefficients: one while the block runs where the work is below ``PARALLEL_MIN_WORK`` (the count
    restored after), else as set.

    Parameters
    ----------
    rows : int
        The samples the kernel reads, over all its clients.
    coefficients : int
        The model's coefficients per sample.

    Returns
    -------
    Iterator[None]
        The context: the kernel runs inside it.

    Raises
    ------
    TypeError
        Where an argument is not a number.
    """
    if rows * coefficients >= PARALLEL_MIN_WORK:
        yield
        return
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(before)
