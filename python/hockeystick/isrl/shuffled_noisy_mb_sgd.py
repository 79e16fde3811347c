"""Paper 003's shuffled Noisy MB-SGD (Thm 5.1 / G.1): central DP of R shuffled rounds of M silo messages.

Each round every one of the M participating silos sends its Noisy MB-SGD message (K draws with
replacement from its n records, mean of gradients clipped to L, plus N(0, sigma^2 I)); a shuffler
permutes the M messages.  Replace one record of one silo (the target silo).  Per round
(``shuffle_approximate`` step by step, paper 003 Thm D.5's proof with FMT's clone pair evaluated
exactly):

- the target silo's message is (eps0, delta0)-DP in its record: eps0(delta0) from the certified
  one-round with-replacement PLD (``pld.WithReplacementBatchGaussianPLD``, rounds = 1);
- every other silo's message N(m_X, sigma^2 I), ||m_X|| <= L, is (eps_ref,
  delta_ref)-indistinguishable from the target's two messages, hence from their mixture: delta_ref =
  theta(2L/sigma, eps_ref) (paper 000 eq. 6; where paper 003 Lemma D.9 uses group privacy, (n eps0,
  n e^{(n-1) eps0} delta0));
- so the round is (eps_r, delta_r)-DP with delta_r = min over a grid of (delta0, delta_ref) of

      clone_delta(eps0, M, eps_r, e^{-eps_ref}) + TV_P + e^{eps_r} TV_Q   (and delta0 once eps_r >= eps0).

The R rounds compose adaptively (each round's randomizers may depend on the earlier rounds):
each round is a post-processing of the canonical pair of its (eps_r, delta_r) (Kairouz, Oh &
Viswanath, ICML 2015, Thm 2.1), composed exactly as finite atoms (``pld.finite_atoms``: the
optimal composition of R (eps_r, delta_r) guarantees); the bound is the minimum over a grid of
eps_r.  The shuffled transcript is also a post-processing of the unshuffled one, whose record-level
guarantee is the target silo's ISRL-DP (``NoisyMBSGD``); the smaller of the two upper bounds is
reported.  Parameters are scalars (registered through ``registry.PerPoint``).
"""

from __future__ import annotations

import math

import numpy as np

from ..base import validation as _validation
from ..base.accountant import UPPER_ONLY, Bound
from ..base.accountant_docs import accountant_docs
from ..base.elementwise import ArrayLike
from ..numerics.certified_theta import radius_up, theta_epsilon_upper
from ..pld.accountants import WithReplacementBatchGaussianPLD
from ..pld.compose import delta_of_atoms, epsilon_search, self_compose_atoms
from ..pld.mechanisms import DEFAULT_INTERVAL, canonical_pair, pair_atoms
from .noisy_mb_sgd import MAX_DATASET_SIZE, NoisyMBSGD
from .shuffle import clone_delta_curve

__all__ = ["ShuffledNoisyMBSGD"]

_DELTA_GRID = 10.0 ** np.arange(-15.0, -1.0, 1.5)  # delta0 and delta_ref tried per round
_ROUND_GRID = np.geomspace(
    1e-3, 30.0, 241
)  # eps_r tried (ratio 1.044): fixed, so monotone in sigma
_TAIL = 1e-17
_U = 2.0**-53
_TOLERANCE = 1e-6
_MAX_SILOS = 10**6


def _scalar(value: ArrayLike, name: str) -> float:
    arr = np.asarray(value, dtype=np.float64)
    if arr.ndim:
        raise ValueError(
            f"{name} must be a scalar for ShuffledNoisyMBSGD (sweeps build one per point), got shape {arr.shape}"
        )
    return float(arr)


@accountant_docs(
    sides=UPPER_ONLY
)  # completes delta / epsilon docstrings with the contract's sections
class ShuffledNoisyMBSGD:
    r"""Certified central (eps, delta) of paper 003's shuffled Noisy MB-SGD, one record of one silo replaced.

    Per round, M silo messages are shuffled; the target silo's message is :math:`(\epsilon_0,
    \delta_0)`-DP (the certified one-round with-replacement PLD) and every other message is
    :math:`(\epsilon_{\mathrm{ref}}, \delta_{\mathrm{ref}})`-close to its pair, so the round is
    :math:`(\epsilon_r, \delta_r)`-DP with

    .. math::

        \delta_r = \min_{\delta_0, \delta_{\mathrm{ref}}} \mathrm{clone}(\epsilon_0, M, \epsilon_r,
            e^{-\epsilon_{\mathrm{ref}}}) + \mathrm{TV}_P + e^{\epsilon_r}\, \mathrm{TV}_Q

    (and :math:`\delta_0` once :math:`\epsilon_r \ge \epsilon_0`), over fixed grids (docstring of
    ``hockeystick.isrl.shuffled_noisy_mb_sgd``).
    The R rounds compose exactly as finite atoms, minimized over the grid of :math:`\epsilon_r`; the
    smaller of that and the unshuffled :class:`hockeystick.isrl.NoisyMBSGD` bound is reported.

    - ``delta(epsilon, *, bound="upper")``: certified upper bound on delta(epsilon), epsilon >= 0;
    - ``epsilon(delta, *, bound="upper")``: certified upper bound on epsilon(delta), delta in (0,
      1), the shuffled side found by a certified bracketing search (tolerance 1e-6).

    Upper bounds only: ``bound`` other than ``"upper"`` is refused (ValueError).  The argument may
    be an array; a scalar gives a float.

    Parameters
    ----------
    sigma : array_like
        Standard deviation :math:`\sigma` of the Gaussian noise added to each message, a finite
        scalar > 0.
    lipschitz : array_like
        Gradient norm bound L (the clipping norm, or the loss's Lipschitz constant), a finite scalar
        > 0.
    batch_size : array_like
        Draws K per round, with replacement, a whole number >= 1 (scalar).
    silo_size : array_like
        Records n per silo, a whole number in [1, 2^62] (scalar).
    silos : array_like
        Messages M shuffled together per round, a whole number in [2, 10^6] (scalar).
    rounds : array_like
        Number of rounds R, a whole number >= 1 (scalar).
    value_discretization_interval : float, default 1e-4
        Spacing of the privacy-loss grid, in (0, 100]; smaller is tighter and slower.
        All keyword-only; parameters are scalars (sweeps build one accountant per point).

    Attributes
    ----------
    round_guarantees : list of tuple of float
        The :math:`(\epsilon_r, \delta_r)` pairs one shuffled round satisfies (:math:`\delta_r <
        1`).

    Raises
    ------
    ValueError
        A parameter outside its rule above (the message names it), or an array parameter.
    ParameterTypeError
        A parameter that is a string, bool or None.

    References
    ----------
    Paper 003, Theorems 5.1, G.1 and D.5 (its proof); Feldman, McMillan & Talwar 2021, Theorem 3.8;
    Kairouz, Oh & Viswanath 2015, Theorem 2.1; docs/paper-003-errata.md, section 5.

    Examples
    --------
    >>> from hockeystick.isrl import ShuffledNoisyMBSGD
    >>> shuffled = ShuffledNoisyMBSGD(sigma=2.0, lipschitz=1.0, batch_size=10, silo_size=1000, silos=100, rounds=10)
    >>> round(shuffled.epsilon(1e-5), 6)
    0.007949
    """

    def __init__(
        self,
        *,
        sigma: ArrayLike,
        lipschitz: ArrayLike,
        batch_size: ArrayLike,
        silo_size: ArrayLike,
        silos: ArrayLike,
        rounds: ArrayLike,
        value_discretization_interval: float = DEFAULT_INTERVAL,
    ) -> None:
        s = _scalar(_validation.positive(sigma, "sigma"), "sigma")
        lip = _scalar(_validation.positive(lipschitz, "lipschitz"), "lipschitz")
        k = int(_scalar(_validation.positive_integer(batch_size, "batch_size"), "batch_size"))
        n = int(
            _scalar(
                _validation.positive_integer(silo_size, "silo_size", maximum=MAX_DATASET_SIZE),
                "silo_size",
            )
        )
        m = _scalar(_validation.positive_integer(silos, "silos"), "silos")
        if not 2 <= m <= _MAX_SILOS:
            raise ValueError(
                f"silos must lie in [2, {_MAX_SILOS:.0e}] (messages shuffled together; beyond that the "
                f"clone sums are too long: use closed_form_shuffle_epsilon), got {m:g}"
            )
        r = int(_scalar(_validation.positive_integer(rounds, "rounds"), "rounds"))
        self._unshuffled = NoisyMBSGD(
            sigma=s,
            lipschitz=lip,
            batch_size=k,
            silo_size=n,
            rounds=r,
            value_discretization_interval=value_discretization_interval,
        )
        with _validation.derived("lipschitz / batch_size", "sensitivity"):
            one_round = WithReplacementBatchGaussianPLD(
                sigma=s,
                batch_size=k,
                n=n,
                rounds=1,
                sensitivity=lip / k,
                value_discretization_interval=value_discretization_interval,
            )
            eps0 = np.asarray(one_round.epsilon(_DELTA_GRID, bound="upper"), dtype=np.float64)
        eps_ref = np.asarray(
            theta_epsilon_upper(radius_up(2 * lip / s), _DELTA_GRID), dtype=np.float64
        )
        self.round_guarantees = self._round_guarantees(eps0, eps_ref, int(m))
        self._atoms = [
            self_compose_atoms(pair_atoms(*canonical_pair(e, d)), r)
            for e, d in self.round_guarantees
        ]
        self._top = r * max((e for e, _ in self.round_guarantees), default=0.0) + 1.0

    @staticmethod
    def _round_guarantees(
        eps0: np.ndarray, eps_ref: np.ndarray, silos: int
    ) -> list[tuple[float, float]]:
        """(eps_r, delta_r) pairs one shuffled round satisfies (delta_r < 1), on a fixed geometric
        grid of eps_r. rho's weight e^{-eps_ref} in the charge is bounded by 1, so every term moves
        one way with sigma."""
        grid = _ROUND_GRID
        best = np.ones(grid.size)
        growth = np.exp(grid)
        for e0, d0 in zip(eps0, _DELTA_GRID):
            if not math.isfinite(e0):
                continue
            best = np.where(grid >= e0, np.minimum(best, d0), best)
            for e_ref, d_ref in zip(eps_ref, _DELTA_GRID):
                # TV_P + e^eps TV_Q (shuffle_approximate.tv_charge with rho's weight bounded by 1),
                # rounded up
                tv_p = (silos - 1) * (d_ref + d0 / 2)
                charge = (tv_p + growth * (d0 + tv_p)) * (1 + 16 * _U)
                useful = np.flatnonzero(charge < best)  # elsewhere the clone term only adds to it
                if useful.size == 0:
                    continue
                curve = clone_delta_curve(
                    float(e0), silos, grid[useful], _TAIL, clone_probability=math.exp(-e_ref)
                )
                best[useful] = np.minimum(best[useful], np.minimum(1.0, curve + charge[useful]))
        return [(float(e), float(d)) for e, d in zip(grid, best) if d < 1.0]

    def _shuffled_delta(self, eps: np.ndarray) -> np.ndarray:
        out = np.ones(eps.shape)
        for atoms in self._atoms:
            out = np.minimum(out, delta_of_atoms(atoms, eps, True))
        return out

    def delta(self, epsilon: ArrayLike, *, bound: Bound = "upper") -> float | np.ndarray:
        """Certified upper bound on delta(epsilon): the smaller of the shuffled and unshuffled bounds."""
        _validation.upper_only(bound, "ShuffledNoisyMBSGD")
        eps = _validation.epsilon_values(epsilon)
        flat = np.asarray(eps, dtype=np.float64).reshape(-1)
        out = np.minimum(
            self._shuffled_delta(flat), np.asarray(self._unshuffled.delta(flat), dtype=np.float64)
        )
        out = out.reshape(np.shape(eps))
        return float(out) if out.shape == () else out

    def epsilon(self, delta: ArrayLike, *, bound: Bound = "upper") -> float | np.ndarray:
        """Certified upper bound on epsilon(delta): the smaller of the shuffled and unshuffled bounds."""
        _validation.upper_only(bound, "ShuffledNoisyMBSGD")
        dlt = _validation.delta_values(delta)
        flat = np.asarray(dlt, dtype=np.float64).reshape(-1)
        unshuffled = np.asarray(self._unshuffled.epsilon(flat), dtype=np.float64).reshape(-1)
        shuffled = np.array(
            [
                epsilon_search(self._shuffled_delta, float(d), True, self._top, _TOLERANCE)
                if self._atoms
                else math.inf
                for d in flat
            ]
        )
        out = np.minimum(shuffled, unshuffled).reshape(np.shape(dlt))
        return float(out) if out.shape == () else out
