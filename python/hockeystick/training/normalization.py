r"""What DP-SGD divides its noised sum by, and when that division is post-processing.

DP-SGD releases :math:`(\sum_{i \in B} \mathrm{clip}(g_i, C) + \mathcal N(0, z^2 C^2 I_d)) / c`.
When c is the same on every pair of neighbouring data sets, dividing by it is post-processing and
the step is the sampled Gaussian mechanism the accountants bound:

- ``"sum"``: no division (c = 1);
- ``"public_constant"``: c computed from public numbers only (a public data-set size n, a fixed
  batch size);
- ``"expected_batch_size"``: Opacus's ``c = floor(q |D|)`` (``loss_reduction="mean"``).  Under
  replace-one neighbours (fixed-size or shuffled batches) ``|D|`` is the same on both neighbours:
  post-processing.  Under add-or-remove (Poisson sampling, balls-in-bins) ``|D|`` differs by one
  between neighbours, so c can differ;
- ``"realized_batch_size"``: ``c = |B|``, the batch drawn.  Fixed and shuffled batches have a size
  fixed by the public n and m; under Poisson sampling or balls-in-bins ``|B|`` is data-dependent.

In the last two cases under add-or-remove the two neighbours' outputs are Gaussians of different
scales σC/c and σC/c'; the divergence between two such laws in d dimensions grows with d, and the
guarantee vanishes as
d → ∞ (arXiv 2605.15648; opacus #571 and #819).  No certified bound as a function of d is computed here: those
settings are refused, naming the relation.
"""

from __future__ import annotations

from typing import Literal

from ..base import validation as _validation
from .sampling_schemes import sampling_schemes
from .vocabulary import Sampling

__all__ = ["NORMALIZATIONS", "Normalization", "checked_normalization"]

Normalization = Literal["sum", "public_constant", "expected_batch_size", "realized_batch_size"]
NORMALIZATIONS: tuple[Normalization, ...] = (
    "sum",
    "public_constant",
    "expected_batch_size",
    "realized_batch_size",
)


def checked_normalization(normalization: Normalization, sampling: Sampling) -> Normalization:
    """``normalization`` if dividing by it is post-processing under ``sampling``'s neighbouring
    relation (the module docstring); a ValueError naming the relation otherwise."""
    chosen = _validation.choice(normalization, "normalization", NORMALIZATIONS)
    # a sampling whose neighbours hold as many records (replace-one): floor(q |D|) and the batch
    # size are public
    same_size = {s.word for s in sampling_schemes() if s.relation == "replace_one"}
    if chosen in ("sum", "public_constant") or sampling in same_size:
        return chosen
    what = "floor(q |D|)" if chosen == "expected_batch_size" else "the realized batch size |B|"
    raise ValueError(
        f'normalization="{chosen}" with sampling="{sampling}" is not certified: under add-or-remove neighbours '
        f"{what} differs between the two data sets, so the noised sum is divided by different numbers and the "
        "two outputs are Gaussians of different scales, whose guarantee depends on the model's dimension d and "
        'vanishes as d grows; divide by a public constant (normalization="public_constant", e.g. the expected '
        'batch size from a public data-set size), or use replace-one batches (sampling="fixed_size" or "shuffle")'
    )
