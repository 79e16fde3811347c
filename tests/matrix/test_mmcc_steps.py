"""What MMCC's answers rest on, and MMCC as an accountant: every answer lists the cited steps (the reduction, its
theorem number unconfirmed; Cor. 4.7; Thm 3.1) beside the steps certified here, each with its hypotheses; the
repr says which the upper side rests on; ``delta`` / ``epsilon`` keep the accountant contract (sides, arrays,
refusals, the contract's docstring sections); the cut tails charged in delta and epsilon."""

from __future__ import annotations

import numpy as np
import pytest

import hockeystick.matrix.mmcc as mmcc_module
from hockeystick.base.accountant import Accountant
from hockeystick.base.accountant_docs import contract_sections
from hockeystick.base.outward_text import outward_text
from hockeystick.matrix import MMCC, Banded, Tree
from hockeystick.matrix.mmcc_steps import CERTIFIED, MMCC_STEPS, cited_steps


def _run(**kwargs: object) -> MMCC:
    args: dict[str, object] = {
        "strategy": Banded([1.0, 0.5]),
        "rounds": 8,
        "noise_multiplier": 2.0,
        "sampling_rate": 0.05,
    }
    args.update(kwargs)
    return MMCC(**args)  # type: ignore[arg-type]


def test_every_answer_lists_the_cited_steps_with_their_hypotheses() -> None:
    answer = _run().get_epsilon(1e-6)
    assert answer.steps == MMCC_STEPS
    cited = {step.label: step for step in answer.cited}
    assert set(cited) == {"reduction (most likely Thm 4.8)", "Cor. 4.7", "Thm 3.1"}
    reduction = cited["reduction (most likely Thm 4.8)"]
    assert reduction.status == "cited, number unconfirmed" and "unconfirmed" in reduction.source
    assert "arXiv:2310.15526" in reduction.source
    needs = " | ".join(reduction.hypotheses)
    for hypothesis in ("C >= 0", "lower triangular", "Poisson sampling", "add/remove"):
        assert hypothesis in needs
    assert cited["Cor. 4.7"].status == "cited"
    certified = [step for step in answer.steps if step.status == CERTIFIED]
    assert "Lemma B.4" in [step.label for step in certified]
    assert {step.label for step in certified} | set(cited) == {step.label for step in MMCC_STEPS}
    assert cited_steps() == answer.cited
    assert "Lemma B.4" in str(certified[0]) and "needs shifts >= 0" in str(certified[0])


def test_repr_says_what_the_upper_side_rests_on() -> None:
    amplified = _run(noise_multiplier=3.0, sampling_rate=0.01, lower_side=False).get_epsilon(1e-6)
    assert amplified.upper_rests_on_citations and amplified.upper == amplified.mmcc
    text = repr(amplified)
    assert text.startswith(
        f"MMCCEpsilon(delta=1e-06: certified bracket [0, {outward_text(amplified.upper, 'upper')}]"
    )
    assert (
        "resting on cited steps: reduction (most likely Thm 4.8) (cited, number unconfirmed)"
        in text
    )
    assert "Cor. 4.7 (cited)" in text and "Thm 3.1 (cited)" in text
    # q = 1: nothing amplified, the upper side is the bound without amplification, which rests on no citation
    plain = _run(sampling_rate=1.0, lower_side=False).get_epsilon(1e-5)
    assert not plain.upper_rests_on_citations and plain.upper == plain.unamplified
    assert "upper side the unamplified bound" in repr(plain) and str(plain) == repr(plain)


def test_accountant_contract() -> None:
    run = _run()
    assert isinstance(run, Accountant)
    for method in ("delta", "epsilon"):
        doc = getattr(MMCC, method).__doc__
        for line in contract_sections(method).splitlines():
            if line.startswith("ParameterTypeError") or line.startswith("bound :"):
                assert line in doc
    deltas = np.array([1e-6, 1e-3])
    lower, upper = run.epsilon(deltas, bound="both")
    assert isinstance(upper, np.ndarray) and upper.shape == (2,)
    assert np.all(0.0 <= lower) and np.all(lower <= upper)
    assert upper[0] == run.get_epsilon(1e-6).upper and upper[1] > 0
    assert isinstance(run.epsilon(1e-6), float) and run.epsilon(1e-6, bound="lower") == lower[0]
    eps = np.array([0.0, 0.5, 2.0])
    low_delta, high_delta = run.delta(eps, bound="both")
    assert np.all(low_delta <= high_delta) and np.all(np.diff(high_delta) <= 0)
    # the lower delta at the lower epsilon is above the delta asked (bisection's invariant), below the upper delta
    assert run.delta(float(lower[1]), bound="lower") > 1e-3
    assert run.delta(float(lower[1])) >= run.delta(float(lower[1]), bound="lower")
    with pytest.raises(ValueError, match="bound must be"):
        run.epsilon(1e-6, bound="middle")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="delta must"):
        run.epsilon([1e-6, 1.5])
    with pytest.raises(ValueError, match="epsilon must"):
        run.delta(-1.0)


def test_cut_tails_charged_in_both_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """A tree over 64 rounds: its rows' laws drop their far tails (kappa > 0 and at most 2^-20 delta_1 (1 +
    2^-9)); without the cut the same run's value is at most a little larger (the far tails hold almost nothing),
    and with it the value is never below the certified lower side."""
    run = MMCC(strategy=Tree(), rounds=64, noise_multiplier=6.0, sampling_rate=0.02)
    answer = run.get_epsilon(1e-8)
    kappa = run.epsilon_charge(answer.tail_delta)
    assert 0.0 < kappa <= 2.0**-20 * answer.tail_delta * (1 + 2.0**-9)
    assert answer.lower <= answer.mmcc
    monkeypatch.setattr(mmcc_module, "CUT_SHARE", 0.0)
    uncut = MMCC(
        strategy=Tree(), rounds=64, noise_multiplier=6.0, sampling_rate=0.02, lower_side=False
    )
    assert uncut.epsilon_charge(answer.tail_delta) == 0.0
    assert uncut.get_epsilon(1e-8).mmcc >= answer.mmcc * (1 - 1e-3)
