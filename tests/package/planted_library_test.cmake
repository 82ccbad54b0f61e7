# Run with cmake -P: plants a library under the names of Kiln's dependencies in a scratch directory, then runs the
# built kiln (and, where given, `import kiln.tensorrt`) from that directory. Neither may load it: a run path with an
# empty or relative entry would (cmake/KilnRunPath.cmake). Loaded, its constructor leaves planted_library_ran behind,
# or the loader fails on the symbols it lacks; either fails this test.
file(REMOVE_RECURSE ${SCRATCH_DIR})
file(MAKE_DIRECTORY ${SCRATCH_DIR})
foreach(name libgomp.so.1 libstdc++.so.6 libdnnl.so.2)
  file(COPY_FILE ${PLANTED} ${SCRATCH_DIR}/${name})
endforeach()

function(run_from_scratch description)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH ${ARGN}
    WORKING_DIRECTORY ${SCRATCH_DIR} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(EXISTS ${SCRATCH_DIR}/planted_library_ran)
    message(FATAL_ERROR "${description} loaded the library planted in its working directory ${SCRATCH_DIR}:\n${err}")
  endif()
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${description} failed (${result}) in ${SCRATCH_DIR}:\n${out}\n${err}")
  endif()
  message(STATUS "${description}: the planted library was not loaded")
endfunction()

run_from_scratch("kiln --help" ${KILN} --help)
if(PYTHON AND PYTHON_PACKAGE_DIR)
  run_from_scratch("import kiln.tensorrt" ${CMAKE_COMMAND} -E env PYTHONPATH=${PYTHON_PACKAGE_DIR}
    ${PYTHON} -c "import kiln.tensorrt")
endif()
