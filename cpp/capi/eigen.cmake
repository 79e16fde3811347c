# hockeystick_find_eigen(<out>): the include directory for <unsupported/Eigen/FFT>, or "" where Eigen is absent.
# Looked for, in order: a cmeel-eigen in the building Python's environment (the wheel's build requirement,
# pyproject.toml; `python -m cmeel cmake` names its prefix), Eigen's CMake package (Eigen3::Eigen), and the
# system's include folders (Debian's libeigen3-dev: /usr/include/eigen3).
#
# pip builds each install in a new temporary environment, so a cmeel-eigen found there lies at a new path every
# time: its headers are copied into the build tree, each file rewritten only when its content changed, so that the
# compile command and the headers' times stay the same and a repeat install compiles nothing (as for pybind11's
# headers, cpp/bindings/CMakeLists.txt).
function(hockeystick_find_eigen out)
  set(hints)
  if(Python_EXECUTABLE)
    execute_process(COMMAND "${Python_EXECUTABLE}" -m cmeel cmake OUTPUT_VARIABLE cmeel_prefixes
                    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE cmeel_failed)
    if(NOT cmeel_failed AND cmeel_prefixes)
      if(NOT WIN32)
        string(REPLACE ":" ";" cmeel_prefixes "${cmeel_prefixes}")  # os.pathsep-separated
      endif()
      foreach(prefix IN LISTS cmeel_prefixes)
        list(APPEND hints ${prefix}/include)
      endforeach()
    endif()
  endif()
  find_package(Eigen3 3.3 CONFIG QUIET)
  if(TARGET Eigen3::Eigen)
    get_target_property(package_includes Eigen3::Eigen INTERFACE_INCLUDE_DIRECTORIES)
    list(APPEND hints ${package_includes})
  endif()
  find_path(HOCKEYSTICK_EIGEN_INCLUDE_DIR unsupported/Eigen/FFT HINTS ${hints} PATH_SUFFIXES eigen3)
  set(found "${HOCKEYSTICK_EIGEN_INCLUDE_DIR}")
  if(NOT found)
    set(${out} "" PARENT_SCOPE)
    return()
  endif()
  if(found MATCHES "cmeel\\.prefix" AND CMAKE_VERSION VERSION_GREATER_EQUAL 3.26)
    set(copy ${CMAKE_CURRENT_BINARY_DIR}/eigen-include)
    foreach(folder Eigen unsupported)
      execute_process(COMMAND ${CMAKE_COMMAND} -E copy_directory_if_different ${found}/${folder} ${copy}/${folder}
                      RESULT_VARIABLE copied)
      if(NOT copied EQUAL 0)
        message(FATAL_ERROR "copying Eigen's headers ${found}/${folder} into ${copy} failed: ${copied}")
      endif()
    endforeach()
    set(found ${copy})
  endif()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()
