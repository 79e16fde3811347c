"""A sweep's working directory beside its output: a lock, the grid's fingerprint, finished chunks.

For an output ``DIR/NAME`` a run works in the hidden directory ``DIR/.NAME.parts/``:

- ``lock``: an exclusive ``flock`` held for the whole run.  The operating system drops it
  when the process ends, even on SIGKILL, so a second run on the same output is refused
  while the first lives, and a directory whose lock can be taken is known to be stale.
- ``grid.json``: the SHA-256 fingerprint of everything that fixes the chunks' values (library
  version, accountants, output, every axis value bit for bit, fixed parameters, chunk size),
  so ``resume=True`` never mixes chunks of two different grids.
- ``chunk-000000042.npz``: the outputs of finished chunk 42, written under a temporary name
  and ``os.replace``d into place (a chunk file is complete or absent), and checked again
  (column names, dtypes, lengths) when a resumed run reads it.
- the output being assembled, moved onto ``DIR/NAME`` at the end with ``os.replace`` and
  the permissions the umask gives a new file (``mkstemp``'s 0600 would hide results from
  the rest of a group on a shared filesystem).

A run that ends in an error keeps its finished chunks for ``resume=True``; a run that
succeeds removes the directory.  The next run on the same output removes a stale directory
(when it does not resume it) before starting.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import shutil
import tempfile
import uuid
import zipfile
from pathlib import Path

import numpy as np

from .. import __version__
from .grid import Chunk, Grid

__all__ = [
    "Workspace",
    "describe_leftovers",
    "fingerprint",
    "new_file_mode",
    "part_path",
    "parts_directory",
    "publish",
    "save_part",
]

log = logging.getLogger("hockeystick.sweep")

_FINGERPRINT_FILE = "grid.json"


def parts_directory(path: str | os.PathLike[str]) -> Path:
    """The hidden working directory of the output ``path``: ``DIR/.NAME.parts``."""
    path = Path(path)
    return path.parent / f".{path.name}.parts"


def fingerprint(grid: Grid, chunk_size: int) -> str:
    """SHA-256 over what determines every chunk's values and boundaries (axis values bit for bit)."""
    h = hashlib.sha256()
    head = {
        "version": __version__,
        "accountants": list(grid.accountants),
        "output": grid.output,
        "bound": grid.bound,
        "fixed": {k: float(v).hex() for k, v in sorted(grid.fixed.items())},
        "chunk_size": int(chunk_size),
        "axes": [[a.name, a.values.dtype.str, len(a)] for a in grid.axes],
    }
    h.update(json.dumps(head, sort_keys=True).encode())
    for axis in grid.axes:
        h.update(np.ascontiguousarray(axis.values).tobytes())
    return h.hexdigest()


def new_file_mode() -> int:
    """The permissions ``open()`` gives a new file under this process's umask (0o666 & ~umask)."""
    try:
        with open("/proc/self/status") as fh:
            umask = next(int(line.split()[1], 8) for line in fh if line.startswith("Umask:"))
    except (OSError, StopIteration, ValueError):
        umask = os.umask(0o022)  # no /proc: read it by setting it, and put it straight back
        os.umask(umask)
    return 0o666 & ~umask


def publish(tmp: str | os.PathLike[str], destination: str | os.PathLike[str]) -> None:
    """Move a finished temporary file onto ``destination`` atomically, with umask permissions."""
    os.chmod(tmp, new_file_mode())
    os.replace(tmp, destination)


def part_path(parts_dir: str | os.PathLike[str], index: int) -> Path:
    """Where chunk ``index``'s outputs live once finished."""
    return Path(parts_dir) / f"chunk-{index:09d}.npz"


def save_part(
    parts_dir: str | os.PathLike[str], index: int, outputs: dict[str, np.ndarray]
) -> None:
    """Write chunk ``index``'s outputs atomically (a unique temporary name per attempt, then os.replace).

    Two attempts at the same chunk (a retried Dask task whose first worker still runs)
    each publish a complete file; the last one wins and both hold the same values."""
    final = part_path(parts_dir, index)
    tmp = final.with_name(f".{final.name}.{uuid.uuid4().hex}.tmp")
    try:
        with open(tmp, "wb") as fh:
            np.savez(fh, **outputs)  # type: ignore[arg-type]  # (numpy's stub: a key could be allow_pickle)
        os.replace(tmp, final)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


class Workspace:
    """The working directory of one run (see the module docstring); ``open_for`` builds it."""

    def __init__(
        self, path: Path, grid: Grid, chunk_size: int, lock_fd: int | None, temporary: bool
    ) -> None:
        self.path, self.grid, self.chunk_size = path, grid, chunk_size
        self._lock_fd, self._temporary = lock_fd, temporary
        self.columns = grid.outputs + (("best",) if grid.has_best else ())

    @classmethod
    def open_for(
        cls,
        destination: str | os.PathLike[str],
        grid: Grid,
        chunk_size: int,
        *,
        resume: bool = False,
    ) -> Workspace:
        """Lock ``destination``'s parts directory, clear what a dead run left (unless resuming a run
        of this very grid) and record the grid's fingerprint.

        Raises ValueError when another live run holds the lock, or when ``resume`` finds chunks
        of a different grid."""
        path = parts_directory(destination)
        try:
            path.mkdir(exist_ok=True)
            fd = os.open(path / "lock", os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as exc:
            raise ValueError(
                f"cannot create the working directory {str(path)!r} ({exc.strerror}); "
                "choose an output directory you can write to"
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise ValueError(
                f"another sweep is writing {os.fspath(destination)!r} (it holds {str(path / 'lock')!r}); "
                "wait for it to finish or choose another output"
            ) from None
        workspace = cls(path, grid, chunk_size, fd, temporary=False)
        try:
            workspace._prepare(resume)
        except BaseException:
            workspace.release()
            raise
        return workspace

    @classmethod
    def temporary(cls, grid: Grid, chunk_size: int) -> Workspace:
        """A private directory for a run without an output file (a Dask sweep kept in memory)."""
        return cls(
            Path(tempfile.mkdtemp(prefix=".hockeystick-parts-")),
            grid,
            chunk_size,
            None,
            temporary=True,
        )

    def _prepare(self, resume: bool) -> None:
        mine = fingerprint(self.grid, self.chunk_size)
        record = self.path / _FINGERPRINT_FILE
        stale = [p for p in self.path.iterdir() if p.name != "lock"]
        if resume and record.exists():
            if json.loads(record.read_text()).get("fingerprint") != mine:
                raise ValueError(
                    f"cannot resume: the finished chunks in {str(self.path)!r} belong to a different "
                    "grid or chunk size; rerun with the same grid and chunk size, or without "
                    "resume to start over (the old chunks are then removed)"
                )
            for p in stale:
                if p.name.endswith(".tmp") or p.is_dir():
                    _remove(p)
            return
        if stale:
            finished = sum(1 for p in stale if p.name.startswith("chunk-"))
            log.warning(
                "removed the leftovers of an interrupted sweep in %s (%d finished chunks)%s",
                self.path,
                finished,
                "" if resume else "; resume=True would have kept them",
            )
            for p in stale:
                _remove(p)
        tmp = record.with_name(f".{record.name}.tmp")
        tmp.write_text(
            json.dumps(
                {
                    "fingerprint": mine,
                    "version": __version__,
                    "accountants": list(self.grid.accountants),
                    "output": self.grid.output,
                    "shape": list(self.grid.shape),
                    "chunk_size": self.chunk_size,
                }
            )
        )
        os.replace(tmp, record)

    def finished(self) -> set[int]:
        """Indices of the chunks whose files are in place (checked again when loaded)."""
        return {int(p.name[6:15]) for p in self.path.glob("chunk-*.npz") if p.name[6:15].isdigit()}

    def save(self, index: int, outputs: dict[str, np.ndarray]) -> None:
        save_part(self.path, index, outputs)

    def load(self, chunk: Chunk) -> dict[str, np.ndarray] | None:
        """A finished chunk's outputs, or None when its file is missing or does not match the chunk."""
        try:
            # the file opened and closed here: np.load given a path leaves its file open when the
            # archive is damaged
            with open(part_path(self.path, chunk.index), "rb") as fh, np.load(fh) as data:
                if sorted(data.files) != sorted(self.columns):
                    return None
                outputs = {name: data[name] for name in self.columns}
        except (OSError, ValueError, zipfile.BadZipFile, EOFError):
            return None
        for name, values in outputs.items():
            dtype = np.int8 if name == "best" else np.float64
            if values.shape != (chunk.size,) or values.dtype != dtype:
                return None
        return outputs

    def scratch(self, name: str) -> Path:
        """A path for a temporary file inside the workspace (same filesystem as the output)."""
        return self.path / name

    def release(self) -> None:
        """End the run but keep the finished chunks (for resume); nothing at all if none finished."""
        if self._temporary or not any(self.path.glob("chunk-*.npz")):
            self.remove()
            return
        self._unlock()

    def remove(self) -> None:
        """End the run and delete the directory (after the output is in place)."""
        shutil.rmtree(self.path, ignore_errors=True)
        self._unlock()

    def _unlock(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None


def _remove(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def describe_leftovers(destination: str | os.PathLike[str]) -> str | None:
    """A sentence about the finished chunks a failed run kept for ``destination`` (None if none)."""
    path = parts_directory(destination)
    count = len(list(path.glob("chunk-*.npz"))) if path.is_dir() else 0
    if not count:
        return None
    return f"{count} finished chunk(s) kept in {str(path)!r}: rerun with --resume (resume=True) to continue"
