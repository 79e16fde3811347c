"""A sweep's summary reports a plateau of its extreme (delta at the least positive double, a certified
bound below the double range, over a region) as one: how many points attain it and the first of them in
grid order, folded across chunks the same as over the whole column."""

from __future__ import annotations

import numpy as np

from hockeystick.cli import main

_TRUSTED = [
    "-a", "trusted_aggregator", "-p", "sigma=log:0.05:5:12", "-p", "batch_size=10,1000,10000", "-p", "n=60000",
    "-p", "learning_rate=0.5", "-p", "lipschitz=1", "-p", "radius=1", "--epsilon", "log:0.01:10:15",
]  # fmt: skip


def test_the_zero_plateau_is_counted_and_its_first_point_named(capsys, tmp_path):
    out = tmp_path / "s.csv"
    code = main(["sweep", *_TRUSTED, "-o", str(out), "--chunk-size", "50", "--no-progress"])
    printed, err = capsys.readouterr()
    assert code == 0, err
    names = out.read_text().splitlines()[0].split(",")
    table = np.loadtxt(out, delimiter=",", skiprows=1)
    delta = table[:, names.index("delta")]
    zeros = np.flatnonzero(delta == delta.min())
    # a plateau, not the whole grid
    assert delta.min() == np.nextafter(0.0, 1.0) and 1 < zeros.size < delta.size
    first = table[zeros[0]]  # the file's rows are in grid order
    point = ", ".join(
        f"{a}={first[names.index(a)]:.6g}" for a in ("sigma", "batch_size", "epsilon")
    )
    row = next(line for line in printed.splitlines() if line.lstrip().startswith("delta"))
    assert f"{zeros.size:,} points ({100 * zeros.size / delta.size:.3g}%), first: {point}" in row, (
        row
    )
