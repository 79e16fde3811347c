"""The Poisson-sampled Gaussian under replace-one (substitution): an exact dominating pair, certified both sides.

Setting.  Each record moves the released function by at most 1 in L2 (its add/remove sensitivity:
||f(S + {x}) - f(S)|| <= 1, e.g. a clipped sum), each record is in the batch with probability q,
independently, and N(0, sigma^2 I) is added.  Neighbours D = D0 + {x}, D' = D0 + {y}.  Coupling the
batches (the slot of x in D and of y in D' drawn together, the others alike), with S the others'
batch:
    M(D) = E_S[(1 - q) mu_0 + q mu_1],  M(D') = E_S[(1 - q) mu_0 + q mu_1'],
mu_0 = N(f(S)), mu_1 = N(f(S + {x})), mu_1' = N(f(S + {y})).

Theorem.  P = (1 - q) N(0, sigma^2) + q N(1, sigma^2) and Q = (1 - q) N(0, sigma^2) + q N(-1,
sigma^2) (scalar contributions +1 and -1, the others 0: realizable) dominate M(D), M(D') in every
dimension: H_g(M(D) || M(D')) <= H_g(P || Q) for every g = e^eps > 0, so the pair composes
adaptively (Zhu, Dong & Wang 2022, Thm 10).  Proof, for g >= 1:

1. Joint convexity over S, then translation by -f(S): the pair ((1 - q) N_0 + q N_u, (1 - q) N_0 + q
   N_v) with ||u||, ||v|| <= 1 (N_m = N(m, sigma^2 I)).
2. Advanced joint convexity (Balle, Barthe & Gaboardi 2018, Thm 2, an identity): with alpha = 1 +
   (g - 1)/q, beta = g/alpha, its H_g is q F(u, v), F(u, v) = int (phi_u - a phi_0 - b phi_v)_+, a =
   alpha (1 - beta) >= 0, b = g.
3. With Z = u + sigma xi, xi ~ N(0, I): F(u, v) = E[(1 - a e^{-A} - b e^{-B})_+], A = ||s||^2/2 +
   <s, xi>, B = ||t||^2/2 + <t, xi>, s = u / sigma, t = (u - v) / sigma (the log-ratios phi_0/phi_u
   and phi_v/phi_u at Z).  k(A, B) = h(-a e^{-A} - b e^{-B}), h(w) = (1 + w)_+ convex, is
   supermodular (a convex function of a sum of increasing functions), bounded and continuous, so
   over all couplings of the normal marginals of A and B its mean is largest for the comonotone one
   (Cambanis, Simons & Stout 1976, Thm 1; Tchen 1980): t turned parallel to s, same norms.  That
   keeps ||u|| and makes
   ||v'|| = | ||u|| - ||u - v|| | <= ||v||, a configuration on one line.
4. On the line (A = m^2/2 + m W, B = n^2/2 + n W, W ~ N(0, 1), m = ||u|| / sigma <= 1 / sigma, n =
   ||u - v|| / sigma <= 2 / sigma) the integrand is increasing in W, so F = sup_c [Qbar(c) - a
   Qbar(c + m) - b Qbar(c + n)] (Qbar the normal tail), increasing in m and n: at most its value at
   m = 1/sigma, n = 2/sigma, which is u = 1, v = -1: the pair (P, Q).
For g < 1: H_g(X || Y) = 1 - g + g H_{1/g}(Y || X), (D', D) is a neighbouring pair too and (P, Q) is
symmetric (reflection swaps P and Q), so the bound carries over.

The loss log P/Q is increasing in the output (numerator increasing, denominator decreasing), so the
core's monotone discretizer (cpp/include/hockeystick/pld/mechanisms/replace_one_mixture.hpp over
monotone.hpp) cuts the pair, one atom per loss cell, with certified pessimistic and optimistic sides
on [-1 - z sigma, 1 + z sigma], z = Q^{-1}(tail / 4); symmetric: one direction.  It is the pair
dp_accounting's PLD accountant composes under ``REPLACE_ONE``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ... import _core
from ..grid.distribution import PrivacyLossDistribution
from ..grid.tail import DEFAULT_TAIL
from ..mechanisms.constructors import (
    DEFAULT_INTERVAL,
    MAX_CELLS,
    _positive,
    checked_interval,
    checked_tail,
)
from ..mechanisms.mechanism import Mechanism
from ..mechanisms.monotone import core_side_factor


def poisson_replace_one_gaussian(
    sigma: float,
    sampling_rate: float,
    *,
    value_discretization_interval: float = DEFAULT_INTERVAL,
    tail: float = DEFAULT_TAIL,
) -> PrivacyLossDistribution:
    """The Poisson-sampled Gaussian (noise multiplier sigma, rate q in (0, 1)) under replace-one:
    the dominating pair of the module docstring, certified both sides; one direction."""
    sd = _positive("sigma", sigma)
    q = float(sampling_rate)
    if not 0.0 < q < 1.0:
        raise ValueError(
            f"sampling_rate must lie in (0, 1) (0 releases nothing, 1 is the Gaussian of shift 2), got {sampling_rate!r}"
        )
    h = checked_interval(value_discretization_interval)
    t = checked_tail(tail)
    remove, _ = _core.pld_sampling.replace_one_mixture(
        sigma=sd, sampling_rate=q, tail=t, h=h, max_cells=MAX_CELLS
    )
    name = f"poisson_replace_one_gaussian(sigma={sd}, q={q}), remove"
    return PrivacyLossDistribution([{core_side_factor(name, remove): 1}], t)


@dataclass(frozen=True)
class PoissonReplaceOneGaussian(Mechanism):
    """The Poisson-sampled Gaussian (noise sigma, rate q) under replace-one: P = (1 - q) N(0) + q
    N(1) vs Q = (1 - q) N(0) + q N(-1), realizable and dominating in every dimension (the theorem of
    the module docstring, by advanced joint convexity, Balle, Barthe & Gaboardi 2018, Thm 2); one
    direction."""

    name: ClassVar[str] = "poisson_replace_one_gaussian"
    sigma: float
    q: float

    def grid_pld(self, h: float) -> PrivacyLossDistribution:
        return poisson_replace_one_gaussian(self.sigma, self.q, value_discretization_interval=h)
