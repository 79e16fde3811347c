r"""The individual Rényi filter for noisy gradient descent: each record spends its own budget, by
the size of its own clipped gradient, and is left out of the steps its budget cannot pay for.

Full-batch noisy gradient descent releases, at step t, the sum of the records' clipped gradients
plus Gaussian noise of standard deviation sigma_t C (``noise_multiplier`` sigma_t, clip norm C =
``max_grad_norm``). With or without record i the sums differ by i's clipped gradient, of norm
rho_{i,t} = min(||g_t(x_i)||, C), so the step is, for record i and the pair that adds or removes it,
the Gaussian mechanism of sensitivity rho_{i,t}:

.. math::

    \rho_{i,t}(\alpha) = \frac{\alpha}{2 \sigma_t^2} \Bigl(\frac{\rho_{i,t}}{C}\Bigr)^2 ,

its individual Rényi DP at order alpha.  rho_{i,t} depends on x_i and on the model, which is
computed from the outputs before step t; Feldman & Zrnic (2021, "Individual privacy accounting via a
Rényi filter", Thm. 3.3 and Alg. 3) prove that the sum of such individual losses kept within a
budget fixed before the run gives record i the budget's guarantee, however the steps were chosen.
So at each step the filter admits record i if, with this step's loss, some order stays within the
budget of ``rdp_filter.rdp_budgets`` (the same union over orders and conversion as the ledger's
filter, ``rdp_filter`` module docstring); a record not admitted is left out of that step's sum (its
gradient weighted 0), which costs it nothing.

The individual losses are data-dependent: what a record has spent is as private as the record. The
filter therefore answers only with the guarantee (the budget, for every record), never with a
record's epsilon; its ``state_dict`` holds the spent sums for a restart and must be kept with the
data, not published.

Rounding outward: a record's loss is computed as (rho / C)^2 times the Gaussian curve's upper side
(``rdp.integer_orders.gaussian_rdp_upper``), widened by 8 u and stepped one ulp up (four roundings
of at most u/2 relative each); each running sum is stepped one ulp up after every addition (one
rounding of at most half an ulp). So the spent sum is never below the exact sum of the exact losses,
and the filter never admits a step that exact arithmetic would refuse.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..base.validation import delta_target, describe, positive_number, single
from ..rdp.integer_orders import gaussian_rdp_upper
from .guarantee import PrivacyGuarantee
from .rdp_filter import most_rounds_order, rdp_budgets, union_cost
from .round_rdp import check_integer_orders
from .rounds import Round

__all__ = ["IndividualRdpFilter"]

_U = 2.0**-53
STATE_FORMAT = "hockeystick.individual_rdp_filter/1"
MAX_RECORDS = (
    2**40
)  # one spent sum per record and order: 8 TiB at one order, more than any machine holds


class IndividualRdpFilter:
    """Feldman & Zrnic's individual Rényi filter for full-batch noisy gradient descent (the module docstring).

    Parameters
    ----------
    num_records : int
        How many records the training set holds (each gets the budget).
    noise_multiplier : float
        The noise standard deviation over ``max_grad_norm``, finite and > 0 (a step may give its
        own).
    max_grad_norm : float
        The clip norm C of each record's gradient, finite and > 0 (Opacus's name).
    epsilon : float
        The budget's epsilon for every record, finite and >= 0.
    delta : float
        The budget's delta, 0 < delta < 1.
    orders : int or sequence of int, optional
        Integer Rényi orders in [2, 1024]. Default: the one order at which most steps of a record
        whose gradient is always clipped fit the budget (``rdp_filter.most_rounds_order`` of
        ``Round.gaussian(noise_multiplier)``: ``best_order``'s rule, kept when not one such step
        fits, since records with smaller gradients may still), Feldman & Zrnic's single-order
        filter, chosen from the settings alone.

    Raises
    ------
    ValueError
        If ``num_records`` is not a whole number in [1, 2^40] (or its spent sums cannot be
        allocated), ``noise_multiplier`` or ``max_grad_norm`` is not a finite number > 0,
        ``epsilon`` is not a finite number >= 0, ``delta`` lies outside (0, 1), or ``orders`` is not
        a set of whole numbers in [2, 1024].

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick.ledger import IndividualRdpFilter
    >>> f = IndividualRdpFilter(3, noise_multiplier=10.0, max_grad_norm=1.0, epsilon=1.0, delta=1e-5)
    >>> used = np.zeros(3, dtype=int)
    >>> for step in range(1000):
    ...     used += f.admit(np.array([5.0, 0.5, 0.1]))  # record 0's gradient is clipped to 1.0
    >>> used.tolist()  # the steps each record took part in: 1 / (clipped norm)^2 times the clipped one's
    [6, 24, 602]
    >>> print(f.guarantee().kind)
    filter
    """

    def __init__(
        self,
        num_records: int,
        *,
        noise_multiplier: float,
        max_grad_norm: float,
        epsilon: float,
        delta: float,
        orders: int | tuple[int, ...] | list[int] | None = None,
    ) -> None:
        if isinstance(num_records, (bool, np.bool_)) or not isinstance(
            num_records, (int, np.integer)
        ):
            raise ValueError(
                f"num_records must be a whole number >= 1, got {describe(num_records)}"
            )
        if not 1 <= num_records <= MAX_RECORDS:
            raise ValueError(
                f"num_records must be a whole number in [1, 2^40], got {describe(num_records)}"
            )
        self.num_records = int(num_records)
        self.noise_multiplier = positive_number(noise_multiplier, "noise_multiplier")
        self.max_grad_norm = positive_number(max_grad_norm, "max_grad_norm")
        eps = single(epsilon, "epsilon")
        if not (math.isfinite(eps) and eps >= 0):
            raise ValueError(f"epsilon must be a finite number >= 0, got {describe(epsilon)}")
        self.epsilon, self.delta = eps, delta_target(delta)
        if orders is None:
            orders = most_rounds_order(
                Round.gaussian(self.noise_multiplier), self.epsilon, self.delta
            )
        self.orders = check_integer_orders(orders)
        self._budgets = rdp_budgets(self.epsilon, self.delta, self.orders)
        try:
            self._spent = np.zeros((self.num_records, len(self.orders)))
        except (MemoryError, ValueError):
            raise ValueError(
                f"num_records ({self.num_records}) times the {len(self.orders)} orders is more spent sums than this "
                "machine can hold (8 bytes each): fewer records, or one order (orders=None picks one)"
            ) from None
        self.steps = 0

    def admit(self, grad_norms: Any, noise_multiplier: float | None = None) -> np.ndarray:
        """Which records this step may use, and their losses spent: the others are left out of the step's sum.

        Parameters
        ----------
        grad_norms : array_like
            Each record's gradient norm at this step, before clipping (>= 0; inf is clipped like any
            norm above ``max_grad_norm``), ``num_records`` of them.
        noise_multiplier : float, optional
            This step's noise multiplier (default: the filter's), chosen from earlier outputs if
            need be.

        Returns
        -------
        numpy.ndarray of bool
            True for the records whose clipped gradients enter this step's noisy sum; the training
            loop must weight the others' gradients 0.

        Raises
        ------
        ValueError
            If ``grad_norms`` is not ``num_records`` numbers >= 0 (NaN included), or
            ``noise_multiplier`` is not a finite number > 0.
        """
        try:
            given = np.asarray(grad_norms)
        except (ValueError, TypeError) as err:  # ragged sequences
            raise ValueError(
                f"grad_norms must be numbers >= 0, one per record, got {describe(grad_norms)} ({err})"
            ) from None
        if given.dtype.kind not in "iuf":  # strings, booleans, complex numbers, objects: not norms
            raise ValueError(
                f"grad_norms must be real numbers >= 0, one per record, got {describe(grad_norms)} (dtype {given.dtype})"
            )
        norms = given.astype(np.float64)
        if norms.shape != (self.num_records,):
            raise ValueError(
                f"grad_norms must hold one norm per record, shape ({self.num_records},), got shape {norms.shape}"
            )
        if not (norms >= 0).all():
            raise ValueError(
                "grad_norms must be numbers >= 0 (a gradient's L2 norm); NaN or a negative value found"
            )
        sigma = (
            self.noise_multiplier
            if noise_multiplier is None
            else positive_number(noise_multiplier, "noise_multiplier")
        )
        ratio = np.minimum(norms / self.max_grad_norm, 1.0)
        curve = gaussian_rdp_upper(sigma, self.orders)
        loss = np.nextafter((ratio * ratio)[:, None] * curve[None, :] * (1.0 + 8.0 * _U), np.inf)
        after = np.nextafter(self._spent + loss, np.inf)
        admitted: np.ndarray = (after <= self._budgets).any(axis=1)
        self._spent[admitted] = after[admitted]
        self.steps += 1
        return admitted

    def guarantee(self) -> PrivacyGuarantee:
        """The guarantee every record has: the budget, for the whole run.

        Returns
        -------
        PrivacyGuarantee
            ``kind="filter"``, ``method="rdp"``, the budget's (epsilon, delta) after ``steps``
            steps.
        """
        k = len(self.orders)
        return PrivacyGuarantee(
            kind="filter",
            method="rdp",
            epsilon=self.epsilon,
            delta=self.delta,
            rounds=self.steps,
            assumption=(
                "each step released the sum of the admitted records' gradients, clipped to max_grad_norm, plus "
                "Gaussian noise of standard deviation noise_multiplier * max_grad_norm, over the whole training set "
                "(no subsampling), and no other use of the data; each record's budget, fixed before the run, holds "
                "for adding or removing that record however the steps were chosen (Feldman & Zrnic 2021)"
            ),
            cost=union_cost(k)
            if k > 1
            else f"{union_cost(1)}; records whose budget is spent leave the training",
        )

    def state_dict(self) -> dict[str, Any]:
        """The filter's state, to save with a training checkpoint. It holds what each record has
        spent, which is as private as the data: keep it with the data, never publish it.

        Returns
        -------
        dict
            The configuration, the step count and the spent sums (exact doubles).
        """
        return {
            "format": STATE_FORMAT,
            "configuration": self._configuration(),
            "steps": self.steps,
            "spent": self._spent.tolist(),
        }

    def _configuration(self) -> dict[str, Any]:
        return {
            "num_records": self.num_records,
            "noise_multiplier": self.noise_multiplier,
            "max_grad_norm": self.max_grad_norm,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "orders": list(self.orders),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Replace the spent sums and the step count by those of ``state`` (loading twice is loading once).

        Parameters
        ----------
        state : dict
            A ``state_dict()`` of a filter of the same configuration.

        Raises
        ------
        ValueError
            If ``state`` is not such a state, or was saved by a filter of another configuration.
        """
        if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
            raise ValueError(
                f"state must be an IndividualRdpFilter.state_dict() (format {STATE_FORMAT!r})"
            )
        if state.get("configuration") != self._configuration():
            raise ValueError(
                f"the state was saved by a filter of another configuration ({state.get('configuration')}; this one "
                f"is {self._configuration()})"
            )
        try:
            given = np.asarray(state.get("spent"))
        except (ValueError, TypeError):  # ragged lists
            given = np.asarray(None)
        if (
            given.dtype.kind not in "iuf"
            or given.shape != self._spent.shape
            or not (given >= 0).all()
        ):
            raise ValueError(
                f"state's spent must hold numbers >= 0, {self._spent.shape[1]} per record for {self.num_records} "
                "records (no filter of this configuration writes anything else)"
            )
        steps = state.get("steps")
        if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
            raise ValueError(
                f"state's steps must be a whole number (an int) >= 0, got {describe(steps)}"
            )
        self._spent, self.steps = given.astype(np.float64), steps
