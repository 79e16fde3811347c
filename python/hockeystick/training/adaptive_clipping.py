r"""Adaptive clipping's two releases as one Gaussian mechanism: the update's noise multiplier and the round's.

Adaptive clipping (Andrew, Thakkar, McMahan & Ramaswamy 2021, "Differentially private learning with
adaptive clipping", Alg. 1 and Sec. 3) releases in each round, besides the noised sum of the
clients' updates clipped to norm C,

.. math::

    \Big(\sum_i \mathrm{clip}(\Delta_i, C) + \mathcal N(0, z_\Delta^2 C^2 I),\;
    \sum_i (b_i - \tfrac12) + \mathcal N(0, \sigma_b^2)\Big),\qquad b_i = [\lVert\Delta_i\rVert \le C],

the noised count of clients under the clip norm (centred: each client adds b_i - 1/2, the server
adds back half the public expected count), from which the next round's C is set.  Divide the first
coordinate block by z_Δ C and the last by σ_b: the noise becomes N(0, I) and one client's
contribution a vector of norm at most

.. math::

    \sqrt{z_\Delta^{-2} + (2\sigma_b)^{-2}} = 1 / z,

attained by a client with an update of norm exactly C.  So the joint release is the Gaussian
mechanism of noise multiplier z = (z_Δ⁻² + (2σ_b)⁻²)^(-1/2) on contributions of norm at most 1
(rotation invariance of N(0, I): only the contribution's norm enters the privacy loss), under
add-or-remove-one and, since differences of two contributions are what replace-one compares, under
replace-one too; subsampling and composition over the rounds then act on it as on a round without
the count.  Andrew et al. (Sec. 3, "Privacy") read it the other way: for the round's target z, the
update's noise multiplier is

.. math::

    z_\Delta = \big(z^{-2} - (2\sigma_b)^{-2}\big)^{-1/2},

which exists only when z < 2σ_b (the count alone is already the Gaussian mechanism of multiplier
2σ_b); tensorflow_federated's ``adaptive_clip_noise_params`` and Flower's
``compute_adaptive_noise_params`` compute the same expression and refuse z >= 2σ_b.

Sensitivities measured as the distance between two neighbours' sums (dp_accounting's convention,
whose REPLACE_ONE noise multiplier is relative to 2C) give under replace-one 2C for the update and 1
for the count (centred or not): z_Δ = (z⁻² - σ_b⁻²)^(-1/2) with z and z_Δ relative to 2C, which is
the expression above with each multiplier halved.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from ..base import validation as _validation
from ..base.elementwise import ArrayLike

__all__ = ["adaptive_clipping_noise_multiplier", "round_noise_multiplier"]

Relation = Literal["add_or_remove_one", "replace_one"]
RELATIONS: tuple[Relation, ...] = ("add_or_remove_one", "replace_one")

# each expression below is at most seven correctly rounded operations (a square root's error is half
# an ulp): within 4 ulps of its exact value, and this margin (about 9 ulps) puts it past that value
_MARGIN = 2e-15
# ... and below the normal doubles an operation's error is absolute, half the least subnormal: this
# slack covers it
_SUBNORMAL_SLACK = 8 * float(np.nextafter(0.0, 1.0))


def adaptive_clipping_noise_multiplier(
    target_noise_multiplier: ArrayLike,
    clipped_count_stddev: ArrayLike,
    *,
    relation: Relation = "add_or_remove_one",
) -> Any:
    r"""The update's noise multiplier z_Δ that makes a round of adaptive clipping the Gaussian of multiplier z.

    A round releases the noised sum of clipped updates, noise multiplier z_Δ, and the noised count
    of clients under the clip norm, noise standard deviation σ_b (Andrew et al. 2021, Alg. 1).
    Together they are exactly the Gaussian mechanism of noise multiplier (z_Δ⁻² + (2σ_b)⁻²)^(-1/2)
    (``hockeystick.training.adaptive_clipping``), so the round has the target multiplier z when

    .. math::

        z_\Delta = \big(z^{-2} - (2\sigma_b)^{-2}\big)^{-1/2}
        = \frac{2\sigma_b\, z}{\sqrt{(2\sigma_b - z)(2\sigma_b + z)}}

    (Andrew et al. 2021, Sec. 3; tensorflow_federated's ``adaptive_clip_noise_params``, Flower's
    ``compute_adaptive_noise_params``). The 2σ_b is the count's sensitivity 1/2 under
    add-or-remove-one with the centred count (each client adds b - 1/2). With
    ``relation="replace_one"`` the multipliers are relative to the replace-one sensitivity 2C of the
    update's sum (dp_accounting's REPLACE_ONE convention), the count's sensitivity is 1 and the term
    is σ_b: z_Δ = (z⁻² - σ_b⁻²)^(-1/2). hockeystick's own training classes measure the noise
    multiplier against C under every sampling, so their replace-one runs use the default.

    Parameters
    ----------
    target_noise_multiplier : array_like
        z, the noise multiplier the whole round (update and count) is to have, the one the run is
        accounted at (``DPFedAvg(noise_multiplier=z)`` without the count); finite, > 0.
    clipped_count_stddev : array_like
        σ_b, the standard deviation of the noise on the count of clients under the clip norm (the
        count, not the fraction); finite, > 0. Broadcasts with ``target_noise_multiplier``.
    relation : {"add_or_remove_one", "replace_one"}, default "add_or_remove_one"
        The neighbouring relation the multipliers' sensitivity is measured under, as above.

    Returns
    -------
    float or numpy.ndarray
        z_Δ, the noise multiplier to add to the clipped updates' sum, rounded up past its exact
        value (more noise than the exact z_Δ keeps the round's multiplier at least z).

    Raises
    ------
    ValueError
        ``target_noise_multiplier`` or ``clipped_count_stddev`` not finite and > 0;
        ``target_noise_multiplier`` >= 2 ``clipped_count_stddev`` (>= ``clipped_count_stddev`` under
        "replace_one"), where no update noise reaches the target; an unknown ``relation``; shapes
        that do not broadcast.
    ParameterTypeError
        A string, bool or None for a number.

    See Also
    --------
    round_noise_multiplier : the inverse, the round's multiplier from the update's.
    DPFedAvg : ``clipped_count_stddev=`` accounts a run at the round's multiplier.

    References
    ----------
    Andrew, Thakkar, McMahan & Ramaswamy 2021, "Differentially private learning with adaptive
    clipping" (NeurIPS), Alg. 1 and Sec. 3.

    Examples
    --------
    >>> from hockeystick.training import adaptive_clipping_noise_multiplier
    >>> round(adaptive_clipping_noise_multiplier(1.0, clipped_count_stddev=5.0), 6)  # (1 - 1/100)^(-1/2)
    1.005038
    """
    z, term = _multiplier_and_count_term(target_noise_multiplier, clipped_count_stddev, relation)
    too_little = z >= term
    if too_little.any():
        i = int(np.argmax(too_little.ravel()))
        rule, half = (
            ("clipped_count_stddev", "")
            if relation == "replace_one"
            else ("2 * clipped_count_stddev", "half ")
        )
        raise ValueError(
            f"target_noise_multiplier must be < {rule} ({relation}): the noised count alone is the Gaussian "
            f"mechanism of multiplier {rule}, and a round's multiplier is below each of its two parts'; got "
            f"target_noise_multiplier = {z.ravel()[i]:g}, {rule} = {term.ravel()[i]:g}; raise clipped_count_stddev "
            f"above {half}the target, or lower target_noise_multiplier"
        )
    with np.errstate(over="ignore"):
        update = z * (term / (np.sqrt(term - z) * np.sqrt(term + z)))
    return _validation.scalar_or_array(update * (1.0 + _MARGIN) + _SUBNORMAL_SLACK)


def round_noise_multiplier(
    noise_multiplier: ArrayLike,
    clipped_count_stddev: ArrayLike,
    *,
    relation: Relation = "add_or_remove_one",
) -> Any:
    r"""The noise multiplier of a round of adaptive clipping, from the update's noise multiplier and the count's noise.

    The noised sum of clipped updates (noise multiplier z_Δ) and the noised count of clients under
    the clip norm (standard deviation σ_b) are together exactly the Gaussian mechanism of noise
    multiplier

    .. math::

        z = \big(z_\Delta^{-2} + (2\sigma_b)^{-2}\big)^{-1/2}
        = \frac{z_\Delta}{\sqrt{1 + (z_\Delta / 2\sigma_b)^2}}

    (``hockeystick.training.adaptive_clipping``: one client's contribution, in units of the noise,
    has norm at most that 1/z). Under ``relation="replace_one"`` with multipliers relative to the
    replace-one sensitivity 2C, the term is σ_b.

    Parameters
    ----------
    noise_multiplier : array_like
        z_Δ, the noise added to the sum of clipped updates over the clipping norm C; finite, > 0.
    clipped_count_stddev : array_like
        σ_b, the standard deviation of the noise on the count of clients under the clip norm;
        finite, > 0.
    relation : {"add_or_remove_one", "replace_one"}, default "add_or_remove_one"
        The neighbouring relation the multipliers' sensitivity is measured under, as in
        ``adaptive_clipping_noise_multiplier``.

    Returns
    -------
    float or numpy.ndarray
        z, rounded down past its exact value (a smaller multiplier is a weaker, still valid,
        guarantee).

    Raises
    ------
    ValueError
        ``noise_multiplier`` or ``clipped_count_stddev`` not finite and > 0; an unknown
        ``relation``; shapes that do not broadcast.
    ParameterTypeError
        A string, bool or None for a number.

    See Also
    --------
    adaptive_clipping_noise_multiplier : the inverse, the update's multiplier for a round's target.

    References
    ----------
    Andrew, Thakkar, McMahan & Ramaswamy 2021, Sec. 3.

    Examples
    --------
    >>> from hockeystick.training import round_noise_multiplier
    >>> round(round_noise_multiplier(1.0, clipped_count_stddev=5.0), 6)  # (1 + 1/100)^(-1/2)
    0.995037
    """
    z, term = _multiplier_and_count_term(
        noise_multiplier, clipped_count_stddev, relation, "noise_multiplier"
    )
    # a multiplier within the slack of 0 rounds down to 0, which the accountants refuse
    with np.errstate(under="ignore"):
        down = np.maximum(z / np.hypot(1.0, z / term) * (1.0 - _MARGIN) - _SUBNORMAL_SLACK, 0.0)
    return _validation.scalar_or_array(down)


def _multiplier_and_count_term(
    multiplier: ArrayLike,
    clipped_count_stddev: ArrayLike,
    relation: Relation,
    name: str = "target_noise_multiplier",
) -> tuple[np.ndarray, np.ndarray]:
    """The multiplier and the count's term, 2 sigma_b (add-or-remove, the centred count's
    sensitivity 1/2) or sigma_b (replace-one, sensitivity 1), checked and broadcast."""
    _validation.choice(relation, "relation", RELATIONS)
    p = _validation.broadcast(
        **{
            name: _validation.positive(multiplier, name),
            "clipped_count_stddev": _validation.positive(
                clipped_count_stddev, "clipped_count_stddev"
            ),
        }
    )
    sigma_b = p["clipped_count_stddev"]
    return p[name], sigma_b if relation == "replace_one" else 2.0 * sigma_b
