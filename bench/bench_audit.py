"""Auditing 10^6 canary scores: hockeystick.audit's report (goal: <= 2 s), beside jax_privacy's auditor.

    python bench/bench_audit.py [--canaries 1000000]      CPU seconds of each step, the load average
    pytest bench/bench_audit.py --full --benchmark-enable --benchmark-only

The workload: half the canaries held in with scores N(1, 1), half held out with N(0, 1); the report against
a DP-SGD accountant (60000 records, batch 256, noise 1.1, 1 epoch) at delta 1e-5: reading and sorting the
scores, the ROC hull, the simultaneous Clopper-Pearson epsilon bound, the accountant's bracket, the test of
the scores against its certified curve, AUROC and TPR at three FPRs.  jax_privacy's CanaryScoreAuditor (its
auditing module, loaded without jax where jax is not installed) is timed on the same scores for what it
offers: the construction (hull), AUROC, TPR at FPR and the Bonferroni Clopper-Pearson bound.  The one-run
bound (Steinke et al.) is timed too, at 10^7 canaries in the full benchmark.  CI runs the bodies once at 10^4
canaries.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from hockeystick import audit, registry

GOAL_SECONDS = 2.0


def scores(canaries: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    half = canaries // 2
    return rng.normal(1.0, 1.0, half), rng.normal(0.0, 1.0, canaries - half)


def accountant() -> Any:
    return registry.get("dp_sgd").build(
        dataset_size=60000, batch_size=256, noise_multiplier=1.1, epochs=1
    )


def audit_once(held_in: np.ndarray, held_out: np.ndarray, acc: Any) -> audit.AuditReport:
    return audit.report(held_in, held_out, accountant=acc, delta=1e-5)


def jax_privacy_auditing() -> Any:
    """jax_privacy's auditing module, or None where jax_privacy is not installed."""
    try:
        import jax_privacy.auditing as module

        return module
    except ImportError:
        pass
    spec = importlib.util.find_spec("jax_privacy")
    if spec is None or not spec.submodule_search_locations:
        return None
    loaded = importlib.util.spec_from_file_location(
        "jax_privacy_auditing", Path(spec.submodule_search_locations[0], "auditing.py")
    )
    if loaded is None or loaded.loader is None:
        return None
    module = importlib.util.module_from_spec(loaded)
    sys.modules["jax_privacy_auditing"] = module
    loaded.loader.exec_module(module)
    return module


def cpu(call: Any) -> tuple[Any, float]:
    start = time.process_time()
    out = call()
    return out, time.process_time() - start


def test_audit_report(benchmark, size) -> None:
    canaries = size(1_000_000, 10_000)
    held_in, held_out = scores(canaries)
    acc = accountant()
    audit_once(
        held_in[:1000], held_out[:1000], acc
    )  # imports and the accountant's first evaluations
    rounds = 3 if canaries > 10_000 else 1
    # the CPU seconds of a report: the timed rounds' own, per round (no report run for them alone)
    result, seconds = cpu(
        lambda: benchmark.pedantic(audit_once, args=(held_in, held_out, acc), rounds=rounds)
    )
    assert (
        result.curve.refuted and result.gap < 0
    )  # mu = 1 scores against DP-SGD at eps 0.31: refuted
    benchmark.extra_info.update(
        canaries=canaries, cpu_seconds=seconds / rounds, load=os.getloadavg()[0]
    )


def test_epsilon_one_run(benchmark, size) -> None:
    """Steinke et al.'s one-run bound over every hull vertex (Bonferroni), at 10^7 canaries in full."""
    canaries = size(10_000_000, 10_000)
    data = audit.as_scores(*scores(canaries))
    _ = data.hull
    eps = benchmark.pedantic(
        lambda: audit.epsilon_one_run(data, significance=0.05, delta=1e-5), rounds=1
    )
    assert eps >= 0.0
    benchmark.extra_info.update(canaries=canaries, epsilon=eps, load=os.getloadavg()[0])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--canaries", type=int, default=1_000_000)
    args = parser.parse_args()
    held_in, held_out = scores(args.canaries)
    acc = accountant()
    audit_once(held_in[:1000], held_out[:1000], acc)
    print(f"load {os.getloadavg()[0]:.2f}; {args.canaries} canaries; CPU seconds")
    data, t_scores = cpu(lambda: audit.as_scores(held_in, held_out))
    _, t_hull = cpu(lambda: data.hull)
    eps, t_cp = cpu(lambda: audit.epsilon_clopper_pearson(data, significance=0.05, delta=1e-5))
    _, t_roc = cpu(lambda: (audit.auroc(data), audit.tpr_at_fpr(data, [1e-3, 1e-2, 0.1])))
    report, t_report = cpu(lambda: audit_once(held_in, held_out, acc))
    one_run, t_one_run = cpu(lambda: audit.epsilon_one_run(data, significance=0.05, delta=1e-5))
    print(
        f"hockeystick  scores {t_scores:.3f}  hull {t_hull:.3f}  Clopper-Pearson (Bonferroni) {t_cp:.3f}  "
        f"AUROC + TPR {t_roc:.4f}  whole report {t_report:.3f} (goal {GOAL_SECONDS})"
    )
    print(
        f"             eps lower bound {eps:.6f}; report: audit {report.epsilon_audit:.6f}, "
        f"accountant {report.epsilon_upper:.6f}, curve refuted {report.curve.refuted}"
    )
    print(
        f"             one-run bound (Steinke et al., Bonferroni) {one_run:.6f} in {t_one_run:.3f}"
    )
    anchor = jax_privacy_auditing()
    if anchor is None:
        print(
            "jax_privacy: not installed (pip install --no-deps jax-privacy: its auditing module needs no jax)"
        )
        return
    auditor, a_init = cpu(lambda: anchor.CanaryScoreAuditor(held_in, held_out))
    a_eps, a_cp = cpu(lambda: auditor.epsilon_clopper_pearson(0.05, 1e-5))
    _, a_roc = cpu(
        lambda: (auditor.attack_auroc(), auditor.tpr_at_given_fpr(np.array([1e-3, 1e-2, 0.1])))
    )
    print(
        f"jax_privacy  construction (hull) {a_init:.3f}  Clopper-Pearson (Bonferroni) {a_cp:.3f}  "
        f"AUROC + TPR {a_roc:.4f}; eps lower bound {a_eps:.6f}"
    )


if __name__ == "__main__":
    main()
