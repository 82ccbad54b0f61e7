# Decides whether the CPU backend's fast path is built (KILN_ONEDNN = AUTO | ON | OFF): oneDNN (Debian's
# libdnnl-dev, its 2.x API) runs convolution, matrix multiply, pooling and the common element-wise layers.
# Without it every CPU layer runs on the reference kernels, and plans built for the fast path still run.
# The library is found directly: Debian's dnnl-config.cmake also demands OpenCL's development files, for oneDNN's
# GPU runtime, which Kiln does not use.
set(KILN_ONEDNN AUTO CACHE STRING "Build the CPU backend's oneDNN fast path: AUTO (when oneDNN 2 is found), ON or OFF")
set_property(CACHE KILN_ONEDNN PROPERTY STRINGS AUTO ON OFF)
set(KILN_WITH_ONEDNN OFF)
if(NOT KILN_ONEDNN STREQUAL "OFF")
  find_path(KILN_ONEDNN_INCLUDE_DIR oneapi/dnnl/dnnl_version.h)
  find_library(KILN_ONEDNN_LIBRARY dnnl)
  set(_kiln_onednn_major "")
  if(KILN_ONEDNN_INCLUDE_DIR)
    file(STRINGS "${KILN_ONEDNN_INCLUDE_DIR}/oneapi/dnnl/dnnl_version.h" _kiln_onednn_version
      REGEX "#define DNNL_VERSION_MAJOR [0-9]+")
    string(REGEX REPLACE ".* ([0-9]+)$" "\\1" _kiln_onednn_major "${_kiln_onednn_version}")
  endif()
  if(KILN_ONEDNN_LIBRARY AND _kiln_onednn_major STREQUAL "2")
    find_package(OpenMP REQUIRED COMPONENTS CXX)
    set(KILN_WITH_ONEDNN ON)
    add_library(kiln_onednn INTERFACE IMPORTED)
    target_include_directories(kiln_onednn INTERFACE ${KILN_ONEDNN_INCLUDE_DIR})
    target_link_libraries(kiln_onednn INTERFACE ${KILN_ONEDNN_LIBRARY} OpenMP::OpenMP_CXX)
    message(STATUS "Kiln: the CPU fast path uses oneDNN (${KILN_ONEDNN_LIBRARY})")
  elseif(KILN_ONEDNN STREQUAL "ON")
    message(FATAL_ERROR "KILN_ONEDNN=ON, but oneDNN 2 was not found (install libdnnl-dev: scripts/install-deps.sh)")
  else()
    message(WARNING "Kiln: oneDNN 2 not found: the CPU backend runs its reference kernels only "
      "(install libdnnl-dev: scripts/install-deps.sh)")
  endif()
endif()
