"""Where the wheel put hockeystick's C++ package: the headers, the CMake package, the pkg-config file and the C library.

``pip install hockeystick`` installs the header-only core beside the Python package (CMakeLists.txt,
under scikit-build-core): ``hockeystick/include``, ``hockeystick/share/cmake/hockeystick`` and
``hockeystick/share/pkgconfig``, and the C interface's shared library ``libhockeystick_c``
(cpp/capi) in ``hockeystick/lib``.  These functions give their paths, as ``pybind11.get_include()``
and ``pybind11.get_cmake_dir()`` do for pybind11's; ``python -m hockeystick.cpp --cmakedir`` prints
one for a build script::

    cmake -S . -B build -Dhockeystick_DIR="$(python -m hockeystick.cpp --cmakedir)"

Nothing but the standard library is imported: the paths come without numpy or the compiled core.
"""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["get_cmake_dir", "get_include", "get_library_dir", "get_pkgconfig_dir"]

# each path below the package's folder, and the file that proves the install put it there
_INCLUDE = ("include", "hockeystick/hockeystick.hpp")
_CMAKE = ("share/cmake/hockeystick", "hockeystickConfig.cmake")
_PKGCONFIG = ("share/pkgconfig", "hockeystick.pc")


def _c_library_name() -> str:
    """The C library's file name on this platform: the name ``-lhockeystick_c`` finds."""
    if sys.platform == "win32":
        return "hockeystick_c.dll"
    return "libhockeystick_c.dylib" if sys.platform == "darwin" else "libhockeystick_c.so"


def _installed(folder: str, marker: str) -> str:
    """The first of the package's folders (``hockeystick.__path__``: one for a wheel; the install
    tree, then the source tree, for an editable install) holding ``folder/marker``."""
    import hockeystick

    for root in hockeystick.__path__:
        if (Path(root) / folder / marker).is_file():
            return str(Path(root) / folder)
    raise FileNotFoundError(
        f"no {folder}/{marker} in hockeystick's package folders {list(hockeystick.__path__)}: the C++ package is "
        "installed by the wheel's build; reinstall hockeystick (pip install hockeystick, or pip install . from a "
        "checkout) to put it there"
    )


def get_include() -> str:
    """The include directory of hockeystick's headers, as the wheel installed them.

    A C++ source includes ``<hockeystick/hockeystick.hpp>`` (the umbrella header) or one stage's
    header, such as ``<hockeystick/numerics/hockey_stick.hpp>``, with this directory on the include
    path and C++17; GCC and Clang need ``-ffp-contract=off`` as well (the error-free transformations
    round every product as written), which the CMake target and the pkg-config file carry.

    Returns
    -------
    str
        The absolute path of the folder that holds ``hockeystick/hockeystick.hpp``
        (``numpy.get_include()``'s and ``pybind11.get_include()``'s convention).

    Raises
    ------
    FileNotFoundError
        If the installed package holds no headers (an install that did not run the C++ package's
        install rules); the message says to reinstall.

    Examples
    --------
    >>> from pathlib import Path
    >>> from hockeystick.cpp import get_include
    >>> (Path(get_include()) / "hockeystick" / "hockeystick.hpp").is_file()
    True
    """
    return _installed(*_INCLUDE)


def get_cmake_dir() -> str:
    """The folder of hockeystick's CMake package, for ``-Dhockeystick_DIR=`` or ``CMAKE_PREFIX_PATH``.

    ``find_package(hockeystick CONFIG)`` there gives the header-only target ``hockeystick::core``
    (C++17, ``-ffp-contract=off`` on GCC and Clang) whose include directory is
    :func:`get_include`'s, and the version ``hockeystick_VERSION``, the Python package's
    ``__version__``; the version file accepts a request for the same minor version (0.2 accepts
    0.2.x) on any architecture.

    Returns
    -------
    str
        The absolute path of the folder that holds ``hockeystickConfig.cmake``, its version file and
        the exported targets (``pybind11.get_cmake_dir()``'s convention).

    Raises
    ------
    FileNotFoundError
        If the installed package holds no CMake package; the message says to reinstall.

    Examples
    --------
    >>> from pathlib import Path
    >>> from hockeystick.cpp import get_cmake_dir
    >>> sorted(p.name for p in Path(get_cmake_dir()).glob("hockeystickConfig*.cmake"))
    ['hockeystickConfig.cmake', 'hockeystickConfigVersion.cmake']
    """
    return _installed(*_CMAKE)


def get_pkgconfig_dir() -> str:
    """The folder of hockeystick's pkg-config file, for ``PKG_CONFIG_PATH``.

    ``pkg-config --cflags hockeystick`` then prints ``-I`` :func:`get_include` and
    ``-ffp-contract=off``; the file finds its prefix from its own place (``${pcfiledir}``), so it
    holds wherever the wheel is installed.

    Returns
    -------
    str
        The absolute path of the folder that holds ``hockeystick.pc`` (``numpy-config
        --pkgconfigdir``'s and ``python -m pybind11 --pkgconfigdir``'s convention).

    Raises
    ------
    FileNotFoundError
        If the installed package holds no pkg-config file; the message says to reinstall.

    Examples
    --------
    >>> from pathlib import Path
    >>> from hockeystick.cpp import get_pkgconfig_dir
    >>> (Path(get_pkgconfig_dir()) / "hockeystick.pc").is_file()
    True
    """
    return _installed(*_PKGCONFIG)


def get_library_dir() -> str:
    """The folder of the C interface's shared library ``libhockeystick_c``, for ``-L`` and a run-time path.

    The library (cpp/capi; docs/embedding.md, "The C interface") puts θ, Q, their inverses, the
    Gaussian σ and the Poisson-subsampled Gaussian's certified PLD behind one C header,
    ``hockeystick/hockeystick.h`` in :func:`get_include`; ``find_package(hockeystick)`` in
    :func:`get_cmake_dir` gives it as the target ``hockeystick::c``.  The wheel's is built with
    Eigen's FFT module (MPL-2.0) as the PLD calls' FFT backend, so it stays under hockeystick's
    Apache-2.0 (Eigen's notice: ``share/licenses/hockeystick_c``).

    Returns
    -------
    str
        The absolute path of the folder that holds the library: ``libhockeystick_c.so`` (Linux),
        ``libhockeystick_c.dylib`` (macOS) or ``hockeystick_c.dll`` (Windows), the file
        ``-lhockeystick_c`` finds and ``ctypes.CDLL`` loads.

    Raises
    ------
    FileNotFoundError
        If the installed package holds no C library (an install built without it); the message says
        to reinstall.

    Examples
    --------
    >>> from pathlib import Path
    >>> from hockeystick.cpp import get_library_dir
    >>> any(p.stem in ("libhockeystick_c", "hockeystick_c") for p in Path(get_library_dir()).iterdir())
    True
    """
    return _installed("lib", _c_library_name())
