"""Writes ``pld_bracket_pins.json``: the certified PLD brackets of the hockeystick this script runs on.

The fixture is a record, not a reference: each row's ``lower``/``upper`` is what the installed code
answered, so regenerating it on other code re-pins that code's brackets.  Only the ``exact`` column is
independent of hockeystick (mpmath at 50 digits): the composed Gaussian's closed form
delta = Q(eps/mu - mu/2) - e^eps Q(eps/mu + mu/2), mu = sqrt(sum_i T_i s_i^2 / sigma_i^2) (Balle and
Wang 2018, Thm. 8), one Laplace mechanism's delta = 1 - exp((eps - s/b)/2), and the finite pairs
(randomized response, the canonical (eps, delta) pair, ``from_distributions``) composed by enumerating
the multinomial counts of their outcomes; epsilon(delta) is the least eps >= 0 whose exact delta is at
most delta (bisection).  ``tests/pld/accountants/test_pld_bracket_pins.py`` recomputes every row and checks that no
bracket is wider than recorded, that it meets the recorded one, and that it holds the exact value.

Regenerate (from the repository root, after a change that tightens a bracket on purpose):

    python tests/data/make_pld_bracket_pins.py

Only public names are used (``hockeystick.pld.__all__``, ``hockeystick.interop.dp_accounting``), so the
rows survive a reorganisation of the modules behind them.  ``bracket(row)`` is the one definition of
how a row's parameters become a call; the test imports it from here.
"""

from __future__ import annotations

import json
import math
from itertools import product
from pathlib import Path
from typing import Any

import mpmath
import numpy as np

from hockeystick import pld

OUT = Path(__file__).with_name("pld_bracket_pins.json")
SEED = 20240611
GRIDS = [1e-3, 2e-3, 5e-3, 1e-2, 2e-2]
EPSILONS = [0.0, 0.25, 0.5, 1.0, 2.0, 4.0]
DELTAS = [1e-3, 1e-5, 1e-7]
DIGITS = 50

# ---------------------------------------------------------------------------------------------- evaluation


def build_pld(spec: dict[str, Any], h: float | None = None) -> pld.PrivacyLossDistribution:
    """A PrivacyLossDistribution from its spec: a constructor of hockeystick.pld with its arguments, or
    ``self_compose`` / ``compose`` / ``mixture`` of specs.  ``h``: a grid forced on every leaf."""
    op = spec["op"]
    if op == "self_compose":
        return build_pld(spec["of"], h).self_compose(spec["count"])
    if op == "compose":
        first, *rest = (build_pld(s, h) for s in spec["of"])
        for other in rest:
            first = first.compose(other)
        return first
    if op == "mixture":
        return pld.mixture([build_pld(s, h) for s in spec["of"]], spec["weights"])
    kwargs = dict(spec.get("kwargs", {}))
    if h is not None:
        kwargs["value_discretization_interval"] = h
    return getattr(pld, op)(*spec.get("args", []), **kwargs)


def build_event(spec: dict[str, Any]):
    from dp_accounting import dp_event as E

    kind = spec["event"]
    if kind == "Gaussian":
        return E.GaussianDpEvent(spec["noise_multiplier"])
    if kind == "Laplace":
        return E.LaplaceDpEvent(spec["noise_multiplier"])
    if kind == "PoissonSampled":
        return E.PoissonSampledDpEvent(spec["sampling_probability"], build_event(spec["of"]))
    if kind == "SelfComposed":
        return E.SelfComposedDpEvent(build_event(spec["of"]), spec["count"])
    if kind == "Composed":
        return E.ComposedDpEvent([build_event(s) for s in spec["of"]])
    raise ValueError(
        f"event must be one of Gaussian, Laplace, PoissonSampled, SelfComposed, Composed; got {kind!r}"
    )


def bracket(row: dict[str, Any]) -> tuple[float, float]:
    """The certified (lower, upper) the code answers for one row's setting and query."""
    family, params = row["family"], row["params"]
    method, argument = row["query"]["method"], row["query"]["argument"]
    if family == "HockeystickAccountant":
        from hockeystick.interop.dp_accounting import HockeystickAccountant, NeighboringRelation

        acc = HockeystickAccountant(NeighboringRelation[params["relation"]], **params["grid"])
        for event, count in params["compose"]:
            acc.compose(build_event(event), count)
        read = acc.get_delta_bracket if method == "delta" else acc.get_epsilon_bracket
        lo, up = read(argument)
        return float(lo), float(up)
    if family == "PLDAccountant":
        acc = pld.PLDAccountant(params["value_discretization_interval"])
        for seg in params["segments"]:
            if "pld" in seg:
                acc.compose(
                    build_pld(seg["pld"], params["value_discretization_interval"]), seg["rounds"]
                )
            else:
                acc.compose_subsampled_gaussian(
                    seg["sigma"], seg["sampling_rate"], seg["rounds"], seg["sensitivity"]
                )
        obj: Any = acc
    elif family == "PrivacyLossDistribution":
        obj = build_pld(params["pld"])
    else:
        obj = getattr(pld, family.split(".")[0])(*params["args"], **params["kwargs"])
    lo, up = getattr(obj, method)(argument, bound="both")
    return float(lo), float(up)


# ------------------------------------------------------------------------------------------ exact references


def gaussian_delta(mu, eps):
    q = lambda x: mpmath.ncdf(-x)  # noqa: E731
    return q(eps / mu - mu / 2) - mpmath.exp(eps) * q(eps / mu + mu / 2)


def least_epsilon(delta_of, target):
    """Least eps >= 0 with delta_of(eps) <= target (delta_of non-increasing and continuous)."""
    target = mpmath.mpf(target)
    if delta_of(mpmath.mpf(0)) <= target:
        return mpmath.mpf(0)
    lo, hi = mpmath.mpf(0), mpmath.mpf(1)
    while delta_of(hi) > target:
        lo, hi = hi, 2 * hi
    for _ in range(220):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if delta_of(mid) <= target else (mid, hi)
    return hi


def finite_composition_atoms(p, q, count):
    """(P-mass, Q-mass) of each count vector of the count-fold product of the finite pair (p, q)."""
    m = len(p)
    atoms = []
    for counts in product(range(count + 1), repeat=m - 1):
        last = count - sum(counts)
        if last < 0:
            continue
        ns = (*counts, last)
        coeff = mpmath.factorial(count)
        for n in ns:
            coeff /= mpmath.factorial(n)
        pm, qm = coeff, coeff
        for pi, qi, n in zip(p, q, ns):
            pm *= mpmath.power(pi, n) if n else 1
            qm *= mpmath.power(qi, n) if n else 1
        if pm > 0:
            atoms.append((pm, qm))
    return atoms


def finite_delta_fn(atoms):
    return lambda eps: mpmath.fsum(
        max(mpmath.mpf(0), pm - mpmath.exp(eps) * qm) for pm, qm in atoms
    )


def finite_pair(spec):
    """The exact (p, q) of a finite-pair constructor (mpmath), its directions, or None."""
    op, args, kwargs = spec["op"], spec.get("args", []), spec.get("kwargs", {})
    mp = mpmath.mpf
    if op == "randomized_response":
        noise, k = mp(args[0]), args[1]
        if kwargs.get("relation", "replace_one") == "replace_one":
            p = [1 - noise + noise / k, noise / k, (k - 2) * noise / k]
            return p, [p[1], p[0], p[2]], False
        return [1 - noise + noise / k, (k - 1) * noise / k], [mp(1) / k, mp(k - 1) / k], True
    if op == "eps_delta_dp":
        e, d = mp(args[0]), mp(args[1])
        hi, lo = (1 - d) * mpmath.exp(e) / (1 + mpmath.exp(e)), (1 - d) / (1 + mpmath.exp(e))
        return [d, hi, lo, mp(0)], [mp(0), lo, hi, d], False
    if op == "from_distributions":
        p, q = [mp(x) for x in args[0]], [mp(x) for x in args[1]]
        return p, q, not kwargs.get("symmetric", False)
    return None


def gaussian_r2(spec):
    """sum count (s / sigma)^2 of a spec composed of plain Gaussians only, else None."""
    op = spec["op"]
    if op == "self_compose":
        r = gaussian_r2(spec["of"])
        return None if r is None else spec["count"] * r
    if op == "compose":
        parts = [gaussian_r2(s) for s in spec["of"]]
        return None if any(r is None for r in parts) else sum(parts)
    if op == "gaussian":
        return (
            mpmath.mpf(spec.get("kwargs", {}).get("sensitivity", 1.0)) / mpmath.mpf(spec["args"][0])
        ) ** 2
    return None


def exact_delta_of(row):
    """The exact delta(eps) of a row's setting (an mpmath function), or None where there is no closed form."""
    family, params = row["family"], row["params"]
    mp = mpmath.mpf
    r2 = None
    if family.startswith("SubsampledGaussianPLD") and params["args"][1] == 1.0:
        sigma, _, rounds = params["args"]
        r2 = rounds * (mp(params["kwargs"].get("sensitivity", 1.0)) / mp(sigma)) ** 2
    elif family == "PLDAccountant" and all(
        "pld" not in s and s["sampling_rate"] == 1.0 for s in params["segments"]
    ):
        r2 = mpmath.fsum(
            s["rounds"] * (mp(s["sensitivity"]) / mp(s["sigma"])) ** 2 for s in params["segments"]
        )
    elif family == "HockeystickAccountant":
        shift = 2 if params["relation"] == "REPLACE_ONE" else 1
        terms = []
        for event, count in params["compose"]:
            if event["event"] != "Gaussian":
                return None
            terms.append(count * (mp(shift) / mp(event["noise_multiplier"])) ** 2)
        r2 = mpmath.fsum(terms)
    elif family == "PrivacyLossDistribution":
        spec = params["pld"]
        r2 = gaussian_r2(spec)
        if r2 is None:
            count, base = (spec["count"], spec["of"]) if spec["op"] == "self_compose" else (1, spec)
            if base["op"] == "laplace" and count == 1:
                eps0 = mp(base.get("kwargs", {}).get("sensitivity", 1.0)) / mp(base["args"][0])
                return lambda eps: max(mp(0), 1 - mpmath.exp((eps - eps0) / 2))
            pair = finite_pair(base)
            if pair is None:
                return None
            p, q, both = pair
            forward = finite_delta_fn(finite_composition_atoms(p, q, count))
            if not both:
                return forward
            backward = finite_delta_fn(finite_composition_atoms(q, p, count))
            return lambda eps: max(forward(eps), backward(eps))
    if r2 is None:
        return None
    mu = mpmath.sqrt(r2)
    return lambda eps: gaussian_delta(mu, eps)


def exact(row):
    delta_of = exact_delta_of(row)
    if delta_of is None:
        return None
    argument = mpmath.mpf(row["query"]["argument"])
    value = (
        delta_of(argument)
        if row["query"]["method"] == "delta"
        else least_epsilon(delta_of, argument)
    )
    return mpmath.nstr(value, DIGITS, min_fixed=-math.inf, max_fixed=math.inf)


# ------------------------------------------------------------------------------------------------ settings


class Draw:
    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)

    def uniform(self, a, b, digits=3):
        return float(f"{self.rng.uniform(a, b):.{digits}g}")

    def log_uniform(self, a, b, digits=3):
        return float(f"{math.exp(self.rng.uniform(math.log(a), math.log(b))):.{digits}g}")

    def log_int(self, a, b):
        return int(round(math.exp(self.rng.uniform(math.log(a), math.log(b)))))

    def choice(self, options):
        return options[int(self.rng.integers(len(options)))]

    def query(self, epsilons=EPSILONS, deltas=DELTAS):
        if self.rng.random() < 0.5:
            return {"method": "delta", "argument": self.choice(epsilons)}
        return {"method": "epsilon", "argument": self.choice(deltas)}


def ctor(op, *args, **kwargs):
    return {"op": op, "args": list(args), "kwargs": kwargs}


def pld_settings(d: Draw):
    """(constructor name, spec of one round) for every PLD constructor, drawn once per row."""
    h = lambda: d.choice(GRIDS)  # noqa: E731
    sens = lambda: d.choice([1.0, 1.0, 0.5, 2.0])  # noqa: E731
    return {
        "gaussian": lambda: ctor(
            "gaussian", d.uniform(0.7, 5.0), sensitivity=sens(), value_discretization_interval=h()
        ),
        "laplace": lambda: ctor(
            "laplace", d.uniform(0.5, 20.0), sensitivity=sens(), value_discretization_interval=h()
        ),
        "subsampled_gaussian": lambda: ctor(
            "subsampled_gaussian",
            d.uniform(0.7, 3.0),
            d.log_uniform(1e-3, 0.3),
            value_discretization_interval=h(),
        ),
        "fixed_size_subsampled_gaussian": lambda: ctor(
            "fixed_size_subsampled_gaussian",
            d.uniform(0.8, 3.0),
            d.log_int(1, 50),
            d.choice([500, 1000, 5000]),
            value_discretization_interval=h(),
        ),
        "with_replacement_subsampled_gaussian": lambda: ctor(
            "with_replacement_subsampled_gaussian",
            d.uniform(0.8, 3.0),
            d.log_int(1, 20),
            d.choice([500, 1000, 5000]),
            value_discretization_interval=d.choice(GRIDS[2:]),
        ),
        "discrete_laplace": lambda: ctor(
            "discrete_laplace",
            d.uniform(0.05, 2.0),
            d.choice([1, 1, 2, 3]),
            value_discretization_interval=h(),
        ),
        "randomized_response": lambda: ctor(
            "randomized_response",
            d.uniform(0.2, 0.95),
            d.choice([2, 3, 4, 10]),
            relation=d.choice(["replace_one", "replace_special"]),
            value_discretization_interval=h(),
        ),
        "eps_delta_dp": lambda: ctor(
            "eps_delta_dp",
            d.uniform(0.05, 1.5),
            d.choice([0.0, 1e-8, 1e-6]),
            value_discretization_interval=h(),
        ),
        "from_distributions": lambda: ctor(
            "from_distributions",
            *[
                list(v / v.sum())
                for v in (np.round(d.rng.uniform(0.1, 1.0, size=3), 3) for _ in range(2))
            ],
            symmetric=False,
            value_discretization_interval=h(),
        ),
        "mixture_of_gaussians": lambda: ctor(
            "mixture_of_gaussians",
            d.uniform(0.8, 3.0),
            [0.0, 1.0, 2.0],
            (lambda w: [1.0 - w - w / 4, w, w / 4])(d.log_uniform(1e-3, 0.2)),
            value_discretization_interval=h(),
        ),
        "laplace_mixture": lambda: ctor(
            "laplace_mixture",
            d.uniform(0.5, 5.0),
            [0.0, 1.0],
            (lambda w: [1.0 - w, w])(d.log_uniform(1e-3, 0.5)),
            value_discretization_interval=h(),
        ),
        "subsampled_laplace": lambda: ctor(
            "subsampled_laplace",
            d.uniform(0.5, 5.0),
            d.log_uniform(1e-3, 0.5),
            value_discretization_interval=h(),
        ),
        "poisson_subsampled": lambda: ctor(
            "poisson_subsampled",
            *[
                list(v / v.sum())
                for v in (np.round(d.rng.uniform(0.1, 1.0, size=3), 3) for _ in range(2))
            ],
            d.log_uniform(1e-2, 0.5),
            value_discretization_interval=h(),
        ),
        "truncated_subsampled_gaussian": lambda: ctor(
            "truncated_subsampled_gaussian",
            1000,
            d.log_uniform(5e-3, 0.05),
            d.choice([20, 40, 80]),
            d.uniform(0.8, 3.0),
            analysis=d.choice(["conditioned", "dp_accounting"]),
            value_discretization_interval=d.choice(GRIDS[1:]),
        ),
        "random_allocation_gaussian": lambda: ctor(
            "random_allocation_gaussian",
            d.choice([1, 2, 4, 8, 16]),
            d.uniform(0.8, 4.0),
            value_discretization_interval=d.choice(GRIDS[3:]),
        ),
    }


def with_grid(spec, h):
    spec = json.loads(json.dumps(spec))
    spec["kwargs"]["value_discretization_interval"] = h
    return spec


def rows_spec() -> list[dict[str, Any]]:
    d = Draw(SEED)
    rows: list[dict[str, Any]] = []

    def add(family, params, query):
        rows.append({"family": family, "params": params, "query": query})

    # SubsampledGaussianPLD on a fixed grid (rate 1: the plain Gaussian, exact)
    for i in range(56):
        rate = 1.0 if i % 4 == 0 else d.log_uniform(1e-3, 0.2)
        sigma = d.uniform(0.6, 3.0) if rate < 1 else d.uniform(2.0, 30.0)
        rounds = d.log_int(10, 10_000) if rate < 1 else d.log_int(1, 1000)
        kwargs = {
            "sensitivity": d.choice([1.0, 1.0, 0.5, 2.0]),
            "value_discretization_interval": d.choice(GRIDS),
        }
        add(
            "SubsampledGaussianPLD.grid",
            {"args": [sigma, rate, rounds], "kwargs": kwargs},
            d.query(),
        )
    # SubsampledGaussianPLD refined to an accuracy
    for i in range(32):
        rate = 1.0 if i % 4 == 0 else d.log_uniform(1e-3, 0.2)
        sigma = d.uniform(0.6, 3.0) if rate < 1 else d.uniform(2.0, 30.0)
        rounds = d.log_int(10, 10_000) if rate < 1 else d.log_int(1, 1000)
        kwargs = {"accuracy": d.choice([2e-2, 1e-2, 5e-3])}
        add(
            "SubsampledGaussianPLD.accuracy",
            {"args": [sigma, rate, rounds], "kwargs": kwargs},
            d.query(),
        )
    # PLDAccountant: subsampled Gaussian segments (all at rate 1: exact), some with a PLD segment
    for i in range(24):
        segments = []
        for _ in range(d.choice([1, 2, 3])):
            rate = 1.0 if i % 3 == 0 else d.log_uniform(1e-3, 0.2)
            segments.append(
                {
                    "sigma": d.uniform(0.7, 3.0) if rate < 1 else d.uniform(3.0, 30.0),
                    "sampling_rate": rate,
                    "rounds": d.log_int(10, 5000) if rate < 1 else d.log_int(1, 200),
                    "sensitivity": d.choice([1.0, 0.5, 2.0]),
                }
            )
        if i % 3 == 2:
            spec = d.choice(
                [ctor("laplace", d.uniform(5.0, 30.0)), ctor("randomized_response", 0.9, 4)]
            )
            segments.append({"pld": spec, "rounds": d.log_int(1, 50)})
        add(
            "PLDAccountant",
            {"value_discretization_interval": d.choice(GRIDS), "segments": segments},
            d.query(),
        )
    # the batch accountants
    for _ in range(16):
        n = d.choice([200, 1000, 10_000])
        args = [d.uniform(0.8, 3.0), d.log_int(1, n // 20), n, d.log_int(1, 2000)]
        kwargs = {
            "sensitivity": d.choice([1.0, 2.0]),
            "value_discretization_interval": d.choice(GRIDS),
        }
        add("FixedBatchGaussianPLD", {"args": args, "kwargs": kwargs}, d.query())
    for _ in range(14):
        n = d.choice([200, 1000, 5000])
        args = [d.uniform(0.8, 3.0), d.log_int(1, n // 50), n, d.log_int(1, 300)]
        kwargs = {"value_discretization_interval": d.choice(GRIDS[2:])}
        add("WithReplacementBatchGaussianPLD", {"args": args, "kwargs": kwargs}, d.query())
    for _ in range(14):
        steps = d.choice([1, 2, 4, 8, 16])
        args = [d.uniform(0.8, 4.0), steps, steps * d.choice([1, 2, 5, 10]) + d.choice([0, 0, 1])]
        kwargs = {"value_discretization_interval": d.choice(GRIDS[3:])}
        add("BallsInBinsGaussianPLD", {"args": args, "kwargs": kwargs}, d.query())
    for _ in range(14):
        n = d.choice([50, 95, 200])
        batch = d.choice([5, 10, 25])
        args = [
            d.uniform(1.0, 5.0),
            batch,
            n,
            (n // batch) * d.choice([1, 2, 3]) + d.choice([0, 1]),
        ]
        kwargs = {"value_discretization_interval": d.choice(GRIDS[3:])}
        add("ShuffledBatchGaussianPLD", {"args": args, "kwargs": kwargs}, d.query())
    # every PrivacyLossDistribution constructor, self-composed, and some composed with another
    makers = pld_settings(d)
    finite = {"randomized_response", "eps_delta_dp", "from_distributions"}
    for name, make in makers.items():
        for i in range(8):
            base = make()
            if name in finite:
                count = d.choice([1, 2, 5, 10, 20])
            elif name == "laplace" and i < 2:
                count = 1
            elif name in ("random_allocation_gaussian", "with_replacement_subsampled_gaussian"):
                count = d.log_int(1, 50)
            else:
                count = d.log_int(1, 1000)
            spec = {"op": "self_compose", "of": base, "count": count}
            if i == 7 and name not in finite:
                h = base["kwargs"]["value_discretization_interval"]
                if name == "gaussian":
                    other = ctor("gaussian", d.uniform(1.0, 5.0), value_discretization_interval=h)
                else:
                    other = ctor("laplace", d.uniform(5.0, 30.0), value_discretization_interval=h)
                spec = {
                    "op": "compose",
                    "of": [spec, {"op": "self_compose", "of": other, "count": d.log_int(1, 20)}],
                }
            query = d.query(deltas=[1e-2, 1e-3, 1e-5]) if name in finite else d.query()
            add("PrivacyLossDistribution", {"constructor": name, "pld": spec}, query)
    for _ in range(6):
        h = d.choice(GRIDS)
        parts = [
            ctor("gaussian", d.uniform(0.7, 3.0)),
            ctor("laplace", d.uniform(0.5, 5.0)),
            ctor("gaussian", 2.0),
        ]
        w = d.log_uniform(1e-2, 0.5)
        spec = {
            "op": "mixture",
            "of": [with_grid(p, h) for p in parts[:2]],
            "weights": [1.0 - w, w],
        }
        spec = {"op": "self_compose", "of": spec, "count": d.log_int(1, 300)}
        add("PrivacyLossDistribution", {"constructor": "mixture", "pld": spec}, d.query())
    # dp_accounting's events through HockeystickAccountant (Gaussian only: exact)
    for i in range(30):
        nm = d.uniform(0.7, 3.0)
        kind = i % 5
        if kind == 0:
            compose = [
                [{"event": "Gaussian", "noise_multiplier": d.uniform(2.0, 30.0)}, d.log_int(1, 500)]
            ]
        elif kind == 1:
            g = {"event": "Gaussian", "noise_multiplier": nm}
            sampled = {
                "event": "PoissonSampled",
                "sampling_probability": d.log_uniform(1e-3, 0.2),
                "of": g,
            }
            compose = [[sampled, d.log_int(10, 10_000)]]
        elif kind == 2:
            compose = [
                [{"event": "Laplace", "noise_multiplier": d.uniform(2.0, 30.0)}, d.log_int(1, 50)]
            ]
        elif kind == 3:
            g = {"event": "Gaussian", "noise_multiplier": nm}
            sampled = {
                "event": "PoissonSampled",
                "sampling_probability": d.log_uniform(1e-3, 0.2),
                "of": g,
            }
            compose = [
                [{"event": "SelfComposed", "of": sampled, "count": d.log_int(10, 2000)}, 1],
                [{"event": "Laplace", "noise_multiplier": d.uniform(5.0, 30.0)}, d.log_int(1, 20)],
            ]
        else:
            compose = [
                [
                    {
                        "event": "Composed",
                        "of": [
                            {"event": "Gaussian", "noise_multiplier": d.uniform(3.0, 30.0)},
                            {"event": "Gaussian", "noise_multiplier": d.uniform(3.0, 30.0)},
                        ],
                    },
                    d.log_int(1, 100),
                ],
                [
                    {"event": "Gaussian", "noise_multiplier": d.uniform(3.0, 30.0)},
                    d.log_int(1, 100),
                ],
            ]
        relation = "REPLACE_ONE" if kind in (0, 4) and i % 2 else "ADD_OR_REMOVE_ONE"
        grid = (
            {"value_discretization_interval": d.choice(GRIDS)}
            if i % 3
            else {"accuracy": d.choice([2e-2, 1e-2, 5e-3])}
        )
        add(
            "HockeystickAccountant",
            {"relation": relation, "grid": grid, "compose": compose},
            d.query(),
        )
    counts: dict[str, int] = {}
    for row in rows:
        key = row["params"].get("constructor", row["family"])
        counts[key] = counts.get(key, 0) + 1
        row["id"] = f"{key}-{counts[key]:02d}"
    return rows


def main() -> None:
    try:
        import dp_accounting  # noqa: F401
    except ImportError as err:
        raise SystemExit(
            "dp_accounting is needed for the HockeystickAccountant rows: pip install dp-accounting"
        ) from err
    mpmath.mp.dps = DIGITS
    rows = []
    for spec in rows_spec():
        lo, up = bracket(spec)
        if not (math.isfinite(lo) and math.isfinite(up) and lo <= up):
            raise SystemExit(
                f"{spec['id']}: bracket {(lo, up)} is not a finite interval; change its parameters"
            )
        reference = exact(spec)
        rows.append({"id": spec.pop("id"), **spec, "lower": lo, "upper": up, "exact": reference})
    OUT.write_text(json.dumps({"seed": SEED, "rows": rows}, indent=1) + "\n")
    print(
        f"{len(rows)} rows, {sum(r['exact'] is not None for r in rows)} with an exact reference -> {OUT}"
    )


if __name__ == "__main__":
    main()
