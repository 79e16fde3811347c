"""A running sum of nonnegative curves, read on the upper side: the ledger's spent Rényi (or GDP) budget.

Summing n nonnegative doubles in any order errs by at most gamma_{n-1} times the exact sum,
gamma_k = k u / (1 - k u), u = 2^-53 (Higham 2002, "Accuracy and Stability of Numerical Algorithms", eq.
4.4), so the exact sum s satisfies s <= s_hat / (1 - gamma_{n-1}) <= s_hat (1 + 2 n u) while n u <=
1/4 (n <= 2^51 additions, far beyond any run).  ``upper`` returns s_hat (1 + 2 (n + 1) u) stepped
one ulp up, which also covers the widening's own product.  Each term added is itself an upper bound
on its exact value (``Round.rdp_upper``, ``Round.mu_squared_upper``), so the upper side is never
below the sum of the exact terms.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["RunningSum"]

_U = 2.0**-53


@dataclass
class RunningSum:
    """The sum of the curves added so far, with the count of additions that bounds its round-off.

    Parameters
    ----------
    size : int
        Length of each curve (the number of orders; 1 for a scalar such as mu^2).

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick.ledger.outward_sum import RunningSum
    >>> s = RunningSum(2)
    >>> s.add(np.array([0.1, 0.2]))
    >>> bool((s.upper() >= np.array([0.1, 0.2])).all())
    True
    """

    size: int
    values: np.ndarray = field(init=False)
    terms: int = 0

    def __post_init__(self) -> None:
        self.values = np.zeros(self.size)

    def add(self, curve: np.ndarray, times: int = 1) -> None:
        """Add ``curve`` ``times`` times (one addition each, as the round-off bound counts them).

        Parameters
        ----------
        curve : numpy.ndarray
            Nonnegative values, ``size`` of them.
        times : int, optional
            How many rounds of this curve (default 1): added as one product.
        """
        if times == 1:
            self.values = self.values + curve
            self.terms += 1
        else:  # one product (a relative error u on that term) and one addition: counted as two terms
            self.values = self.values + curve * float(times)
            self.terms += 2

    def plus(self, curve: np.ndarray, times: int = 1) -> RunningSum:
        """A new sum: this one with ``curve`` added ``times`` times (``add``), this one unchanged.

        Parameters
        ----------
        curve : numpy.ndarray
            Nonnegative values, ``size`` of them.
        times : int, optional
            How many rounds of this curve (default 1).

        Returns
        -------
        RunningSum
            The sum with the curve added.
        """
        out = RunningSum(self.size)
        out.values, out.terms = self.values, self.terms
        out.add(curve, times)
        return out

    def upper(self, extra: np.ndarray | None = None) -> np.ndarray:
        """An upper bound on the exact sum of the terms added (and of ``extra``, a next term, when given).

        Parameters
        ----------
        extra : numpy.ndarray, optional
            One more curve, summed in (not stored): the sum if the next round were added.

        Returns
        -------
        numpy.ndarray
            s_hat (1 + 2 (n + 1) u), one ulp up (the module docstring).
        """
        n = self.terms + (0 if extra is None else 1)
        total = self.values if extra is None else self.values + extra
        with np.errstate(over="ignore"):
            return np.nextafter(total * (1.0 + 2.0 * (n + 1) * _U), np.inf)
