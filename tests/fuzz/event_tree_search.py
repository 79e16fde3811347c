"""A long seeded search over dp_accounting event trees for hangs, crashes, NaN and unsafe brackets.

Not run by the test suite (pytest collects ``test_*.py`` only); run it by hand, single-process and nice'd:

    nice python -m tests.fuzz.event_tree_search --seed 1 --minutes 30 [--limit 20] [--log failures.jsonl]

Each tree (every event type ``interop.dp_accounting.dp_events`` takes, depth <= 3, counts up to 10^8, parameters
across decades and at the extremes the library accepts) is evaluated in a worker process under a
wall-clock limit (a hang kills the worker; a new one is started), and must:

- answer with a finite-or-infinite bracket 0 <= lower <= upper (no NaN), or refuse with ValueError,
  OverflowError or UnsupportedEventError (a ValueError naming a field of the event or the count);
- stay under ``MEMORY_GB`` of peak resident memory (``resource.getrusage`` in the worker);
- have its upper epsilon at or above dp_accounting's optimistic PLD epsilon (``tests/dp_accounting_pld
  .their_pld``, add/remove trees it knows), where that answers within its own limit.

Every failure is printed (and appended to ``--log`` as a JSON line with the event's repr).
``tests/interop/test_interop_event_tree_fuzz.py`` runs a small seeded sample of the same generator.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import re
import resource
import time
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from dp_accounting import dp_event as E
from dp_accounting.privacy_accountant import NeighboringRelation as NR

DELTA = 1e-6
MEMORY_GB = 2.0
FIELD = re.compile(r"\w+DpEvent\.\w+|`count`|count|noise_multiplier|sample_rate")
ADD, REPLACE, SPECIAL = NR.ADD_OR_REMOVE_ONE, NR.REPLACE_ONE, NR.REPLACE_SPECIAL
EXTREME_SCALE = [1e-300, 1e-12, 1e-6, 1e6, 1e12, 1e300]


def _decade(rng: np.random.Generator, lo: float, hi: float) -> float:
    """A value log-uniform on [10^lo, 10^hi], or one of the extremes one time in eight."""
    if rng.random() < 0.125:
        return float(rng.choice(EXTREME_SCALE))
    return float(10.0 ** rng.uniform(lo, hi))


def _probability(rng: np.random.Generator) -> float:
    r = rng.random()
    if r < 0.1:
        return float(rng.choice([1.0, 1.0 - 1e-16, 5e-324, 1e-300, 0.5]))
    return float(10.0 ** rng.uniform(-8, 0))


def _count(rng: np.random.Generator) -> int:
    return int(10 ** rng.uniform(0, 8)) if rng.random() < 0.7 else int(rng.integers(1, 30))


def leaf(rng: np.random.Generator) -> tuple[Any, NR]:
    """A mechanism (or a sampled mechanism) and the neighbouring relation it is asked under."""
    kind = int(rng.integers(12))
    if kind == 0:
        return E.GaussianDpEvent(_decade(rng, -3, 3)), ADD
    if kind == 1:
        return E.LaplaceDpEvent(_decade(rng, -3, 3)), ADD
    if kind == 2:
        return E.DiscreteLaplaceDpEvent(
            _decade(rng, -4, 4), int(rng.choice([1, 2, 3, 10, 100, 1000]))
        ), ADD
    if kind == 3:
        k = int(rng.integers(1, 5))
        w = rng.dirichlet(np.ones(k))
        return E.MixtureOfGaussiansDpEvent(
            _decade(rng, -2, 2), [float(x) for x in rng.uniform(0, 3, k)], [float(x) for x in w]
        ), ADD
    if kind == 4:
        return E.RandomizedResponseDpEvent(
            _probability(rng), int(rng.choice([2, 3, 10, 1000]))
        ), REPLACE
    if kind == 5:
        return E.RandomizedResponseDpEvent(_probability(rng), int(rng.choice([2, 3, 10]))), SPECIAL
    if kind in (6, 7):
        inner, rel = leaf(rng)
        if rel != ADD:
            inner = E.GaussianDpEvent(_decade(rng, -1, 2))
        return E.PoissonSampledDpEvent(_probability(rng), inner), ADD
    if kind == 8:
        n = int(10 ** rng.uniform(0, 7)) + 1
        m = int(rng.integers(1, n + 1)) if n < 100 else int(10 ** rng.uniform(0, math.log10(n)))
        inner = rng.choice(
            [E.GaussianDpEvent(_decade(rng, -1, 2)), E.LaplaceDpEvent(_decade(rng, -1, 2))]
        )
        return E.SampledWithoutReplacementDpEvent(n, m, inner), REPLACE
    if kind == 9:
        n = int(10 ** rng.uniform(0, 5)) + 1
        k = int(10 ** rng.uniform(0, 3))
        inner = rng.choice(
            [
                E.GaussianDpEvent(_decade(rng, -1, 2)),
                E.LaplaceDpEvent(_decade(rng, -1, 2)),
                E.DiscreteLaplaceDpEvent(_decade(rng, -2, 2), int(rng.choice([1, 2, 5]))),
            ]
        )
        return E.SampledWithReplacementDpEvent(n, k, inner), REPLACE
    if kind == 10:
        n = int(10 ** rng.uniform(1, 7))
        return E.TruncatedSubsampledGaussianDpEvent(
            n, _probability(rng), int(rng.integers(1, 20)), _decade(rng, -1, 2)
        ), ADD
    return own_leaf(rng)


def own_leaf(rng: np.random.Generator) -> tuple[Any, NR]:
    """One of hockeystick's own events (allocation, catalogue, selection), Poisson sampling under replace-one, or
    nothing (a draw of its own, so the trees of the other kinds are the same for a seed)."""
    from hockeystick.interop.dp_accounting.allocation_events import (
        BallsInBinsGaussianDpEvent,
        ShuffledBatchGaussianDpEvent,
    )
    from hockeystick.interop.dp_accounting.catalogue_events import (
        DiscreteGaussianDpEvent,
        EpsilonDeltaDpEvent,
    )
    from hockeystick.interop.dp_accounting.selection_events import (
        ExponentialMechanismDpEvent,
        PermuteAndFlipDpEvent,
    )

    kind = int(rng.integers(8))
    if kind == 0:
        return BallsInBinsGaussianDpEvent(_decade(rng, -1, 2), int(10 ** rng.uniform(0, 3))), ADD
    if kind == 1:
        n = int(10 ** rng.uniform(0, 5)) + 1
        return ShuffledBatchGaussianDpEvent(
            _decade(rng, -1, 2), n, int(rng.integers(1, n + 1))
        ), REPLACE
    if kind == 2:
        return DiscreteGaussianDpEvent(_decade(rng, -1, 3), int(rng.choice([1, 2, 10, 100]))), ADD
    if kind == 3:
        return EpsilonDeltaDpEvent(_decade(rng, -3, 1), _probability(rng)), ADD
    if kind == 4:
        return ExponentialMechanismDpEvent(_decade(rng, -3, 4)), (ADD, REPLACE)[
            int(rng.integers(2))
        ]
    if kind == 5:
        return PermuteAndFlipDpEvent(_decade(rng, -3, 4)), (ADD, REPLACE)[int(rng.integers(2))]
    if kind == 6:
        return E.PoissonSampledDpEvent(
            _probability(rng), E.GaussianDpEvent(_decade(rng, -1, 2))
        ), REPLACE
    return E.NoOpDpEvent(), ADD


def tree(rng: np.random.Generator, depth: int = 3) -> tuple[Any, NR]:
    """A random event tree of depth <= ``depth`` and one relation all its leaves accept."""
    if depth <= 1 or rng.random() < 0.35:
        return leaf(rng)
    if rng.random() < 0.5:
        inner, rel = tree(rng, depth - 1)
        return E.SelfComposedDpEvent(inner, _count(rng)), rel
    first, rel = tree(rng, depth - 1)
    parts = [first]
    for _ in range(int(rng.integers(1, 3))):
        other, r = tree(rng, depth - 1)
        if r == rel:
            parts.append(other)
    return E.ComposedDpEvent(parts), rel


# --- the worker: one query at a time, in its own process ---------------------------------------------


def _ours(event: Any, relation: NR) -> tuple[str, Any]:
    from dp_accounting.privacy_accountant import UnsupportedEventError

    from hockeystick.interop.dp_accounting import HockeystickPLDAccountant

    try:
        acc = HockeystickPLDAccountant(relation).compose(event)
        eps = acc.get_epsilon_bracket(DELTA)
        dlt = acc.get_delta_bracket(1.0)
        return "answer", (float(eps[0]), float(eps[1]), float(dlt[0]), float(dlt[1]))
    except (ValueError, OverflowError, UnsupportedEventError) as e:
        return "refused", f"{type(e).__name__}: {e}"


def _their_kind(event: Any) -> bool:
    """Whether ``their_pld`` models the tree faithfully (it reads any Poisson-sampled inner as a Laplace)."""
    if isinstance(event, (E.SelfComposedDpEvent,)):
        return _their_kind(event.event)
    if isinstance(event, E.ComposedDpEvent):
        return all(_their_kind(e) for e in event.events)
    if isinstance(event, E.PoissonSampledDpEvent):
        return isinstance(event.event, (E.GaussianDpEvent, E.LaplaceDpEvent))
    return isinstance(
        event,
        (
            E.NoOpDpEvent,
            E.GaussianDpEvent,
            E.LaplaceDpEvent,
            E.DiscreteLaplaceDpEvent,
            E.MixtureOfGaussiansDpEvent,
        ),
    )


def _theirs(event: Any) -> tuple[str, Any]:
    from tests.dp_accounting_pld import their_pld

    if not _their_kind(event):
        return "none", "not modelled by their_pld"
    try:
        pld = their_pld(event, 1, False, 1e-2)
        return "answer", 0.0 if pld is None else float(pld.get_epsilon_for_delta(DELTA))
    except Exception as e:  # noqa: BLE001 - any failure of theirs only means no comparison
        return "none", repr(e)


def _serve(conn: Any) -> None:
    resource.setrlimit(
        resource.RLIMIT_AS, (int(6e9), int(6e9))
    )  # a runaway allocation fails here, not the machine
    warnings.simplefilter("ignore")
    while True:
        job = conn.recv()
        if job is None:
            return
        which, event, relation = job
        cpu = time.process_time()
        try:
            out = _ours(event, relation) if which == "ours" else _theirs(event)
        except BaseException as e:  # noqa: BLE001 - a crash of any kind is the finding
            out = ("crash", f"{type(e).__name__}: {e}")
        conn.send((out, _peak_gb(), time.process_time() - cpu))


def _peak_gb() -> float:
    """This process's peak resident memory in GB: the address space's high-water mark (VmHWM, Linux), which
    starts anew at exec.  getrusage's ru_maxrss is kept across exec on Linux, so a spawned worker would report
    the peak of the pytest process that started it; it is the fallback where /proc is absent."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1e6  # kilobytes -> GB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6


class Worker:
    """A worker process answering queries under a wall-clock limit; restarted after a hang or once its
    peak memory passes 1 GB (the peak is per process).  Spawned, not forked: a fork of a process whose
    OpenMP or BLAS threads hold a lock (pytest, after other tests) can deadlock in the child."""

    def __init__(self) -> None:
        self._start()

    def _start(self) -> None:
        ctx = mp.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child,), daemon=True)
        self.proc.start()

    def stop(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()  # this worker only (its own pid)
        self.proc.join()

    def ask(
        self, which: str, event: Any, relation: NR, limit: float
    ) -> tuple[tuple[str, Any], float, float]:
        """(verdict, value), the worker's peak memory in GB, its CPU seconds on the query."""
        self.conn.send((which, event, relation))
        if not self.conn.poll(limit):
            self.stop()
            self._start()
            return ("hang", f"no answer within {limit} s (wall)"), 0.0, math.inf
        try:
            out, peak, cpu = self.conn.recv()
        except EOFError:  # the worker died (a signal, the memory limit)
            self.stop()
            self._start()
            return ("crash", "worker died"), 0.0, math.inf
        if peak > 1.0:
            self.stop()
            self._start()
        return out, peak, cpu


@dataclass
class Finding:
    seed: int
    index: int
    kind: str
    detail: str
    event: str


def check(
    worker: Worker, event: Any, relation: NR, limit: float, against_theirs: bool = True
) -> list[tuple[str, str]]:
    """The contract's violations for one tree (empty: it holds); ``against_theirs`` False leaves out the
    comparison with dp_accounting's optimistic epsilon (its "unsafe" finding) and the PLD it composes."""
    out, peak, cpu = worker.ask("ours", event, relation, limit)
    problems: list[tuple[str, str]] = []
    if out[0] == "hang":  # a loaded machine: asked again with six times the time before it counts
        out, peak, cpu = worker.ask("ours", event, relation, 6 * limit)
        if out[0] != "hang":
            problems.append(("slow", f"{cpu:.1f} CPU s"))
    if peak > MEMORY_GB:
        problems.append(("memory", f"peak {peak:.2f} GB"))
    verdict, value = out
    if verdict in ("hang", "crash"):
        return problems + [(verdict, str(value))]
    if verdict == "refused":
        if value.startswith("ValueError") and not FIELD.search(value):
            problems.append(("message", value))
        return problems
    e_lo, e_up, d_lo, d_up = value
    if any(math.isnan(x) for x in value):
        return problems + [("nan", repr(value))]
    if not (0.0 <= e_lo <= e_up) or not (0.0 <= d_lo <= d_up <= 1.0):
        problems.append(("order", repr(value)))
    if against_theirs and relation == ADD:
        (t_verdict, theirs), _, _ = worker.ask("theirs", event, relation, limit)
        if (
            t_verdict == "answer"
            and math.isfinite(theirs)
            and e_up < theirs - 1e-9 * max(1.0, theirs)
        ):
            problems.append(("unsafe", f"upper {e_up} < dp_accounting optimistic {theirs}"))
    return problems


def search(seed: int, minutes: float, limit: float, log: str | None) -> list[Finding]:
    rng = np.random.default_rng(seed)
    worker = Worker()
    findings: list[Finding] = []
    end = time.monotonic() + 60.0 * minutes
    i = 0
    try:
        while time.monotonic() < end:
            event, relation = tree(rng)
            for kind, detail in check(worker, event, relation, limit):
                f = Finding(seed, i, kind, detail, repr(event) + f" [{relation.name}]")
                findings.append(f)
                print(json.dumps(f.__dict__), flush=True)
                if log:
                    with open(log, "a") as fh:
                        fh.write(json.dumps(f.__dict__) + "\n")
            i += 1
    finally:
        worker.stop()
    print(f"seed {seed}: {i} trees, {len(findings)} findings", flush=True)
    return findings


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument(
        "--limit", type=float, default=20.0, help="seconds per query before it counts as a hang"
    )
    ap.add_argument("--log", default=None)
    args = ap.parse_args()
    search(args.seed, args.minutes, args.limit, args.log)


if __name__ == "__main__":
    main()
