"""The C interface's library, built once per test run for each configuration and shared by the test files that
call it (test_capi.py, test_capi_mechanisms.py, test_capi_refinement.py, test_capi_tilted.py) and by
pytest-xdist's workers.

Each configuration compiles the whole core behind libhockeystick_c (half a minute of CPU and more), so a build per
file, and per worker under ``-n`` (module fixtures are per worker), repeated the same work.  Under xdist the
workers share the run's temporary directory (the parent of each worker's own): the first worker to take a
configuration's file lock builds it there while the others wait, then read its path (pytest-xdist's documented
pattern for a session fixture shared between workers).  Without workers the build goes to the run's own
directory.  A build that fails leaves no record, so the next test asking for it builds again and fails with the
compiler's message too.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from filelock import FileLock

from .test_capi import _build


@pytest.fixture(scope="session")
def capi_build(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Path]:
    """``capi_build(*cmake_options)``: the path of libhockeystick_c configured with those ``-D`` options, built once
    per run (its install prefix ``prefix`` beside its ``build`` folder, as ``_build`` lays it out)."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER") is not None:
        root = root.parent  # the run's directory, above each worker's own
    built: dict[tuple[str, ...], Path] = {}

    def build(*options: str) -> Path:
        if options not in built:
            slug = (
                "-".join(o.removeprefix("-D").replace("=", "_").lower() for o in options)
                or "default"
            )
            where = root / f"capi-{slug}"
            with FileLock(f"{where}.lock"):
                record = where / "library-path.txt"
                if not record.is_file():
                    path = _build(where / "build", *options)
                    record.write_text(str(path))
                built[options] = Path(record.read_text())
        return built[options]

    return build
