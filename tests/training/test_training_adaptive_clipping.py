"""Adaptive clipping (Andrew et al. 2021): the update's noised sum and the noised clipped count are one Gaussian.

The references are independent of the library's algebra: the joint release's delta(eps) is integrated in mpmath
from the two one-dimensional Gaussian privacy losses (it does not assume that their sum is a Gaussian's), and
the multipliers are evaluated in 50 digits.
"""

from __future__ import annotations

import mpmath
import pytest

from hockeystick.training import (
    DPFedAvg,
    adaptive_clipping_noise_multiplier,
    round_noise_multiplier,
)


def _gaussian_delta(mu, eps):
    """delta(eps) of N(mu, 1) against N(0, 1), any real eps (Balle & Wang 2018, Thm. 8)."""
    mu, eps = mpmath.mpf(mu), mpmath.mpf(eps)
    return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)


def _joint_delta(mu_update, mu_count, eps):
    """delta(eps) of the pair of releases with normalized shifts (mu_update, mu_count): the privacy loss is
    L1 + L2 with L1 ~ N(mu1^2 / 2, mu1^2) under P, so delta(eps) = E[delta_2(eps - L1)]."""
    m1 = mpmath.mpf(mu_update)

    def integrand(x):
        loss = m1 * m1 / 2 + m1 * x
        return mpmath.npdf(x) * _gaussian_delta(mu_count, eps - loss)

    return mpmath.quad(integrand, [-mpmath.inf, -5, 0, 5, mpmath.inf])


@pytest.mark.parametrize(
    ("relation", "count_shift"), [("add_or_remove_one", 0.5), ("replace_one", 1.0)]
)
@mpmath.workdps(30)
def test_a_round_with_the_count_is_the_gaussian_of_the_target_multiplier(relation, count_shift):
    # the update's sum moves by one sensitivity (C, or 2C under replace-one), i.e. by 1 / z_update in units of
    # its noise; the count by 1/2 (centred, add-or-remove) or 1 (replace-one), i.e. count_shift / sigma_b
    z, sigma_b = 0.8, 1.5
    z_update = adaptive_clipping_noise_multiplier(z, sigma_b, relation=relation)
    for eps in (0.5, 2.0):
        joint = _joint_delta(1 / mpmath.mpf(z_update), count_shift / mpmath.mpf(sigma_b), eps)
        target = _gaussian_delta(1 / mpmath.mpf(z), eps)
        assert joint == pytest.approx(float(target), rel=1e-9)


@mpmath.workdps(50)
def test_the_multipliers_match_the_closed_forms_and_round_outward():
    for z, sigma_b in ((1.0, 5.0), (0.7, 0.36), (3.0, 1.5000001), (1e-3, 1e4)):
        exact = (mpmath.mpf(z) ** -2 - (2 * mpmath.mpf(sigma_b)) ** -2) ** mpmath.mpf(-0.5)
        update = adaptive_clipping_noise_multiplier(z, sigma_b)
        assert exact <= update <= exact * (1 + 1e-14)
        # tensorflow_federated's adaptive_clip_noise_params and Flower's compute_adaptive_noise_params
        assert update == pytest.approx((z**-2 - (2 * sigma_b) ** -2) ** -0.5, rel=1e-6)
        joint = (mpmath.mpf(update) ** -2 + (2 * mpmath.mpf(sigma_b)) ** -2) ** mpmath.mpf(-0.5)
        assert joint * (1 - 1e-14) <= round_noise_multiplier(update, sigma_b) <= joint
    exact = (mpmath.mpf(0.8) ** -2 - mpmath.mpf(1.5) ** -2) ** mpmath.mpf(-0.5)
    assert (
        exact
        <= adaptive_clipping_noise_multiplier(0.8, 1.5, relation="replace_one")
        <= exact * (1 + 1e-14)
    )
    # the replace-one multipliers are relative to 2C: the same noise as the add-or-remove ones relative to C
    assert adaptive_clipping_noise_multiplier(0.4, 1.5, relation="replace_one") == pytest.approx(
        adaptive_clipping_noise_multiplier(0.8, 1.5) / 2, rel=1e-14
    )


def test_a_target_the_count_alone_exceeds_is_refused_by_name():
    with pytest.raises(
        ValueError, match=r"target_noise_multiplier must be < 2 \* clipped_count_stddev"
    ) as error:
        adaptive_clipping_noise_multiplier(2.0, 1.0)
    assert "raise clipped_count_stddev above half the target" in str(error.value)
    with pytest.raises(ValueError, match="target_noise_multiplier = 3"):
        adaptive_clipping_noise_multiplier([1.0, 3.0], 1.0)
    with pytest.raises(
        ValueError, match=r"target_noise_multiplier must be < clipped_count_stddev \(replace_one\)"
    ):
        adaptive_clipping_noise_multiplier(1.0, 1.0, relation="replace_one")
    assert adaptive_clipping_noise_multiplier(1.999, 1.0) > 1.999
    with pytest.raises(ValueError, match="clipped_count_stddev must be finite and > 0"):
        adaptive_clipping_noise_multiplier(1.0, 0.0)
    with pytest.raises(ValueError, match="relation must be one of"):
        adaptive_clipping_noise_multiplier(1.0, 1.0, relation="add_remove")  # type: ignore[arg-type]


@pytest.mark.parametrize("sampling", ["poisson", "fixed_size"])
@mpmath.workdps(50)
def test_dpfedavg_with_the_count_is_dpfedavg_at_the_round_multiplier(sampling):
    run = {"total_clients": 1000, "clients_per_round": 100, "rounds": 50, "sampling": sampling}
    z_update, sigma_b = 1.0, 2.0
    joint = float(
        (mpmath.mpf(z_update) ** -2 + (2 * mpmath.mpf(sigma_b)) ** -2) ** mpmath.mpf(-0.5)
    )
    adaptive = DPFedAvg(noise_multiplier=z_update, clipped_count_stddev=sigma_b, **run)
    assert float(adaptive.noise_multiplier) == pytest.approx(joint, rel=1e-14)
    plain_at_joint = DPFedAvg(noise_multiplier=joint, **run).epsilon(1e-5)
    assert adaptive.epsilon(1e-5) == pytest.approx(plain_at_joint, rel=1e-9)
    # the count costs privacy: the same update noise without it is accounted lower
    assert adaptive.epsilon(1e-5) > DPFedAvg(noise_multiplier=z_update, **run).epsilon(1e-5)
    # the update's multiplier for a target z gives the run of multiplier z
    target = 0.9
    tuned = DPFedAvg(
        noise_multiplier=adaptive_clipping_noise_multiplier(target, sigma_b),
        clipped_count_stddev=sigma_b,
        **run,
    )
    assert tuned.epsilon(1e-5) == pytest.approx(
        DPFedAvg(noise_multiplier=target, **run).epsilon(1e-5), rel=1e-9
    )


def test_dpfedavg_refuses_a_count_noise_that_is_not_positive():
    with pytest.raises(ValueError, match="clipped_count_stddev must be finite and > 0"):
        DPFedAvg(noise_multiplier=1.0, sample_rate=0.1, rounds=10, clipped_count_stddev=-1.0)


def test_the_command_line_flag(capsys):
    from hockeystick.cli import main

    words = (
        "--total-clients 1000 --clients-per-round 100 --rounds 50 --delta 1e-5 --format csv".split()
    )
    assert main(["epsilon", *words, "--noise-multiplier", "1", "--clipped-count-stddev", "2"]) == 0
    flagged = float(capsys.readouterr().out.strip().splitlines()[-1].split(",")[-1])
    z_round = round_noise_multiplier(1.0, 2.0)
    assert flagged == pytest.approx(
        DPFedAvg(
            noise_multiplier=z_round, total_clients=1000, clients_per_round=100, rounds=50
        ).epsilon(1e-5),
        rel=1e-9,
    )
