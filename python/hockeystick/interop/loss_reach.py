"""The parameter range where the adapters compute certified bounds, and the error beyond it.

The range and its error are ``base.parameter_range``'s (every door reads them there, the mechanisms'
readings of events included); the adapters import them here.  This module imports nothing beyond
the standard library and ``base``, so the Opacus adapter uses it without dp_accounting.
"""

from __future__ import annotations

from ..base.parameter_range import MAX_LOSS_REACH as MAX_LOSS_REACH
from ..base.parameter_range import MAX_NOISE as MAX_NOISE
from ..base.parameter_range import TAIL_RADII as TAIL_RADII
from ..base.parameter_range import ParameterOutOfRange as ParameterOutOfRange
from ..base.parameter_range import gaussian_reach as gaussian_reach
