"""interop's old names: each wing's classes under their old names, and the PLD file's names imported from
``hockeystick.interop``, give the very object at the new path with a DeprecationWarning naming it
(hockeystick.base.moved.RENAMED), and stay out of every ``__all__``."""

from __future__ import annotations

import importlib

import pytest

from hockeystick.base.moved import REMOVED_IN, RENAMED

pytest.importorskip("dp_accounting")

OLD_NAMES = [(module, old, new) for module, names in RENAMED.items() for old, new in names.items()]


@pytest.mark.parametrize(("module", "old", "new"), OLD_NAMES)
def test_an_old_name_gives_the_new_object_with_a_warning_naming_it(module, old, new):
    home, _, name = new.rpartition(".")
    with pytest.warns(DeprecationWarning, match=rf"{module}\.{old} moved to {new};.*{REMOVED_IN}"):
        value = getattr(importlib.import_module(module), old)
    assert value is getattr(importlib.import_module(home), name)


@pytest.mark.parametrize(("module", "old", "new"), OLD_NAMES)
def test_an_old_name_is_not_exported_and_the_new_one_is(module, old, new):
    home, _, name = new.rpartition(".")
    assert old not in importlib.import_module(module).__all__
    assert name in importlib.import_module(home).__all__


def test_the_two_accountants_have_distinct_names():
    from hockeystick.interop import dp_accounting, opacus

    assert (
        dp_accounting.HockeystickPLDAccountant.__name__
        != opacus.HockeystickOpacusAccountant.__name__
    )
    assert "HockeystickAccountant" not in dp_accounting.__all__ + opacus.__all__


def test_interop_exports_no_forwarded_name_and_still_serves_its_wings():
    import hockeystick.interop as interop

    assert interop.__all__ == []
    with pytest.raises(AttributeError, match="no_such_name"):
        interop.no_such_name  # noqa: B018
    from hockeystick.interop import exchange, flower, opacus

    assert {m.__name__ for m in (exchange, flower, opacus)} == {
        "hockeystick.interop.exchange",
        "hockeystick.interop.flower",
        "hockeystick.interop.opacus",
    }
