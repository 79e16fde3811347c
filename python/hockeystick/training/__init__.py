"""DP-SGD and DP-FedAvg in the words their users speak: data set, batch, epochs, noise multiplier.

Both algorithms add N(0, (z C)^2 I) to a sum of contributions each clipped to norm C and
release every step, so each step is a subsampled Gaussian mechanism with noise multiplier z
(Abadi et al. 2016, "Deep learning with differential privacy", Alg. 1; McMahan et al. 2018,
"Learning differentially private recurrent language models", DP-FedAvg with user-level
clipping).  These classes translate the training vocabulary onto the PLD accountants and
follow the accountant contract (keyword parameters that broadcast, ``.delta(epsilon)`` and
``.epsilon(delta)`` returning certified upper bounds, ``bound="lower"`` / ``"both"`` for the
certified lower side):

===================  =========================================  =====================================
sampling             one step                                   accountant (neighbouring relation)
===================  =========================================  =====================================
``"poisson"``        each record (client) joins with            ``pld.SubsampledGaussianPLD``,
                     probability q = batch_size / dataset_size  sigma = z, add-or-remove-one
``"fixed_size"``     a uniformly random batch of exactly        ``pld.FixedBatchGaussianPLD``,
                     batch_size records, drawn anew each step   sigma = z, sensitivity 1, replace-one
``"balls_in_bins"``  each epoch, each record joins one of its   ``pld.BallsInBinsGaussianPLD``,
                     ceil(dataset_size / batch_size) steps,     sigma = z, add-or-remove-one
                     chosen uniformly (random allocation)
``"shuffle"``        each epoch, a fresh permutation cut into   ``pld.ShuffledBatchGaussianPLD``,
                     batches of batch_size                      sigma = z, replace-one
===================  =========================================  =====================================

``"shuffle"`` is what most training loops do; its certified bracket is wide (its upper side is the
Gaussian of shift 2 per epoch begun: no amplification by shuffling is proved for adaptive steps),
and its lower side, a realized pair (the balls-in-bins pair at shift 2), lies far above the Poisson
number usually reported for it.  ``"balls_in_bins"`` costs the same to implement and is certified on
both sides, about as private as Poisson sampling (docs/batches.md).

Under replace-one the replaced record moves the clipped sum by up to 2C, so hockeystick's
``sensitivity = 1`` (one record's contribution, in units of C) is a replace-one sensitivity 2:
dp_accounting's RDP accountant reads a ``GaussianDpEvent(noise_multiplier=z)`` inside a REPLACE_ONE
``SampledWithoutReplacementDpEvent`` as noise z relative to that sensitivity 2C, i.e. hockeystick
``sigma = 2 z`` with ``sensitivity = 1`` (its PLD accountant reads z over C).  ``noise_relative_to=
"replace_one_sensitivity"`` reads the run's z so (``DPSGD``, ``DPFedAvg``; fixed-size and shuffled
batches), and a run's ``repr`` names the unit of the z it holds.

Sampling rate: ``dataset_size`` and ``batch_size`` give q = batch_size / dataset_size; Poisson
sampling may be given by its rate alone instead, as ``sample_rate`` (Opacus's word; dp_accounting's
``sampling_probability`` and the accountants' ``sampling_rate`` are accepted as synonyms), which is
all the accounting needs with ``steps``.

Steps: ``steps`` directly (whole numbers: 2.5 is refused, not rounded), or ``epochs`` passes over
the data, each of a number of steps ``steps_per_epoch`` names:

===============  ===========================================  ==============================================
steps_per_epoch  steps per epoch                              steps for ``epochs``
===============  ===========================================  ==============================================
``"ceil"``       ceil(dataset_size / batch_size): the         ceil(epochs * ceil(dataset_size / batch_size))
                 batches of a loader that keeps the last,
                 partial batch (default with ``batch_size``)
``"opacus"``     1 / q = dataset_size / batch_size: the       ceil(epochs / q) (Opacus's and dp_accounting's
                 expected count of Poisson batches (the only  count, which Opacus truncates)
                 meaning with ``sample_rate``, its default)
===============  ===========================================  ==============================================

Each count is the ceiling of the exact product or quotient of the numbers given (the rounding up
never understates the steps taken, so never the privacy spent).  The two conventions answer the
same question differently only through the steps they count: 60 epochs of batches of 256 out of
60000 records are 14100 steps under "ceil" and 14063 under "opacus".

Stages: ``stages=[{"noise_multiplier": 1.1, "epochs": 30}, {"noise_multiplier": 0.9, "epochs":
30}]`` is one run whose noise multiplier changes between stages, the other words shared
(``schedule``; Poisson sampling); lists in the ordinary arguments broadcast into separate runs
instead.

Adaptive clipping (Andrew et al. 2021) releases a noised count of the clients under the clip norm
beside each round's update; the two are one Gaussian mechanism (``adaptive_clipping``), which
``DPFedAvg``'s ``clipped_count_stddev`` accounts and ``adaptive_clipping_noise_multiplier`` /
``round_noise_multiplier`` convert.  ``LocalDP`` is local DP per round (Flower's ``LocalDpMod``): a
client's own Gaussian noise calibrated exactly for a per-round (epsilon, delta), and its rounds
composed.

``DPSGD(examples_per_user=k)`` accounts a user holding up to k examples (``user_level``: the
binomial mixture of Gaussians, Poisson sampling); ``RecordLevelFedAvg`` a record inside federated
learning whose sampled clients run local DP-SGD steps (``record_level``: Poisson sampling of the
composed local steps); ``RandomCheckIns`` random check-ins with central noise (``random_checkins``:
Poisson sampling of a 1-of-m random allocation). ``DistributedDPFedAvg`` is DP-FedAvg over secure
aggregation, each client adding distributed discrete Gaussian, Skellam or discrete Laplace noise, or
sending Poisson-binomial draws (``secure_aggregation``, over ``secagg``'s accountants), its
guarantee against the server and against an observer of the models.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base.front_door import front_door
from .vocabulary import SAMPLE_RATE_SYNONYMS, STEPS_PER_EPOCH, Sampling, StepsPerEpoch
from .vocabulary import SAMPLINGS as SAMPLINGS

if TYPE_CHECKING:
    from .adaptive_clipping import adaptive_clipping_noise_multiplier, round_noise_multiplier
    from .algorithms import DPSGD, DPFedAvg
    from .local_dp import LocalDP
    from .noise_start import epoch_noise_start as epoch_noise_start
    from .noise_start import noise_grids as noise_grids
    from .random_checkins import RandomCheckIns
    from .record_level import RecordLevelFedAvg
    from .secure_aggregation import DistributedDPFedAvg
    from .user_level import UserLevelDPSGD

# Each run comes from its module on first use (PEP 562): ``from hockeystick.training import DPSGD``
# imports the accountants DP-SGD reads, not those of secure aggregation, local DP or random
# check-ins.  Within those modules hockeystick.pld is imported inside the functions that build or
# read a run, not with the module: importing a run's class loads no PLD stage
# (tests/test_import_weight.py).
_NAMES = {
    "adaptive_clipping_noise_multiplier": "adaptive_clipping",
    "round_noise_multiplier": "adaptive_clipping",
    "DPSGD": "algorithms",
    "DPFedAvg": "algorithms",
    "LocalDP": "local_dp",
    "epoch_noise_start": "noise_start",
    "noise_grids": "noise_start",
    "RandomCheckIns": "random_checkins",
    "RecordLevelFedAvg": "record_level",
    "DistributedDPFedAvg": "secure_aggregation",
    "UserLevelDPSGD": "user_level",
}


__getattr__ = front_door(__name__, _NAMES, globals())


def __dir__() -> list[str]:
    return sorted({*globals(), *_NAMES})


__all__ = [
    "DPSGD",
    "DPFedAvg",
    "DistributedDPFedAvg",
    "LocalDP",
    "RandomCheckIns",
    "RecordLevelFedAvg",
    "UserLevelDPSGD",
    "adaptive_clipping_noise_multiplier",
    "round_noise_multiplier",
    "Sampling",
    "StepsPerEpoch",
    "STEPS_PER_EPOCH",
    "SAMPLE_RATE_SYNONYMS",
]
