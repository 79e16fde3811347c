"""One validation path for every family: each refusal names the argument, the rule and the value.

Message form (docs/vocabulary.md):  ``<name> must be <rule>, got <value>``, the value printed as a
plain Python number (``-1.0``, never ``np.float64(-1.0)``), followed by the flat index of the first
offending element for arrays and, where it helps, how to fix it.

What is refused, and as what:

* strings (``"1.5"``), bytes, booleans (``True``), None, complex numbers and object arrays where a
  real number is expected: ``ParameterTypeError``, a TypeError that is also a ValueError (so code
  written against the earlier ValueError keeps working, as numpy's ``AxisError`` is both a
  ValueError and an IndexError);
* NaN everywhere, +-inf where the rule needs a finite value, values outside the rule's range and
  non-whole values for integer parameters: ValueError;
* flags that are not booleans (``nonconvex="abc"``) and ``threads`` that is not a positive integer
  or None: ``ParameterTypeError`` / ValueError;
* an array where one number is expected (an adapter's ``delta``, a mechanism constructor's noise,
  a grid spacing): ``ParameterTypeError`` naming the argument (``single``).

The targets, one rule at every entry point (the accountants, the training classes, calibrate,
both adapters, the command line): delta lies strictly between 0 and 1 (``delta_values``; NaN
refused as ``<name> must not be NaN``), epsilon is >= 0 with +inf allowed (delta(inf) = 0;
``epsilon_values``), each under the name the entry point gives it (``target_delta`` in the
dp_accounting adapter).

Counts (rounds, steps, a history's step counts): an integer given as one: a Python or numpy
integer, or a float that is exactly integral (3.0: sweeps and numpy grids carry integers as
floats); never a bool, a string or a fraction (2.9 is refused, not truncated).  A count derived
from a real number (steps from epochs) rounds up, from the exact value of the product or quotient
(never an understatement of the steps taken).

Checks run on the arrays as the user gave them (before broadcasting), so a 10^7-point grid built
from short axes costs only the axes' sizes to check.  Theorem-specific rules (eta <= 2/beta,
alpha > L, ...) stay in the families; this module knows only generic domains.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import math
import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, TypeVar, overload

import numpy as np
import numpy.typing as npt

from .accountant import BOUND_SIDES, Bound

__all__ = [
    "MAX_EXACT_INTEGER",
    "ParameterTypeError",
    "as_real_array",
    "broadcast",
    "broadcastable",
    "choice",
    "count",
    "delta_target",
    "delta_values",
    "describe",
    "did_you_mean",
    "epsilon_target",
    "epsilon_values",
    "flag",
    "in_interval",
    "nonnegative",
    "positive",
    "nonnegative_integer",
    "positive_integer",
    "real",
    "renamed_keywords",
    "scalar_or_array",
    "single",
    "synonyms",
    "threads",
    "upper_only",
    "exact_sides",
    "bound_side",
    "BOUND_SIDES",
]


class ParameterTypeError(TypeError, ValueError):
    """A parameter of the wrong kind (string, bool, None, ...): a TypeError, and a ValueError for older callers."""


@contextlib.contextmanager
def derived(arguments: str, quantity: str) -> Iterator[None]:
    """Refusals from a lower layer stated in the caller's words: a ValueError (or
    ParameterTypeError) that names ``quantity``, a value the caller derived from its ``arguments``,
    is raised again with ``"<arguments> give the <quantity>: "`` in front, so the message names the
    user's argument; a refusal of an argument passed through as given (sigma) already names it and
    passes unchanged."""
    try:
        yield
    except ValueError as err:
        if quantity not in str(err):
            raise
        raise type(err)(f"{arguments} give the {quantity}: {err}") from None


def describe(value: Any) -> str:
    """``value`` as a user typed it: numpy scalars as plain Python numbers, strings quoted, an
    integer of more than 20 digits by its first digits and its length."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**20:
        digits = str(abs(value))
        return f"{'-' if value < 0 else ''}{digits[:4]}... (an integer of {len(digits)} digits)"
    if isinstance(value, np.ndarray):
        return repr(value.tolist()) if value.size <= 6 else f"an array of shape {value.shape}"
    return repr(value)


def _first(arr: np.ndarray, bad: np.ndarray) -> str:
    """The first element where ``bad`` holds, with its flat index when ``arr`` has more than one element."""
    flat_bad = np.ravel(np.broadcast_to(bad, arr.shape))
    i = int(np.argmax(flat_bad))
    value = describe(np.ravel(arr)[i])
    return value if arr.size == 1 else f"{value} (first offending element at flat index {i})"


def _kind_error(value: Any, name: str, what: str) -> ParameterTypeError:
    return ParameterTypeError(
        f"{name} must be {what}, got {describe(value)} ({type(value).__name__}); "
        "pass a number (int or float) or a numpy array of them"
    )


def as_real_array(value: npt.ArrayLike, name: str) -> np.ndarray:
    """``value`` as a float64 array, refusing what numpy would silently turn into a number.

    Strings ("1000" -> 1000.0), booleans (True -> 1.0), None (-> nan in object arrays), complex
    numbers and ragged or object sequences raise ParameterTypeError naming ``name``.  NaN and inf
    pass (the caller's rule decides).
    """
    if type(value) is float:  # the common scalar
        return np.array(value, dtype=np.float64)
    if type(value) is int:  # bool is not int by type
        return np.array(_int_as_float(value, name), dtype=np.float64)
    what = "a real number or an array of real numbers"
    if value is None or isinstance(value, (str, bytes, bool, np.bool_)):
        raise _kind_error(value, name, what)
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError):  # ragged nested sequences
        raise _kind_error(value, name, what) from None
    if raw.dtype.kind in "biuf":
        if raw.dtype.kind == "b":
            raise _kind_error(value, name, what)
        return raw.astype(np.float64, copy=False)
    if raw.dtype.kind == "O":
        for v in raw.ravel():
            if isinstance(v, (bool, np.bool_)) or not isinstance(
                v, (int, float, np.integer, np.floating)
            ):
                raise _kind_error(v, name, what)
            if isinstance(v, int):
                _int_as_float(v, name)
        return raw.astype(np.float64)
    raise _kind_error(value, name, what)


def _int_as_float(value: int, name: str) -> float:
    """A Python int as the double it rounds to; one beyond the doubles' range (|value| >= 2^1024,
    about 1.8e308) is a ValueError naming ``name``, not an OverflowError (no count or size reaches
    it)."""
    try:
        return float(value)
    except OverflowError:
        raise ValueError(
            f"{name} must be at most 1.8e308 in magnitude (the largest double), got {describe(value)}"
        ) from None


def real(value: npt.ArrayLike, name: str, *, finite: bool = False) -> np.ndarray:
    """A float64 array with no NaN (and no +-inf when ``finite``)."""
    arr = as_real_array(value, name)
    nan = np.isnan(arr)
    if nan.any():
        raise ValueError(f"{name} must not be NaN, got {_first(arr, nan)}")
    if finite:
        inf = np.isinf(arr)
        if inf.any():
            raise ValueError(f"{name} must be finite, got {_first(arr, inf)}")
    return arr


def _require(arr: np.ndarray, name: str, ok: np.ndarray, rule: str) -> np.ndarray:
    if not ok.all():
        raise ValueError(f"{name} must be {rule}, got {_first(arr, ~ok)}")
    return arr


def _checked(
    arr: np.ndarray, name: str, passes: np.ndarray, full_check: Callable[[np.ndarray], None]
) -> np.ndarray:
    """``arr`` when ``passes`` holds everywhere (one combined comparison, which NaN fails);
    otherwise ``full_check`` runs the rules one by one, so that the error names the first rule
    broken (NaN first)."""
    if passes.all():
        return arr
    full_check(arr)
    raise AssertionError(
        f"hockeystick internal error: {name} failed a combined check its rules accept"
    )


def positive(value: npt.ArrayLike, name: str, *, finite: bool = True) -> np.ndarray:
    """value > 0 everywhere (and finite unless ``finite=False``)."""
    arr = as_real_array(value, name)

    def full_check(a: np.ndarray) -> None:
        real(a, name)
        if finite:
            _require(a, name, (a > 0) & np.isfinite(a), "finite and > 0")
        _require(a, name, a > 0, "> 0")

    return _checked(arr, name, (arr > 0) & (arr < np.inf) if finite else arr > 0, full_check)


def nonnegative(value: npt.ArrayLike, name: str, *, finite: bool = True) -> np.ndarray:
    """value >= 0 everywhere (and finite unless ``finite=False``)."""
    arr = as_real_array(value, name)

    def full_check(a: np.ndarray) -> None:
        real(a, name)
        if finite:
            _require(a, name, (a >= 0) & np.isfinite(a), "finite and >= 0")
        _require(a, name, a >= 0, ">= 0")

    return _checked(arr, name, (arr >= 0) & (arr < np.inf) if finite else arr >= 0, full_check)


def positive_integer(
    value: npt.ArrayLike, name: str, *, maximum: float | None = None
) -> np.ndarray:
    """Whole numbers >= 1 (finite, and <= ``maximum`` when given), returned as float64 (they feed float kernels)."""
    arr = as_real_array(value, name)

    def full_check(a: np.ndarray) -> None:
        real(a, name)
        _require(a, name, (a >= 1) & (a == np.floor(a)) & np.isfinite(a), "an integer >= 1")
        if maximum is not None:
            _require(a, name, a <= maximum, f"<= {maximum:.17g}")

    below = arr < np.inf if maximum is None else arr <= maximum
    return _checked(arr, name, (arr >= 1) & (arr == np.floor(arr)) & below, full_check)


MAX_EXACT_INTEGER = 2.0**53  # above, doubles are no longer consecutive integers


def nonnegative_integer(value: npt.ArrayLike, name: str) -> np.ndarray:
    """Whole numbers >= 0 (finite), returned as float64."""
    arr = as_real_array(value, name)

    def full_check(a: np.ndarray) -> None:
        real(a, name)
        _require(a, name, (a >= 0) & (a == np.floor(a)) & np.isfinite(a), "an integer >= 0")

    return _checked(arr, name, (arr >= 0) & (arr == np.floor(arr)) & (arr < np.inf), full_check)


def in_interval(
    value: npt.ArrayLike, name: str, low: float, high: float, *, open_low: bool, open_high: bool
) -> np.ndarray:
    """low <= value <= high, with either end excluded on request (NaN refused)."""
    arr = real(value, name)
    ok = (arr > low if open_low else arr >= low) & (arr < high if open_high else arr <= high)
    if open_low and open_high:
        rule = f"strictly between {low:g} and {high:g}"
    else:
        rule = f"in {'(' if open_low else '['}{low:g}, {high:g}{')' if open_high else ']'}"
    if not ok.all():
        raise ValueError(f"{name} must lie {rule}, got {_first(arr, ~ok)}")
    return arr


def epsilon_values(value: npt.ArrayLike, name: str = "epsilon") -> np.ndarray:
    """epsilon >= 0; inf allowed (delta(inf) = 0)."""
    return nonnegative(value, name, finite=False)


def delta_values(value: npt.ArrayLike, name: str = "delta") -> np.ndarray:
    """delta strictly between 0 and 1 (no accountant certifies delta = 0, and delta = 1 says nothing)."""
    return in_interval(value, name, 0.0, 1.0, open_low=True, open_high=True)


def single(value: Any, name: str) -> float:
    """One real number (NaN and +-inf pass: the caller's rule decides), for an argument that sets
    one mechanism or one query; an array (other than a 0-d one) or a list is a
    ``ParameterTypeError`` naming ``name``, as strings, booleans and None are
    (``as_real_array``)."""
    if type(value) is float:  # the common case, without numpy's per-call cost
        return value
    arr = as_real_array(value, name)
    if arr.ndim != 0:
        raise ParameterTypeError(
            f"{name} must be a single number, got {describe(value)}; pass one number "
            "(the accountant classes take arrays and broadcast them)"
        )
    return float(arr)


def positive_number(value: Any, name: str) -> float:
    """One finite number > 0, by the rules of ``single`` and ``positive``."""
    return float(positive(single(value, name), name))


# the magnitudes a bound may square and divide by: their squares are finite positive doubles
MODERATE = (1e-150, 1e150)


def moderate(value: float, name: str) -> float:
    """``value`` if ``MODERATE[0] <= value <= MODERATE[1]`` (its square a finite positive double),
    else a ValueError naming ``name`` (a quotient such as ``clip_norm / granularity`` names both
    arguments)."""
    if not MODERATE[0] <= value <= MODERATE[1]:
        raise ValueError(
            f"{name} must lie in [{MODERATE[0]:g}, {MODERATE[1]:g}] (its square a finite positive number), "
            f"got {value!r}"
        )
    return value


def delta_target(value: Any, name: str = "delta") -> float:
    """One delta, by the rule of ``delta_values`` (strictly between 0 and 1)."""
    return float(delta_values(single(value, name), name))


def epsilon_target(value: Any, name: str = "epsilon") -> float:
    """One epsilon, by the rule of ``epsilon_values`` (>= 0, +inf allowed)."""
    return float(epsilon_values(single(value, name), name))


def count(value: Any, name: str, *, minimum: int = 1, maximum: float = MAX_EXACT_INTEGER) -> int:
    """A count given as one (module docstring): an int, a numpy integer or an exactly integral
    float, ``minimum <= value <= maximum``; returned as an int.  2.9 and True are refused, not
    turned into 2 and 1."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        whole: int | float = int(value)
    else:
        x = single(value, name)
        if not (math.isfinite(x) and x == math.floor(x)):
            hint = "; counts are not rounded" if math.isfinite(x) else ""
            raise ValueError(f"{name} must be an integer >= {minimum}, got {describe(value)}{hint}")
        whole = x
    if whole < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {describe(value)}")
    if whole > maximum:
        raise ValueError(f"{name} must be <= {maximum:.17g}, got {describe(value)}")
    return int(whole)


def flag(value: Any, name: str) -> bool:
    """A boolean option: True or False (numpy booleans too), never a string or a number read as one."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise ParameterTypeError(
        f"{name} must be True or False, got {describe(value)} ({type(value).__name__})"
    )


def threads(value: Any) -> int:
    """OpenMP threads: a positive integer, or None for automatic (returned as 0)."""
    if value is None:
        return 0
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ParameterTypeError(
            f"threads must be a positive integer or None, got {describe(value)} ({type(value).__name__})"
        )
    if value < 1:
        raise ValueError(
            f"threads must be a positive integer or None, got {describe(value)}; use None for all cores on large inputs"
        )
    return int(value)


def workers(value: Any) -> int:
    """Threads evaluating independent blocks (scipy.fft's ``workers`` convention): a positive count;
    -k counts back from the cores this process may use (-1 every core, -2 all but one); None, the
    default, every such core but at most ``OMP_NUM_THREADS`` where that is set to a positive integer
    (as Dask's nannies set it to 1, so that a worker process does not oversubscribe its machine)."""
    if value is not None and (
        isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer))
    ):
        raise ParameterTypeError(
            f"workers must be a nonzero integer or None, got {describe(value)} ({type(value).__name__})"
        )
    try:
        cores = max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on every platform
        cores = max(1, os.cpu_count() or 1)
    if value is None:
        limit = os.environ.get("OMP_NUM_THREADS", "")
        return min(cores, int(limit)) if limit.isdigit() and int(limit) > 0 else cores
    if value == 0:
        raise ValueError(
            "workers must be a nonzero integer or None, got 0; use None or -1 for every core, 1 for this thread only"
        )
    return int(value) if value > 0 else max(1, cores + 1 + int(value))


_S = TypeVar("_S", bound=str)


def choice(value: _S, name: str, allowed: tuple[str, ...]) -> _S:
    """One of ``allowed`` (exact string match)."""
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(
            f"{name} must be one of {', '.join(repr(a) for a in allowed)}, got {describe(value)}"
        )
    return value


def bound_side(bound: Any) -> Bound:
    """The side of a certified bracket asked for: "upper" (default everywhere), "lower" or "both"."""
    side: Bound = choice(bound, "bound", BOUND_SIDES)
    return side


def upper_only(bound: Any, owner: str) -> None:
    """Refuse bound="lower" / "both" for an accountant whose theorem gives an upper bound only."""
    if bound_side(bound) != "upper":
        raise ValueError(
            f'bound must be "upper" for {owner}, got {describe(bound)}: its theorem certifies '
            "an upper bound only (no lower bound is known)"
        )


_V = TypeVar("_V")


def certified_sides(
    bound: Any, lower: Callable[[], _V], upper: Callable[[], _V]
) -> _V | tuple[_V, _V]:
    """The side(s) asked for of a bracket whose sides are computed on demand (closed forms rounded
    outward: ``lower()`` and ``upper()`` are only evaluated when asked for)."""
    side = bound_side(bound)
    if side == "both":
        return lower(), upper()
    return upper() if side == "upper" else lower()


def exact_sides(bound: Any, value: _V) -> _V | tuple[_V, _V]:
    """An exact value is both sides of its bracket: ``value`` for "upper" / "lower", (value, value) for "both"."""
    return (value, value) if bound_side(bound) == "both" else value


def broadcastable(**named: npt.ArrayLike | None) -> None:
    """Raise ValueError naming every argument and its shape unless the given ones broadcast together."""
    given = {k: np.shape(v) for k, v in named.items() if v is not None}
    try:
        np.broadcast_shapes(*given.values())
    except ValueError:
        shapes = ", ".join(f"{k} {s}" for k, s in given.items())
        raise ValueError(
            f"parameter shapes do not broadcast together: {shapes}; "
            "give arrays of equal shape, scalars, or shapes numpy can broadcast"
        ) from None


def broadcast(**named: np.ndarray) -> dict[str, np.ndarray]:
    """The named arrays broadcast together (read-only views); a shape mismatch names every argument."""
    broadcastable(**named)
    return dict(zip(named, np.broadcast_arrays(*named.values())))


@overload
def scalar_or_array(arr: float) -> float: ...
@overload
def scalar_or_array(arr: np.ndarray) -> float | np.ndarray: ...
def scalar_or_array(arr: Any) -> Any:
    """0-d results come back as Python floats, like the rest of the library."""
    return float(arr) if np.ndim(arr) == 0 else arr


def did_you_mean(word: str, options: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the option closest to a misspelled ``word`` (difflib ratio >= 0.6), else ""."""
    import difflib  # loaded on use: only a refused word asks it

    close = difflib.get_close_matches(word, list(options), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def synonyms(
    owner: str, given: dict[str, Any], words: Mapping[str, str], known: Iterable[str]
) -> dict[str, Any]:
    """The keywords ``given`` beyond a signature's own, each a synonym (``words``: synonym -> its
    name in ``known``) moved onto its name; a keyword that is neither is refused
    (``ParameterTypeError``, with the closest name), and so is a value given under a name and one of
    its synonyms at once."""
    out: dict[str, Any] = {}
    for word, value in given.items():
        if word not in words:
            raise ParameterTypeError(
                f"{owner}() got an unexpected keyword argument {word!r}{did_you_mean(word, [*known, *words])}"
            )
        name = words[word]
        if name in out:
            raise ParameterTypeError(
                f"{owner}() got {name} twice (as {out[name][0]!r} and {word!r}); give it once"
            )
        out[name] = (word, value)
    return {name: value for name, (_, value) in out.items()}


_F = TypeVar("_F", bound=Callable[..., Any])


def known_keywords(owner: str, *extra: str) -> Callable[[_F], _F]:
    """Refuse, before the call binds its arguments, a keyword that is neither a parameter of the
    decorated function nor one of ``extra`` (the synonyms its ``**`` parameter accepts): a
    ``ParameterTypeError`` naming it and the closest name.  Without it, a misspelled required
    keyword (``noise_multipler=``) is reported as the required one missing, the typo unnamed.

    Parameters
    ----------
    owner : str
        The name the error message gives the callable ("DPSGD").
    *extra : str
        Further keywords accepted through the function's ``**`` parameter.

    Returns
    -------
    Callable
        The decorator; the wrapped signature (``inspect.signature``) is the function's own.
    """

    def decorate(function: _F) -> _F:
        own = [
            n
            for n, p in inspect.signature(function).parameters.items()
            if p.kind is not p.VAR_KEYWORD
        ]
        known = {*own, *extra}
        options = [n for n in (*own, *extra) if n != "self"]

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for word in kwargs:
                if word not in known:
                    raise ParameterTypeError(
                        f"{owner}() got an unexpected keyword argument {word!r}{did_you_mean(word, options)}"
                    )
            return function(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate


def renamed_keywords(**old_to_new: str) -> Callable[[_F], _F]:
    """Accept each old keyword for one release, with a DeprecationWarning, as its new name.

    ``@renamed_keywords(dataset_size="n")`` on a function (or ``__init__``) whose parameter is now
    ``n``: a call with ``dataset_size=`` warns and passes it as ``n``; giving both is a TypeError.
    The wrapped signature (``inspect.signature``) is the new one.
    """

    def decorate(function: _F) -> _F:
        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for old, new in old_to_new.items():
                if old in kwargs:
                    if new in kwargs:
                        raise TypeError(
                            f"{function.__qualname__}() got both {new!r} and its deprecated name {old!r}; "
                            f"give only {new!r}"
                        )
                    warnings.warn(
                        f"{function.__qualname__}: the keyword {old!r} is deprecated and will be removed "
                        f"in the next release; use {new!r}",
                        DeprecationWarning,
                        stacklevel=2,
                    )
                    kwargs[new] = kwargs.pop(old)
            return function(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate
