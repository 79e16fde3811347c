"""Conan's test of the package: cpp/examples/cmake_consumer, found through CMakeDeps, built and run."""

from __future__ import annotations

import os

from conan import ConanFile
from conan.tools.build import can_run
from conan.tools.cmake import CMake, cmake_layout

CONSUMER = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    "..",
    "..",
    "..",
    "cpp",
    "examples",
    "cmake_consumer",
)


class HockeystickTestConan(ConanFile):
    settings = "os", "arch", "compiler", "build_type"
    generators = "CMakeDeps", "CMakeToolchain"

    def requirements(self) -> None:
        self.requires(self.tested_reference_str)

    def layout(self) -> None:
        cmake_layout(self)

    def build(self) -> None:
        cmake = CMake(self)
        cmake.configure(build_script_folder=CONSUMER, variables={"HOCKEYSTICK_FROM": "package"})
        cmake.build()

    def test(self) -> None:
        if can_run(self):
            self.run(os.path.join(self.cpp.build.bindir, "consumer"), env="conanrun")
