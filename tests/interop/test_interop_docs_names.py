"""Every ``pld.<name>`` docs/interop.md names is a current public path: an attribute of ``hockeystick.pld`` or a
module under it (with its attributes), reached without a moved path's DeprecationWarning."""

from __future__ import annotations

import importlib
import re
import warnings
from pathlib import Path

import pytest

import hockeystick.pld

DOC = Path(__file__).resolve().parents[2] / "docs" / "interop.md"
NAMES = sorted(set(re.findall(r"`(pld\.[A-Za-z_][A-Za-z0-9_.]*)", DOC.read_text())))


def _resolve(dotted: str) -> object:
    """The object at ``dotted`` (``pld.a.b``): each part an attribute, else a submodule imported."""
    obj: object = hockeystick.pld
    module = "hockeystick.pld"
    for part in dotted.split(".")[1:]:
        obj = (
            getattr(obj, part)
            if hasattr(obj, part)
            else importlib.import_module(f"{module}.{part}")
        )
        module = f"{module}.{part}"
    return obj


def test_the_page_names_some_pld_paths():
    assert len(NAMES) >= 10


@pytest.mark.parametrize("dotted", NAMES)
def test_each_pld_path_named_resolves_without_a_deprecation(dotted):
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        _resolve(dotted)
