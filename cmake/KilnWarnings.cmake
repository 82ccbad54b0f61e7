# Warnings for Kiln's own code. Plugin code from elsewhere (tests/dialects) gets
# only the warnings a plugin author would see, so that they stay representative.
function(kiln_set_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor>)
endfunction()
