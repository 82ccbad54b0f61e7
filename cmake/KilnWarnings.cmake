# Warnings for Kiln's own code. Plugin code from elsewhere (tests/dialects) gets
# only the warnings a plugin author would see, so that they stay representative.
#
# KILN_WERROR turns those warnings into errors (scripts/build.sh, and so CI, sets it). It is off by default so that
# a newer compiler with new warnings does not stop users from building a release.
option(KILN_WERROR "Treat warnings in Kiln's own code as errors" OFF)

function(kiln_set_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor>)
  # COMPILE_WARNING_AS_ERROR gives g++ -Werror and nvcc "-Werror all-warnings". For .cu files that covers nvcc's
  # own front end (where the warnings about CUDA sources come from); host-compiler flags passed with -Xcompiler
  # would see only nvcc's generated code. `cmake --compile-no-warning-error` switches it off for one build.
  if(KILN_WERROR)
    set_target_properties(${target} PROPERTIES COMPILE_WARNING_AS_ERROR ON)
  endif()
endfunction()
