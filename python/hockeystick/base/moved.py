"""Where modules of ``hockeystick`` moved, and the old paths kept importing until ``REMOVED_IN``.

The package is laid out as its layers (docs/architecture.md): ``base`` (the Protocol, progress,
validation, broadcasting), ``numerics`` (Q and theta), the families, ``reproduce`` (figures, tables,
the README example); ``hockeystick.pld`` as its pipeline: ``grid`` (the types every stage passes
on), ``mechanisms`` (one round's pair and its discretization on each side), ``sampling`` (how a
record enters a round), ``compose`` (the composition and its charges), ``reads`` (what a composed
PLD answers), ``refine`` (the grid-and-tail policy and grids chosen for an accuracy),
``accountants`` (the front ends, which say what is composed) and ``question``.  An import of a
module's old path returns the module at its new path, with a ``DeprecationWarning`` naming it and
the release that removes the old path; the names ``hockeystick`` and its subpackages export did not
move.  ``hockeystick.pld.compose`` and ``hockeystick.pld.mechanisms`` are packages now: the names of
the modules they were (``compose.fft``, ``mechanisms.constructors``) are forwarded from them the
same way.  A name renamed in its module (``RENAMED``) is served at its old name by the module's
``__getattr__`` (``renamed``), with the same warning.  Nothing inside the package imports an old
path (tests/test_layers.py).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

REMOVED_IN = "0.4.0"  # the release that drops every old path below (CHANGELOG.md, "Deprecated")

MOVED = {
    "hockeystick.pld.mechanisms": "hockeystick.pld.mechanisms.constructors",
    "hockeystick.pld.canonical": "hockeystick.pld.mechanisms.canonical",
    "hockeystick.pld.randomized_response": "hockeystick.pld.mechanisms.randomized_response",
    "hockeystick.pld.discrete_laplace": "hockeystick.pld.mechanisms.discrete_laplace",
    "hockeystick.pld.discrete_gaussian": "hockeystick.pld.mechanisms.discrete_gaussian",
    "hockeystick.pld.gaussian_mixture": "hockeystick.pld.mechanisms.gaussian_mixture",
    "hockeystick.pld.laplace_mixture": "hockeystick.pld.mechanisms.laplace_mixture",
    "hockeystick.pld.monotone": "hockeystick.pld.mechanisms.monotone",
    "hockeystick.pld.selection": "hockeystick.pld.mechanisms.selection",
    "hockeystick.pld.pld_mixture": "hockeystick.pld.mechanisms.pld_mixture",
    "hockeystick.pld.group_privacy": "hockeystick.pld.mechanisms.group_privacy",
    "hockeystick.interop.group_of_records": "hockeystick.pld.mechanisms.group_of_records",
    "hockeystick.pld.neighbouring": "hockeystick.pld.mechanisms.neighbouring",
    "hockeystick.pld.subsampling": "hockeystick.pld.sampling.subsampling",
    "hockeystick.pld.subsampled_pair": "hockeystick.pld.sampling.subsampled_pair",
    "hockeystick.pld.truncated_subsampling": "hockeystick.pld.sampling.truncated_subsampling",
    "hockeystick.pld.with_replacement_realizable": "hockeystick.pld.sampling.with_replacement_realizable",
    "hockeystick.pld.with_replacement_shift_bound": "hockeystick.pld.sampling.with_replacement_shift_bound",
    "hockeystick.pld.poisson_replace_one": "hockeystick.pld.sampling.poisson_replace_one",
    "hockeystick.pld.random_allocation": "hockeystick.pld.sampling.random_allocation",
    "hockeystick.pld.pmf": "hockeystick.pld.grid.pmf",
    "hockeystick.pld.compose": "hockeystick.pld.compose.fft",
    "hockeystick.pld.distribution": "hockeystick.pld.grid.distribution",
    "hockeystick.pld.finite_atoms": "hockeystick.pld.compose.finite_atoms",
    "hockeystick.pld.two_resolution": "hockeystick.pld.compose.two_resolution",
    "hockeystick.pld.round_cache": "hockeystick.pld.refine.round_cache",
    "hockeystick.pld.truncation": "hockeystick.pld.refine.truncation",
    "hockeystick.interop.plan": "hockeystick.pld.accountants.plan",
    "hockeystick.interop.zcdp_plan": "hockeystick.pld.accountants.zcdp_plan",
    "hockeystick.interop.allocation_events": "hockeystick.interop.dp_accounting.allocation_events",
    "hockeystick.interop.catalogue_events": "hockeystick.interop.dp_accounting.catalogue_events",
    "hockeystick.interop.dp_events": "hockeystick.interop.dp_accounting.dp_events",
    "hockeystick.interop.event_checks": "hockeystick.interop.dp_accounting.event_checks",
    "hockeystick.interop.event_reach": "hockeystick.interop.dp_accounting.event_reach",
    "hockeystick.interop.pure_dp": "hockeystick.interop.dp_accounting.pure_dp",
    "hockeystick.interop.rdp_accountant": "hockeystick.interop.dp_accounting.rdp_accountant",
    "hockeystick.interop.sampled_plans": "hockeystick.interop.dp_accounting.sampled_plans",
    "hockeystick.interop.secagg_events": "hockeystick.interop.dp_accounting.secagg_events",
    "hockeystick.interop.secagg_pair_events": "hockeystick.interop.dp_accounting.secagg_pair_events",
    "hockeystick.interop.selection_events": "hockeystick.interop.dp_accounting.selection_events",
    "hockeystick.interop.pld_curve": "hockeystick.interop.exchange.pld_curve",
    "hockeystick.interop.pld_exchange": "hockeystick.interop.exchange.pld_exchange",
    "hockeystick.interop.pld_folding": "hockeystick.interop.exchange.pld_folding",
    "hockeystick.interop.pld_format": "hockeystick.interop.exchange.pld_format",
    "hockeystick.pld.epsilon_width": "hockeystick.pld.reads.epsilon_width",
    "hockeystick.pld.affinity_ceiling": "hockeystick.pld.reads.affinity_ceiling",
    "hockeystick.pld.along_run": "hockeystick.pld.reads.along_run",
    "hockeystick.pld.dominated_direction": "hockeystick.pld.refine.dominated_direction",
    "hockeystick.pld.directional_delta": "hockeystick.pld.refine.directional_delta",
    "hockeystick.pld.calibration_start": "hockeystick.pld.refine.calibration_start",
    "hockeystick.pld.accountant": "hockeystick.pld.accountants.subsampled_gaussian",
    "hockeystick.pld.fixed_batch": "hockeystick.pld.accountants.fixed_batch",
    "hockeystick.pld.allocation_accountant": "hockeystick.pld.accountants.allocation",
    "hockeystick.pld.stages": "hockeystick.pld.accountants.stages",
    "hockeystick.pld.grid.round_cache": "hockeystick.pld.refine.round_cache",
    "hockeystick.pld.grid.grid_start": "hockeystick.pld.refine.grid_start",
    "hockeystick.pld.grid.near_one": "hockeystick.pld.refine.near_one",
    "hockeystick.pld.grid.constants": "hockeystick.pld.refine.constants",
    "hockeystick.pld.compose.pmf": "hockeystick.pld.grid.pmf",
    "hockeystick.pld.compose.charged_grid": "hockeystick.pld.grid.charged_grid",
    "hockeystick.pld.compose.pmf_envelope": "hockeystick.pld.grid.pmf_envelope",
    "hockeystick.pld.compose.atoms": "hockeystick.pld.grid.atoms",
    "hockeystick.pld.compose.distribution": "hockeystick.pld.grid.distribution",
    "hockeystick.pld.compose.atoms_from_pairs": "hockeystick.pld.mechanisms.atoms_from_pairs",
    "hockeystick.pld.sampling.two_resolution": "hockeystick.pld.compose.two_resolution",
    "hockeystick.pld.compose.truncation": "hockeystick.pld.refine.truncation",
    "hockeystick.pld.refine.tilted_question": "hockeystick.pld.question.tilted_question",
    "hockeystick.pld.refine.tilted_factors": "hockeystick.pld.question.tilted_factors",
    "hockeystick.pld.refine.tilted_factors_delta": "hockeystick.pld.question.tilted_factors_delta",
    "hockeystick.pld.refine.tilted_own_grid": "hockeystick.pld.question.tilted_own_grid",
    "hockeystick.pld.refine.tilted_own_grid_delta": "hockeystick.pld.question.tilted_own_grid_delta",
    "hockeystick.pld.refine.block_reads": "hockeystick.pld.question.block_reads",
    "hockeystick.pld.refine.each_bracket": "hockeystick.pld.question.each_bracket",
    "hockeystick.pld.refine.kept_readers": "hockeystick.pld.question.kept_readers",
    "hockeystick.pld.refine.window_heap": "hockeystick.pld.question.window_heap",
    "hockeystick.accountant": "hockeystick.base.accountant",
    "hockeystick.progress": "hockeystick.base.progress",
    "hockeystick._optional": "hockeystick.base.optional",
    "hockeystick._validation": "hockeystick.base.validation",
    "hockeystick._elementwise": "hockeystick.base.elementwise",
    "hockeystick._moved": "hockeystick.base.moved",
    "hockeystick.gaussian": "hockeystick.numerics.gaussian",
    "hockeystick.hockey_stick": "hockeystick.numerics.hockey_stick",
    "hockeystick.certified_theta": "hockeystick.numerics.certified_theta",
    "hockeystick.gaussian_mechanism": "hockeystick.fdp.gaussian_mechanism",
    "hockeystick.figures": "hockeystick.reproduce.figures",
    "hockeystick.errata_003": "hockeystick.reproduce.errata_003",
    "hockeystick.example": "hockeystick.reproduce.example",
}


# Names that moved or were renamed, per module: old name -> the new path of the object (the module's
# ``__getattr__`` is ``renamed``).  The two adapters' accountants were both
# ``HockeystickAccountant``: each is named after its interface now; the PLD file's names live in
# ``interop.exchange``.
_EXCHANGE = "hockeystick.interop.exchange"
RENAMED = {
    "hockeystick.interop": {
        name: f"{_EXCHANGE}.{name}"
        for name in (
            "ExchangedPLD",
            "ExchangedPMF",
            "export_pld",
            "from_dp_accounting",
            "import_pld",
            "to_dp_accounting",
        )
    },
    "hockeystick.interop.dp_accounting": {
        "HockeystickAccountant": "hockeystick.interop.dp_accounting.HockeystickPLDAccountant"
    },
    "hockeystick.interop.opacus": {
        "HockeystickAccountant": "hockeystick.interop.opacus.HockeystickOpacusAccountant"
    },
    # the interpolations' names, from when ``bound=`` chose the interpolation
    "hockeystick.fdp": {"BOUNDS": "hockeystick.fdp.INTERPOLATIONS"},
}


def _warn(old: str, new: str) -> None:
    warnings.warn(
        f"{old} moved to {new}; import it from there (the old path is removed in hockeystick {REMOVED_IN})",
        DeprecationWarning,
        stacklevel=3,
    )


class _Alias(importlib.abc.Loader):
    """Loads an old path as the module at its new path."""

    def __init__(self, new: str):
        self.new = new

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        _warn(spec.name, self.new)
        return importlib.import_module(self.new)

    def exec_module(self, module: ModuleType) -> None:
        """The module at the new path is executed by its own import."""


class _MovedFinder(importlib.abc.MetaPathFinder):
    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        new = MOVED.get(fullname)
        if new is None or new.startswith(fullname + "."):
            return None  # not moved, or now a package whose old names ``forwarding`` serves
        return importlib.util.spec_from_loader(fullname, _Alias(new))


def install() -> None:
    """Puts the finder of old paths on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.append(_MovedFinder())


def forwarding(package: str, namespace: dict[str, Any]) -> Callable[[str], Any]:
    """A package's ``__getattr__`` (PEP 562) serving the names of the module ``package`` was before
    it became a package (``MOVED[package]``), with a ``DeprecationWarning`` at a name's first use
    (it is then kept in the package's ``namespace``); submodules of the package are not
    forwarded."""
    new = MOVED[package]

    def __getattr__(name: str) -> Any:
        if not name.startswith("__") and importlib.util.find_spec(f"{package}.{name}") is None:
            module = importlib.import_module(new)
            if hasattr(module, name):
                _warn(f"{package}.{name}", f"{new}.{name}")
                namespace[name] = getattr(module, name)
                return namespace[name]
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__


def renamed(module: str) -> Callable[[str], Any]:
    """A module's ``__getattr__`` (PEP 562) serving the old names of its moved or renamed objects
    (``RENAMED[module]``), with a ``DeprecationWarning`` naming the new path at each use; old names
    stay out of ``__all__``, and other names (a package's submodules among them) raise
    ``AttributeError`` as before."""
    names = RENAMED[module]

    def __getattr__(name: str) -> Any:
        if name in names:
            home, _, new_name = names[name].rpartition(".")
            _warn(f"{module}.{name}", names[name])
            return getattr(importlib.import_module(home), new_name)
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__
