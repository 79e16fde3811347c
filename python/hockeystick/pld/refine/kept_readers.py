"""Readers kept between calls: at most a few, by key, the least recently used forgotten first.

A reader here is an object whose answers are a function of its key alone (it keeps what it computed
so that later questions of the same key do not compute it again), so a kept one answers as a new one
would.  Each is used by one thread at a time (its lock held while it is lent), and a process forked
from this one starts with none kept (a lock held by another thread at the fork would never be
released in the child).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

R = TypeVar("R")


class KeptReaders(Generic[R]):
    """At most ``most`` readers, one per key, made by ``make(key)`` on first use.

    Parameters
    ----------
    most : int
        The most readers kept, >= 1; past it the least recently used is forgotten.
    make : callable
        ``make(key)``: a new reader of ``key``.
    set_aside : callable, optional
        ``set_aside(reader)``: what a kept reader forgets when another is lent (the largest of what
        it keeps), called on each other reader no thread is using; nothing where not given.

    Raises
    ------
    ValueError
        If ``most`` is below 1.
    """

    def __init__(
        self,
        most: int,
        make: Callable[[Hashable], R],
        set_aside: Callable[[R], None] | None = None,
    ) -> None:
        if most < 1:
            raise ValueError(f"most must be at least 1 (one reader kept), got {most!r}")
        self.most, self.make, self.set_aside = int(most), make, set_aside
        self._forget()
        if hasattr(os, "register_at_fork"):  # POSIX: where a process can fork
            os.register_at_fork(after_in_child=self._forget)

    def _forget(self) -> None:
        self._lock = threading.Lock()
        self._kept: OrderedDict[Hashable, tuple[R, threading.Lock]] = OrderedDict()

    @contextmanager
    def lent(self, key: Hashable) -> Iterator[R]:
        """The reader of ``key`` (kept, or made and kept), lent to this thread alone until the block
        ends.

        Parameters
        ----------
        key : hashable
            What the reader reads.

        Returns
        -------
        contextmanager
            Yields the reader; other threads asking the same key wait until the block ends.

        Raises
        ------
        Exception
            Whatever ``make`` raises.
        """
        with self._lock:
            entry = self._kept.pop(key, None)
            if entry is None:
                entry = (self.make(key), threading.Lock())
            self._kept[key] = entry  # the most recently used last
            while len(self._kept) > self.most:
                self._kept.popitem(last=False)
            others = list(self._kept.values())[:-1]
        set_aside = self.set_aside
        for other, other_lock in others:
            if set_aside is not None and other_lock.acquire(blocking=False):  # one in use: left
                try:
                    set_aside(other)
                finally:
                    other_lock.release()
        reader, lock = entry
        with lock:
            yield reader
