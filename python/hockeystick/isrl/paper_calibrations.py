"""Paper 003's noise calibrations as written (Lowy & Razaviyayn, "Private federated learning
without a trusted server", ISRL-DP): paper formulas, not guarantees.

Each function evaluates one of the paper's prescriptions with numpy broadcasting and enforces the
validity range the paper states (a ValueError outside it).  Whether the prescribed noise really
gives the stated (eps0, delta0) is a separate question, answered by
:class:`hockeystick.isrl.NoisyMBSGD` (certified PLD accounting of the same silo transcript);
docs/paper-003-errata.md compares the two: the theory calibrations are valid but about 5 times too
noisy, App. I's is false for eps >= 1.5.

Symbols: L the Lipschitz constant (gradient norm bound), R rounds, n records per silo, K the
per-round batch drawn with replacement, (eps0, delta0) the ISRL-DP target.
"""

from __future__ import annotations

import numpy as np

from ..base.elementwise import ArrayLike, FloatOrArray, broadcast_float_arrays

__all__ = [
    "theorem_2_1_sigma",
    "theorem_2_1_batch_size",
    "appendix_i_sigma",
    "appendix_i_batch_size",
    "theorem_3_1_sigma",
    "theorem_3_1_rounds",
    "user_level_group_privacy",
    "theorem_d5_round",
]


def _finite_positive(**named: np.ndarray) -> None:
    for name, values in named.items():
        bad = ~(np.isfinite(values) & (values > 0))
        if np.any(bad):
            raise ValueError(f"{name} must be finite and > 0, got {values[bad].ravel()[0]:g}")


def _delta(delta: np.ndarray, name: str = "delta") -> None:
    bad = ~((delta > 0) & (delta < 1))
    if np.any(bad):
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {delta[bad].ravel()[0]:g}")


def _integers(**named: np.ndarray) -> None:
    for name, values in named.items():
        bad = ~(np.isfinite(values) & (values >= 1) & (values == np.floor(values)))
        if np.any(bad):
            raise ValueError(f"{name} must be an integer >= 1, got {values[bad].ravel()[0]:g}")


def _out(values: np.ndarray, scalar: bool) -> FloatOrArray:
    return float(values) if scalar else values


def theorem_2_1_sigma(
    *,
    lipschitz: ArrayLike,
    rounds: ArrayLike,
    silo_size: ArrayLike,
    epsilon: ArrayLike,
    delta: ArrayLike,
) -> FloatOrArray:
    r"""Noisy MB-SGD's noise standard deviation by Theorem 2.1 / D.1 (paper formula, not a guarantee).

    .. math::

        \sigma^2 = \frac{256\, L^2 R \ln(2.5 R / \delta_0) \ln(2 / \delta_0)}{n^2 \epsilon_0^2},

    valid as stated for :math:`\epsilon_0 \le 2 \ln(2 / \delta_0)` and
    :math:`K \ge` :func:`hockeystick.isrl.theorem_2_1_batch_size`.  Per silo (Theorem H.1), pass
    arrays of silo sizes and targets.  Certified values for the same transcript:
    :class:`hockeystick.isrl.NoisyMBSGD`.

    Parameters
    ----------
    lipschitz : array_like
        Lipschitz constant L of the loss (the per-record gradient norm bound), finite and > 0.
    rounds : array_like
        Number of rounds R, a whole number >= 1.
    silo_size : array_like
        Number of records n per silo, a whole number >= 1.
    epsilon : array_like
        The ISRL-DP target :math:`\epsilon_0`, finite and > 0.
    delta : array_like
        The ISRL-DP target :math:`\delta_0`, strictly between 0 and 1.
        All keyword-only; they broadcast together.

    Returns
    -------
    float or numpy.ndarray
        :math:`\sigma`, in the units of ``lipschitz``: a float for scalar input, else an array of
        the broadcast shape.

    Raises
    ------
    ValueError
        ``lipschitz`` or ``epsilon`` not finite and > 0, ``rounds`` or ``silo_size`` not a whole
        number >= 1, ``delta`` outside (0, 1), or :math:`\epsilon_0 > 2 \ln(2/\delta_0)`.
    ParameterTypeError
        An argument that is a string, bool or None.

    References
    ----------
    Paper 003, Theorems 2.1, D.1 and H.1; docs/paper-003-errata.md, section 3.

    Examples
    --------
    >>> from hockeystick.isrl import theorem_2_1_sigma
    >>> round(theorem_2_1_sigma(lipschitz=1, rounds=100, silo_size=1000, epsilon=1, delta=1e-6), 6)
    2.679957
    """
    (lip, r, n, eps, dlt), _, scalar = broadcast_float_arrays(
        lipschitz=lipschitz, rounds=rounds, silo_size=silo_size, epsilon=epsilon, delta=delta
    )
    _finite_positive(lipschitz=lip, epsilon=eps)
    _integers(rounds=r, silo_size=n)
    _delta(dlt)
    over = eps > 2 * np.log(2 / dlt)
    if np.any(over):
        raise ValueError(
            f"epsilon must be <= 2 ln(2/delta) for Theorem 2.1, got {eps[over].ravel()[0]:g} "
            f"(limit {2 * np.log(2 / dlt[over].ravel()[0]):g})"
        )
    return _out(
        np.sqrt(256 * lip**2 * r * np.log(2.5 * r / dlt) * np.log(2 / dlt)) / (n * eps), scalar
    )


def theorem_2_1_batch_size(
    *, rounds: ArrayLike, silo_size: ArrayLike, epsilon: ArrayLike, delta: ArrayLike
) -> FloatOrArray:
    r"""The smallest batch size Theorem 2.1 / D.1 allows (paper formula, not a guarantee).

    .. math::

        K = \max\Big(1, \Big\lceil \frac{\epsilon_0 n}{4 \sqrt{2 R \ln(2/\delta_0)}} \Big\rceil\Big).

    Parameters
    ----------
    rounds : array_like
        Number of rounds R, a whole number >= 1.
    silo_size : array_like
        Number of records n per silo, a whole number >= 1.
    epsilon : array_like
        The ISRL-DP target :math:`\epsilon_0`, finite and > 0.
    delta : array_like
        The ISRL-DP target :math:`\delta_0`, strictly between 0 and 1.
        All keyword-only; they broadcast together.

    Returns
    -------
    float or numpy.ndarray
        K, a whole number (as a float, or a float array for array input).

    Raises
    ------
    ValueError
        ``epsilon`` not finite and > 0, ``rounds`` or ``silo_size`` not a whole number >= 1, or
        ``delta`` outside (0, 1).
    ParameterTypeError
        An argument that is a string, bool or None.

    References
    ----------
    Paper 003, Theorems 2.1 and D.1.

    Examples
    --------
    >>> from hockeystick.isrl import theorem_2_1_batch_size
    >>> theorem_2_1_batch_size(rounds=100, silo_size=1000, epsilon=1, delta=1e-6)
    5.0
    """
    (r, n, eps, dlt), _, scalar = broadcast_float_arrays(
        rounds=rounds, silo_size=silo_size, epsilon=epsilon, delta=delta
    )
    _finite_positive(epsilon=eps)
    _integers(rounds=r, silo_size=n)
    _delta(dlt)
    return _out(np.maximum(1.0, np.ceil(eps * n / (4 * np.sqrt(2 * r * np.log(2 / dlt))))), scalar)


def appendix_i_sigma(
    *,
    lipschitz: ArrayLike,
    rounds: ArrayLike,
    silo_size: ArrayLike,
    epsilon: ArrayLike,
    delta: ArrayLike,
    local_steps: ArrayLike = 1,
) -> FloatOrArray:
    r"""The noise standard deviation of paper 003's experiments (App. I), as printed: false as a rule once eps >= 1.5.

    .. math::

        \sigma^2 = \frac{8 L^2 \ln(1/\delta) R K_{\mathrm{local}}}{n^2 \epsilon^2},

    "by Theorem 1 of Abadi et al. (2016)", with :math:`K_{\mathrm{local}}` = ``local_steps`` for
    ISRL-DP local SGD (App. I, last paragraph) and 1 for MB-SGD.  A paper formula, not a guarantee:
    for L-Lipschitz losses it does not give the stated (eps, delta) once eps >= 1.5
    (docs/paper-003-errata.md, section 3).

    Parameters
    ----------
    lipschitz : array_like
        Lipschitz constant L of the loss (the per-record gradient norm bound), finite and > 0.
    rounds : array_like
        Number of rounds R, a whole number >= 1.
    silo_size : array_like
        Number of records n per silo, a whole number >= 1.
    epsilon : array_like
        The target :math:`\epsilon`, finite and > 0.
    delta : array_like
        The target :math:`\delta`, strictly between 0 and 1.
    local_steps : array_like, default 1
        Local steps :math:`K_{\mathrm{local}}` per round, a whole number >= 1.  All keyword-only;
        they broadcast together.

    Returns
    -------
    float or numpy.ndarray
        :math:`\sigma`, in the units of ``lipschitz``: a float for scalar input, else an array.

    Raises
    ------
    ValueError
        ``lipschitz`` or ``epsilon`` not finite and > 0, ``rounds``, ``silo_size`` or
        ``local_steps`` not a whole number >= 1, or ``delta`` outside (0, 1).
    ParameterTypeError
        An argument that is a string, bool or None.

    References
    ----------
    Paper 003, Appendix I; Abadi et al. 2016, Theorem 1; docs/paper-003-errata.md, section 3.

    Examples
    --------
    >>> from hockeystick.isrl import appendix_i_sigma
    >>> round(appendix_i_sigma(lipschitz=1, rounds=100, silo_size=1000, epsilon=1, delta=1e-6), 6)
    0.10513
    """
    (lip, r, n, eps, dlt, k), _, scalar = broadcast_float_arrays(
        lipschitz=lipschitz,
        rounds=rounds,
        silo_size=silo_size,
        epsilon=epsilon,
        delta=delta,
        local_steps=local_steps,
    )
    _finite_positive(lipschitz=lip, epsilon=eps)
    _integers(rounds=r, silo_size=n, local_steps=k)
    _delta(dlt)
    return _out(np.sqrt(8 * lip**2 * np.log(1 / dlt) * r * k) / (n * eps), scalar)


def appendix_i_batch_size(
    *, rounds: ArrayLike, silo_size: ArrayLike, epsilon: ArrayLike
) -> FloatOrArray:
    r"""The batch size of paper 003's experiments (App. I), rounded to the nearest integer (paper formula, not a guarantee).

    .. math::

        K = \max\Big(1, \Big\lfloor \frac{n \sqrt{\epsilon}}{2 \sqrt R} + \frac12 \Big\rfloor\Big).

    Parameters
    ----------
    rounds : array_like
        Number of rounds R, a whole number >= 1.
    silo_size : array_like
        Number of records n per silo, a whole number >= 1.
    epsilon : array_like
        The target :math:`\epsilon`, finite and > 0.  All keyword-only; they broadcast together.

    Returns
    -------
    float or numpy.ndarray
        K, a whole number (as a float, or a float array for array input).

    Raises
    ------
    ValueError
        ``epsilon`` not finite and > 0, or ``rounds`` or ``silo_size`` not a whole number >= 1.
    ParameterTypeError
        An argument that is a string, bool or None.

    References
    ----------
    Paper 003, Appendix I.

    Examples
    --------
    >>> from hockeystick.isrl import appendix_i_batch_size
    >>> appendix_i_batch_size(rounds=100, silo_size=1000, epsilon=1)
    50.0
    """
    (r, n, eps), _, scalar = broadcast_float_arrays(
        rounds=rounds, silo_size=silo_size, epsilon=epsilon
    )
    _finite_positive(epsilon=eps)
    _integers(rounds=r, silo_size=n)
    return _out(np.maximum(1.0, np.floor(n * np.sqrt(eps) / (2 * np.sqrt(r)) + 0.5)), scalar)


def theorem_3_1_sigma(
    *, lipschitz: ArrayLike, batch_size: ArrayLike, epsilon: ArrayLike, delta: ArrayLike
) -> FloatOrArray:
    r"""One-pass accelerated Noisy MB-SGD's noise standard deviation by Theorem 3.1 / E.1 (paper formula, not a guarantee).

    .. math::

        \sigma^2 = \frac{32 L^2 \ln(1.25 / \delta_0)}{\epsilon_0^2 K^2},
        \qquad \text{valid as stated for } \epsilon_0 \le 8 \ln(1/\delta_0),

    with disjoint batches (without replacement) and :math:`R = \lfloor n/K \rfloor` rounds
    (:func:`hockeystick.isrl.theorem_3_1_rounds`).  Certified values for the same transcript:
    :class:`hockeystick.isrl.OnePassNoisyMBSGD`.

    Parameters
    ----------
    lipschitz : array_like
        Lipschitz constant L of the loss (the per-record gradient norm bound), finite and > 0.
    batch_size : array_like
        Batch size K, a whole number >= 1.
    epsilon : array_like
        The ISRL-DP target :math:`\epsilon_0`, finite and > 0.
    delta : array_like
        The ISRL-DP target :math:`\delta_0`, strictly between 0 and 1.
        All keyword-only; they broadcast together.

    Returns
    -------
    float or numpy.ndarray
        :math:`\sigma`, in the units of ``lipschitz``: a float for scalar input, else an array.

    Raises
    ------
    ValueError
        ``lipschitz`` or ``epsilon`` not finite and > 0, ``batch_size`` not a whole number >= 1,
        ``delta`` outside (0, 1), or :math:`\epsilon_0 > 8 \ln(1/\delta_0)`.
    ParameterTypeError
        An argument that is a string, bool or None.

    References
    ----------
    Paper 003, Theorems 3.1 and E.1.

    Examples
    --------
    >>> from hockeystick.isrl import theorem_3_1_sigma
    >>> round(theorem_3_1_sigma(lipschitz=1, batch_size=10, epsilon=1, delta=1e-6), 6)
    2.119521
    """
    (lip, k, eps, dlt), _, scalar = broadcast_float_arrays(
        lipschitz=lipschitz, batch_size=batch_size, epsilon=epsilon, delta=delta
    )
    _finite_positive(lipschitz=lip, epsilon=eps)
    _integers(batch_size=k)
    _delta(dlt)
    over = eps > 8 * np.log(1 / dlt)
    if np.any(over):
        raise ValueError(
            f"epsilon must be <= 8 ln(1/delta) for Theorem 3.1, got {eps[over].ravel()[0]:g}"
        )
    return _out(np.sqrt(32 * lip**2 * np.log(1.25 / dlt)) / (eps * k), scalar)


def theorem_3_1_rounds(*, silo_size: ArrayLike, batch_size: ArrayLike) -> FloatOrArray:
    r"""The number of rounds R = floor(n / K) of one pass over a silo in disjoint batches (Theorem 3.1).

    Parameters
    ----------
    silo_size : array_like
        Number of records n per silo, a whole number >= 1.
    batch_size : array_like
        Batch size K, a whole number >= 1 and <= ``silo_size``.  Both keyword-only; they broadcast
        together.

    Returns
    -------
    float or numpy.ndarray
        :math:`R = \lfloor n / K \rfloor`, a whole number (as a float, or a float array).

    Raises
    ------
    ValueError
        ``silo_size`` or ``batch_size`` not a whole number >= 1, or ``batch_size`` > ``silo_size``.
    ParameterTypeError
        An argument that is a string, bool or None.

    References
    ----------
    Paper 003, Theorem 3.1.

    Examples
    --------
    >>> from hockeystick.isrl import theorem_3_1_rounds
    >>> theorem_3_1_rounds(silo_size=1000, batch_size=10)
    100.0
    """
    (n, k), _, scalar = broadcast_float_arrays(silo_size=silo_size, batch_size=batch_size)
    _integers(silo_size=n, batch_size=k)
    if np.any(k > n):
        raise ValueError("batch_size must be <= silo_size for one pass in disjoint batches")
    return _out(np.floor(n / k), scalar)


def user_level_group_privacy(
    *, epsilon: ArrayLike, delta: ArrayLike, silo_size: ArrayLike
) -> tuple[FloatOrArray, FloatOrArray]:
    r"""The user-level (eps, delta) that group privacy gives from a silo's ISRL-DP (App. C.2; paper formula, valid but loose).

    .. math::

        (\epsilon_0, \delta_0)\text{-ISRL-DP} \;\Rightarrow\;
        \big(n \epsilon_0,\; n e^{(n-1)\epsilon_0} \delta_0\big)\text{-DP for the silo's whole data set},

    by group privacy over the silo's n records (Kamath 2020, Theorem 10).  The tight user-level
    accounting of Noisy MB-SGD is :class:`hockeystick.isrl.UserLevelNoisyMBSGD` (the whole silo) and
    :class:`hockeystick.isrl.GroupNoisyMBSGD` (k of its n records).  The delta may exceed 1 (the
    statement is then void); it is returned as computed (inf on overflow).

    Parameters
    ----------
    epsilon : array_like
        The silo's ISRL-DP :math:`\epsilon_0`, finite and >= 0.
    delta : array_like
        The ISRL-DP target :math:`\delta_0`, strictly between 0 and 1.
    silo_size : array_like
        Number of records n per silo, a whole number >= 1.
        All keyword-only; they broadcast together.

    Returns
    -------
    epsilon, delta : float or numpy.ndarray
        :math:`n \epsilon_0` and :math:`n e^{(n-1)\epsilon_0} \delta_0`: floats for scalar input,
        else arrays of the broadcast shape.

    Raises
    ------
    ValueError
        ``epsilon`` not finite and >= 0, ``delta`` outside (0, 1), or ``silo_size`` not a whole
        number >= 1.
    ParameterTypeError
        An argument that is a string, bool or None.

    References
    ----------
    Paper 003, Appendix C.2; Kamath 2020, Theorem 10 (docs/references.md).

    Examples
    --------
    >>> from hockeystick.isrl import user_level_group_privacy
    >>> eps, delta = user_level_group_privacy(epsilon=0.01, delta=1e-8, silo_size=100)
    >>> round(eps, 6), round(delta, 12)
    (1.0, 2.691234e-06)
    """
    (eps, dlt, n), _, scalar = broadcast_float_arrays(
        epsilon=epsilon, delta=delta, silo_size=silo_size
    )
    if np.any(~(np.isfinite(eps) & (eps >= 0))):
        raise ValueError(
            f"epsilon must be finite and >= 0, got {eps[~(np.isfinite(eps) & (eps >= 0))].ravel()[0]:g}"
        )
    _delta(dlt)
    _integers(silo_size=n)
    with np.errstate(over="ignore"):
        group_delta = n * np.exp((n - 1) * eps) * dlt
    return _out(n * eps, scalar), _out(group_delta, scalar)


def theorem_d5_round(
    *,
    epsilon0: ArrayLike,
    delta0: ArrayLike,
    silo_size: ArrayLike,
    silos: ArrayLike,
    delta: ArrayLike,
) -> tuple[FloatOrArray, FloatOrArray]:
    r"""One shuffled round's (eps_r, delta~_r) by Theorem D.5, eq. (21) (paper formula, not a guarantee).

    N = ``silos`` shuffled :math:`(\epsilon_0, \delta_0)`-DP silo randomizers over n = ``silo_size``
    records each are :math:`(\epsilon_r, \tilde\delta_r)`-DP, the per-round bound Theorems 5.1 / G.1
    compose:

    .. math::

        \epsilon_r = \ln\Big[1 + \frac{e^{\epsilon_0} - 1}{e^{\epsilon_0} + 1}
            \Big(\frac{8 \sqrt{e^{n \epsilon_0} \ln(4/\delta)}}{\sqrt N} + \frac{8 e^{n \epsilon_0}}{N}\Big)\Big],
        \qquad \tilde\delta_r = \delta + 2 N n e^{(n-1)\epsilon_0} \delta_0,

    valid for :math:`\epsilon_0 \le \ln(N / (16 \ln(2/\delta))) / n`, so never when
    :math:`N < 16 \ln(2/\delta)` (as at App. I's N = 25).  The certified numerical counterpart is
    :class:`hockeystick.isrl.ShuffledNoisyMBSGD`.

    Parameters
    ----------
    epsilon0 : array_like
        Each silo randomizer's :math:`\epsilon_0`, finite and > 0.
    delta0 : array_like
        Each silo randomizer's :math:`\delta_0`, strictly between 0 and 1.
    silo_size : array_like
        Records per silo n, a whole number >= 1.
    silos : array_like
        Silos N shuffled together, a whole number >= 1.
    delta : array_like
        The :math:`\delta` of the amplification bound, strictly between 0 and 1.  All keyword-only;
        they broadcast together.

    Returns
    -------
    epsilon_r, delta_r : float or numpy.ndarray
        :math:`\epsilon_r` and :math:`\tilde\delta_r`: floats for scalar input, else arrays of the
        broadcast shape.

    Raises
    ------
    ValueError
        ``epsilon0`` not finite and > 0, ``delta`` or ``delta0`` outside (0, 1), ``silo_size`` or
        ``silos`` not a whole number >= 1, or ``epsilon0`` above the validity limit.
    ParameterTypeError
        An argument that is a string, bool or None.

    References
    ----------
    Paper 003, Theorem D.5 (eq. 21), Theorems 5.1 and G.1; docs/paper-003-errata.md, section 5.

    Examples
    --------
    >>> from hockeystick.isrl import theorem_d5_round
    >>> eps_r, delta_r = theorem_d5_round(epsilon0=0.001, delta0=1e-9, silo_size=10, silos=10000, delta=1e-6)
    >>> round(eps_r, 6), round(delta_r, 6)
    (0.000157, 0.000203)
    """
    (e0, d0, n, big_n, dlt), _, scalar = broadcast_float_arrays(
        epsilon0=epsilon0, delta0=delta0, silo_size=silo_size, silos=silos, delta=delta
    )
    _finite_positive(epsilon0=e0)
    _delta(dlt)
    _delta(d0, "delta0")
    _integers(silo_size=n, silos=big_n)
    limit = np.log(big_n / (16 * np.log(2 / dlt))) / n
    if np.any(~(e0 <= limit)):
        raise ValueError(
            f"epsilon0 must be <= ln(silos / (16 ln(2/delta))) / silo_size for Theorem D.5, got "
            f"{e0[~(e0 <= limit)].ravel()[0]:g} (limit {limit[~(e0 <= limit)].ravel()[0]:g})"
        )
    grow = np.exp(n * e0)
    eps_r = np.log1p(
        np.tanh(e0 / 2) * (8 * np.sqrt(grow * np.log(4 / dlt)) / np.sqrt(big_n) + 8 * grow / big_n)
    )
    delta_r = dlt + 2 * big_n * n * np.exp((n - 1) * e0) * d0
    return _out(eps_r, scalar), _out(delta_r, scalar)
