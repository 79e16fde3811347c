"""Bootstrap quantiles of an estimate (jax_privacy 2.0's BootstrapParams, with the same draws).

Each side's scores are resampled with replacement to their own size, the estimate recomputed, and
quantiles of the estimates returned: with ``bias_correction`` (the default, as jax_privacy's),
Efron's bias-corrected quantiles Phi(z0 + (z0 + z_q) / (1 - a (z0 + z_q))) (Efron 1987), z0 = Phi^-1
of the share of estimates below the full sample's (Laplace-smoothed: (count + 1) / (samples + 2)),
and with ``acceleration`` a from the jackknife (each canary left out in turn, in-canaries first).  A
quantile of the estimate, not a confidence bound on the true epsilon: ``epsilon_clopper_pearson``
and the one-run audits are the bounds.  The draws follow jax_privacy's: a generator seeded with
``seed`` draws one seed below 2^63 - 1 per sample; each sample's generator draws the in-canaries'
scores, then the out-canaries', from the scores in the order given.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base import validation as _validation
from ._checks import seed_value
from .scores import Scores, as_scores

__all__ = ["BootstrapParams", "bootstrap"]


@dataclass(frozen=True)
class BootstrapParams:
    r"""Set how a bootstrap resamples an estimate and which quantiles of it it returns (jax_privacy's).

    Each side's scores are resampled with replacement to their own size ``num_samples`` times and
    the estimate recomputed. With ``bias_correction`` the quantile q is read at Efron's
    bias-corrected level

    .. math::

        \Phi\Bigl(z_0 + \frac{z_0 + z_q}{1 - a (z_0 + z_q)}\Bigr), \qquad
        z_0 = \Phi^{-1}\Bigl(\frac{\#\{\hat\theta^*_b < \hat\theta\} + 1}{B + 2}\Bigr),

    :math:`z_q = \Phi^{-1}(q)`, a = 0 unless ``acceleration`` (then the jackknife's, each canary
    left out in turn). The draws are jax_privacy's: a generator seeded with ``seed`` draws one seed
    below 2^63 - 1 per resample, whose generator draws the in-canaries' scores, then the
    out-canaries'. A quantile of the estimate, not a confidence bound on the true epsilon.

    Parameters
    ----------
    num_samples : int, optional
        Resamples B, an integer >= 1 (default 1000).
    quantiles : tuple of float, optional
        Quantiles of the estimates, each in (0, 1), at least one (default (0.025, 0.975)).
    bias_correction : bool, optional
        Efron's bias correction (default True, as jax_privacy's).
    acceleration : bool, optional
        The jackknife's acceleration too (default False; needs ``bias_correction``; one more
        estimate per canary).
    seed : int or None, optional
        The outer generator's seed, an integer >= 0 (default None: fresh entropy).

    Raises
    ------
    ValueError
        If ``num_samples`` is not an integer >= 1, ``quantiles`` is empty or holds a value outside
        (0, 1), ``seed`` is negative, or ``acceleration`` is True without
        ``bias_correction``.
    ParameterTypeError
        If a number is given as a string, a boolean or None (but ``seed=None``), ``seed`` is not an
        integer, or ``bias_correction`` or ``acceleration`` is not a boolean.

    References
    ----------
    Efron 1987 (bias-corrected and accelerated bootstrap quantiles).

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick import audit
    >>> rng = np.random.default_rng(0)
    >>> auditor = audit.Auditor(rng.normal(1.0, 1.0, 5000), rng.normal(0.0, 1.0, 5000))
    >>> params = audit.BootstrapParams(num_samples=200, seed=1)
    >>> [round(float(v), 5) for v in auditor.attack_auroc(bootstrap_params=params)]
    [0.74612, 0.76481]
    """

    num_samples: int = 1000
    quantiles: tuple[float, ...] = (0.025, 0.975)
    bias_correction: bool = True
    acceleration: bool = False
    seed: int | None = None

    def __post_init__(self) -> None:
        _validation.count(self.num_samples, "num_samples", minimum=1)
        q = _validation.in_interval(
            self.quantiles, "quantiles", 0.0, 1.0, open_low=True, open_high=True
        )
        if q.size == 0:
            raise ValueError("quantiles must hold at least one quantile, e.g. (0.025, 0.975)")
        seed_value(self.seed)
        corrected = _validation.flag(self.bias_correction, "bias_correction")
        if _validation.flag(self.acceleration, "acceleration") and not corrected:
            raise ValueError(
                "acceleration needs bias_correction=True (the accelerated quantiles correct the bias first)"
            )

    @classmethod
    def confidence_interval(
        cls, num_samples: int = 1000, confidence: float = 0.95, seed: int | None = None
    ) -> BootstrapParams:
        """The quantiles (1 - confidence) / 2 and (1 + confidence) / 2.

        Parameters
        ----------
        num_samples : int
            Resamples.
        confidence : float
            In (0, 1).
        seed : int or None
            The outer generator's seed.

        Returns
        -------
        BootstrapParams
            The parameters.
        """
        c = float(
            _validation.in_interval(
                _validation.single(confidence, "confidence"),
                "confidence",
                0.0,
                1.0,
                open_low=True,
                open_high=True,
            )
        )
        return cls(num_samples=num_samples, quantiles=((1 - c) / 2, 1 - (1 - c) / 2), seed=seed)


def bootstrap(
    scores: Any,
    statistic: Callable[[Scores], float],
    params: BootstrapParams,
    out_scores: Any = None,
) -> np.ndarray:
    """Compute bootstrap quantiles of ``statistic`` over resamples of the canary scores.

    ``params.num_samples`` resamples (each side with replacement to its own size, drawn as
    ``BootstrapParams`` states), the quantiles ``params.quantiles`` of the statistic over them, read
    by numpy's linear interpolation at the (bias-corrected, with ``params.bias_correction``) levels.

    Parameters
    ----------
    scores : Scores or array_like
        The canary scores (``Scores``), or the held-in scores with ``out_scores``.
    statistic : callable
        A function of a ``Scores`` returning a number (e.g. ``audit.auroc``).
    params : BootstrapParams
        Resamples, quantiles and seed.
    out_scores : array_like, optional
        The held-out scores when ``scores`` is an array.

    Returns
    -------
    numpy.ndarray
        The quantiles, in the order asked (float64).

    Raises
    ------
    ParameterTypeError
        If ``params`` is not a ``BootstrapParams`` or ``statistic`` is not callable.
    ValueError
        If the scores are refused (``as_scores``).

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick import audit
    >>> rng = np.random.default_rng(0)
    >>> scores = audit.as_scores(rng.normal(1.0, 1.0, 5000), rng.normal(0.0, 1.0, 5000))
    >>> quantiles = audit.bootstrap(scores, audit.auroc, audit.BootstrapParams(num_samples=200, seed=1))
    >>> [round(float(v), 5) for v in quantiles]
    [0.74612, 0.76481]
    """
    if not isinstance(params, BootstrapParams):
        raise _validation.ParameterTypeError(
            f"bootstrap_params must be a hockeystick.audit.BootstrapParams, got {_validation.describe(params)}"
        )
    if not callable(statistic):
        raise _validation.ParameterTypeError(
            "statistic must be a function of a Scores returning a number (e.g. hockeystick.audit.auroc), got "
            f"{_validation.describe(statistic)} ({type(statistic).__name__})"
        )
    data = as_scores(scores, out_scores)
    held_in, held_out = data.order_given
    outer = np.random.default_rng(params.seed)
    seeds = outer.integers(np.iinfo(np.int64).max, size=params.num_samples)
    values = np.empty(params.num_samples)
    for i, seed in enumerate(seeds):
        inner = np.random.default_rng(seed)
        drawn_in = inner.choice(held_in, size=held_in.size)
        drawn_out = inner.choice(held_out, size=held_out.size)
        values[i] = statistic(data.subset(drawn_in, drawn_out))
    asked = np.asarray(params.quantiles, dtype=np.float64)
    if not params.bias_correction:
        return np.asarray(np.quantile(values, asked, method="linear"))
    from scipy import special  # lazy: scipy loads at its first use, not with the package

    full = statistic(data)
    z0 = special.ndtri((np.sum(values < full) + 1) / (params.num_samples + 2))
    accel = _acceleration(data, statistic) if params.acceleration else 0.0
    z = z0 + special.ndtri(asked)
    return np.asarray(
        np.quantile(values, special.ndtr(z0 + z / (1.0 - accel * z)), method="linear")
    )


def _acceleration(data: Scores, statistic: Callable[[Scores], float]) -> float:
    """The jackknife's acceleration: sum (mean - e_i)^3 / (6 (sum (mean - e_i)^2)^1.5) over the
    estimates e_i with one canary left out (0 where they all agree)."""
    held_in, held_out = data.order_given
    estimates = [
        statistic(data.subset(np.delete(held_in, i), held_out)) for i in range(held_in.size)
    ]
    estimates += [
        statistic(data.subset(held_in, np.delete(held_out, i))) for i in range(held_out.size)
    ]
    e = np.asarray(estimates)
    spread = np.mean(e) - e
    denominator = 6.0 * float(np.sum(spread**2)) ** 1.5
    return 0.0 if denominator == 0.0 else float(np.sum(spread**3)) / denominator
