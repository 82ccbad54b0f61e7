# Runs the default model's generator and fails unless it writes the checked-in model.onnx byte for byte.
execute_process(COMMAND ${GENERATOR} ${OUTPUT} RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${GENERATOR} failed (${result})")
endif()
file(SHA256 ${OUTPUT} generated)
file(SHA256 ${EXPECTED} expected)
if(NOT generated STREQUAL expected)
  message(FATAL_ERROR "examples/default_model/model.onnx differs from what generate_model writes; "
    "regenerate it: kiln_default_model_generator examples/default_model/model.onnx")
endif()
