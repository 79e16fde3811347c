"""``python -m hockeystick.cpp --cmakedir | --includes | --pkgconfigdir | --libdir``: the installed
C++ package's paths, one a line in the order asked, with pybind11's flags (``python -m pybind11``)
and pkg-config's ``libdir`` for the C library; without a flag, every path beside the flag that
prints it."""

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
    """Print the asked paths of the C++ package the wheel installed (every one, named, when none is
    asked); 0, or 2 when one is absent."""
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
    try:
        lines = [_PRINTS[flag]() for flag in asked or _PRINTS]
    except FileNotFoundError as missing:
        print(f"python -m hockeystick.cpp: {missing}", file=sys.stderr)
        return 2
    if asked:  # one path a line, in the order asked, for a build script to read
        print("\n".join(lines))
    else:  # a person asking what there is: every path, named by the flag that prints it alone
        print(
            "hockeystick's C++ package, as installed (each flag prints its path alone; --help says more):"
        )
        print("\n".join(f"  {flag:<14} {line}" for flag, line in zip(_PRINTS, lines)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
