"""DP-SGD and DP-FedAvg: a training run in its users' words (records or clients), and the synonyms they accept."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as np

from ..base import validation as _validation
from ..base.elementwise import ArrayLike
from .adaptive_clipping import round_noise_multiplier
from .normalization import Normalization, checked_normalization
from .run import _SubsampledTraining
from .sampling_schemes import sampling_scheme, sampling_words
from .schedule import with_stages
from .user_level import UserLevelDPSGD, refuse_user_level_sampling, user_level_without_stages
from .vocabulary import (
    NOISE_RELATIVE_TO,
    SAMPLE_RATE_SYNONYMS,
    NoiseRelativeTo,
    Sampling,
    StepsPerEpoch,
)

_F = TypeVar("_F", bound=Callable[..., Any])


def _without_local_work(function: _F) -> _F:
    """Refuse a keyword that describes a client's local work (``local_steps``, ``local_epochs``,
    ...) with the reason, rather than the closest name: ``steps`` is a synonym of ``rounds``, and
    following that hint would change the run.  One round releases one noised sum of clipped client
    updates, however many local steps made each update, so client-level accounting does not read
    them."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        local = [word for word in kwargs if word.startswith("local")]
        if local:
            raise _validation.ParameterTypeError(
                f"DPFedAvg() got an unexpected keyword argument {local[0]!r}: client-level accounting does not "
                "depend on the local steps or epochs each client takes (a round releases one noised sum of the "
                "clients' clipped updates, however many local steps made them); remove it, and give the rounds "
                "as rounds="
            )
        return function(*args, **kwargs)

    return cast(_F, wrapper)


def _per_clip_norm(
    noise_multiplier: ArrayLike, noise_relative_to: Any, sampling: Any
) -> np.ndarray:
    """The noise multiplier over the clip norm C, from z read as ``noise_relative_to`` says: z
    itself ("clip_norm"), or 2 z ("replace_one_sensitivity": the noise is z times the replace-one
    sensitivity 2C of a sum of contributions clipped to C, the reading of dp_accounting's
    ``GaussianDpEvent`` under REPLACE_ONE), which only replace-one samplings take (under
    add-or-remove the sensitivity is C and the two readings agree)."""
    _validation.choice(noise_relative_to, "noise_relative_to", NOISE_RELATIVE_TO)
    z = _validation.positive(noise_multiplier, "noise_multiplier")
    if noise_relative_to == "clip_norm":
        return z
    if (
        sampling_scheme(_validation.choice(sampling, "sampling", sampling_words())).relation
        != "replace_one"
    ):
        raise ValueError(
            f'noise_relative_to="replace_one_sensitivity" reads z over the sensitivity of replace-one neighbours, '
            f'2C; sampling="{sampling}" has add-or-remove neighbours, whose sensitivity is C: leave '
            f'noise_relative_to="clip_norm" (the default), or use sampling="fixed_size" or "shuffle"'
        )
    with np.errstate(over="ignore"):
        doubled = 2.0 * np.asarray(z, dtype=np.float64)  # exact in binary
    if not np.all(np.isfinite(doubled)):
        raise ValueError(
            'noise_multiplier must be below 8.9e307 with noise_relative_to="replace_one_sensitivity": its noise '
            f"over the clip norm, 2 z, overflows; got {_validation.describe(noise_multiplier)}"
        )
    return doubled


def _run_repr(run: DPSGD | DPFedAvg, owner: str, steps_word: str) -> str:
    """The run in its words, with the unit of its noise multiplier named where a peer reads z
    otherwise: under replace-one (fixed-size or shuffled batches) dp_accounting's
    ``GaussianDpEvent`` takes z over the replace-one sensitivity 2C, half the z over the clip norm
    C."""
    z = _validation.scalar_or_array(run.noise_multiplier)
    steps = _validation.scalar_or_array(run.steps)
    text = f"{owner}(sampling={run.sampling!r}, {steps_word}={steps!r}, noise_multiplier={z!r})"
    if sampling_scheme(run.sampling).relation != "replace_one":
        return f"{text}  # z per clip norm C (the add-or-remove sensitivity)"
    half = _validation.scalar_or_array(np.asarray(run.noise_multiplier) / 2.0)
    return f"{text}  # z per clip norm C; replace-one sensitivity 2C: dp_accounting's REPLACE_ONE GaussianDpEvent({half!r})"


class DPSGD(_SubsampledTraining):
    r"""Certified (epsilon, delta) of DP-SGD with every step released: record-level privacy.

    Each of the T steps adds :math:`\mathcal N(0, (z C)^2 I)` to the sum of the batch's per-example
    gradients, each clipped to norm C (Abadi et al. 2016, Alg. 1), so each step is a subsampled
    Gaussian mechanism of noise multiplier z, and the run is its T-fold composition, accounted on
    the PLD accountant of how the batches are drawn (``sampling``; the table in
    ``hockeystick.training``). For Poisson sampling at rate q (add-or-remove-one), with the
    hockey-stick divergence :math:`E_\gamma(P \| Q) = \int (dP - \gamma\, dQ)_+`,

    .. math::

        \delta(\varepsilon) = \max\{E_{e^\varepsilon}(P^{\otimes T} \| Q^{\otimes T}),\;
        E_{e^\varepsilon}(Q^{\otimes T} \| P^{\otimes T})\},\qquad
        P = (1 - q)\,\mathcal N(0, z^2) + q\,\mathcal N(1, z^2),\quad Q = \mathcal N(0, z^2),

    bounded above and below on a discretized privacy loss distribution
    (``pld.SubsampledGaussianPLD``), and :math:`\varepsilon(\delta) = \inf\{\varepsilon \ge 0 :
    \delta(\varepsilon) \le \delta\}`. The numeric parameters broadcast with each other and with the
    argument of ``delta``/``epsilon``.

    Parameters
    ----------
    noise_multiplier : array_like
        Noise multiplier z: the noise's standard deviation over the clipping norm C; finite, z > 0.
    dataset_size : array_like, optional
        Number of records n, an integer >= 1 (at most 2^53). Given with ``batch_size``, or neither
        when ``sample_rate`` is given.
    batch_size : array_like, optional
        Batch size m, an integer with 1 <= m <= n (the expected batch size under Poisson sampling,
        whose rate is q = m / n).
    sample_rate : array_like, optional
        Poisson sampling rate q in (0, 1], instead of ``dataset_size`` and ``batch_size`` (Opacus's
        word; ``sampling="poisson"`` only).
    epochs : array_like, optional
        Passes over the data, > 0: the run takes ceil(epochs x steps per epoch) steps (of the exact
        product). Exactly one of ``epochs`` and ``steps``.
    steps : array_like, optional
        Steps T, an integer >= 1 (at most 2^53; 2.5 is refused, not rounded).
    steps_per_epoch : {"ceil", "opacus"}, optional
        How an epoch's steps are counted: "ceil" is ceil(n / m) (the default with ``batch_size``),
        "opacus" is 1 / q (the default, and the only meaning, with ``sample_rate``).
    sampling : {"poisson", "fixed_size", "balls_in_bins", "shuffle"}, default "poisson"
        How batches are drawn: Poisson sampling (add-or-remove-one), a uniformly random batch of
        exactly m records (replace-one), random allocation of each record to one step per epoch
        (add-or-remove-one), or a fresh permutation each epoch cut into batches (replace-one).
    value_discretization_interval : float, optional
        The PLD grid's interval, as in ``pld.SubsampledGaussianPLD``.
    accuracy : float, optional
        Width the certified bracket is refined to, as in ``pld.SubsampledGaussianPLD``;
        ``sampling="poisson"`` only.
    tail : float, optional
        Mass of each step's loss cut from the Gaussian's tails, 1e-300 <= tail < 1e-3, as in
        ``pld.SubsampledGaussianPLD`` (default: chosen from the question); the cuts add up over the
        steps to a delta floor, so a long run asked at a small delta may need a smaller one.
        ``sampling="poisson"`` only.
    noise_relative_to : {"clip_norm", "replace_one_sensitivity"}, default "clip_norm"
        What ``noise_multiplier`` is relative to: the clip norm C (the noise's standard deviation is
        z C), or, under replace-one neighbours (``sampling="fixed_size"`` or ``"shuffle"``), the
        replace-one sensitivity 2C of the clipped sum (the standard deviation is 2 z C), the z
        dp_accounting's ``GaussianDpEvent`` takes under ``NeighboringRelation.REPLACE_ONE``. The run
        is accounted at 2 z over C then.
    examples_per_user : array_like, optional
        k, the most examples one user holds, a whole number in [1, 100000]: the run is accounted for
        a user (add or remove all of its examples) on the binomial mixture of Gaussians of Ganesh
        2024 and Charles et al. 2025 (``training.user_level.UserLevelDPSGD``); k = 1 is the
        record-level run. ``sampling="poisson"`` only (the other samplings are refused with the
        reason), not with ``accuracy``, ``tail`` or ``stages``.
    normalization : {"sum", "public_constant", "expected_batch_size", "realized_batch_size"}, default "sum"
        What the noised sum is divided by: nothing, a public constant, Opacus's ``floor(q |D|)``, or
        the realized batch size. Each is post-processing, accounted as the sum, where the divisor is
        the same on neighbouring data sets; ``"expected_batch_size"`` and ``"realized_batch_size"``
        under add-or-remove samplings ("poisson", "balls_in_bins") are refused, naming the relation
        (``training.normalization``).
    stages : list of dict, optional
        One run in stages, e.g. ``[{"noise_multiplier": 1.1, "epochs": 30}, {"noise_multiplier":
        0.9, "epochs": 30}]``: each stage gives ``noise_multiplier`` and one of ``epochs`` and
        ``steps`` (single numbers), the other words are shared and given once; the stages compose in
        order (``hockeystick.training.schedule``; ``sampling="poisson"`` only, not with
        ``accuracy``). Lists in ``noise_multiplier`` and ``epochs`` are separate runs, not a
        schedule. ``noise_multiplier`` then holds each stage's and ``steps`` the total.
    **synonyms
        ``sampling_probability`` (dp_accounting) or ``sampling_rate`` (the accountants) for
        ``sample_rate``.


    Attributes
    ----------
    noise_multiplier : numpy.ndarray
        z over the clip norm C (twice the z given with
        ``noise_relative_to="replace_one_sensitivity"``), broadcast with the run's other parameters.
    steps : numpy.ndarray
        The steps T each run takes (float array of whole numbers).
    sampling : str
        How batches are drawn.
    noise_relative_to : str
        How the noise multiplier given was read. ``repr(run)`` names the unit of
        ``noise_multiplier`` and, under replace-one, the z dp_accounting's REPLACE_ONE
        ``GaussianDpEvent`` takes for the same run (half of it).

    Raises
    ------
    ValueError
        ``noise_multiplier`` not finite and > 0; ``batch_size`` > ``dataset_size`` or either not an
        integer >= 1; ``sample_rate`` outside (0, 1]; both or neither of ``epochs`` and ``steps``; a
        ``steps`` that is not a whole number >= 1, or more than 2^53 steps; ``sample_rate`` given
        with ``dataset_size``/``batch_size``, with a ``sampling`` other than "poisson" or with
        ``steps_per_epoch="ceil"``; neither ``sample_rate`` nor both of ``dataset_size`` and
        ``batch_size``; ``accuracy`` or ``tail`` with a ``sampling`` other than "poisson"; ``tail``
        outside [1e-300, 1e-3); ``steps_per_epoch="opacus"`` with "balls_in_bins" or "shuffle"; a
        ``sampling``, ``steps_per_epoch`` or ``noise_relative_to`` outside its choices;
        ``noise_relative_to="replace_one_sensitivity"`` with an add-or-remove sampling ("poisson",
        "balls_in_bins"), or with a noise multiplier whose double overflows.
    ParameterTypeError
        A string, bool or None where a number is expected, a keyword that is none of these (naming
        the closest one), or ``sample_rate`` given twice (under two of its names). It is a
        TypeError.

    Methods
    -------
    delta(epsilon, bound="upper")
        Certified bound on delta(epsilon) of the whole run, epsilon >= 0: the upper bound, the lower
        (``bound="lower"``) or the pair (lower, upper) (``"both"``); a float for scalar arguments
        and parameters, else an array of the broadcast shape. ValueError for epsilon negative or NaN
        or an unknown ``bound``; ParameterTypeError for a string, bool or None.
    epsilon(delta, bound="upper")
        Certified bound on the smallest epsilon whose delta is at most ``delta``, 0 < delta < 1,
        with the same sides and shapes. ValueError for delta outside (0, 1) or NaN or an unknown
        ``bound``; ParameterTypeError for a string, bool or None.
    epsilon_curve(delta, every=None, steps=None)
        The certified bracket of epsilon after each epoch (or each checkpoint) of one run, a
        ``CurveAlongRun``.
    delta_curve(epsilon, every=None, steps=None)
        The certified bracket of delta after each checkpoint, a ``CurveAlongRun``.
    checkpoints(every=None, steps=None)
        The steps the curves evaluate, an int64 array.

    See Also
    --------
    DPFedAvg : The same accounting over clients.

    References
    ----------
    Abadi et al. 2016, Alg. 1 (DP-SGD); Zhu, Dong & Wang 2022 (the dominating pairs of the
    subsampled Gaussian); Doroshenko et al. 2022 (the PLD's discretization, "connect the dots").

    Examples
    --------
    >>> from hockeystick.training import DPSGD
    >>> run = DPSGD(dataset_size=1000, batch_size=100, epochs=10, noise_multiplier=1.0)
    >>> int(run.steps)
    100
    >>> round(run.epsilon(1e-5), 3)
    7.047
    >>> round(DPSGD(sample_rate=0.1, steps=100, noise_multiplier=1.0).epsilon(1e-5), 3)  # Opacus's words
    7.047
    >>> DPSGD(dataset_size=1000, batch_size=100, steps=100, noise_multiplier=1.0, sampling="fixed_size")
    DPSGD(sampling='fixed_size', steps=100.0, noise_multiplier=1.0)  # z per clip norm C; replace-one sensitivity 2C: dp_accounting's REPLACE_ONE GaussianDpEvent(0.5)
    """

    noise_relative_to: NoiseRelativeTo = "clip_norm"  # a staged run's (Poisson sampling: C)
    normalization: Normalization = (
        "sum"  # a staged run's (each stage's is checked when it is built)
    )

    @user_level_without_stages
    @with_stages(("epochs", "steps"))
    @_validation.known_keywords("DPSGD", *SAMPLE_RATE_SYNONYMS, "stages")
    def __init__(
        self,
        *,
        noise_multiplier: ArrayLike,
        dataset_size: ArrayLike | None = None,
        batch_size: ArrayLike | None = None,
        sample_rate: ArrayLike | None = None,
        epochs: ArrayLike | None = None,
        steps: ArrayLike | None = None,
        steps_per_epoch: StepsPerEpoch | None = None,
        sampling: Sampling = "poisson",
        value_discretization_interval: float | None = None,
        accuracy: float | None = None,
        tail: float | None = None,
        noise_relative_to: NoiseRelativeTo = "clip_norm",
        examples_per_user: ArrayLike | None = None,
        normalization: Normalization = "sum",
        **synonyms: Any,
    ) -> None:
        self.normalization = checked_normalization(normalization, sampling)
        if examples_per_user is not None:
            refuse_user_level_sampling(sampling, accuracy, tail)
        if synonyms:
            sample_rate = _synonyms(
                "DPSGD", synonyms, SAMPLE_RATE_SYNONYMS, sample_rate=sample_rate
            )["sample_rate"]
        self.noise_relative_to = noise_relative_to
        super().__init__(
            _per_clip_norm(noise_multiplier, noise_relative_to, sampling),
            dataset_size,
            batch_size,
            sample_rate,
            epochs,
            steps,
            steps_per_epoch,
            ("dataset_size", "batch_size", "epochs", "steps"),
            sampling,
            value_discretization_interval,
            accuracy,
            tail,
        )
        if examples_per_user is not None:
            from ..pld.accountants import SubsampledGaussianPLD

            assert isinstance(
                self._accountant, SubsampledGaussianPLD
            )  # Poisson sampling (refused otherwise)
            self._accountant = UserLevelDPSGD(
                noise_multiplier=self.noise_multiplier,
                sample_rate=self._accountant.sampling_rate,
                steps=self.steps,
                examples_per_user=examples_per_user,
                value_discretization_interval=value_discretization_interval,
            )

    def __repr__(self) -> str:
        return _run_repr(self, "DPSGD", "steps")


class DPFedAvg(_SubsampledTraining):
    r"""Certified (epsilon, delta) of DP-FedAvg with every round's model released: client-level privacy.

    Each round samples clients (Poisson sampling at rate q = clients_per_round / total_clients, or
    as ``sampling`` says), clips each client's update to norm C and adds :math:`\mathcal N(0, (z
    C)^2 I)` to their sum (McMahan et al. 2018). One round is one subsampled Gaussian step over
    clients, so the accounting is ``DPSGD``'s with clients for records: for Poisson sampling,

    .. math::

        \delta(\varepsilon) = \max\{E_{e^\varepsilon}(P^{\otimes T} \| Q^{\otimes T}),\;
        E_{e^\varepsilon}(Q^{\otimes T} \| P^{\otimes T})\},\qquad
        P = (1 - q)\,\mathcal N(0, z^2) + q\,\mathcal N(1, z^2),\quad Q = \mathcal N(0, z^2),

    over T rounds, and :math:`\varepsilon(\delta) = \inf\{\varepsilon \ge 0 : \delta(\varepsilon)
    \le \delta\}`. The numeric parameters broadcast with each other and with the argument of
    ``delta``/``epsilon``.

    With adaptive clipping (Andrew et al. 2021) a round also releases the count of clients under the
    clip norm, centred (each client adds b - 1/2) and noised with standard deviation σ_b
    (``clipped_count_stddev``). The two releases are together exactly the Gaussian mechanism of
    multiplier

    .. math::

        z_{\text{round}} = \big(z^{-2} + (2\sigma_b)^{-2}\big)^{-1/2} < z

    (one client's contribution, in units of the noise, has norm at most 1 / z_round, attained;
    ``hockeystick.training.adaptive_clipping``), so the run is accounted as above with z_round for
    z, under every ``sampling``. ``adaptive_clipping_noise_multiplier`` gives the z for a target
    z_round.

    Parameters
    ----------
    noise_multiplier : array_like
        Noise multiplier z: the noise's standard deviation over the clipping norm C, the noise added
        to the sum of clipped updates; finite, z > 0.
    total_clients : array_like, optional
        Number of clients n, an integer >= 1 (at most 2^53). Given with ``clients_per_round``, or
        neither when ``sample_rate`` is given.
    clients_per_round : array_like, optional
        Clients per round m, an integer with 1 <= m <= n (the expected count under Poisson sampling,
        whose rate is q = m / n).
    sample_rate : array_like, optional
        Poisson sampling rate q in (0, 1], instead of ``total_clients`` and ``clients_per_round``
        (``sampling="poisson"`` only).
    rounds : array_like, optional
        Rounds T, an integer >= 1 (at most 2^53). Exactly one of ``rounds`` and ``epochs``.
    epochs : array_like, optional
        Passes over the clients, > 0: ceil(epochs x rounds per epoch) rounds (of the exact product).
    steps_per_epoch : {"ceil", "opacus"}, optional
        Rounds per epoch: "ceil" is ceil(n / m) (the default with ``clients_per_round``), "opacus"
        is 1 / q (the default, and the only meaning, with ``sample_rate``).
    sampling : {"poisson", "fixed_size", "balls_in_bins", "shuffle"}, default "poisson"
        How each round's clients are drawn, as in ``DPSGD``.
    value_discretization_interval : float, optional
        The PLD grid's interval, as in ``pld.SubsampledGaussianPLD``.
    accuracy : float, optional
        Width the certified bracket is refined to, as in ``pld.SubsampledGaussianPLD``;
        ``sampling="poisson"`` only.
    tail : float, optional
        Mass of each step's loss cut from the Gaussian's tails, 1e-300 <= tail < 1e-3, as in
        ``pld.SubsampledGaussianPLD`` (default: chosen from the question); the cuts add up over the
        steps to a delta floor, so a long run asked at a small delta may need a smaller one.
        ``sampling="poisson"`` only.
    clipped_count_stddev : array_like, optional
        σ_b, the standard deviation of the noise on each round's count of clients under the clip
        norm (adaptive clipping; Flower's and tensorflow_federated's ``clipped_count_stddev``);
        finite, > 0. The run is then accounted at the round's multiplier (z⁻² + (2σ_b)⁻²)^(-1/2).
    noise_relative_to : {"clip_norm", "replace_one_sensitivity"}, default "clip_norm"
        What ``noise_multiplier`` is relative to, as in ``DPSGD``: the clip norm C, or under
        replace-one neighbours (``sampling="fixed_size"`` or ``"shuffle"``) the replace-one
        sensitivity 2C of the clipped sum, as dp_accounting's ``GaussianDpEvent`` under REPLACE_ONE
        (and FL4Health's fixed-size client sampling) reads it: the noise's standard deviation is
        then 2 z C.
    stages : list of dict, optional
        One run in stages, as in ``DPSGD``, each stage giving ``noise_multiplier`` and one of
        ``epochs`` and ``rounds``.
    **synonyms
        ``steps`` for ``rounds``; ``sampling_probability`` or ``sampling_rate`` for ``sample_rate``.


    Attributes
    ----------
    noise_multiplier : numpy.ndarray
        The noise multiplier over the clip norm C a round is accounted at, broadcast with the run's
        other parameters: z (2 z with ``noise_relative_to="replace_one_sensitivity"``), or z_round
        with ``clipped_count_stddev``.
    steps : numpy.ndarray
        The rounds T each run takes (float array of whole numbers).
    sampling : str
        How clients are drawn.
    noise_relative_to : str
        How the noise multiplier given was read; ``repr(run)`` names the unit, as in ``DPSGD``.

    Raises
    ------
    ValueError
        As ``DPSGD``'s (``noise_relative_to`` included), with ``total_clients``,
        ``clients_per_round`` and ``rounds`` for its ``dataset_size``, ``batch_size`` and ``steps``;
        ``clipped_count_stddev`` not finite and > 0.
    ParameterTypeError
        A string, bool or None where a number is expected, a keyword that is none of these (naming
        the closest one), or ``rounds`` or ``sample_rate`` given twice (under two of its names). It
        is a TypeError.

    Methods
    -------
    delta(epsilon, bound="upper")
        Certified bound on delta(epsilon) of the whole run, epsilon >= 0: the upper bound, the lower
        (``bound="lower"``) or the pair (lower, upper) (``"both"``); a float for scalar arguments
        and parameters, else an array of the broadcast shape. ValueError for epsilon negative or NaN
        or an unknown ``bound``; ParameterTypeError for a string, bool or None.
    epsilon(delta, bound="upper")
        Certified bound on the smallest epsilon whose delta is at most ``delta``, 0 < delta < 1,
        with the same sides and shapes. ValueError for delta outside (0, 1) or NaN or an unknown
        ``bound``; ParameterTypeError for a string, bool or None.
    epsilon_curve(delta, every=None, steps=None)
        The certified bracket of epsilon after each epoch (or each checkpoint) of one run, a
        ``CurveAlongRun``.
    delta_curve(epsilon, every=None, steps=None)
        The certified bracket of delta after each checkpoint, a ``CurveAlongRun``.
    checkpoints(every=None, steps=None)
        The steps the curves evaluate, an int64 array.

    See Also
    --------
    DPSGD : The same accounting over records.

    References
    ----------
    McMahan et al. 2018 (DP-FedAvg with client-level clipping); Zhu, Dong & Wang 2022 (the
    dominating pairs of the subsampled Gaussian); Doroshenko et al. 2022 (the PLD's discretization);
    Andrew, Thakkar, McMahan & Ramaswamy 2021, Sec. 3 (adaptive clipping's count).

    Examples
    --------
    >>> from hockeystick.training import DPFedAvg
    >>> run = DPFedAvg(total_clients=1000, clients_per_round=100, rounds=100, noise_multiplier=1.0)
    >>> round(run.epsilon(1e-5), 3)
    7.047
    >>> adaptive = DPFedAvg(total_clients=1000, clients_per_round=100, rounds=100, noise_multiplier=1.0,
    ...                     clipped_count_stddev=5.0)  # the count's noise costs a little
    >>> round(float(adaptive.noise_multiplier), 6), round(adaptive.epsilon(1e-5), 3)
    (0.995037, 7.113)

    Fixed-size client sampling (replace-one) as dp_accounting and FL4Health read z, over the
    sensitivity 2C:

    >>> peer = DPFedAvg(total_clients=1000, clients_per_round=100, rounds=100, noise_multiplier=1.0,
    ...                 sampling="fixed_size", noise_relative_to="replace_one_sensitivity")
    >>> float(peer.noise_multiplier)  # over the clip norm C
    2.0
    """

    noise_relative_to: NoiseRelativeTo = "clip_norm"  # a staged run's (Poisson sampling: C)

    @_without_local_work
    @with_stages(("epochs", "rounds"))
    @_validation.known_keywords("DPFedAvg", *SAMPLE_RATE_SYNONYMS, "steps", "stages")
    def __init__(
        self,
        *,
        noise_multiplier: ArrayLike,
        total_clients: ArrayLike | None = None,
        clients_per_round: ArrayLike | None = None,
        sample_rate: ArrayLike | None = None,
        rounds: ArrayLike | None = None,
        epochs: ArrayLike | None = None,
        steps_per_epoch: StepsPerEpoch | None = None,
        sampling: Sampling = "poisson",
        value_discretization_interval: float | None = None,
        accuracy: float | None = None,
        tail: float | None = None,
        clipped_count_stddev: ArrayLike | None = None,
        noise_relative_to: NoiseRelativeTo = "clip_norm",
        **synonyms: Any,
    ) -> None:
        # the round's multiplier over the clip norm, noise_multiplier checked once:
        # round_noise_multiplier checks it in the same words
        if clipped_count_stddev is None:
            z = _per_clip_norm(noise_multiplier, noise_relative_to, sampling)
        elif noise_relative_to == "clip_norm":
            z = round_noise_multiplier(noise_multiplier, clipped_count_stddev)
        else:
            z = round_noise_multiplier(
                _per_clip_norm(noise_multiplier, noise_relative_to, sampling), clipped_count_stddev
            )
        self.noise_relative_to = noise_relative_to
        if synonyms:
            words = {**SAMPLE_RATE_SYNONYMS, "steps": "rounds"}
            named = _synonyms("DPFedAvg", synonyms, words, sample_rate=sample_rate, rounds=rounds)
            sample_rate, rounds = named["sample_rate"], named["rounds"]
        super().__init__(
            z,
            total_clients,
            clients_per_round,
            sample_rate,
            epochs,
            rounds,
            steps_per_epoch,
            ("total_clients", "clients_per_round", "epochs", "rounds"),
            sampling,
            value_discretization_interval,
            accuracy,
            tail,
        )

    def __repr__(self) -> str:
        return _run_repr(self, "DPFedAvg", "rounds")


def _synonyms(
    owner: str, given: dict[str, Any], words: dict[str, str], **named: Any
) -> dict[str, Any]:
    """``named`` (the signature's own values of the names ``words`` maps onto) with the synonyms
    ``given`` moved onto them; a name given twice, or an unknown keyword (with the closest name), is
    refused."""
    known = [*inspect.signature(DPSGD if owner == "DPSGD" else DPFedAvg).parameters]
    moved = _validation.synonyms(owner, given, words, known)
    twice = [name for name in moved if named.get(name) is not None]
    if twice:
        word = next(w for w, n in words.items() if n == twice[0] and w in given)
        raise _validation.ParameterTypeError(
            f"{owner}() got {twice[0]} twice (as {twice[0]!r} and {word!r}); give it once"
        )
    return {**named, **moved}
