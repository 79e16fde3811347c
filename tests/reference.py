"""Independent 50-digit references (mpmath) for the numerics core.

They evaluate the defining formulas directly, with enough working precision to
absorb the cancellation in Q(eps/r - r/2) - e^eps Q(eps/r + r/2): the digits
lost are about log10(eps / r^2) + 2, so 50 digits of result need dps ~ 50 + that.
"""

from __future__ import annotations

import mpmath as mp


def _q(x: mp.mpf) -> mp.mpf:
    return mp.erfc(x / mp.sqrt(2)) / 2


def gaussian_tail(x: float) -> mp.mpf:
    with mp.workdps(50):
        return _q(mp.mpf(x))


def theta(r: float, eps: float) -> mp.mpf:
    """theta_eps(r) = Q(eps/r - r/2) - e^eps Q(eps/r + r/2) (paper 000 eq. 6), 50 digits."""
    r, eps = mp.mpf(r), mp.mpf(eps)
    lost = int(max(0, mp.log10(eps / r**2 + 1) + mp.log10(1 / r + 1))) + 10
    with mp.workdps(50 + lost):
        val = _q(eps / r - r / 2) - mp.exp(eps) * _q(eps / r + r / 2)
    with mp.workdps(50):
        return +val


def laplace_hockey_stick(distance: float, scale: float, eps: float) -> mp.mpf:
    """E_{e^eps}(Lap(0,b) || Lap(d,b)) by integrating (p - e^eps q)_+ numerically."""
    with mp.workdps(40):
        d, b, e = mp.mpf(distance), mp.mpf(scale), mp.mpf(eps)
        p = lambda x: mp.exp(-abs(x) / b) / (2 * b)
        q = lambda x: mp.exp(-abs(x - d) / b) / (2 * b)
        f = lambda x: max(p(x) - mp.exp(e) * q(x), 0)
        kink = (d - e * b) / 2  # where p = e^eps q inside (0, d)
        points = sorted({mp.mpf(0), d, min(max(kink, 0), d)})
        return mp.quad(f, [-mp.inf, *points, mp.inf])
