"""The compositions' transforms on one thread through numpy.fft's pocketfft loops, called without the GIL
(cpp/bindings/numpy_fft_loops.hpp): the probe takes them where numpy >= 2 offers them, and threads composing at once
get the masses and charges each composition gets alone, bit for bit (the loops share pocketfft's plan cache).  That
the loops transform as numpy.fft does is the probe's own check; tests/pld/compose/test_pld_fft_backends.py compares the
one-thread compositions they make with scipy.fft's several-thread ones."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import hockeystick.pld as pld
from hockeystick import _core
from hockeystick.pld.compose import fft as pc


def _numpy_has_out() -> bool:
    try:
        np.fft.rfft(np.ones(4), out=np.empty(3, complex))
    except TypeError:
        return False
    return True


def test_the_probe_takes_numpy_s_loops_where_numpy_offers_them():
    in_double, in_long_double = _core.pld_compose.numpy_fft_loops()
    if not _numpy_has_out():
        pytest.skip("numpy < 2: numpy.fft has no pocketfft gufuncs")
    assert in_double
    assert in_long_double == (np.finfo(np.longdouble).nmant >= 63)


def _items() -> list[list[tuple[object, int]]]:
    """Compositions of windows of many FFT lengths (so that threads plan and reuse several lengths at once)."""
    out = []
    for sigma, q, h in ((1.0, 0.01, 1e-3), (0.8, 0.05, 2e-3), (1.5, 0.002, 5e-4)):
        one = pld.subsampled_gaussian(sigma, q, value_discretization_interval=h).composed(True)[0]
        out += [[(one, count)] for count in (7, 60, 333, 1000)]
    return out


@pytest.mark.parametrize("direct_bins", [False, True])
def test_threads_composing_at_once_get_what_each_composition_gets_alone(direct_bins):
    items = _items()

    def composed(item: list[tuple[object, int]]) -> pc.GridPMF:
        return pc.compose_many(
            [item], pessimistic=True, workers=1, direct_bins=direct_bins, direct_min_charge=0.0
        )[0]

    alone = [composed(item) for item in items]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(composed, items * 3))
    for a, t in zip(alone * 3, together, strict=True):
        assert a.k_lo == t.k_lo and np.array_equal(a.p, t.p) and a.p_inf == t.p_inf
        assert (a.entry_error, a.total_error) == (t.entry_error, t.total_error)
