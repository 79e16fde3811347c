"""The argument walk's entries (``tests/test_fuzz_public_api.py``) for the paper modules ``hockeystick.isrl``
(paper 003: the silo accountants, the shuffle accountants, the paper's calibrations and Lemma D.6) and
``hockeystick.leakage`` (paper 001: the exact TV / JS and the paper's printed formulas).  Every name of each
``__all__`` has an entry labelled ``isrl.<name>`` / ``leakage.<name>`` (an accountant class also one per
method, at its one argument); each argument in turn takes every walk value, the others valid, and the call
answers without NaN or refuses naming it.  The valid values are the docstrings' examples, kept cheap (small
populations for the clone sums, coarse grids for the PLDs)."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from hockeystick import isrl, leakage

H = 1e-2  # the PLD grids of the silo accountants: coarse, so that every call stays cheap

_SILO = dict(
    sigma=1.0,
    lipschitz=1.0,
    batch_size=10,
    silo_size=1000,
    rounds=4,
    value_discretization_interval=H,
)
_CLASSES: list[tuple[str, Callable[..., Any], dict[str, Any]]] = [
    ("NoisyMBSGD", isrl.NoisyMBSGD, _SILO),
    ("OnePassNoisyMBSGD", isrl.OnePassNoisyMBSGD, dict(sigma=1.0, lipschitz=1.0, batch_size=10)),
    ("UserLevelNoisyMBSGD", isrl.UserLevelNoisyMBSGD, dict(sigma=10.0, lipschitz=1.0, rounds=4)),
    ("GroupNoisyMBSGD", isrl.GroupNoisyMBSGD, {**_SILO, "group_size": 5}),
    ("ShuffledNoisyMBSGD", isrl.ShuffledNoisyMBSGD, {**_SILO, "sigma": 2.0, "silos": 20}),
    ("ShuffledLDP", isrl.ShuffledLDP, dict(epsilon0=1.0, n=200, tail=1e-17, rtol=1e-3)),
    (
        "ShuffledApproximateLDP",
        isrl.ShuffledApproximateLDP,
        dict(epsilon0=1.0, delta0=1e-9, n=200, rtol=1e-3),
    ),
]


def _built(make: Callable[..., Any], base: dict[str, Any], method: str) -> Callable[..., Any]:
    """``method`` (delta or epsilon) of the accountant built from ``base``, at its one argument.

    The accountant is built once, at the walk's first call, and every walk value is asked of it: its answers
    are functions of the argument alone, so a build per value would only repeat the construction (the
    shuffled accountant's clone curves and composed atoms, 0.12 CPU s a build; a refused value costs 1e-4 s).
    """
    built = cache(lambda: make(**base))

    def call(**target: Any) -> Any:
        (value,) = target.values()
        return getattr(built(), method)(value)

    return call


def _constructed(make: Callable[..., Any]) -> Callable[..., Any]:
    return lambda **kw: (make(**kw).delta(1.0), make(**kw).epsilon(1e-5))


_D6 = dict(
    lipschitz=1.0,
    diameter=1.0,
    rounds=100,
    sigma=1.0,
    dimension=10,
    silos_per_round=5,
    smoothness=1.0,
)

ISRL_WALKS: list[tuple[str, Callable[..., Any], dict[str, Any]]] = [
    *((f"isrl.{name}", _constructed(make), base) for name, make, base in _CLASSES),
    *(
        (f"isrl.{name}.delta", _built(make, base, "delta"), {"epsilon": 0.5})
        for name, make, base in _CLASSES
    ),
    *(
        (f"isrl.{name}.epsilon", _built(make, base, "epsilon"), {"delta": 1e-5})
        for name, make, base in _CLASSES
    ),
    (
        "isrl.closed_form_shuffle_epsilon",
        lambda **kw: isrl.closed_form_shuffle_epsilon(**kw),
        dict(epsilon0=1.0, n=1e5, delta=1e-6),
    ),
    (
        "isrl.fmt_theorem_3_8_charge",
        lambda **kw: isrl.fmt_theorem_3_8_charge(**kw),
        dict(epsilon=0.2, epsilon0=1.0, delta0=1e-9, n=1000),
    ),
    (
        "isrl.lemma_d6_excess_risk",
        lambda **kw: isrl.lemma_d6_excess_risk(**kw),
        {**_D6, "step_size": 0.01},
    ),
    (
        "isrl.lemma_d6_excess_risk(silo_size)",
        lambda **kw: isrl.lemma_d6_excess_risk(**kw),
        {**_D6, "step_size": 0.01, "silo_size": 1000},
    ),
    (
        "isrl.lemma_d6_best_step_size",
        lambda **kw: isrl.lemma_d6_best_step_size(**kw),
        {**_D6, "silo_size": 1000},
    ),
    (
        "isrl.theorem_2_1_sigma",
        lambda **kw: isrl.theorem_2_1_sigma(**kw),
        dict(lipschitz=1.0, rounds=100, silo_size=1000, epsilon=1.0, delta=1e-6),
    ),
    (
        "isrl.theorem_2_1_batch_size",
        lambda **kw: isrl.theorem_2_1_batch_size(**kw),
        dict(rounds=100, silo_size=1000, epsilon=1.0, delta=1e-6),
    ),
    (
        "isrl.appendix_i_sigma",
        lambda **kw: isrl.appendix_i_sigma(**kw),
        dict(lipschitz=1.0, rounds=100, silo_size=1000, epsilon=1.0, delta=1e-6, local_steps=1),
    ),
    (
        "isrl.appendix_i_batch_size",
        lambda **kw: isrl.appendix_i_batch_size(**kw),
        dict(rounds=100, silo_size=1000, epsilon=1.0),
    ),
    (
        "isrl.theorem_3_1_sigma",
        lambda **kw: isrl.theorem_3_1_sigma(**kw),
        dict(lipschitz=1.0, batch_size=10, epsilon=1.0, delta=1e-6),
    ),
    (
        "isrl.theorem_3_1_rounds",
        lambda **kw: isrl.theorem_3_1_rounds(**kw),
        dict(silo_size=1000, batch_size=10),
    ),
    (
        "isrl.theorem_d5_round",
        lambda **kw: isrl.theorem_d5_round(**kw),
        dict(epsilon0=0.001, delta0=1e-9, silo_size=10, silos=10000, delta=1e-6),
    ),
    (
        "isrl.user_level_group_privacy",
        lambda **kw: isrl.user_level_group_privacy(**kw),
        dict(epsilon=0.01, delta=1e-8, silo_size=100),
    ),
]

LEAKAGE_WALKS: list[tuple[str, Callable[..., Any], dict[str, Any]]] = [
    (f"leakage.{name}", getattr(leakage, name), base)
    for name, base in [
        ("c2_constant", dict(xi=0.5)),
        ("distortion_variance_for_tv", dict(variance=1.0, dimension=100, target_tv=0.05)),
        ("eq_20_sampling_rates", dict(tau=0.2, gradient_square_sum=4.0)),
        ("js_bound_from_tv", dict(xi=0.5, tv=0.1)),
        ("js_exact", dict(variance=1.0, distortion_variance=0.01, dimension=100, shift=0.1)),
        ("lemma_5_5_upper_bound", dict(c1=0.3, xi=0.5, tv=0.1)),
        ("lemma_b1_lower_bound", dict(c1=0.3, xi=0.5, tv=0.1)),
        ("nfl_constant", dict(gamma=1.0, delta=1.0, xi=0.5)),
        ("nfl_privacy_floor", dict(c1=0.3, cd=0.5, utility_loss=0.2)),
        ("paper_distortion_variance", dict(variance=1.0, dimension=100, c1=0.3, tau=0.295)),
        ("paper_required_tv", dict(c1=0.3, tau=0.295)),
        ("sampling_variance", dict(sampling_rate=0.2, gradient_square_sum=10.0)),
        ("thm_5_11_sampling_rates", dict(c6=5.0, c1=0.3, tau=0.2, gradient_square_sum=4.0)),
        ("thm_5_12_upper_bound", dict(c1=0.3, xi=0.5, c6=1.0, expected_variance=0.1)),
        ("thm_5_14_optimal_variance", dict(c1=0.3, xi=0.5, c6=1.0)),
        ("tv_bracket", dict(variance=1.0, distortion_variance=0.01, dimension=100)),
        ("tv_exact", dict(variance=1.0, distortion_variance=0.01, dimension=100, shift=0.1)),
    ]
]

# Arguments that count something (a whole number is meant: 2.5 is refused, not truncated), and the
# arguments whose None is their documented default (Lemma D.6 without the silo size's term).
COUNTS = frozenset(
    {
        "n",
        "rounds",
        "batch_size",
        "silo_size",
        "silos",
        "group_size",
        "dimension",
        "local_steps",
        "silos_per_round",
    }
)
NONE_DEFAULTS = frozenset({"isrl.lemma_d6_excess_risk(silo_size)", "isrl.lemma_d6_best_step_size"})
