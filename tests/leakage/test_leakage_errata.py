"""docs/paper-001-errata.md's tables are the output of examples/paper_001_errata_tables.py (not typed)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_errata_tables_are_generated():
    spec = importlib.util.spec_from_file_location(
        "paper_001_errata_tables", ROOT / "examples" / "paper_001_errata_tables.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    page = (ROOT / "docs" / "paper-001-errata.md").read_text()
    markers = re.findall(r"<!-- table: (\S+) -->", page)
    assert sorted(markers) == sorted(module.TABLES)
    for name, build in module.TABLES.items():
        assert f"<!-- table: {name} -->\n{build()}\n" in page, (
            f"table {name!r} is stale: rerun the script"
        )
