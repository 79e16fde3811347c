"""The extreme parameter of a registered accountant keeping its certified TPR at an FPR within a
target, through ``calibrate`` on the (eps, delta)-lines that put the power at alpha at or below tau
(``hockeystick.risk``'s docstring)."""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np

from .. import registry
from ..base import validation as _validation
from ..base.elementwise import ArrayLike
from ..calibrate import calibrate
from ..calibrate.search_range import search_range
from ..registry import AccountantEntry, Calibratable
from ..registry.calibration_hooks import CalibrationStart
from .power_bracket import UNIT_ROUNDOFF as _U

LOCAL_POINTS = 5  # lines calibrated per local level once an estimate has located the best
LOCATING_RTOL = 1e-4  # ... and how closely (the best one is then calibrated to rtol)


def calibrate_tpr(
    accountant: str | AccountantEntry,
    parameter: str,
    *,
    fpr: float,
    tpr: float,
    rtol: float = 1e-10,
    workers: int | None = None,
    levels: int = 3,
    points: int = 16,
    **params: ArrayLike,
) -> Any:
    r"""Extreme ``parameter`` of an accountant keeping its certified TPR at FPR ``fpr`` at most ``tpr``.

    The smallest value (or, for a parameter the bound grows with, the largest) of a registered
    accountant's ``parameter`` found to keep the power at :math:`\alpha` = ``fpr`` at most
    :math:`\tau` = ``tpr``. That holds as soon as one (eps, delta)-line does:
    :math:`\delta(\varepsilon) \le d(\varepsilon)` at one :math:`\varepsilon \ge 0`, with

    .. math::

        d(\varepsilon) = \max\bigl(\tau - e^{\varepsilon} \alpha,\;
        1 - \alpha - e^{\varepsilon} (1 - \tau)\bigr)

    (``hockeystick.risk``'s docstring), so the answer is the best of ``calibrate``'s answers for the
    targets :math:`(\varepsilon, d(\varepsilon))`.

    Through ``calibrate``: ``points`` eps values spread over [0, eps_max), eps_max the largest eps
    with d(eps) > 0, each a target (eps, d(eps)); then ``levels`` - 1 times the same number spread
    between the best value's neighbours.  Where the accountant estimates the parameter itself (its
    ``calibration_start``: the PLD families and DP-SGD's noise), these levels compare the estimates,
    and only ``LOCAL_POINTS`` lines around the estimate's best, over two first-level spacings each
    way and then between the best one's neighbours, are calibrated (to ``LOCATING_RTOL``), and the
    best of those to ``rtol``: 11 calibrations instead of ``levels`` x ``points``.  The answer is
    ``calibrate``'s at its eps, so it meets delta(eps) <= d(eps) there: its power at ``fpr`` is at
    most ``tpr`` by that one line, whatever grid ``tpr_at_fpr`` uses later.

    Parameters
    ----------
    accountant : str or AccountantEntry
        A registered name (``hockeystick.registry.names()``) or entry.
    parameter : str
        One of its calibratable parameters ("sigma", "rounds", "noise_multiplier", ...); not also in
        ``params``.
    fpr : float
        The false-positive rate alpha, in (0, 1).
    tpr : float
        The largest certified TPR allowed, in (fpr, 1) (a TPR at or below the FPR is guessing's,
        which no parameter beats).
    rtol : float, default 1e-10
        Relative width of the final bracket of the best line's calibration, in (0, 1), as
        ``calibrate``'s.
    workers : int, optional
        Threads, as ``calibrate``'s.
    levels : int
        Rounds of eps values, 1 to 64.
    points : int
        Eps values per round, 3 to 4096.
    **params : array_like
        The accountant's other parameters (arrays broadcast), as ``calibrate``'s.

    Returns
    -------
    float, int or array
        The calibrated parameter per broadcast point.

    Raises
    ------
    ParameterTypeError
        ``accountant`` is neither a name nor an entry; ``fpr`` or ``tpr`` not a single number (a
        TypeError).
    ValueError
        An unknown accountant name; ``fpr`` or ``tpr`` outside (0, 1), or ``tpr`` <= ``fpr``; a
        parameter given as an empty array, or parameters whose shapes do not broadcast (naming
        them); ``levels`` outside 1 to 64 or ``points`` outside 3 to 4096; ``parameter`` not
        calibratable or also given a value; no value of the parameter in its range keeps the TPR
        within ``tpr`` (naming the point); what ``calibrate`` refuses.

    See Also
    --------
    tpr_at_fpr : The certified TPR at the answer.
    hockeystick.calibrate.calibrate : The calibration to an (epsilon, delta) target.

    References
    ----------
    Dong, Roth & Su 2022, Def. 2.1 and Prop. 2.12 (each (eps, delta) guarantee is a line below the
    trade-off curve).

    Examples
    --------
    >>> from hockeystick.fdp import GaussianMechanism
    >>> from hockeystick.risk import calibrate_tpr, tpr_at_fpr
    >>> sigma = calibrate_tpr("gaussian", "sigma", fpr=0.01, tpr=0.05)
    >>> round(sigma, 4)
    1.4674
    >>> tpr_at_fpr(GaussianMechanism(sigma=sigma), 0.01) <= 0.05
    True
    """
    alpha, tau = _rates(fpr, tpr)
    rtol = _validation.single(rtol, "rtol")  # one tolerance: it keys the lines already calibrated
    levels = _validation.count(levels, "levels", minimum=1, maximum=64)
    points = _validation.count(points, "points", minimum=3, maximum=4096)
    entry, spec = _calibratable(accountant, parameter, params)
    search = _TprLines(entry, parameter, spec, alpha, tau, params, rtol, workers)
    best, located, eps, values = search.by_levels(levels, points)
    if located:
        best = search.around_estimate(best, eps, values, points)
    assert best is not None
    if spec.integer and np.isfinite(best).all():
        return int(best) if best.ndim == 0 else best.astype(np.int64)
    return float(best) if best.ndim == 0 else best


def _rates(fpr: Any, tpr: Any) -> tuple[float, float]:
    """The false-positive rate alpha and the largest TPR tau, each in (0, 1), tau above alpha."""
    alpha = float(
        _validation.in_interval(
            _validation.single(fpr, "fpr"), "fpr", 0.0, 1.0, open_low=True, open_high=True
        )
    )
    tau = float(
        _validation.in_interval(
            _validation.single(tpr, "tpr"), "tpr", 0.0, 1.0, open_low=True, open_high=True
        )
    )
    if tau <= alpha:
        raise ValueError(
            f"tpr must exceed fpr, got tpr = {tau!r} and fpr = {alpha!r}: a TPR at or below the FPR "
            "is what guessing reaches, whatever the mechanism; ask for a tpr above the fpr"
        )
    return alpha, tau


def _calibratable(
    accountant: Any, parameter: Any, params: dict[str, Any]
) -> tuple[AccountantEntry, Calibratable]:
    """The accountant's entry and the calibrated parameter's search (a ValueError names what is wrong)."""
    entry = registry.get(accountant) if isinstance(accountant, str) else accountant
    if not isinstance(entry, AccountantEntry):
        raise _validation.ParameterTypeError(
            f"accountant must be a registered name (see hockeystick.registry.names()) "
            f"or an AccountantEntry, got {_validation.describe(accountant)}"
        )
    spec = entry.calibratable.get(parameter) if isinstance(parameter, str) else None
    if spec is None:
        raise ValueError(
            f"parameter must be one of the calibratable parameters of {entry.name!r} "
            f"({', '.join(sorted(entry.calibratable)) or 'none'}), got {_validation.describe(parameter)}"
        )
    if parameter in params:
        raise ValueError(
            f"{parameter!r} is the calibrated parameter: do not also give it a value (drop {parameter}=...)"
        )
    return entry, spec


class _TprLines:
    """One ``calibrate_tpr`` call: its targets (eps, d(eps)) per point (the parameters gain a
    trailing axis, the eps values of a target), their calibration through ``calibrate``, and the
    best value over them."""

    def __init__(
        self,
        entry: AccountantEntry,
        parameter: str,
        spec: Calibratable,
        alpha: float,
        tau: float,
        params: dict[str, Any],
        rtol: float,
        workers: int | None,
    ) -> None:
        self.entry, self.parameter, self.spec, self.alpha, self.tau = (
            entry,
            parameter,
            spec,
            alpha,
            tau,
        )
        self.rtol, self.workers = rtol, workers
        self.arrays = {k: _validation.as_real_array(v, k) for k, v in params.items()}
        for name, array in self.arrays.items():
            if array.size == 0:
                raise ValueError(
                    f"{name} is empty (shape {array.shape}): give it one value, or an array of them (each point "
                    "is calibrated)"
                )
        try:
            self.shape = (
                np.broadcast_shapes(*(a.shape for a in self.arrays.values())) if self.arrays else ()
            )
        except ValueError:
            given = ", ".join(f"{k} {a.shape}" for k, a in self.arrays.items())
            raise ValueError(f"the parameters' shapes do not broadcast together: {given}") from None
        # each parameter gains a trailing axis, the eps values of a target
        self.column: dict[str, Any] = {
            k: float(a) if a.ndim == 0 else np.broadcast_to(a, self.shape)[..., None]
            for k, a in self.arrays.items()
        }
        self.best_of = np.min if spec.direction == "decreasing" else np.max
        self.arg_best = np.argmin if spec.direction == "decreasing" else np.argmax
        self.top = max(
            math.log(tau / alpha), math.log1p(-alpha) - math.log1p(-tau)
        )  # d(eps) > 0 exactly below it
        decreasing = spec.direction == "decreasing"
        self.estimate = (
            entry.factory if decreasing and isinstance(entry.factory, CalibrationStart) else None
        )
        self.solved: dict[
            tuple[int, float, float, float], Any
        ] = {}  # (point, eps, d(eps), rtol) -> calibrated

    def lines(self, eps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(eps, d(eps)), an eps whose target is out of reach replaced by the point's first usable
        one (the same answer); a point without a usable eps is refused."""
        targets = _tpr_line_targets(eps, self.alpha, self.tau)
        usable = targets > 0.0
        if self.spec.direction == "increasing":
            usable &= _met_at_least_value(
                self.entry,
                self.parameter,
                self.spec,
                eps,
                targets,
                self.column,
                self.arrays,
                self.shape,
            )
        if not usable.any(axis=-1).all():
            raise ValueError(
                f"no {self.parameter} in its range keeps the certified TPR at FPR {self.alpha:g} of "
                f"{self.entry.name!r} at or below {self.tau:g}{_where(self.arrays, usable)}; raise tpr or fpr, or "
                "change the other parameters"
            )
        first = np.argmax(usable, axis=-1)[..., None]
        return (
            np.where(usable, eps, np.take_along_axis(eps, first, axis=-1)),
            np.where(usable, targets, np.take_along_axis(targets, first, axis=-1)),
        )

    def calibrated(self, eps: np.ndarray, targets: np.ndarray, tolerance: float) -> np.ndarray:
        """``calibrate``'s answer at each line; a line already calibrated at this tolerance (a
        level's end points are the previous level's) is taken from ``self.solved`` (``calibrate``
        solves each target on its own, so its answer does not depend on the targets beside it)."""
        eps, targets = np.broadcast_arrays(eps, targets)
        point = np.broadcast_to(
            np.arange(max(1, math.prod(self.shape))).reshape(self.shape + (1,)), eps.shape
        )
        keys = [
            (int(p), float(e), float(d), tolerance)
            for p, e, d in zip(point.ravel(), eps.ravel(), targets.ravel())
        ]
        missing = [i for i, key in enumerate(keys) if key not in self.solved]
        if missing:
            flat: dict[str, Any] = {
                k: np.broadcast_to(v, eps.shape).ravel()[missing]
                if isinstance(v, np.ndarray)
                else v
                for k, v in self.column.items()
            }
            found = np.asarray(
                calibrate(
                    self.entry,
                    self.parameter,
                    epsilon=eps.ravel()[missing],
                    delta=targets.ravel()[missing],
                    rtol=tolerance,
                    workers=self.workers,
                    **flat,
                )
            ).ravel()
            self.solved.update({keys[i]: value for i, value in zip(missing, found)})
        return np.array([self.solved[key] for key in keys]).reshape(eps.shape)

    def estimated(self, eps: np.ndarray, targets: np.ndarray) -> np.ndarray | None:
        """The accountant's own estimate of the parameter at each target (its
        ``calibration_start``), or None where it has none, or one is not a positive number: only to
        choose where the lines are calibrated."""
        if self.estimate is None:
            return None
        flat = {
            k: np.broadcast_to(v, eps.shape).ravel() if isinstance(v, np.ndarray) else v
            for k, v in self.column.items()
        }
        guess = self.estimate.calibration_start(self.parameter, eps.ravel(), targets.ravel(), flat)
        if guess is None:
            return None
        guess = np.asarray(guess, dtype=float)
        return (
            guess.reshape(eps.shape)
            if guess.size == eps.size and np.all(guess > 0) and np.isfinite(guess).all()
            else None
        )

    def spread(self, eps: np.ndarray, values: np.ndarray, count: int) -> np.ndarray:
        """``count`` eps values spread between the neighbours of the best one."""
        k = self.arg_best(values, axis=-1)
        left = np.take_along_axis(eps, np.maximum(k - 1, 0)[..., None], axis=-1)
        right = np.take_along_axis(eps, np.minimum(k + 1, eps.shape[-1] - 1)[..., None], axis=-1)
        return cast(np.ndarray, left + (right - left) * (np.arange(count) / (count - 1)))

    def kept(self, best: np.ndarray | None, new: np.ndarray) -> np.ndarray:
        """The better of the best so far and ``new``, per point."""
        return (
            new if best is None else cast(np.ndarray, self.best_of(np.stack([best, new]), axis=0))
        )

    def by_levels(
        self, levels: int, points: int
    ) -> tuple[np.ndarray | None, bool, np.ndarray, np.ndarray]:
        """``points`` eps values over [0, top), then ``levels`` - 1 times as many between the best
        one's neighbours: the best calibrated value (None where the estimates located every level),
        whether the estimates did, and the last level's eps and values."""
        eps = np.broadcast_to(np.arange(points) * (self.top / points), self.shape + (points,))
        best: np.ndarray | None = None
        located = True  # the levels choose eps from the accountant's estimates alone
        values: np.ndarray | None = None
        for level in range(levels):
            eps, targets = self.lines(eps)
            values = self.estimated(eps, targets) if located else None
            if values is None:
                located = False
                values = self.calibrated(eps, targets, self.rtol)
                best = self.kept(best, self.best_of(values, axis=-1))
            if level + 1 < levels:
                eps = self.spread(eps, values, points)
        assert values is not None  # at least one level
        return best, located, eps, values

    def around_estimate(
        self, best: np.ndarray | None, eps: np.ndarray, values: np.ndarray, points: int
    ) -> np.ndarray:
        """The estimate only locates the best line: calibrated (coarsely) at ``LOCAL_POINTS`` eps
        around its best over two of the first level's spacings, then between the best one's
        neighbours, and the best of those at rtol."""
        k = self.arg_best(values, axis=-1)[..., None]
        centre = np.take_along_axis(eps, k, axis=-1)
        eps = np.clip(
            centre + (self.top / points) * np.linspace(-2.0, 2.0, LOCAL_POINTS), 0.0, self.top
        )
        coarse = max(self.rtol, LOCATING_RTOL)
        for _ in range(2):
            eps, targets = self.lines(eps)
            values = self.calibrated(eps, targets, coarse)
            best = self.kept(best, self.best_of(values, axis=-1))
            last_eps, last_values = eps, values
            eps = self.spread(eps, values, LOCAL_POINTS)
        k = self.arg_best(last_values, axis=-1)[..., None]
        eps, targets = self.lines(np.take_along_axis(last_eps, k, axis=-1))
        final = self.calibrated(eps, targets, self.rtol)[..., 0]
        return self.kept(best, final)


def _tpr_line_targets(eps: np.ndarray, alpha: float, tau: float) -> np.ndarray:
    """d(eps) = max(tau - e^eps alpha, 1 - alpha - e^eps (1 - tau)), each rounded down past its
    round-off (at most 3 u of the magnitudes for the first, 5 u for the second): delta(eps) <=
    d(eps) makes one (eps, delta)-line put the power at alpha at or below tau.  Not positive: no
    line at that eps can."""
    t = np.exp(eps)
    first = (tau - t * alpha) - 4 * _U * (tau + t * alpha)
    second = ((1.0 - alpha) - t * (1.0 - tau)) - 6 * _U * (1.0 + t)
    return cast(np.ndarray, np.maximum(first, second))


def _met_at_least_value(
    entry: AccountantEntry,
    parameter: str,
    spec: Calibratable,
    eps: np.ndarray,
    targets: np.ndarray,
    column: dict[str, Any],
    arrays: dict[str, np.ndarray],
    shape: tuple[int, ...],
) -> np.ndarray:
    """Where the parameter's least searched value (``calibrate``'s search range) already meets the
    target (eps, d(eps)) with a positive target: for a parameter the bound grows with, the targets
    ``calibrate`` can meet at all (it refuses the others)."""
    n = max(1, math.prod(shape))
    flat = {k: np.broadcast_to(a, shape).ravel() for k, a in arrays.items()}
    least, _ = search_range(spec, cast("dict[str, float | np.ndarray]", flat), n)
    built = entry.build(
        **column, **{parameter: least.reshape(shape)[..., None] if shape else float(least[0])}
    )
    delta = np.asarray(built.delta(np.maximum(eps, 0.0)), dtype=float)
    return cast(np.ndarray, (targets > 0.0) & (delta <= targets))


def _where(arrays: dict[str, np.ndarray], usable: np.ndarray) -> str:
    """' at NAME=VALUE, ...' for the first point without a usable eps (nothing for a single point)."""
    if usable.ndim <= 1:
        return ""
    i = int(np.argmin(usable.any(axis=-1).ravel()))
    shape = usable.shape[:-1]
    return " at " + ", ".join(
        f"{k}={float(np.broadcast_to(a, shape).ravel()[i]):g}" for k, a in arrays.items()
    )
