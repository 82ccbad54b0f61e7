# Decides whether the CUDA backend is built (KILN_CUDA = AUTO | ON | OFF).
# AUTO turns it on when nvcc, cuDNN and cuBLAS are all found. No GPU is needed to build.
set(KILN_WITH_CUDA OFF)
if(NOT KILN_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  check_language(CUDA)
  set(_kiln_cuda_missing "")
  if(CMAKE_CUDA_COMPILER)
    find_package(CUDAToolkit QUIET)
  endif()
  if(NOT CMAKE_CUDA_COMPILER)
    list(APPEND _kiln_cuda_missing "nvcc")
  elseif(NOT CUDAToolkit_FOUND)
    list(APPEND _kiln_cuda_missing "the CUDA toolkit")
  elseif(NOT TARGET CUDA::cublas OR NOT TARGET CUDA::cublasLt)
    list(APPEND _kiln_cuda_missing "cuBLAS")
  endif()
  find_path(KILN_CUDNN_INCLUDE_DIR cudnn.h
    HINTS ${CUDAToolkit_INCLUDE_DIRS} /usr/include/x86_64-linux-gnu /usr/include)
  find_library(KILN_CUDNN_LIBRARY cudnn
    HINTS ${CUDAToolkit_LIBRARY_DIR} /usr/lib/x86_64-linux-gnu)
  if(NOT KILN_CUDNN_INCLUDE_DIR OR NOT KILN_CUDNN_LIBRARY)
    list(APPEND _kiln_cuda_missing "cuDNN")
  endif()

  if(_kiln_cuda_missing STREQUAL "")
    set(KILN_WITH_CUDA ON)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      # Hopper (the GPU machines) natively, plus PTX that later GPUs can compile.
      set(CMAKE_CUDA_ARCHITECTURES 90)
    endif()
    # C++17 for CUDA sources: nvcc and g++ agree on it everywhere, and CMake versions before 3.26 do not know
    # the flag for nvcc's C++20 (the rest of Kiln is C++20).
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    # The shared CUDA runtime, which libkiln's C++ code links too (CUDA::cudart): CMake's default for targets with
    # CUDA sources adds the static one, and with it a second runtime in the process and the C++ library parts that
    # libcudart_static.a holds, which libkiln then exported. A Python process (where libkiln is not in the global
    # scope) bound cuDNN's std::call_once to two copies of them and crashed.
    set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)
    # CMake's CUDA::cublas still brings a static archive (libculibos.a): what Kiln's libraries take from a static
    # archive stays inside them instead of joining their exported symbols.
    string(APPEND CMAKE_SHARED_LINKER_FLAGS " -Wl,--exclude-libs,ALL")
    string(APPEND CMAKE_MODULE_LINKER_FLAGS " -Wl,--exclude-libs,ALL")
    enable_language(CUDA)
    add_library(kiln_cudnn INTERFACE)
    target_include_directories(kiln_cudnn INTERFACE ${KILN_CUDNN_INCLUDE_DIR})
    target_link_libraries(kiln_cudnn INTERFACE ${KILN_CUDNN_LIBRARY})
  elseif(KILN_CUDA STREQUAL "ON")
    message(FATAL_ERROR "KILN_CUDA=ON but these are missing: ${_kiln_cuda_missing}")
  else()
    message(STATUS "Kiln: CUDA backend off (missing: ${_kiln_cuda_missing})")
  endif()
endif()
message(STATUS "Kiln: CUDA backend ${KILN_WITH_CUDA}")
