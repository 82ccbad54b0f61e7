# Finds what Kiln's Python extension (python/, `import kiln.tensorrt`) needs: Python 3's interpreter and development
# files, and pybind11 (PyPI's, through tests/requirements.txt or pyproject.toml's build requirements).
# KILN_PYTHON: AUTO (the default) builds the extension when both are found, ON requires them, OFF skips it.
set(KILN_PYTHON AUTO CACHE STRING "Build the Python extension: AUTO (when Python 3 and pybind11 are found), ON or OFF")
set_property(CACHE KILN_PYTHON PROPERTY STRINGS AUTO ON OFF)

set(KILN_WITH_PYTHON OFF)
if(NOT KILN_PYTHON STREQUAL "OFF")
  set(python_required "")
  if(KILN_PYTHON STREQUAL "ON")
    set(python_required REQUIRED)
  endif()
  find_package(Python 3.8 COMPONENTS Interpreter Development.Module ${python_required})
  if(Python_FOUND AND NOT pybind11_DIR)
    # PyPI's pybind11 says where its CMake package is; Debian's would be found without the hint.
    execute_process(COMMAND ${Python_EXECUTABLE} -m pybind11 --cmakedir
      OUTPUT_VARIABLE pybind11_cmake_dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE pybind11_status)
    if(pybind11_status EQUAL 0)
      set(pybind11_DIR ${pybind11_cmake_dir} CACHE PATH "pybind11's CMake package" FORCE)
    endif()
  endif()
  if(Python_FOUND)
    find_package(pybind11 2.10 CONFIG ${python_required})
  endif()
  if(Python_FOUND AND pybind11_FOUND)
    set(KILN_WITH_PYTHON ON)
    message(STATUS "Kiln: Python extension for ${Python_EXECUTABLE} (pybind11 ${pybind11_VERSION})")
  else()
    message(STATUS "Kiln: no Python extension (Python 3 development files or pybind11 not found)")
  endif()
endif()
