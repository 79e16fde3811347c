"""``python -m hockeystick.cpp --cmakedir | --includes | --pkgconfigdir | --libdir``: the installed C++ package's
paths, one a line in the order asked, with pybind11's flags (``python -m pybind11``) and pkg-config's ``libdir``
for the C library."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from . import get_cmake_dir, get_include, get_library_dir, get_pkgconfig_dir

# flag -> what it prints
_PRINTS: dict[str, Callable[[], str]] = {
    "--includes": lambda: f"-I{get_include()}",
    "--cmakedir": get_cmake_dir,
    "--pkgconfigdir": get_pkgconfig_dir,
    "--libdir": get_library_dir,
}


def main(argv: list[str] | None = None) -> int:
    """Print the asked paths of the C++ package the wheel installed; 0, or 2 when none was asked or one is absent."""
    parser = argparse.ArgumentParser(
        prog="python -m hockeystick.cpp",
        description="Paths of hockeystick's C++ package (the headers, the CMake package, the pkg-config file, the "
        "C library) as installed with the Python package.",
    )
    parser.add_argument(
        "--includes",
        action="append_const",
        dest="asked",
        const="--includes",
        help="the compiler flag -I<dir> of the headers (hockeystick.cpp.get_include())",
    )
    parser.add_argument(
        "--cmakedir",
        action="append_const",
        dest="asked",
        const="--cmakedir",
        help="the folder for -Dhockeystick_DIR= (hockeystick.cpp.get_cmake_dir())",
    )
    parser.add_argument(
        "--pkgconfigdir",
        action="append_const",
        dest="asked",
        const="--pkgconfigdir",
        help="the folder for PKG_CONFIG_PATH (hockeystick.cpp.get_pkgconfig_dir())",
    )
    parser.add_argument(
        "--libdir",
        action="append_const",
        dest="asked",
        const="--libdir",
        help="the folder of the C library libhockeystick_c, for -L and a run-time path "
        "(hockeystick.cpp.get_library_dir())",
    )
    asked = parser.parse_args(argv).asked
    if not asked:
        parser.error("ask for at least one of --includes, --cmakedir, --pkgconfigdir, --libdir")
    try:
        lines = [_PRINTS[flag]() for flag in asked]
    except FileNotFoundError as missing:
        print(f"python -m hockeystick.cpp: {missing}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
