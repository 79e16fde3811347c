"""The mass a composition window may leave out at each cut end by default (``DEFAULT_TAIL``).

Every cut is charged to the side it weakens (pld/compose/compose.hpp), so the tail only sets how
much of a bracket's width the cuts take: 1e-15 is far below any delta an (eps, delta) guarantee is
asked for, and equals the C++ core's ``kDefaultCompositionTail`` (pld/compose/options.hpp).
"""

from __future__ import annotations

DEFAULT_TAIL = 1e-15
