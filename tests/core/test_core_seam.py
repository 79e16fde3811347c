"""The seam between the facade and the compiled core is narrow and typed: every call into ``hockeystick._core``
from the package's own modules passes at most five arguments by position, never a bare ``True`` or ``False`` by
position (a flag is named where it is passed) and never arguments unpacked by position (``*args``), so that a
call says what it passes.  The bindings enforce the same at run time with keyword-only parameters
(cpp/bindings/register_*.cpp); this reads the package's source, so it also covers a path no test runs."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from hockeystick import _core
from hockeystick.pld.compose import fft

PACKAGE = Path(__file__).resolve().parents[2] / "python" / "hockeystick"
MOST_POSITIONAL = 5


def _is_core(node: ast.expr) -> bool:
    """Whether ``node`` names the compiled module or something in it (``_core``, ``_core.pld_reads.delta``, ...)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id == "_core"


def _wide_calls(source: str, name: str) -> list[str]:
    """The calls into ``_core`` in ``source`` (module ``name``) with more than five positional arguments, a bare
    boolean by position, or arguments unpacked by position (their count cannot be read)."""
    found = []
    for node in ast.walk(ast.parse(source, filename=name)):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and _is_core(node.func)
        ):
            continue
        where = f"{name}:{node.lineno} {ast.unparse(node.func)}"
        if len(node.args) > MOST_POSITIONAL:
            found.append(
                f"{where}: {len(node.args)} positional arguments (at most {MOST_POSITIONAL})"
            )
        if any(isinstance(a, ast.Constant) and isinstance(a.value, bool) for a in node.args):
            found.append(f"{where}: a bare True/False by position (pass it by keyword)")
        if any(isinstance(a, ast.Starred) for a in node.args):
            found.append(f"{where}: arguments unpacked by position (pass them by keyword)")
    return found


def test_the_check_reports_wide_calls_bare_flags_and_unpacked_arguments() -> None:
    source = (
        "from . import _core\n"
        "_core.pld_reads.delta(p, k, h, q, e, 1)\n"
        "_core.pld_reads.loss_shifted(v, 0.1, True)\n"
        "_core.pld_reads.delta(*args)\n"
        "_core.pld_reads.loss_shifted(v, 0.1, up=True)\n"
        "_core.pld_reads.delta(p, k_lo=k, h=h, p_inf=q, epsilon=e, threads=1)\n"
    )
    found = _wide_calls(source, "probe.py")
    assert [f.split(" ")[0] for f in found] == ["probe.py:2", "probe.py:3", "probe.py:4"], found


def test_no_call_into_the_core_is_wide_or_passes_a_bare_flag() -> None:
    found = [
        call
        for path in sorted(PACKAGE.rglob("*.py"))
        for call in _wide_calls(path.read_text(), str(path.relative_to(PACKAGE.parent)))
    ]
    assert not found, "\n".join(found)


def test_a_composition_crosses_as_a_typed_read_only_struct() -> None:
    """``compose_many`` returns the core's ``ComposedPMF`` (pld/compose/options.hpp), not a dict: each field named
    and typed as the stub says, read-only, its masses an array viewing the object's own vector, and the facade's
    ``GridPMF`` built from it field by field."""
    p = np.array([0.25, 0.5, 0.25])
    (window,) = _core.pld_compose.compose_many(
        [p],
        k_lo=[-1],
        p_inf=[0.0],
        h=0.5,
        items=[[(0, 3)]],
        pessimistic=True,
        tail=1e-15,
        max_points=1 << 20,
    )
    assert isinstance(window, _core.pld_compose.ComposedPMF)
    assert isinstance(window.k_lo, int) and isinstance(window.pessimistic, bool)
    charges = (
        "p_inf",
        "shift",
        "entry_error",
        "total_error",
        "spectral_l2",
        "inverse_error",
        "inverse_l2",
    )
    assert all(isinstance(getattr(window, name), float) for name in (*charges, "h", "loss_shift"))
    assert window.k_lo == -3 and window.h == 0.5 and window.pessimistic
    masses = window.p
    assert (
        masses.dtype == np.float64 and masses.base is not None
    )  # a view, kept alive by the window
    assert masses.sum() == pytest.approx(
        1.0, abs=1e-15
    )  # (1/4, 1/2, 1/4)^3: the binomial(6, 1/2) law
    np.testing.assert_allclose(
        masses[:7], [1 / 64, 6 / 64, 15 / 64, 20 / 64, 15 / 64, 6 / 64, 1 / 64], atol=1e-15
    )
    with pytest.raises(AttributeError):
        window.k_lo = 0  # type: ignore[misc]
    pmf = fft._grid_pmf(window, 0.5, True)
    assert pmf.k_lo == window.k_lo and np.shares_memory(pmf.p, masses)
    assert (pmf.entry_error, pmf.total_error, pmf.inverse_l2) == (
        window.entry_error,
        window.total_error,
        window.inverse_l2,
    )


def test_the_discretizers_cross_as_typed_read_only_structs() -> None:
    """The discretizers return the core's read-only structs, not dicts (no ``dict[str, Any]`` in the stubs): a
    mechanism's ``DiscretizedSides`` (the Laplace mechanism's closed form checked: both sides' masses sum to 1 up to
    the mass at +infinity), the mean contraction's ``GridPMF`` and the cells' ``CellMasses``."""
    stubs = PACKAGE / "_core"
    assert not [p.name for p in sorted(stubs.glob("*.pyi")) if "dict[" in p.read_text()]
    sides = _core.pld_mechanisms.laplace(1.0, 1.0, h=0.01, max_cells=1 << 20)
    assert isinstance(sides, _core.pld_grid.DiscretizedSides)
    assert isinstance(sides.k_lo, int) and isinstance(sides.connect_dots, bool)
    upper, lower = sides.upper, sides.lower
    assert upper.dtype == np.float64 and upper.base is not None and lower is not None
    assert upper.sum() + sides.upper_inf == pytest.approx(1.0, abs=1e-12)
    assert lower.sum() + sides.lower_inf <= 1.0 + 1e-12
    # the Laplace pair's losses lie in [-1, 1] (distance 1, scale 1): the grid spans at most 2 / h + 2 points
    assert -101 <= sides.k_lo and sides.k_lo + upper.size <= 102
    with pytest.raises(AttributeError):
        sides.k_lo = 0  # type: ignore[misc]
    merged = _core.pld_sampling.mean_contraction(
        np.array([0.25, 0.5, 0.25]),
        k_lo=0,
        h_fine=0.5,
        ratio=2,
        p_inf=0.0,
        entry_error=0.0,
        alias=0.0,
    )
    assert isinstance(merged, _core.pld_grid.GridPMF) and merged.h == 1.0
    assert merged.p.sum() + merged.p_inf == pytest.approx(1.0, abs=1e-15)
    cells = _core.pld_grid.subsampled_gaussian_cells(
        1.0, 0.1, remove=True, h=0.01, tail=1e-12, max_cells=1 << 20
    )
    assert isinstance(cells, _core.pld_grid.CellMasses) and cells.c.size == cells.p_mass.size > 0
