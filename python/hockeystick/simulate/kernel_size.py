"""Whether a numba kernel over clients runs on numba's thread team or in the calling thread.

A parallel region wakes the thread team and waits for every thread: tens of microseconds on an idle
machine, and milliseconds of CPU on a loaded one, where the woken threads spin before they sleep
again, a hundred times the work of a round on a few hundred samples.  A kernel whose work, the
rows it reads times the model's coefficients, is below ``PARALLEL_MIN_WORK`` runs its serial twin
instead: each client's result is computed by the same compiled function from the same inputs, so
the results are bit-identical.
"""

from __future__ import annotations

PARALLEL_MIN_WORK = 1 << 16  # rows x coefficients: about 0.1 ms of one thread's work


def runs_serially(rows: int, coefficients: int) -> bool:
    """Whether a kernel reading ``rows`` samples of a model of ``coefficients`` coefficients runs in
    the calling thread (its work below ``PARALLEL_MIN_WORK``).

    Parameters
    ----------
    rows : int
        The samples the kernel reads, over all its clients.
    coefficients : int
        The model's coefficients per sample.

    Returns
    -------
    bool
        True where the work is below ``PARALLEL_MIN_WORK``.

    Raises
    ------
    TypeError
        Where an argument is not a number.
    """
    return rows * coefficients < PARALLEL_MIN_WORK
