"""Reproducible random streams that do not depend on the number of threads.

Every random number a simulation uses is drawn here, with numpy Generators, *before* the numba
kernel that consumes it: the kernels themselves are deterministic, so a seed gives bit-identical
runs whatever the thread count. Streams are keyed by (seed, purpose) through
``SeedSequence(seed, spawn_key=...)``, so two purposes (e.g. minibatch sampling and upload noise)
never share numbers: a run with sigma = 0 samples the same minibatches as one with sigma > 0,
and two runs on neighbouring data sets with one seed share all their randomness.

:class:`ClientStreams` gives each fixed block of clients its own generator, so a round's draws
for all clients can be made by several threads at once (numpy releases the GIL while it fills
an array) and still be the same numbers: the block layout, not the thread count, fixes them.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

# Purposes: one independent stream family each.
SAMPLING = 1
NOISE = 2
SERVER = 3

BLOCK = 256  # clients per generator; part of the definition of a seed's numbers, never change


def generator(seed: int, purpose: int, index: int = 0) -> np.random.Generator:
    """The generator for (seed, purpose, index)."""
    return np.random.Generator(
        np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(purpose, index)))
    )


class ClientStreams:
    """Per-block generators for ``n_clients`` clients; draws return arrays of shape (n_clients, *shape)."""

    def __init__(self, seed: int, purpose: int, n_clients: int, threads: int = 1) -> None:
        self.n_clients = n_clients
        self.blocks = [(lo, min(lo + BLOCK, n_clients)) for lo in range(0, n_clients, BLOCK)]
        self.generators = [generator(seed, purpose, b) for b in range(len(self.blocks))]
        self.pool = ThreadPoolExecutor(threads) if threads > 1 and len(self.blocks) > 1 else None

    def close(self) -> None:
        """Stop the helper threads (the streams stay usable, single-threaded)."""
        if self.pool is not None:
            self.pool.shutdown()
            self.pool = None

    def _fill(self, out: np.ndarray, draw) -> np.ndarray:
        def one(b: int) -> None:
            lo, hi = self.blocks[b]
            draw(self.generators[b], out[lo:hi])

        if self.pool is None:
            for b in range(len(self.blocks)):
                one(b)
        else:
            list(self.pool.map(one, range(len(self.blocks))))
        return out

    def standard_normal(self, shape: tuple[int, ...], out: np.ndarray | None = None) -> np.ndarray:
        if out is None:
            out = np.empty((self.n_clients, *shape))
        return self._fill(out, lambda g, o: g.standard_normal(out=o))

    def random(self, shape: tuple[int, ...], out: np.ndarray | None = None) -> np.ndarray:
        if out is None:
            out = np.empty((self.n_clients, *shape))
        return self._fill(out, lambda g, o: g.random(out=o))

    def laplace(self, shape: tuple[int, ...], out: np.ndarray | None = None) -> np.ndarray:
        """Standard Laplace draws (scale 1), each the difference of two consecutive standard
        exponentials (so a client's numbers do not depend on how many clients share its block)."""
        if out is None:
            out = np.empty((self.n_clients, *shape))

        def draw(g: np.random.Generator, o: np.ndarray) -> None:
            pairs = g.standard_exponential(size=(*o.shape, 2))
            np.subtract(pairs[..., 0], pairs[..., 1], out=o)

        return self._fill(out, draw)
