"""Test helper: the grids a ``PlanProfile`` searches (its ``_evaluate`` calls), recorded per test."""

from __future__ import annotations

import pytest

from hockeystick.pld.accountants.plan import PlanProfile


def searched_grids(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """A list that fills with h of every grid an accuracy-driven ``PlanProfile`` searches from now on
    (profiles built with a fixed grid or none, e.g. the inner plans of a sampled mechanism, are left out)."""
    grids: list[float] = []
    evaluate = PlanProfile._evaluate

    def counted(self, method, x, h, hints=()):
        if h is not None and self.accuracy is not None:
            grids.append(h)
        return evaluate(self, method, x, h, hints)

    monkeypatch.setattr(PlanProfile, "_evaluate", counted)
    return grids
