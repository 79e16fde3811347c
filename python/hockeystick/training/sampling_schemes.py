"""Every sampling scheme of a training run by its word, registered once: the one place the doors read.

A ``SamplingScheme`` holds what each door needs of how batches are drawn: the training word
(``DPSGD(sampling=...)``), the PLD accountant a run of it composes on, the neighbouring relation it
bounds, its steps-per-epoch rule, what ``calibrate`` may solve for, its catalogue and command-line
descriptions and the reader of its two directions (``risk``).  The training run
(``training/run.py``), the catalogue (``registry/catalogue/training_runs.py``), the command line
(``--sampling``, the registry names' suffixes) and ``risk``'s directions read these entries; none of
them lists the schemes.  The four schemes of the package are registered at the end of this module.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "DEFAULT_SAMPLING",
    "SamplingScheme",
    "register_sampling",
    "sampling_scheme",
    "sampling_schemes",
    "sampling_words",
    "unregister_sampling",
]

# the scheme a run given by its rate, or by no sampling word, is drawn by; its registry names carry
# no suffix
DEFAULT_SAMPLING = "poisson"

Relation = Literal["add_remove", "replace_one"]
# the accountant of batches drawn otherwise than by Poisson sampling, from the noise z, batch m,
# population n, steps t, the steps per epoch as the ratio (a, b) and the grid keywords given
DrawnBatches = Callable[[Any, Any, Any, Any, tuple[Any, Any], dict[str, Any]], Any]
# (remove, add) one-direction PLDs of the scheme's accountant; add None for a symmetric PLD; None
# for an accountant that keeps no directions
Directions = Callable[[Any], "tuple[Any, Any] | None"]
# a start of the noise search from the targets (epsilon, delta), the steps and the steps per epoch
EpochNoise = Callable[[Any, Any, Any, Any], Any]


def _replace_one_pair(accountant: Any) -> tuple[Any, Any]:
    """Replace-one: each order of a neighbouring pair is itself neighbouring, so each direction's
    guarantee is the symmetric profile's."""
    return accountant, None


@dataclass(frozen=True)
class SamplingScheme:
    """One way batches are drawn, with the facets every door reads.

    Parameters
    ----------
    word : str
        The training vocabulary's word (``DPSGD(sampling=word)``, ``--sampling word``).
    accountant : str
        The name, in ``hockeystick.pld.accountants``, of the PLD accountant a run composes on.
    relation : {"add_remove", "replace_one"}
        The neighbouring relation its accountant bounds.
    how : str
        The catalogue's description of the run's accounting (``dp_sgd<suffix>``'s summary).
    cli_help : str
        The command line's description of the word (``--sampling``'s help).
    drawn_batches : callable or None
        ``drawn_batches(z, m, n, t, (a, b), grid)``: the accountant of a run of noise z, batch m,
        population n and t steps, a / b steps per epoch, on the grid keywords ``grid``; None for
        Poisson sampling, whose run is built by its rate (``training/run.py``).
    every_record_each_epoch : bool
        Each record joins one step of each epoch: ceil(n / m) steps per epoch, and
        ``steps_per_epoch="opacus"`` (1 / q) is refused.
    calibrates_batch : bool
        ``calibrate`` may solve for the batch size (its bound depends on it, increasingly).
    noise_start : bool
        ``calibrate`` starts a noise multiplier's search at ``training.epoch_noise_start``: a run
        built by its rate at its subsampled Gaussian's central-limit noise, drawn batches at
        ``epoch_noise`` or else at that of Poisson sampling at rate 1 / t, t steps per epoch.
    directions : callable or None
        ``directions(accountant)``: its (remove, add) one-direction PLDs (``risk``'s directional
        curves); None: the symmetric profile for a replace-one scheme, no directions otherwise.
    step_mechanism : str or None
        The registered compose stage of one step (``hockeystick compose``'s training stages: Poisson
        sampling's by its rate, drawn batches' by ``batch_size`` and ``n``); None: a run of the
        scheme is accounted alone.
    epoch_noise : callable or None
        ``epoch_noise(epsilon, delta, steps, per_epoch)``: a closer start of the noise search, per
        target (``noise_start``); None: Poisson sampling's at rate 1 / t.
    joint_draws : str
        How its batches draw a user's records together: the reason ``examples_per_user`` (a user's
        records counted as one) has no certified mixture under it.
    """

    word: str
    accountant: str
    relation: Relation
    how: str
    cli_help: str
    drawn_batches: DrawnBatches | None = None
    every_record_each_epoch: bool = False
    calibrates_batch: bool = True
    noise_start: bool = False
    directions: Directions | None = None
    step_mechanism: str | None = None
    epoch_noise: EpochNoise | None = None
    joint_draws: str = "its batches draw a user's records jointly"

    @property
    def suffix(self) -> str:
        """The suffix of its registry names (``dp_sgd<suffix>``): empty for the default scheme.

        Returns
        -------
        str
            ``""`` or ``"_" + word``.
        """
        return "" if self.word == DEFAULT_SAMPLING else f"_{self.word}"

    def accountant_class(self) -> type:
        """The PLD accountant class, loaded from ``hockeystick.pld.accountants`` at the first call.

        Returns
        -------
        type
            ``hockeystick.pld.accountants.<accountant>``.
        """
        from ..pld import accountants  # the stage's front door: loads the class's module alone

        found: type = getattr(accountants, self.accountant)
        return found

    def direction_pair(self) -> Directions | None:
        """The reader of its accountant's two directions (``directions``, or the symmetric profile
        of a replace-one scheme).

        Returns
        -------
        callable or None
            ``reader(accountant) -> (remove, add) or None``; None when it keeps no directions.
        """
        if self.directions is not None:
            return self.directions
        return _replace_one_pair if self.relation == "replace_one" else None


_SCHEMES: dict[str, SamplingScheme] = {}


def register_sampling(scheme: SamplingScheme) -> SamplingScheme:
    """Register a sampling scheme under its word.

    Parameters
    ----------
    scheme : SamplingScheme
        The scheme; its word must be new.

    Returns
    -------
    SamplingScheme
        ``scheme``, registered.

    Raises
    ------
    ValueError
        If its word is already registered, or its relation is not "add_remove" or "replace_one".
    """
    if scheme.word in _SCHEMES:
        raise ValueError(
            f"sampling {scheme.word!r} is already registered: give a new scheme a new word, or "
            "unregister_sampling the old one first"
        )
    if scheme.relation not in ("add_remove", "replace_one"):
        raise ValueError(f'relation must be "add_remove" or "replace_one", got {scheme.relation!r}')
    _SCHEMES[scheme.word] = scheme
    return scheme


def unregister_sampling(word: str) -> None:
    """Remove a registered scheme (a test's own, registered for its duration).

    Parameters
    ----------
    word : str
        A registered scheme's word.

    Raises
    ------
    ValueError
        If no scheme has that word.
    """
    sampling_scheme(word)
    del _SCHEMES[word]


def sampling_scheme(word: Any) -> SamplingScheme:
    """The registered scheme of a word.

    Parameters
    ----------
    word : str
        A training vocabulary word (``sampling_words()``).

    Returns
    -------
    SamplingScheme
        Its entry.

    Raises
    ------
    ValueError
        If no scheme has that word (the message lists the words and suggests the nearest).
    """
    scheme = _SCHEMES.get(word) if isinstance(word, str) else None
    if scheme is None:
        from ..base.validation import did_you_mean  # numpy: not loaded by the command line's parser

        raise ValueError(
            f"sampling must be one of {', '.join(map(repr, _SCHEMES))}, got {word!r}"
            + did_you_mean(str(word), _SCHEMES)
        )
    return scheme


def sampling_schemes() -> tuple[SamplingScheme, ...]:
    """Every registered scheme, in registration order (the package's four first).

    Returns
    -------
    tuple of SamplingScheme
        The entries.
    """
    return tuple(_SCHEMES.values())


def sampling_words() -> tuple[str, ...]:
    """Every registered scheme's word, in registration order.

    Returns
    -------
    tuple of str
        The words ``sampling=`` and ``--sampling`` accept.
    """
    return tuple(_SCHEMES)


def _fixed_size(z: Any, m: Any, n: Any, t: Any, per_epoch: Any, grid: dict[str, Any]) -> Any:
    from ..pld.accountants import FixedBatchGaussianPLD

    return FixedBatchGaussianPLD(sigma=z, batch_size=m, n=n, rounds=t, **grid)


def _balls_in_bins(z: Any, m: Any, n: Any, t: Any, per_epoch: Any, grid: dict[str, Any]) -> Any:
    from ..pld.accountants import BallsInBinsGaussianPLD

    return BallsInBinsGaussianPLD(sigma=z, steps_per_epoch=per_epoch[0], rounds=t, **grid)


def _shuffle(z: Any, m: Any, n: Any, t: Any, per_epoch: Any, grid: dict[str, Any]) -> Any:
    from ..pld.accountants import ShuffledBatchGaussianPLD

    return ShuffledBatchGaussianPLD(sigma=z, batch_size=m, n=n, rounds=t, **grid)


def _poisson_directions(accountant: Any) -> tuple[Any, Any] | None:
    from .sampling_directions import subsampled_gaussian_pair

    return subsampled_gaussian_pair(accountant)


def _balls_in_bins_directions(accountant: Any) -> tuple[Any, Any] | None:
    from .sampling_directions import balls_in_bins_pair

    return balls_in_bins_pair(accountant)


def _shuffled_noise(epsilon: Any, delta: Any, steps: Any, per_epoch: Any) -> Any:
    from .shuffled_start import shuffled_start

    return shuffled_start(epsilon, delta, steps, per_epoch)


register_sampling(
    SamplingScheme(
        word="poisson",
        accountant="SubsampledGaussianPLD",
        relation="add_remove",
        how="Poisson-subsampled Gaussian PLD",
        cli_help="poisson (default; add/remove one)",
        noise_start=True,
        directions=_poisson_directions,
        step_mechanism="subsampled_gaussian",
    )
)
register_sampling(
    SamplingScheme(
        word="fixed_size",
        accountant="FixedBatchGaussianPLD",
        relation="replace_one",
        how="fixed-size batches, replace-one PLD",
        cli_help="fixed_size (exactly --batch-size records each step; replace one)",
        drawn_batches=_fixed_size,
        step_mechanism="fixed_size_subsampled_gaussian",
        joint_draws=(
            "a fixed-size batch draws a user's records without replacement (a hypergeometric "
            "count), and under replace-one the user's k records are replaced by another user's, "
            "drawn in a count of their own"
        ),
    )
)
register_sampling(
    SamplingScheme(
        word="balls_in_bins",
        accountant="BallsInBinsGaussianPLD",
        relation="add_remove",
        how="balls-in-bins batches (random allocation), add/remove PLD",
        cli_help="balls_in_bins (each record in one uniformly chosen step of each epoch; add/remove one)",
        drawn_batches=_balls_in_bins,
        every_record_each_epoch=True,
        noise_start=True,
        directions=_balls_in_bins_directions,
        joint_draws=(
            "random allocation puts each of a user's records in one step of the epoch, so the k "
            "records' places in the epoch are drawn jointly"
        ),
    )
)
register_sampling(
    SamplingScheme(
        word="shuffle",
        accountant="ShuffledBatchGaussianPLD",
        relation="replace_one",
        how="shuffled batches, replace-one: Gaussian per epoch above, shift-2 balls-in-bins PLD below",
        cli_help="shuffle (a permutation cut into batches each epoch; replace one)",
        drawn_batches=_shuffle,
        every_record_each_epoch=True,
        calibrates_batch=False,  # the shuffled upper side does not depend on the batch size
        noise_start=True,
        epoch_noise=_shuffled_noise,
        joint_draws=(
            "a permutation places a user's k records in an epoch's batches jointly, under replace-one"
        ),
    )
)
