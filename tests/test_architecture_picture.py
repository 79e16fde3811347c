"""docs/architecture.md's picture is the import graph's: every folder it draws sits at the layer tests/test_layers.py
enforces on the code, and every folder of the package is drawn."""

from __future__ import annotations

import re
from pathlib import Path

from .test_layers import LAYERS, PACKAGE

PICTURE = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"
ROW = re.compile(
    r"^(?P<names>(?:[\w.]+/?,?\s{1,2})+?)\s{2,}.*\blayer (?P<layers>\d+(?:\.5)?(?:, \d+(?:\.5)?)*)\s*$"
)


def drawn_layers() -> dict[str, float]:
    """Folder or module -> layer, read from the rows of the picture's first code block that end in ``layer N`` (a
    half layer, N.5, sits between two: secure aggregation over rdp and pld, under training)."""
    block = PICTURE.read_text().split("```")[1]
    drawn: dict[str, float] = {}
    for line in block.splitlines():
        row = ROW.match(line)
        if row is None:
            continue
        names = [n.strip(",").removesuffix("/").removesuffix(".py") for n in row["names"].split()]
        layers = [float(x) if "." in x else int(x) for x in row["layers"].split(", ")]
        for name, layer in zip(
            names, layers * len(names) if len(layers) == 1 else layers, strict=True
        ):
            drawn[name] = layer
    return drawn


def test_the_picture_draws_every_folder_at_its_enforced_layer():
    drawn = drawn_layers()
    assert drawn == LAYERS


def test_every_folder_of_the_package_has_a_layer():
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders <= LAYERS.keys(), sorted(folders - LAYERS.keys())
    modules = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__"}
    assert modules == {"__main__"}, (
        f"a module outside the layer folders: {sorted(modules - {'__main__'})}"
    )
