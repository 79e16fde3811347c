"""The compositions' FFT backend (cpp/bindings/register_pld_compose.cpp): numpy.fft's pocketfft for the transforms
that run on one thread, scipy.fft's for those that use several.  Both wrap the same C++ pocketfft, so the choice
never changes a mass: checked here bit for bit at every FFT length family the compositions use (``fft_length``),
in double and in long double, and on compositions made each way.  A process whose transforms all run on one thread
never imports scipy."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import hockeystick.pld as pld
from hockeystick import _core
from hockeystick.pld.compose import fft as pc

scipy_fft = pytest.importorskip("scipy.fft")

# every length family fft_length gives (2^a f, f in {1, 9/8, 5/4, 45/32, 3/2, 27/16, 15/8}) at a few scales
LENGTHS = sorted(
    {pc.fft_length(w) for w in (10, 77, 300, 1000, 4100, 20_000, 100_000, 300_000)}
    | {144, 160, 180}
)


def _numpy_has_out() -> bool:
    try:
        np.fft.rfft(np.ones(4), out=np.empty(3, complex))
    except TypeError:
        return False
    return True


pytestmark = pytest.mark.skipif(
    not _numpy_has_out(), reason="numpy.fft takes no out= (numpy < 2): scipy.fft only"
)


@pytest.mark.parametrize("n", LENGTHS)
def test_numpy_and_scipy_transform_bit_for_bit_in_double(n):
    x = np.random.default_rng(n).random((3, n))
    spectrum = np.fft.rfft(x, axis=-1)
    assert np.array_equal(spectrum, scipy_fft.rfft(x, axis=-1, workers=1))
    assert np.array_equal(
        np.fft.irfft(spectrum, n=n, axis=-1), scipy_fft.irfft(spectrum, n=n, axis=-1, workers=1)
    )


@pytest.mark.parametrize("n", LENGTHS)
def test_numpy_and_scipy_transform_bit_for_bit_in_long_double(n):
    if np.finfo(np.longdouble).nmant < 63:
        pytest.skip("numpy's longdouble is not an 80-bit long double here: no long-double bins")
    x = np.random.default_rng(n).random((2, n)).astype(np.longdouble)
    ours, theirs = np.fft.rfft(x, axis=-1), scipy_fft.rfft(x, axis=-1, workers=1)
    assert ours.dtype == theirs.dtype == np.clongdouble
    assert np.array_equal(ours, theirs)


def test_a_batch_on_several_threads_composes_what_each_item_alone_composes():
    """Four items of one FFT length share a four-row transform (scipy.fft, all cores: 4 rows, enough for two
    threads, of 122,880 points, past the threads' least size); each alone is a one-row transform (numpy.fft):
    the same masses and charges."""
    a = pld.subsampled_gaussian(1.0, 0.01, value_discretization_interval=1e-4).composed(True)[0]
    items = [[(a, count)] for count in (300, 301, 302, 303)]
    batch = pc.compose_many(items, pessimistic=True, workers=None)
    alone = [pc.compose_many([item], pessimistic=True, workers=None)[0] for item in items]
    assert len({pc.fft_length(b.p.size) for b in batch}) == 1
    for b, s in zip(batch, alone, strict=True):
        assert b.k_lo == s.k_lo and np.array_equal(b.p, s.p) and b.p_inf == s.p_inf
        assert (b.entry_error, b.total_error) == (s.entry_error, s.total_error)


def test_long_double_bins_are_pocketfft_s_transform():
    if np.finfo(np.longdouble).nmant < 63:
        pytest.skip("numpy's longdouble is not an 80-bit long double here: no long-double bins")
    masses = np.random.default_rng(3).random(1000)
    masses /= masses.sum()
    m = pc.fft_length(1000)
    values, *_ = _core.pld_compose.long_fft_bins(masses, m=m)
    folded = np.zeros(m, dtype=np.longdouble)
    np.add.at(folded, np.arange(masses.size) % m, masses.astype(np.longdouble))
    assert np.array_equal(values, scipy_fft.rfft(folded, workers=1))


def test_one_thread_compositions_import_no_scipy():
    """A one-row composition, its long-double bins included, a batch of rows too small to share among threads
    (2 x 12,288 points) and one of too few rows to share (pocketfft gives each thread two rows or more: 2 x 122,880
    points on two workers), in a fresh interpreter: scipy stays unloaded."""
    code = (
        "import sys, json\n"
        "import hockeystick.pld as pld\n"
        "from hockeystick.pld.compose import fft as pc\n"
        "d = pld.subsampled_gaussian(1.1, 256 / 60000).self_compose(14100)\n"
        "one = pld.subsampled_gaussian(1.1, 256 / 60000).composed(True)[0]\n"
        "long = pc.compose_many([[(one, 5000)]], pessimistic=True, direct_bins=True, direct_min_charge=0.0)[0]\n"
        "a = pld.subsampled_gaussian(1.0, 0.01, value_discretization_interval=1e-3).composed(True)[0]\n"
        "pc.compose_many([[(a, 300)], [(a, 301)]], pessimistic=True, workers=None)\n"
        "wide = pld.subsampled_gaussian(1.0, 0.01, value_discretization_interval=1e-4).composed(True)[0]\n"
        "pc.compose_many([[(wide, 300)], [(wide, 301)]], pessimistic=True, workers=2)\n"
        "import numpy as np\n"
        "from hockeystick import _core\n"
        "_core.pld_compose.long_fft_bins(np.full(100, 0.01), m=120)\n"
        "print(json.dumps([d.epsilon(1e-5), long.p.size > 0,"
        " sorted(m for m in sys.modules if m == 'scipy' or m.startswith('scipy.'))]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    epsilon, composed, scipy_modules = json.loads(done.stdout.splitlines()[-1])
    assert 2.3 < epsilon < 2.5 and composed
    assert scipy_modules == []
