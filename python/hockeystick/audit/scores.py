"""Canary scores: the held-in and held-out attack scores, checked once, and the counts every estimator reads.

A canary's score is higher the more "in" it looks (jax_privacy's CanaryScoreAuditor states the same
convention; negate a loss to get one).  A threshold t decides "in" for a score >= t, so at t

    TP(t) = #{in-canaries with score >= t},   FP(t) = #{out-canaries with score >= t}.

The thresholds that matter are the distinct scores and +inf (where TP = FP = 0).  The ROC points
(FP, TP) of all of them, from t = +inf down, rise in both coordinates; their upper concave hull is
the ROC of the best tests that may randomize between two thresholds.  ``Scores.hull`` keeps its
vertices (points on a chord between their neighbours dropped, as in the anchor), which the anchor's
estimators read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..base import validation as _validation

__all__ = ["Hull", "Scores", "as_scores", "checked_scores"]


@dataclass(frozen=True)
class Hull:
    """The vertices of the upper concave hull of the ROC points, from t = +inf down.

    Attributes
    ----------
    thresholds : numpy.ndarray
        Each vertex's threshold (+inf first), descending.
    tp, fp : numpy.ndarray
        TP(t) and FP(t) there (int64), ascending from 0 to the number of in- and out-canaries.
    """

    thresholds: np.ndarray
    tp: np.ndarray
    fp: np.ndarray


@dataclass(frozen=True)
class Scores:
    r"""Held-in and held-out canary scores, checked and sorted, with the ROC hull of all thresholds.

    The constructor checks its arrays as ``as_scores`` does and keeps them sorted ascending (the
    order given is kept in ``given``). A threshold t decides "in" for a score >= t, so that

    .. math::

        \mathrm{TP}(t) = \#\{i : x^{\mathrm{in}}_i \ge t\}, \qquad
        \mathrm{FP}(t) = \#\{j : x^{\mathrm{out}}_j \ge t\},

    and the ROC points (FP, TP) of every distinct score and of +inf, with the upper concave hull of
    them (the property ``hull``, computed once, from t = +inf down), are what the estimators read;
    ``n_in`` and ``n_out`` are the numbers of held-in and held-out canaries.

    Parameters
    ----------
    held_in, held_out : array_like
        The held-in and held-out scores, in any order (each one-dimensional, finite, non-empty; a
        scalar counts as one score). Stored as float64 arrays sorted ascending.
    given : tuple of array_like, optional
        The same scores in the order a split into parts and a bootstrap resample draw from (as
        jax_privacy's do); default: ``held_in`` and ``held_out`` in the order passed. Each must hold
        the same scores as its side.
    _hull : list, optional
        The cache of the ROC hull, filled at its first use; leave it unset.

    Raises
    ------
    ValueError
        If a side is empty, has more than one dimension, or holds a NaN or an infinite score, or
        ``given`` does not hold the same scores.
    ParameterTypeError
        If a score is not a real number (strings, booleans, None).

    See Also
    --------
    as_scores : The same, or a ``Scores`` passed through.
    read_csv : Checked scores from a CSV file.

    Examples
    --------
    >>> from hockeystick import audit
    >>> scores = audit.Scores([0.9, 0.3, 0.8], [0.5, 0.1])
    >>> scores.held_in.tolist(), scores.n_in, scores.n_out
    ([0.3, 0.8, 0.9], 3, 2)
    >>> [int(v) for v in scores.counts([0.5])[0]], [int(v) for v in scores.counts([0.5])[1]]
    ([2], [1])
    """

    held_in: np.ndarray
    held_out: np.ndarray
    given: tuple[np.ndarray, np.ndarray] | None = field(repr=False, compare=False, default=None)
    _hull: list[Hull] = field(default_factory=list, repr=False, compare=False)

    def __post_init__(self) -> None:
        sides = (_side(self.held_in, "held_in"), _side(self.held_out, "held_out"))
        if self.given is None:
            given = sides
        else:
            if not isinstance(self.given, tuple) or len(self.given) != 2:
                raise ValueError(
                    "given must be a tuple of two arrays: the held-in and held-out scores"
                )
            given = (_side(self.given[0], "given[0]"), _side(self.given[1], "given[1]"))
        ordered = (np.sort(sides[0]), np.sort(sides[1]))
        for k, name in ((0, "given[0]"), (1, "given[1]")):
            if given[k] is not sides[k] and not np.array_equal(np.sort(given[k]), ordered[k]):
                raise ValueError(
                    f"{name} must hold the same scores as its side, in any order; leave given unset"
                )
        object.__setattr__(self, "held_in", ordered[0])
        object.__setattr__(self, "held_out", ordered[1])
        object.__setattr__(self, "given", given)

    @property
    def n_in(self) -> int:
        """The number of held-in canaries."""
        return int(self.held_in.size)

    @property
    def n_out(self) -> int:
        """The number of held-out canaries."""
        return int(self.held_out.size)

    @property
    def order_given(self) -> tuple[np.ndarray, np.ndarray]:
        """The held-in and held-out scores in the order given (what a split or a resample draws from)."""
        assert self.given is not None  # set by __post_init__
        return self.given

    def counts(self, thresholds: Any) -> tuple[np.ndarray, np.ndarray]:
        """(TP(t), FP(t)) at each threshold t (int64 arrays of its shape).

        Parameters
        ----------
        thresholds : array_like
            Thresholds; a score >= t counts as "in".

        Returns
        -------
        tuple of numpy.ndarray
            The true- and false-positive counts.
        """
        t = np.asarray(thresholds, dtype=np.float64)
        tp = self.n_in - np.searchsorted(self.held_in, t, side="left")
        fp = self.n_out - np.searchsorted(self.held_out, t, side="left")
        return tp.astype(np.int64), fp.astype(np.int64)

    @property
    def hull(self) -> Hull:
        """The ROC hull's vertices (computed once)."""
        if not self._hull:
            self._hull.append(_roc_hull(self))
        return self._hull[0]

    def subset(self, held_in: np.ndarray, held_out: np.ndarray) -> Scores:
        """Scores made of the given arrays (drawn from this object's: a resample or a part).

        Parameters
        ----------
        held_in, held_out : numpy.ndarray
            Scores drawn from this object's.

        Returns
        -------
        Scores
            The new scores, checked and sorted.
        """
        return Scores(held_in, held_out)


def _side(value: Any, name: str) -> np.ndarray:
    """One side's scores: a finite, one-dimensional, non-empty float64 array (a scalar is one score)."""
    arr = _validation.real(value, name, finite=True)
    if arr.ndim > 1:
        raise ValueError(
            f"{name} must be one-dimensional (one score per canary), got an array of shape {arr.shape}; "
            "pass the held-in and held-out scores as two arrays"
        )
    arr = np.ravel(arr)
    if arr.size == 0:
        raise ValueError(f"{name} must hold at least one score, got an empty array")
    return arr


def as_scores(in_scores: Any, out_scores: Any | None = None) -> Scores:
    """Check the held-in and held-out canary scores and sort them into a ``Scores``.

    Parameters
    ----------
    in_scores : array_like or Scores
        Attack scores of the held-in canaries, one per canary (higher means "in": negate a loss
        first); a ``Scores`` is returned as it is (``out_scores`` must then be None). A scalar
        counts as one score.
    out_scores : array_like, optional
        Attack scores of the held-out canaries; required unless ``in_scores`` is a ``Scores``.

    Returns
    -------
    Scores
        The scores, sorted ascending, with the order given kept in ``given``.

    Raises
    ------
    ValueError
        If either array is empty, has more than one dimension, or holds a NaN or an infinite score;
        if ``out_scores`` is missing beside arrays, or given beside a ``Scores``.
    ParameterTypeError
        If a score is not a real number (strings, booleans, None).

    Examples
    --------
    >>> from hockeystick import audit
    >>> scores = audit.as_scores([2.0, 0.5, 1.0], [0.0, 0.7])
    >>> scores.held_in.tolist(), scores.n_out
    ([0.5, 1.0, 2.0], 2)
    """
    if isinstance(in_scores, Scores):
        if out_scores is not None:
            raise ValueError(
                "out_scores must be None when in_scores is a Scores object (it holds both)"
            )
        return in_scores
    if out_scores is None:
        raise ValueError("out_scores must be given: the held-out canaries' scores beside in_scores")
    return checked_scores(in_scores, out_scores, ("in_scores", "out_scores"))


def checked_scores(held_in: Any, held_out: Any, names: tuple[str, str]) -> Scores:
    """A ``Scores`` of two arrays, each checked under the caller's argument name (``names``).

    Parameters
    ----------
    held_in, held_out : array_like
        The held-in and held-out scores.
    names : tuple of str
        Their arguments' names, for the refusals.

    Returns
    -------
    Scores
        The scores.
    """
    return Scores(_side(held_in, names[0]), _side(held_out, names[1]))


def _roc_hull(scores: Scores) -> Hull:
    """The vertices of the upper concave hull of the ROC points (FP, TP) of every distinct score and +inf."""
    thresholds = np.concatenate([[np.inf], np.union1d(scores.held_in, scores.held_out)[::-1]])
    tp, fp = scores.counts(thresholds)
    keep = np.arange(thresholds.size)
    while keep.size > 2:
        x, y = fp[keep].astype(np.float64), tp[keep].astype(np.float64)
        dx, dy = np.diff(x), np.diff(y)
        # a vertex on or below the chord of its neighbours: the turn from its left edge to its right
        # one is not clockwise (exact in doubles while the counts stay below 2^26; any subset of
        # thresholds keeps every bound valid, the hull only chooses where to look)
        below = dy[:-1] * dx[1:] - dy[1:] * dx[:-1] <= 0
        if not below.any():
            break
        keep = keep[np.concatenate([[True], ~below, [True]])]
    return Hull(thresholds[keep], tp[keep], fp[keep])
