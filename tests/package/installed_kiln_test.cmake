# Run with cmake -P: install Kiln into a scratch prefix, move the prefix to another folder, and run the installed
# kiln from there on the installed default model, as the README's first command runs the built one. The installed
# files must find each other through their relative run paths alone: the original prefix is gone, and the loader's
# search path (LD_LIBRARY_PATH) is cleared.
function(run_step description)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${description} failed (${result}):\n${out}\n${err}")
  endif()
  message(STATUS "${description}: ok")
  set(LAST_OUTPUT "${out}" PARENT_SCOPE)
endfunction()

# Each installed ELF file's run path must be relative ($ORIGIN) and name nothing in the build tree.
function(check_run_path file)
  if(NOT READELF)
    message(STATUS "readelf not found: run path of ${file} not checked")
    return()
  endif()
  run_step("read the dynamic section of ${file}" ${READELF} -d ${file})
  string(REGEX MATCH "(RUNPATH|RPATH)[^\n]*\\[([^]\n]*)\\]" found "${LAST_OUTPUT}")
  set(run_path "${CMAKE_MATCH_2}")
  if(NOT run_path MATCHES "^\\$ORIGIN")
    message(FATAL_ERROR "${file}: its run path [${run_path}] does not start with $ORIGIN")
  endif()
  string(FIND "${run_path}" "${KILN_BUILD_DIR}" in_build_tree)
  if(NOT in_build_tree EQUAL -1)
    message(FATAL_ERROR "${file}: its run path [${run_path}] names the build tree ${KILN_BUILD_DIR}")
  endif()
endfunction()

file(REMOVE_RECURSE ${SCRATCH_DIR})
set(installed ${SCRATCH_DIR}/installed)
set(moved ${SCRATCH_DIR}/moved/elsewhere)
run_step("install Kiln" ${CMAKE_COMMAND} --install ${KILN_BUILD_DIR} --prefix ${installed})
file(MAKE_DIRECTORY ${SCRATCH_DIR}/moved)
file(RENAME ${installed} ${moved})
message(STATUS "moved the prefix to ${moved}")

set(kiln ${moved}/${BINDIR}/kiln)
set(plugins ${moved}/${LIBDIR}/kiln/libkiln_seed_plugins.so)
set(model ${moved}/${DATADIR}/kiln/examples/default_model/model.onnx)
foreach(file ${kiln} ${plugins} ${moved}/${LIBDIR}/libkiln.so ${moved}/${LIBDIR}/libkiln_plugins.so
    ${moved}/${LIBDIR}/libkiln_onnxparser.so)
  if(NOT EXISTS ${file})
    message(FATAL_ERROR "the install has no ${file}")
  endif()
  check_run_path(${file})
endforeach()

# Every installed ELF file: no empty or relative run path entry, and none inside the build tree.
if(PYTHON)
  run_step("check the run paths of every installed ELF file"
    ${PYTHON} ${CHECK_RUN_PATHS} ${moved} --installed ${KILN_BUILD_DIR})
endif()

run_step("run the installed kiln on the default model"
  ${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH
    ${kiln} --onnx=${model} --staticPlugins=${plugins} --compare=cpu)
if(NOT LAST_OUTPUT MATCHES "&&&& PASSED")
  message(FATAL_ERROR "the installed kiln did not pass:\n${LAST_OUTPUT}")
endif()
