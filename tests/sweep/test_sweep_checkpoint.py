"""Never clobber, never lose finished work: overwrite refusal, umask permissions, stale leftovers of
killed runs, resume from verified chunk files, one run per output."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from hockeystick.sweep import Grid, read_sweep, run_sweep
from hockeystick.sweep import run as run_module
from hockeystick.sweep.checkpoint import Workspace, part_path, parts_directory

FORMATS = (".csv", ".npz", ".parquet")
PARAMS = {"sigma": "log:0.5:20:30", "rounds": [1, 10, 100], "epsilon": "linear:0.1:8:40"}


def _grid(**changes) -> Grid:
    return Grid.from_parameters("gaussian", "delta", {**PARAMS, **changes})


def _same_result(a, b) -> bool:
    if str(a).endswith(".npz"):  # a zip records its members' times: compare the arrays
        with np.load(a) as x, np.load(b) as y:
            return x.files == y.files and all(np.array_equal(x[k], y[k]) for k in x.files)
    with open(a, "rb") as x, open(b, "rb") as y:
        return x.read() == y.read()


@pytest.mark.parametrize("suffix", FORMATS)
def test_an_existing_output_is_refused_unless_overwrite(tmp_path, suffix):
    path = tmp_path / f"out{suffix}"
    path.write_bytes(b"precious")
    with pytest.raises(
        ValueError, match=r"already exists .* pass overwrite=True, or choose another name"
    ):
        run_sweep(_grid(), path, progress=False)
    assert path.read_bytes() == b"precious" and os.listdir(tmp_path) == [path.name]
    run_sweep(_grid(), path, progress=False, overwrite=True)
    run_sweep(_grid(), tmp_path / f"fresh{suffix}", progress=False)
    assert _same_result(path, tmp_path / f"fresh{suffix}")
    with pytest.raises(TypeError, match="overwrite must be True or False"):
        run_sweep(_grid(), path, progress=False, overwrite="yes")


@pytest.mark.parametrize("umask", [0o022, 0o002, 0o077])
@pytest.mark.parametrize("suffix", FORMATS)
def test_result_files_get_the_umask_permissions(tmp_path, suffix, umask):
    """mkstemp's 0600 hid results from the group on shared filesystems: a result is created like any file."""
    old = os.umask(umask)
    try:
        run_sweep(_grid(), tmp_path / f"out{suffix}", progress=False)
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / f"out{suffix}").stat().st_mode) == 0o666 & ~umask


_KILLED_RUN = """
import os, sys, time
from hockeystick.sweep import Grid, run_sweep
from hockeystick.sweep import run as run_module
real = run_module.evaluate_chunk
def slow_after_three(grid, chunk):
    if chunk.index >= 3:
        open(sys.argv[2], "w").close()   # three chunks are saved: the parent may kill us now
        time.sleep(60)
    return real(grid, chunk)
run_module.evaluate_chunk = slow_after_three
grid = Grid.from_parameters("gaussian", "delta", {params!r})
run_sweep(grid, sys.argv[1], chunk_size=40, progress=False)
"""


def _kill_mid_run(tmp_path, path, sig) -> None:
    ready = tmp_path / "ready"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(_KILLED_RUN.format(params=PARAMS)),
            str(path),
            str(ready),
        ]
    )
    try:
        deadline = time.monotonic() + 600  # a hang guard, generous for a loaded machine
        while not ready.exists():
            assert proc.poll() is None and time.monotonic() < deadline, (
                "the sweep process ended early"
            )
            time.sleep(0.05)
        proc.send_signal(sig)
        proc.wait(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
@pytest.mark.parametrize("suffix", [".parquet", ".npz"])
def test_a_killed_run_resumes_from_its_finished_chunks(tmp_path, monkeypatch, sig, suffix):
    path = tmp_path / f"out{suffix}"
    _kill_mid_run(tmp_path, path, sig)
    parts = parts_directory(path)
    assert not path.exists() and parts.is_dir()
    assert {p.name for p in parts.glob("chunk-*.npz")} == {
        part_path(parts, i).name for i in range(3)
    }
    real, computed = run_module.evaluate_chunk, []
    monkeypatch.setattr(
        run_module, "evaluate_chunk", lambda g, c: computed.append(c.index) or real(g, c)
    )
    run_sweep(_grid(), path, chunk_size=40, progress=False, resume=True)
    assert (
        min(computed) == 3 and len(computed) == _grid().n_chunks(40) - 3
    )  # the finished three are reused
    run_sweep(_grid(), tmp_path / f"clean{suffix}", chunk_size=40, progress=False)
    assert _same_result(path, tmp_path / f"clean{suffix}")
    assert sorted(os.listdir(tmp_path)) == sorted(["ready", path.name, f"clean{suffix}"])


@pytest.mark.slow
def test_the_next_run_clears_a_killed_runs_leftovers(tmp_path):
    path = tmp_path / "out.csv"
    _kill_mid_run(tmp_path, path, signal.SIGKILL)
    assert parts_directory(path).is_dir()
    run_sweep(_grid(), path, chunk_size=40, progress=False)  # no resume: start over, clean up
    run_sweep(_grid(), tmp_path / "clean.csv", progress=False)
    assert _same_result(path, tmp_path / "clean.csv")
    assert sorted(os.listdir(tmp_path)) == ["clean.csv", "out.csv", "ready"]


def test_resume_refuses_the_chunks_of_another_grid(tmp_path, monkeypatch):
    path = tmp_path / "out.csv"
    real = run_module.evaluate_chunk

    def fail_late(grid, chunk):
        if chunk.index == 4:
            raise RuntimeError("stop")
        return real(grid, chunk)

    monkeypatch.setattr(run_module, "evaluate_chunk", fail_late)
    with pytest.raises(RuntimeError):
        run_sweep(_grid(), path, chunk_size=40, progress=False)
    monkeypatch.setattr(run_module, "evaluate_chunk", real)
    for other, chunk_size in (
        (_grid(sensitivity=2.0), 40),
        (_grid(sigma="log:0.5:20.000001:30"), 40),
        (_grid(), 41),
    ):
        with pytest.raises(
            ValueError, match="cannot resume: the finished chunks .* belong to a different grid"
        ):
            run_sweep(other, path, chunk_size=chunk_size, progress=False, resume=True)
    assert len(list(parts_directory(path).glob("chunk-*.npz"))) == 4  # refusing keeps them


def test_a_damaged_chunk_file_is_computed_again(tmp_path, monkeypatch):
    path = tmp_path / "out.parquet"
    real = run_module.evaluate_chunk

    def fail_late(grid, chunk):
        if chunk.index == 4:
            raise RuntimeError("stop")
        return real(grid, chunk)

    monkeypatch.setattr(run_module, "evaluate_chunk", fail_late)
    with pytest.raises(RuntimeError):
        run_sweep(_grid(), path, chunk_size=40, progress=False)
    part_path(parts_directory(path), 1).write_bytes(b"PK\x03\x04 not a zip")
    np.savez(part_path(parts_directory(path), 2), delta=np.zeros(3))  # wrong length
    computed = []
    monkeypatch.setattr(
        run_module, "evaluate_chunk", lambda g, c: computed.append(c.index) or real(g, c)
    )
    run_sweep(_grid(), path, chunk_size=40, progress=False, resume=True)
    assert computed[:2] == [1, 2] and 0 not in computed and 3 not in computed
    run_sweep(_grid(), tmp_path / "clean.parquet", chunk_size=40, progress=False)
    assert _same_result(path, tmp_path / "clean.parquet")


def test_one_run_per_output_at_a_time(tmp_path):
    path = tmp_path / "out.csv"
    holder = Workspace.open_for(path, _grid(), 40)
    try:
        with pytest.raises(ValueError, match="another sweep is writing"):
            run_sweep(_grid(), path, chunk_size=40, progress=False)
    finally:
        holder.remove()
    run_sweep(_grid(), path, chunk_size=40, progress=False)
    assert os.listdir(tmp_path) == ["out.csv"]


def test_resume_needs_a_file():
    with pytest.raises(ValueError, match="resume=True continues a sweep written to a file"):
        run_sweep(_grid(), None, progress=False, resume=True)


def _open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts descriptors through /proc")
def test_a_damaged_archive_leaves_no_file_open(tmp_path):
    """A damaged chunk (np.load given a path leaves its file open when the zip is unreadable: a ResourceWarning
    later, an open descriptor until then) and a damaged .npz sweep file are read and closed."""
    import gc

    pytest.importorskip("xarray")
    workspace = Workspace.open_for(tmp_path / "out.csv", _grid(), 40)
    try:
        part_path(workspace.path, 0).write_bytes(b"PK\x03\x04 not a zip")
        damaged = tmp_path / "damaged.npz"
        damaged.write_bytes(b"PK\x03\x04 not a zip")
        chunk = next(iter(_grid().chunks(40)))
        gc.disable()  # a leaked file object would be closed by the collector before the count
        try:
            before = _open_descriptors()
            assert workspace.load(chunk) is None
            with pytest.raises(Exception, match="zip"):
                read_sweep(damaged)
            assert _open_descriptors() == before
        finally:
            gc.enable()
    finally:
        workspace.release()
