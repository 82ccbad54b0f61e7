# Run with cmake -P: a plain install of Kiln holds no library under TensorRT's names; the tensorrt_names component
# adds libnvinfer.so.N, libnvonnxparser.so.N and libnvinfer_plugin.so.N (and their unversioned links), and each one,
# opened by that name as NVIDIA's trtexec opens them, gives TensorRT's entry points.
function(run_step description)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${description} failed (${result}):\n${out}\n${err}")
  endif()
  message(STATUS "${description}: ok")
endfunction()

file(REMOVE_RECURSE ${SCRATCH_DIR})
set(libdir ${SCRATCH_DIR}/${LIBDIR})
run_step("install Kiln" ${CMAKE_COMMAND} --install ${KILN_BUILD_DIR} --prefix ${SCRATCH_DIR})
file(GLOB tensorrt_named ${libdir}/libnv*)
if(tensorrt_named)
  message(FATAL_ERROR "a plain install put libraries under TensorRT's names: ${tensorrt_named}")
endif()
run_step("install the tensorrt_names component"
  ${CMAKE_COMMAND} --install ${KILN_BUILD_DIR} --prefix ${SCRATCH_DIR} --component tensorrt_names)
run_step("open each library by TensorRT's name and find its entry points" ${PYTHON} -c "
import ctypes, os, sys
folder = sys.argv[1]
for names, symbol in [(('libnvinfer.so', 'libnvinfer.so.${MAJOR}'), 'createInferBuilder_INTERNAL'),
                      (('libnvonnxparser.so', 'libnvonnxparser.so.${MAJOR}'), 'createNvOnnxParser_INTERNAL'),
                      (('libnvinfer_plugin.so', 'libnvinfer_plugin.so.${MAJOR}'), 'initLibNvInferPlugins')]:
    for name in names:
        getattr(ctypes.CDLL(os.path.join(folder, name)), symbol)
" ${libdir})
