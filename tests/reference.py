"""Independent 50-digit references (mpmath) for the numerics core.

They evaluate the defining formulas directly, with enough working precision to
absorb the cancellation in Q(eps/r - r/2) - e^eps Q(eps/r + r/2): the digits
lost are about log10(eps / r^2) + 2, so 50 digits of result need dps ~ 50 + that.
"""

from __future__ import annotations

import itertools

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


def exponential_law(scores: list[float], epsilon: float, scale: float = 2) -> list[mp.mpf]:
    """The exponential mechanism's output law, P(r) proportional to exp(epsilon score_r / scale), at the working
    precision."""
    w = [mp.e ** (mp.mpf(epsilon) * mp.mpf(s) / scale) for s in scores]
    total = mp.fsum(w)
    return [x / total for x in w]


def permute_and_flip_law(scores: list[float], epsilon: float) -> list[mp.mpf]:
    """Permute-and-flip's output law (McKenna & Sheldon 2020), every order of the candidates enumerated, at the
    working precision."""
    k, top = len(scores), max(scores)
    accept = [mp.e ** (mp.mpf(epsilon) * (mp.mpf(s) - top) / 2) for s in scores]
    out = [mp.mpf(0)] * k
    orders = list(itertools.permutations(range(k)))
    for order in orders:
        reach = mp.mpf(1)
        for r in order:
            out[r] += reach * accept[r] / len(orders)
            reach *= 1 - accept[r]
    return out
