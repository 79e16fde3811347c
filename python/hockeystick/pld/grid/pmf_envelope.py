"""An optimistic grid PMF's lower side raised to the suffix maxima of its charged lower curve
(``GridPMF.delta``'s envelope), read in the core: cpp/include/hockeystick/pld/reads/lower_envelope.hpp,
through ``_core.pld_reads.lower_envelope``.

The round-off charge falls as eps rises (fewer grid points above), so the charged lower curve may
rise while delta itself does not: a lower bound at any eps' >= eps also bounds delta(eps), and the
optimistic ``delta`` takes the largest one, at eps or at a grid point above it.  The core reads it
from probes near each eps, or, where those would visit more than half the grid, from the suffix
maxima of one whole pass, which the PMF keeps for its later reads (a root search queries one PMF
many times): in its ``__dict__``, ``_lower_suffix_maxima``, the first grid index they cover and the
maxima from there up (those ``tabled_curve`` built at every index, where it is built).
"""

from __future__ import annotations

from typing import cast

import numpy as np

from ... import _core
from .charged_grid import ChargedGrid


def raised(
    pmf: ChargedGrid, epsilon: np.ndarray, low: np.ndarray, whole: bool = False
) -> np.ndarray:
    """``low``, the optimistic ``pmf``'s charged lower values at the true curve's eps (flat arrays),
    each raised to the largest charged lower value at a grid point at or above its curve argument;
    ``whole``: read from the suffix maxima of the whole pass however few the eps (built once per PMF)."""
    held = pmf.__dict__.get("_lower_suffix_maxima")
    if held is None and "tabled_curve" in pmf.__dict__ and pmf.tabled_envelope:
        held = pmf.__dict__["_lower_suffix_maxima"] = (0, pmf.tabled_curve.envelope)
    values, built = _core.pld_reads.lower_envelope(pmf, epsilon, low, held=held, whole=whole)
    if built is not None:
        pmf.__dict__["_lower_suffix_maxima"] = built
    return cast(np.ndarray, values)
