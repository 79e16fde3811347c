"""Every optional dependency missing, one at a time (sys.modules[name] = None makes its import fail as if it
were not installed): the command line and the library give the same one-line message naming the pip
extra that installs it, and the command line exits 2 (a setting the user changes, as for bad input)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from hockeystick.base.optional import EXTRAS, MissingExtraError, install_command, require_extra
from hockeystick.cli import main

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]

# an importable module -> the distribution pyproject.toml lists for it
DISTRIBUTIONS = {"sklearn": "scikit-learn", "distributed": "dask"}


def _extras() -> dict[str, list[str]]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]


def _distribution(requirement: str) -> str:
    return requirement.split("[")[0].split(">")[0].split("=")[0].split(";")[0].strip()


def test_each_module_is_installed_by_the_extra_its_message_names():
    extras = _extras()
    for module, extra in EXTRAS.items():
        listed = {_distribution(r) for r in extras[extra]}
        assert DISTRIBUTIONS.get(module, module) in listed, (module, extra, listed)


def test_all_installs_every_extra_in_one_requirement():
    """One requirement on the package itself with every runtime extra (not the tools: test, bench, dev, docs): pip
    builds the package once."""
    extras = _extras()
    (everything,) = extras["all"]
    named = set(everything.removeprefix("hockeystick[").removesuffix("]").split(","))
    assert named == set(extras) - {"all", "test", "bench", "dev", "docs"}


def test_the_message_says_what_needs_it_how_to_install_it_and_what_works_without(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(MissingExtraError) as caught:
        require_extra("parquet output", "pyarrow", otherwise="write *.csv or *.npz")
    assert (
        str(caught.value)
        == 'parquet output needs pyarrow: pip install "hockeystick[parquet]", or write *.csv or *.npz'
    )
    assert isinstance(caught.value, ModuleNotFoundError) and caught.value.name == "pyarrow"


def _sweep(suffix: str) -> list[str]:
    return [
        "sweep",
        "-a",
        "gaussian",
        "-p",
        "sigma=1,2",
        "--epsilon",
        "1",
        "-o",
        f"{{dir}}/s{suffix}",
        "--no-progress",
    ]


SIMULATE = ["simulate", "{dir}/runs.toml", "-o", "{dir}/runs.csv", "--no-progress"]

# (the modules made missing, the extra the message names, the command line, what needs it)
CLI_CASES = [
    (
        ("matplotlib",),
        "plot",
        ["delta", "-a", "gaussian", "-p", "sigma=1", "--epsilon", "1", "--plot", "{dir}/d.png"],
        "--plot",
    ),
    (("xarray",), "plot", ["plot", "{dir}/existing.npz", "--plot", "{dir}/p.png"], "--plot"),
    (("matplotlib",), "plot", ["figures", "--out-dir", "{dir}/figs"], "hockeystick figures"),
    (
        ("dask", "dask.distributed", "distributed"),
        "dask",
        [*_sweep(".csv"), "--workers", "2"],
        "--workers",
    ),
    (("dask", "dask.distributed", "distributed"), "dask", [*SIMULATE, "--dask", "local"], "--dask"),
    (("pyarrow", "pyarrow.parquet"), "parquet", _sweep(".parquet"), "parquet output"),
    (
        ("pyarrow", "pyarrow.parquet"),
        "parquet",
        [*SIMULATE[:3], "{dir}/runs.parquet"],
        "parquet output",
    ),
    (("xarray",), "xarray", _sweep(".nc"), "netcdf output"),
    (("netCDF4",), "xarray", _sweep(".nc"), "netcdf output"),
    (("zarr",), "xarray", _sweep(".zarr"), "zarr output"),
    (("netCDF4",), "xarray", ["plot", "{dir}/existing.nc", "--plot", "{dir}/p.png"], "reading .nc"),
    (("numba",), "simulate", SIMULATE, "hockeystick simulate"),
    (("pandas",), "simulate", SIMULATE, "hockeystick simulate"),
    (("sklearn", "sklearn.datasets"), "simulate", SIMULATE, "a bundled data set"),
]


def _make_missing(monkeypatch: pytest.MonkeyPatch, modules: tuple[str, ...]) -> None:
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)
    if {"numba", "pandas"} & set(
        modules
    ):  # the simulator checks its extra when it is first imported
        for name in [m for m in sys.modules if m.startswith("hockeystick.simulate")]:
            monkeypatch.delitem(sys.modules, name)


@pytest.mark.parametrize(
    "missing, extra, argv, what", CLI_CASES, ids=[f"{c[0][0]}-{c[2][0]}-{c[3]}" for c in CLI_CASES]
)
def test_a_missing_extra_on_the_command_line(
    places, capsys, monkeypatch, missing, extra, argv, what
):
    _make_missing(monkeypatch, missing)
    code = main([a.format(dir=places) for a in argv])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith(
        f"hockeystick {argv[0]}: error: {what} needs {missing[0]}: {install_command(extra)}"
    ), err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def _grid():
    from hockeystick.sweep import Grid

    return Grid.from_parameters("gaussian", "delta", {"sigma": [1, 2], "epsilon": [0.5, 1]})


def _run_to(suffix: str):
    def run(directory: Path) -> None:
        from hockeystick.sweep import run_sweep

        run_sweep(_grid(), directory / f"p{suffix}", progress=False)

    return run


def _read(name: str):
    def read(directory: Path) -> None:
        from hockeystick.sweep import read_sweep

        read_sweep(directory / name)

    return read


def _plot(directory: Path) -> None:
    from hockeystick.plots import plot_dataset
    from hockeystick.sweep import read_sweep

    plot_dataset(read_sweep(directory / "existing.npz"), directory / "p.png")


def _dask(directory: Path) -> None:
    from hockeystick.sweep import run_on_dask

    run_on_dask(_grid(), workers=1)


def _to_pandas(directory: Path) -> None:
    from hockeystick.sweep import run_sweep

    run_sweep(_grid(), progress=False).to_pandas()


def _to_xarray(directory: Path) -> None:
    from hockeystick.sweep import run_sweep

    run_sweep(_grid(), progress=False).to_xarray()


def _figures(directory: Path) -> None:
    from hockeystick.reproduce.figures import write_figures

    write_figures(directory / "figs")


def _bundled(directory: Path) -> None:
    from hockeystick.simulate import bundled

    bundled("iris", n_clients=2)


def _import_simulate(directory: Path) -> None:
    import hockeystick.simulate  # noqa: F401


# (the modules made missing, the extra the message names, the call, what needs it)
PYTHON_CASES = [
    (("matplotlib",), "plot", _plot, "drawing a plot"),
    (("matplotlib",), "plot", _figures, "write_figures"),
    (("dask", "dask.distributed", "distributed"), "dask", _dask, "run_on_dask"),
    (("pyarrow", "pyarrow.parquet"), "parquet", _run_to(".parquet"), "parquet output"),
    (("pandas",), "parquet", _to_pandas, "to_pandas"),
    (("xarray",), "xarray", _run_to(".zarr"), "zarr output"),
    (("xarray",), "xarray", _to_xarray, "to_xarray / to_dataset"),
    (("xarray",), "xarray", _read("existing.npz"), "read_sweep"),
    (("netCDF4",), "xarray", _read("existing.nc"), "reading .nc"),
    (("numba",), "simulate", _import_simulate, "hockeystick.simulate"),
    (("sklearn", "sklearn.datasets"), "simulate", _bundled, "a bundled data set"),
]


@pytest.mark.parametrize(
    "missing, extra, call, what", PYTHON_CASES, ids=[f"{c[0][0]}-{c[3]}" for c in PYTHON_CASES]
)
def test_a_missing_extra_in_python(places, monkeypatch, missing, extra, call, what):
    _make_missing(monkeypatch, missing)
    with pytest.raises(MissingExtraError) as caught:
        call(places)
    assert str(caught.value).startswith(f"{what} needs {missing[0]}: {install_command(extra)}")
    assert caught.value.extra == extra and caught.value.name == missing[0]


RUNS = """\
[data]
bundled = "iris"
clients = 2
[algorithms.noisy_fedavg]
grid = { sigma = [0.5] }
fixed = { rounds = 1, local_steps = 1, clip = 1.0, rate = 0.1 }
"""


@pytest.fixture
def places(tmp_path: Path) -> Path:
    from hockeystick.sweep import run_sweep

    (tmp_path / "runs.toml").write_text(RUNS)
    run_sweep(_grid(), tmp_path / "existing.npz", progress=False)
    (tmp_path / "existing.nc").write_bytes(
        b"CDF\x01"
    )  # read_sweep checks the reader before the bytes
    return tmp_path


def test_an_optional_module_the_library_imported_unchecked_gets_the_same_words(capsys, monkeypatch):
    """The command line's net under every import: a ModuleNotFoundError of an optional module is the
    same one line and exit 2, the command as what needs it."""
    from hockeystick.cli import demo

    def unchecked(args):
        raise ModuleNotFoundError("No module named 'zarr'", name="zarr")

    monkeypatch.setattr(demo, "run", unchecked)
    code = main(["demo"])
    err = capsys.readouterr().err
    assert (
        code == 2
        and err
        == f"hockeystick demo: error: hockeystick demo needs zarr: {install_command('xarray')}\n"
    )


def test_a_module_that_fails_inside_is_not_called_missing(monkeypatch):
    """An installed package whose own import fails on something else keeps its own error."""
    import importlib

    real = importlib.import_module

    def broken(name, package=None):
        if name == "pyarrow":
            raise ModuleNotFoundError("No module named 'some_dependency'", name="some_dependency")
        return real(name, package)

    monkeypatch.setattr(importlib, "import_module", broken)
    with pytest.raises(ModuleNotFoundError) as caught:
        require_extra("parquet output", "pyarrow")
    assert (
        not isinstance(caught.value, MissingExtraError) and caught.value.name == "some_dependency"
    )
