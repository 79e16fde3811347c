"""An exact epsilon bracket (lower == upper, both sides infinite included: a certified lower side of +inf is the
truth) is within every tolerance: neither ``accuracy=``'s ``unmet_flags`` nor the default's ``warn_unreadable``
warns for it (inf - inf would read NaN, wider than any tolerance), while an infinite upper side over a finite
lower one, or a finite bracket wider than asked, still warns."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from hockeystick.pld.refine import question
from hockeystick.pld.refine.unmet import AccuracyNotMetWarning, unmet_flags

INF = np.inf


@pytest.mark.parametrize("check", ["unmet_flags", "warn_unreadable"])
def test_exact_brackets_are_never_flagged_and_wide_ones_are(check):
    def flags(lower, upper):
        lo, up = np.array(lower), np.array(upper)
        return (
            unmet_flags(lo, up, 1e-3, 0.0)
            if check == "unmet_flags"
            else question.warn_unreadable(lo, up)
        )

    with warnings.catch_warnings():
        warnings.simplefilter("error", AccuracyNotMetWarning)
        assert not np.any(flags([INF, 2.5, 0.0], [INF, 2.5, 0.0]))
    with pytest.warns(AccuracyNotMetWarning, match=r"^2 of 4 epsilon brackets are wider"):
        wide = flags([INF, 1.0, 1.0, 1.0], [INF, INF, 1.5, 1.0])
    assert wide.tolist() == [False, True, True, False]


def test_the_warning_names_the_users_line_on_every_path():
    """The default's warning and accuracy='s point at the line that asked, whatever number of hockeystick frames
    (a training run over the accountant, the keyword-only decorator) lies between it and the warning."""
    from hockeystick.pld import SubsampledGaussianPLD
    from hockeystick.training import DPFedAvg

    # every ask is of the run at q 0.5 (T q > 1: one read of the rounds, under a second; at q 0.01 the split read of
    # T q <= 1 takes 7 s, and accuracy= there reads tilted grids for 3 s before it gives up): at delta 5e-324 no
    # grid reaches 1e-3, so accuracy= warns after its refinement as the default does after its reads; the warning
    # is issued by one function on every numeric path, its frame counted at the call
    asks = [
        lambda: SubsampledGaussianPLD(sigma=2.0, sampling_rate=0.5, rounds=10).epsilon(
            5e-324, bound="both"
        ),
        lambda: DPFedAvg(noise_multiplier=2.0, sample_rate=0.5, rounds=10).epsilon(
            5e-324, bound="both"
        ),
        lambda: SubsampledGaussianPLD(
            sigma=2.0, sampling_rate=0.5, rounds=10, accuracy=1e-3
        ).epsilon(5e-324),
    ]
    for ask in asks:
        with pytest.warns(AccuracyNotMetWarning) as caught:
            ask()
        assert [w.filename for w in caught] == [__file__]
