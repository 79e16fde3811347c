"""Where a warning raised inside hockeystick points: the user's line that led there.

A warning's ``stacklevel`` counts frames, and the number of hockeystick frames between a user's call
and the ``warnings.warn`` deep inside differs by path (``DPSGD.epsilon`` reaches the accountant's
bracket through more frames than ``SubsampledGaussianPLD.epsilon``; a decorator such as
``keyword_only.positional_deprecated`` adds one).  ``outside_stacklevel`` counts them at the call,
so the warning names the first frame outside the package: the user's file and line, which a fixed
count names only on the path it was counted for.
"""

from __future__ import annotations

import inspect
import os

__all__ = ["outside_stacklevel"]

# the package's directory, with a separator so that a sibling named hockeystick_x is outside it
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def outside_stacklevel() -> int:
    """The ``stacklevel`` that makes a ``warnings.warn`` call in the caller of this function name
    the first frame outside hockeystick (the outermost frame where every frame is inside, as under
    the command line).

    Returns
    -------
    int
        1 for the caller itself, 2 for its caller, and so on: the first level whose frame's file is
        not in the package directory.
    """
    frame = inspect.currentframe()
    frame = (
        None if frame is None else frame.f_back
    )  # the caller, which calls warnings.warn: level 1
    level = 1
    while (
        frame is not None
        and frame.f_back is not None
        and frame.f_code.co_filename.startswith(_PACKAGE)
    ):
        frame = frame.f_back
        level += 1
    return level
