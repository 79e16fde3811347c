"""Readers, and values, kept between calls: at most a few, by key, the least recently used forgotten
first.

A reader here is an object whose answers are a function of its key alone (it keeps what it computed
so that later questions of the same key do not compute it again), so a kept one answers as a new one
would.  Each is used by one thread at a time (its lock held while it is lent), and a process forked
from this one starts with none kept (a lock held by another thread at the fork would never be
released in the child).  A value (``KeptValues``) is an answer that is a function of its key alone,
kept read-only so that every caller gets the same object unchanged; the table's lock is held only to
look it up or keep it (two threads computing the same key keep the same answer), and a forked process
starts with none kept too.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

R = TypeVar("R")
V = TypeVar("V")
E = TypeVar("E")


class _KeptByKey(Generic[E]):
    """The table both keep: at most ``most`` entries by key, the most recently used last, under one
    lock, and none in a process forked from this one (a lock held by another thread at the fork
    would never be released in the child)."""

    def __init__(self, most: int, what: str) -> None:
        if most < 1:
            raise ValueError(f"most must be at least 1 (one {what} kept), got {most!r}")
        self.most = int(most)
        self._forget()
        if hasattr(os, "register_at_fork"):  # POSIX: where a process can fork
            os.register_at_fork(after_in_child=self._forget)

    def _forget(self) -> None:
        self._lock = threading.Lock()
        self._kept: OrderedDict[Hashable, E] = OrderedDict()

    def _keep_last(self, key: Hashable, entry: E) -> None:
        """Keeps ``entry`` for ``key`` as the most recently used, forgetting the least recently
        used past ``most`` (the caller holds the lock)."""
        self._kept[key] = entry
        self._kept.move_to_end(key)
        while len(self._kept) > self.most:
            self._kept.popitem(last=False)


class KeptReaders(_KeptByKey[tuple[R, threading.Lock]], Generic[R]):
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
        super().__init__(most, "reader")
        self.make, self.set_aside = make, set_aside

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
            self._keep_last(key, entry)
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


class KeptValues(_KeptByKey[V], Generic[V]):
    """At most ``most`` values, one per key, kept by ``keep`` and found by ``kept``.

    Parameters
    ----------
    most : int
        The most values kept, >= 1; past it the least recently used is forgotten.

    Raises
    ------
    ValueError
        If ``most`` is below 1.
    """

    def __init__(self, most: int) -> None:
        super().__init__(most, "value")

    def clear(self) -> None:
        """Forgets every value.

        Returns
        -------
        None

        Raises
        ------
        None
        """
        with self._lock:
            self._kept.clear()

    def kept(self, key: Hashable) -> V | None:
        """The value kept for ``key`` (then the most recently used), or None.

        Parameters
        ----------
        key : hashable
            What the value answers.

        Returns
        -------
        object or None
            The value kept, or None where none is.

        Raises
        ------
        TypeError
            If ``key`` is not hashable.
        """
        with self._lock:
            found = self._kept.get(key)
            if found is not None:
                self._kept.move_to_end(key)
            return found

    def keep(self, key: Hashable, value: V) -> None:
        """Keeps ``value`` for ``key`` as the most recently used, forgetting the least recently used
        past ``most``.

        Parameters
        ----------
        key : hashable
            What the value answers.
        value : object
            The answer, not changed after (the caller keeps it read-only).

        Returns
        -------
        None

        Raises
        ------
        TypeError
            If ``key`` is not hashable.
        """
        with self._lock:
            self._keep_last(key, value)
