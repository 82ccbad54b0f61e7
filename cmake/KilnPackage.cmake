# Installs Kiln as a CMake package: find_package(Kiln CONFIG REQUIRED), then link
# Kiln::kiln (and Kiln::plugins, Kiln::onnxparser), after which <NvInfer.h> and <NvOnnxParser.h> work as with
# TensorRT.
include(CMakePackageConfigHelpers)

# Installed programs and libraries find Kiln's libraries through a run path relative to their own folder ($ORIGIN),
# so an installed prefix works wherever it is moved (cmake/KilnRunPath.cmake: how, and why not CMake's usual way).
# Folders of libraries linked from outside the build tree (CUDA's, where the loader does not search by default) are
# kept as absolute run paths after it.
function(kiln_install_relative_run_path target destination)
  set(from ${destination})
  set(to ${CMAKE_INSTALL_LIBDIR})
  cmake_path(ABSOLUTE_PATH from BASE_DIRECTORY ${CMAKE_INSTALL_PREFIX} NORMALIZE)
  cmake_path(ABSOLUTE_PATH to BASE_DIRECTORY ${CMAKE_INSTALL_PREFIX} NORMALIZE)
  file(RELATIVE_PATH relative ${from} ${to})
  string(REGEX REPLACE "/$" "" relative "${relative}")
  if(IS_ABSOLUTE ${CMAKE_INSTALL_LIBDIR})
    set(rpath ${CMAKE_INSTALL_LIBDIR}) # a library folder outside the prefix does not move with it
  elseif(relative STREQUAL "")
    set(rpath "$ORIGIN")
  else()
    set(rpath "$ORIGIN/${relative}")
  endif()
  kiln_install_run_path(${target} ${destination} "${rpath}")
endfunction()

install(TARGETS kiln kiln_plugins kiln_onnxparser EXPORT KilnTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS kiln_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
foreach(library kiln kiln_plugins kiln_onnxparser)
  kiln_install_relative_run_path(${library} ${CMAKE_INSTALL_LIBDIR})
endforeach()
kiln_install_relative_run_path(kiln_cli ${CMAKE_INSTALL_BINDIR})
# TensorRT's names for Kiln's three libraries (libnvinfer.so.10 and libnvinfer.so for libkiln, and the same for the
# ONNX parser and the plugin collection), as symbolic links beside them, for software built for TensorRT that links
# -lnvinfer or opens libnvinfer.so.10 by name (NVIDIA's trtexec does). A plain install leaves them out, since a
# machine may have TensorRT itself; `cmake --install build --prefix P --component tensorrt_names` adds them.
file(STRINGS ${PROJECT_SOURCE_DIR}/include/NvInferVersion.h major_line REGEX "#define TRT_MAJOR_ENTERPRISE [0-9]+")
string(REGEX MATCH "[0-9]+$" KILN_TENSORRT_MAJOR "${major_line}")
foreach(pair IN ITEMS "kiln:nvinfer" "kiln_onnxparser:nvonnxparser" "kiln_plugins:nvinfer_plugin")
  string(REPLACE ":" ";" pair "${pair}")
  list(GET pair 0 target)
  list(GET pair 1 name)
  set(versioned lib${name}.so.${KILN_TENSORRT_MAJOR})
  install(CODE "
    set(folder \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}\")
    file(CREATE_LINK $<TARGET_SONAME_FILE_NAME:${target}> \"\${folder}/${versioned}\" SYMBOLIC)
    file(CREATE_LINK ${versioned} \"\${folder}/lib${name}.so\" SYMBOLIC)"
    COMPONENT tensorrt_names EXCLUDE_FROM_ALL)
endforeach()

# Triton's backend (triton/): <prefix>/backends/kiln/libtriton_kiln.so, so that the prefix's backends folder is what
# `tritonserver --backend-directory` takes.
if(KILN_WITH_TRITON)
  install(TARGETS triton_kiln LIBRARY DESTINATION backends/kiln)
  kiln_install_relative_run_path(triton_kiln backends/kiln)
endif()

# The main job's example, so that the installed kiln runs as the README's first command runs the built one:
#   <prefix>/bin/kiln --onnx=<prefix>/share/kiln/examples/default_model/model.onnx \
#     --staticPlugins=<prefix>/lib/kiln/libkiln_seed_plugins.so
# The seed plugin library is loaded by path (--staticPlugins, IPluginRegistry::loadLibrary), so it goes in a folder
# of its own under the library folder, not beside the libraries applications link.
set(KILN_EXAMPLE_PLUGIN_DIR ${CMAKE_INSTALL_LIBDIR}/kiln)
install(TARGETS kiln_seed_plugins LIBRARY DESTINATION ${KILN_EXAMPLE_PLUGIN_DIR})
kiln_install_relative_run_path(kiln_seed_plugins ${KILN_EXAMPLE_PLUGIN_DIR})
install(FILES ${PROJECT_SOURCE_DIR}/examples/default_model/model.onnx
  DESTINATION ${CMAKE_INSTALL_DATADIR}/kiln/examples/default_model)

set(KILN_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Kiln)
install(EXPORT KilnTargets NAMESPACE Kiln:: DESTINATION ${KILN_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/KilnConfig.cmake.in
  ${PROJECT_BINARY_DIR}/KilnConfig.cmake INSTALL_DESTINATION ${KILN_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/KilnConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/KilnConfig.cmake ${PROJECT_BINARY_DIR}/KilnConfigVersion.cmake
  DESTINATION ${KILN_CMAKE_DIR})
