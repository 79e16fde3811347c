"""Rows of one factor in a batch (direct bins and band rows key a row by its count too) share one forward
transform (pld/compose/spectrum.hpp's forward_rows): each item composes as it does alone, bit for bit, whichever
factor's rows its batch holds beside its own."""

from __future__ import annotations

import hockeystick.pld as pld
from hockeystick.pld.compose import fft as pc


def test_items_of_two_factors_at_several_counts_compose_as_they_do_alone():
    """Two-term items (no band rows) with direct bins asked but a charge no row reaches
    (direct_min_charge 1): every row is a full row keyed by its count, read from its double transform."""
    h = 1e-3
    first = next(
        iter(pld.subsampled_gaussian(1.0, 0.02, value_discretization_interval=h).directions[0])
    )
    second = next(
        iter(pld.subsampled_gaussian(1.3, 0.03, value_discretization_interval=h).directions[0])
    )
    items = [[(first.upper, c), (second.upper, d)] for c, d in ((300, 10), (310, 20), (290, 30))]
    lengths = {pc.fft_length(pc.compose(item, pessimistic=True).p.size) for item in items}
    assert len(lengths) == 1  # one batch: the rows of both factors at several counts side by side
    options = dict(pessimistic=True, direct_bins=True, direct_min_charge=1.0)
    together = pc.compose_many(items, **options)
    for item, joint in zip(items, together):
        (alone,) = pc.compose_many([item], **options)
        assert joint.k_lo == alone.k_lo
        assert joint.p.tobytes() == alone.p.tobytes()
        assert (joint.p_inf, joint.entry_error, joint.total_error, joint.spectral_l2) == (
            alone.p_inf,
            alone.entry_error,
            alone.total_error,
            alone.spectral_l2,
        )
