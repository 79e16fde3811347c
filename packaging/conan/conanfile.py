"""Conan recipe for hockeystick's header-only C++ core: ``conan create packaging/conan`` packages the headers of
this checkout (no download, no requirement), as the CMake package lays them out (find_package(hockeystick),
target hockeystick::core) and for pkg-config; its version is ``__version__``'s X.Y.Z."""

from __future__ import annotations

import os
import re

from conan import ConanFile
from conan.tools.build import check_min_cppstd
from conan.tools.files import copy, load

ROOT = os.path.join("..", "..")  # the repository, from this recipe's folder


class HockeystickConan(ConanFile):
    name = "hockeystick"
    package_type = "header-library"
    license = "Apache-2.0"
    description = "Header-only C++17 numerics of certified differential-privacy accounting"
    topics = ("differential-privacy", "privacy-accounting", "header-only")
    settings = "os", "arch", "compiler", "build_type"
    no_copy_source = True

    def set_version(self) -> None:
        source = load(
            self, os.path.join(self.recipe_folder, ROOT, "python", "hockeystick", "__init__.py")
        )
        found = re.search(r'^__version__ = "(\d+\.\d+\.\d+)', source, re.MULTILINE)
        if found is None:
            raise ValueError('python/hockeystick/__init__.py must hold __version__ = "X.Y.Z..."')
        self.version = found.group(1)

    def export_sources(self) -> None:
        root = os.path.join(self.recipe_folder, ROOT)
        copy(
            self,
            "*.hpp",
            os.path.join(root, "cpp", "include"),
            os.path.join(self.export_sources_folder, "include"),
        )
        copy(self, "LICENSE", root, self.export_sources_folder)

    def validate(self) -> None:
        check_min_cppstd(self, 17)

    def package_id(self) -> None:
        self.info.clear()  # headers only: one package for every configuration

    def package(self) -> None:
        copy(
            self,
            "*.hpp",
            os.path.join(self.source_folder, "include"),
            os.path.join(self.package_folder, "include"),
        )
        copy(self, "LICENSE", self.source_folder, os.path.join(self.package_folder, "licenses"))

    def package_info(self) -> None:
        self.cpp_info.bindirs = []
        self.cpp_info.libdirs = []
        self.cpp_info.set_property("cmake_file_name", "hockeystick")
        self.cpp_info.set_property("cmake_target_name", "hockeystick::core")
        self.cpp_info.set_property("pkg_config_name", "hockeystick")
        if str(self.settings.compiler) in ("gcc", "clang", "apple-clang"):
            # the error-free transformations need every rounding as written: no fused multiply-adds
            self.cpp_info.cxxflags = ["-ffp-contract=off"]
