"""Print the measured tables of docs/paper-001-errata.md (markdown), computed by hockeystick.leakage.

    python examples/paper_001_errata_tables.py > tables.md

tests/leakage/test_leakage_errata.py checks that every table in the errata page is this script's output.
"""

from __future__ import annotations

import numpy as np

from hockeystick import leakage


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _table(header: list[str], rows: list[list[str]]) -> str:
    return "\n".join([_row(header), _row(["---"] * len(header)), *(_row(r) for r in rows)])


def bracket_table() -> str:
    """Lemma 5.7 against the exact TV (no shift), x = sigma_eps^2 sqrt(d) / sigma^2."""
    rows = []
    for d in (1, 10, 1000, 10**6):
        for x in (1e-4, 1e-2, 0.3, 1.0, 10.0):
            eps = x / np.sqrt(d)
            tv = leakage.tv_exact(1.0, eps, d)
            lower, upper = leakage.tv_bracket(1.0, eps, d)
            rows.append(
                [
                    f"{d:g}",
                    f"{x:g}",
                    f"{tv:.6g}",
                    f"{lower:.3g}",
                    f"{upper:.3g}",
                    f"{tv / lower:.3g}",
                    f"{upper / tv:.3g}",
                ]
            )
    return _table(
        [
            "d",
            "x",
            "exact TV",
            "lower (1/100) min{1,x}",
            "upper (3/2) min{1,x}",
            "exact / lower",
            "upper / exact",
        ],
        rows,
    )


def bracket_constants() -> str:
    """The best constants: inf and sup of TV / min{1, x} over a wide grid."""
    d = np.array([1, 2, 3, 5, 10, 30, 100, 1000, 10**4, 10**6])[:, None]
    x = np.geomspace(1e-8, 1e4, 121)[None, :]
    ratio = leakage.tv_exact(1.0, x / np.sqrt(d), d) / np.minimum(1.0, x)
    i_lo, i_hi = (
        np.unravel_index(np.argmin(ratio), ratio.shape),
        np.unravel_index(np.argmax(ratio), ratio.shape),
    )
    return _table(
        ["", "TV / min{1, x}", "at d", "at x", "paper's constant"],
        [
            [
                "smallest",
                f"{ratio[i_lo]:.6g}",
                f"{d[i_lo[0], 0]:g}",
                f"{x[0, i_lo[1]]:.3g}",
                "1/100",
            ],
            ["largest", f"{ratio[i_hi]:.6g}", f"{d[i_hi[0], 0]:g}", f"{x[0, i_hi[1]]:.3g}", "3/2"],
        ],
    )


def shift_table() -> str:
    """Distortion noise with a mean (W~ = W + delta with E delta = m): the bracket ignores m."""
    rows = []
    for d, x, s in ((1, 1e-3, 0.5), (10, 1e-3, 1.0), (100, 1e-2, 2.0), (1000, 0.1, 0.2)):
        eps = x / np.sqrt(d)
        tv = leakage.tv_exact(1.0, eps, d, s)
        _, upper = leakage.tv_bracket(1.0, eps, d)
        rows.append(
            [
                f"{d:g}",
                f"{x:g}",
                f"{s:g}",
                f"{tv:.6g}",
                f"{upper:.3g}",
                "fails" if tv > upper else "holds",
            ]
        )
    return _table(
        ["d", "x", "||m|| / sigma", "exact TV", "upper (3/2) min{1,x}", "Lemma 5.7 upper side"],
        rows,
    )


def calibration_table() -> str:
    """Lemma 5.8's variance against the exact variance for TV = C_1 - tau."""
    rows = []
    for gap in (1e-4, 1e-3, 5e-3, 9.9e-3):
        for d in (1, 100, 10**4):
            paper = leakage.paper_distortion_variance(1.0, d, 0.5, 0.5 - gap)
            exact = leakage.distortion_variance_for_tv(1.0, d, gap)
            rows.append(
                [
                    f"{gap:g}",
                    f"{d:g}",
                    f"{paper:.4g}",
                    f"{exact:.4g}",
                    f"{paper / exact:.3g}",
                    f"{leakage.tv_exact(1.0, paper, d):.4g}",
                ]
            )
    return _table(
        [
            "C_1 - tau",
            "d",
            "paper sigma_eps^2 / sigma^2",
            "exact sigma_eps^2 / sigma^2 (TV = C_1 - tau)",
            "paper / exact",
            "TV reached by the paper's variance",
        ],
        rows,
    )


def lemma_5_5_table() -> str:
    """Lemma 5.5's bound 2 C_1 - C_2 TV against the triangle-inequality bound C_1 + C_2 TV its proof
    establishes, and what Lemma 5.6 would need (eps_p <= tau once TV >= C_1 - tau)."""
    rows = []
    c1, tau = 0.3, 0.295
    for xi in (0.05, 0.5, 1.0):
        c2 = leakage.c2_constant(xi)
        for tv in (0.005, 0.5 * c1 / c2, 0.9 * c1 / c2):
            if tv > 1 or c2 * tv > c1:
                continue
            stated = leakage.lemma_5_5_upper_bound(c1, xi, tv)
            proved = c1 + c2 * tv
            rows.append(
                [
                    f"{xi:g}",
                    f"{c2:.4g}",
                    f"{tv:.4g}",
                    f"{stated:.4g}",
                    f"{proved:.4g}",
                    "no" if proved > stated else "yes",
                    f"{tau:g}",
                    "no" if stated > tau else "yes",
                ]
            )
    return _table(
        [
            "xi",
            "C_2",
            "TV",
            "stated 2C_1 - C_2 TV",
            "proved C_1 + C_2 TV",
            "proof reaches the statement",
            "tau",
            "stated bound <= tau (Lemma 5.6)",
        ],
        rows,
    )


def sampling_table() -> str:
    """Theorem 5.10 (eq. 17) against Monte Carlo, for the paper's estimator averaged over N draws."""
    rng = np.random.default_rng(2024)
    grads = rng.normal(size=(40, 3))
    g = float(np.sum(grads**2))
    p = 0.2
    rows = []
    for n_draws in (1, 4, 16):
        masks = rng.random((20_000, n_draws, 40)) < p
        estimates = (masks.astype(float) @ grads).mean(
            axis=1
        )  # (1/N) sum_j sum_i g_i 1{i drawn at j}
        empirical = float(np.trace(np.cov(estimates.T)))
        rows.append(
            [
                f"{n_draws}",
                f"{empirical:.4g}",
                f"{leakage.sampling_variance(p, g):.4g}",
                f"{leakage.sampling_variance(p, g) / n_draws:.4g}",
            ]
        )
    return _table(
        ["N draws", "Monte Carlo trace Var", "eq. 17: p(1-p) G", "Appendix K: p(1-p) G / N"], rows
    )


def utility_sign_table() -> str:
    """Definition 3's eps_u = ||W - W*||^2 - ||W~ - W*||^2 under zero-mean distortion (Monte Carlo)."""
    rng = np.random.default_rng(11)
    rows = []
    for d, var in ((10, 0.01), (100, 0.001), (1000, 0.1)):
        w = rng.normal(size=d)  # W - W*, fixed
        noise = rng.normal(scale=np.sqrt(var), size=(4000, d))
        eps_u = np.sum(w**2) - np.sum((w + noise) ** 2, axis=1)
        rows.append([f"{d}", f"{var:g}", f"{eps_u.mean():.4g}", f"{-d * var:.4g}"])
    return _table(
        ["d", "sigma_eps^2", "mean eps_u (Definition 3, Monte Carlo)", "-d sigma_eps^2"], rows
    )


def sampling_rates_table() -> str:
    """eq. 18 (Thm 5.11) against eq. 20 for the same client: opposite feasible sets."""
    rows = []
    for c6, c1, tau, g in ((1.0, 0.3, 0.29, 2.0), (5.0, 0.3, 0.2, 4.0), (1.0, 0.5, 0.05, 10.0)):
        lo18, hi18 = leakage.thm_5_11_sampling_rates(c6, c1, tau, g)
        lo20, hi20 = leakage.eq_20_sampling_rates(tau, g)
        rows.append(
            [
                f"{c6:g}",
                f"{c1:g}",
                f"{tau:g}",
                f"{g:g}",
                f"[{lo18:.4g}, {hi18:.4g}]",
                f"[0, {lo20:.4g}] and [{hi20:.4g}, 1]",
            ]
        )
    return _table(
        ["C_6", "C_1", "tau", "G", "eq. 18: p(1-p) >= C_6(C_1-tau)/G", "eq. 20: p(1-p) G <= tau"],
        rows,
    )


def lemma_b3_table() -> str:
    """Lemma B.3 on random finite Bayesian models: D ~ prior pi, W | D ~ A[d, :], distortion kernel
    K[w, :]; P = pi A, P~ = P K, beliefs F(d) = sum_w f(d | w) P(w) (= pi), F~(d) = sum_w f(d | w) P~(w)
    (the proof's f~_D), xi = max |log f(d | w) / pi(d)|.  Ratio sqrt(JS(F~, F)) / (C_2 TV(P~, P))."""
    rng = np.random.default_rng(5)
    rows = []
    for n_d, n_w, concentration in ((2, 2, 1.0), (3, 5, 0.5), (5, 8, 5.0), (8, 3, 0.2)):
        worst = 0.0
        for _ in range(2000):
            prior = rng.dirichlet(np.ones(n_d))
            likelihood = rng.dirichlet(np.full(n_w, concentration), size=n_d)
            kernel = rng.dirichlet(np.full(n_w, concentration), size=n_w)
            p = prior @ likelihood
            p_tilde = p @ kernel
            posterior = prior[:, None] * likelihood / p[None, :]  # f(d | w)
            belief, belief_tilde = posterior @ p, posterior @ p_tilde
            mix = (belief + belief_tilde) / 2
            js = 0.5 * float(
                np.sum(belief * np.log(belief / mix))
                + np.sum(belief_tilde * np.log(belief_tilde / mix))
            )
            xi = float(np.max(np.abs(np.log(posterior / prior[:, None]))))
            tv = 0.5 * float(np.sum(np.abs(p_tilde - p)))
            if tv > 1e-9:
                worst = max(worst, np.sqrt(max(js, 0.0)) / float(leakage.js_bound_from_tv(xi, tv)))
        rows.append([f"{n_d}", f"{n_w}", f"{concentration:g}", "2000", f"{worst:.3g}"])
    return _table(
        [
            "values of D",
            "values of W",
            "Dirichlet concentration",
            "models",
            "largest sqrt(JS) / (C_2 TV)",
        ],
        rows,
    )


TABLES = {
    "bracket": bracket_table,
    "constants": bracket_constants,
    "shift": shift_table,
    "calibration": calibration_table,
    "lemma-5.5": lemma_5_5_table,
    "sampling": sampling_table,
    "rates": sampling_rates_table,
    "utility-sign": utility_sign_table,
    "lemma-b3": lemma_b3_table,
}


def main() -> None:
    for name, build in TABLES.items():
        print(f"<!-- table: {name} -->\n{build()}\n")


if __name__ == "__main__":
    main()
