# Run with cmake -P: install, move the prefix to another folder (the package must not depend on where it was
# installed), configure the consumer against the moved prefix, build it, run it.
function(run_step description)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${description} failed (${result}):\n${out}\n${err}")
  endif()
  message(STATUS "${description}: ok")
  set(LAST_OUTPUT "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${SCRATCH_DIR})
set(prefix ${SCRATCH_DIR}/moved/prefix)
run_step("install Kiln" ${CMAKE_COMMAND} --install ${KILN_BUILD_DIR} --prefix ${SCRATCH_DIR}/installed)
file(MAKE_DIRECTORY ${SCRATCH_DIR}/moved)
file(RENAME ${SCRATCH_DIR}/installed ${prefix})
run_step("configure consumer" ${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${SCRATCH_DIR}/build
  -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${prefix})
run_step("build consumer" ${CMAKE_COMMAND} --build ${SCRATCH_DIR}/build)
run_step("run consumer" ${SCRATCH_DIR}/build/consumer)
if(NOT LAST_OUTPUT MATCHES "found ConsumerPlugin version 2 in namespace consumer.*ONNX parser version")
  message(FATAL_ERROR "consumer printed something unexpected:\n${LAST_OUTPUT}")
endif()
