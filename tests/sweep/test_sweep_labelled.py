"""Sweep results as labelled arrays: the in-memory Dataset, NetCDF and Zarr writers,
fixed parameters as coordinates (and as columns in CSV / Parquet), and every saved format read back."""

from __future__ import annotations

import os
import stat

import numpy as np
import pandas as pd
import pytest

import hockeystick as hs
from hockeystick.sweep import Grid, read_sweep, run_sweep

FORMATS = [".csv", ".parquet", ".npz", ".nc", ".zarr"]


def _grid(**kwargs) -> Grid:
    return Grid.from_parameters(
        ["gaussian", "rdp_subsampled_gaussian"],
        "delta",
        {
            "sigma": "log:0.5:8:7",
            "rounds": [1, 10, 100],
            "epsilon": 1.0,
            "sampling_rate": 1.0,
            **kwargs,
        },
    )


def test_to_xarray_labels_every_axis_and_fixed_parameter():
    result = run_sweep(_grid(), progress=False)
    ds = result.to_xarray()
    assert dict(ds.sizes) == {"sigma": 7, "rounds": 3}
    assert ds["sigma"].attrs["spacing"] == "log" and ds["rounds"].attrs["spacing"] == "list"
    assert (
        float(ds["epsilon"]) == 1.0 and float(ds["sampling_rate"]) == 1.0
    )  # fixed: scalar coordinates
    assert (
        ds.attrs["accountants"] == "gaussian,rdp_subsampled_gaussian"
        and ds.attrs["output"] == "delta"
    )
    assert set(ds.data_vars) == {"delta", "delta_gaussian", "delta_rdp_subsampled_gaussian", "best"}
    # the exact Gaussian composition, by label: theta(sqrt(T) / sigma, eps), an upper bound rounded outward
    exact = hs.theta((np.sqrt(ds["rounds"]) / ds["sigma"]).transpose("sigma", "rounds").values, 1.0)
    ratio = ds["delta_gaussian"].values / exact
    assert np.all(ratio >= 1) and np.all(ratio < 1 + 1e-11)
    assert np.all(ds["delta"] <= ds["delta_rdp_subsampled_gaussian"])
    np.testing.assert_array_equal(ds["delta"].values.ravel(), result.columns["delta"])
    assert ds["best"].attrs["flag_meanings"] == "gaussian rdp_subsampled_gaussian"


@pytest.mark.parametrize("suffix", FORMATS)
def test_every_saved_format_reads_back_as_the_same_dataset(tmp_path, suffix):
    grid = _grid()
    memory = run_sweep(grid, progress=False).to_xarray()
    path = tmp_path / f"sweep{suffix}"
    result = run_sweep(grid, path, chunk_size=5, progress=False)
    got = read_sweep(path)
    assert result.to_xarray().sizes == memory.sizes  # written and not kept: read back from the file
    assert dict(got.sizes) == {"sigma": 7, "rounds": 3}
    for name in ("delta", "delta_gaussian", "delta_rdp_subsampled_gaussian"):
        np.testing.assert_array_equal(
            got[name].transpose("sigma", "rounds").values, memory[name].values
        )
    np.testing.assert_array_equal(got["sigma"].values, memory["sigma"].values)
    assert float(got["epsilon"]) == 1.0 and float(got["sampling_rate"]) == 1.0
    assert sorted(os.listdir(tmp_path)) == [path.name]  # no temporary files left


@pytest.mark.parametrize("suffix", FORMATS)
@pytest.mark.parametrize("accountants", [["gaussian"], ["gaussian", "rdp_subsampled_gaussian"]])
def test_a_one_axis_sweep_reads_back(tmp_path, suffix, accountants):
    """One axis: the outputs are 1-D like the axis, which the NPZ reader tells apart by the file's order."""
    fixed = {"epsilon": 1.0, **({"sampling_rate": 1.0} if len(accountants) > 1 else {})}
    grid = Grid.from_parameters(accountants, "delta", {"sigma": [1.0, 2.0], **fixed})
    memory = run_sweep(grid, progress=False).to_xarray()
    path = tmp_path / f"sweep{suffix}"
    run_sweep(grid, path, progress=False)
    got = read_sweep(path)
    assert dict(got.sizes) == {"sigma": 2}
    np.testing.assert_array_equal(got["sigma"].values, [1.0, 2.0])
    np.testing.assert_array_equal(got["delta"].values, memory["delta"].values)
    assert float(got["epsilon"]) == 1.0


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_fixed_parameters_are_columns_of_every_row(tmp_path, suffix):
    grid = Grid.from_parameters(
        "gaussian", "delta", {"sigma": [1.0, 2.0], "rounds": 100, "epsilon": 1.0}
    )
    path = tmp_path / f"sweep{suffix}"
    run_sweep(grid, path, progress=False)
    table = pd.read_csv(path) if suffix == ".csv" else pd.read_parquet(path)
    assert list(table.columns) == ["sigma", "rounds", "epsilon", "delta"]
    assert (
        table["rounds"].dtype.kind == "i"
        and (table["rounds"] == 100).all()
        and (table["epsilon"] == 1.0).all()
    )
    np.testing.assert_allclose(table["delta"], hs.theta(10 / table["sigma"], 1.0), rtol=1e-11)


def test_a_zarr_store_is_a_readable_directory_replaced_only_when_asked(tmp_path):
    path = tmp_path / "sweep.zarr"
    old = os.umask(0o022)
    try:
        run_sweep(_grid(), path, progress=False)
        assert stat.S_IMODE(path.stat().st_mode) == 0o755
        with pytest.raises(ValueError, match="already exists and is not replaced unless you ask"):
            run_sweep(_grid(), path, progress=False)
        run_sweep(_grid(epsilon=2.0), path, progress=False, overwrite=True)
    finally:
        os.umask(old)
    assert float(read_sweep(path)["epsilon"]) == 2.0


def test_reading_a_missing_or_unknown_file_names_it(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        read_sweep(tmp_path / "nope.nc")
    (tmp_path / "x.txt").write_text("1")
    with pytest.raises(ValueError, match="unknown format"):
        read_sweep(tmp_path / "x.txt")
