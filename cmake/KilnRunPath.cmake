# Run paths (RUNPATH) of the programs and libraries that Kiln installs.
#
# CMake's usual way to give a target one run path in the build tree and another once installed is to rewrite it in
# place at install time; to make room, it links the build tree's copy with its run path followed by ':' separators
# (always one, more when the installed run path is longer). Each empty entry is read by the loader as the current
# directory, so a library planted where a built program was run (a libgomp.so.1, say) was loaded by it. Instead,
# these targets are linked with one run path (BUILD_WITH_INSTALL_RPATH: no padding), naming the build tree's library
# folders, and the installed copy's Kiln part is replaced after it is copied (file(RPATH_CHANGE)). Folders of
# libraries from outside the build tree that the loader does not search by default (CUDA's) follow, absolute, in both
# (INSTALL_RPATH_USE_LINK_PATH). tests/package/check_run_paths.py checks every ELF file of the build and of an install.

# The folders of Kiln's shared libraries in the build tree, as a list of generator expressions, and an estimate of
# the length they take in a run path (the folders as configured; a multi-config generator's are longer).
function(kiln_build_tree_run_path entries_var length_var first_length_var)
  set(entries "")
  set(length 0)
  set(first_length 0)
  foreach(library kiln kiln_plugins kiln_onnxparser)
    list(APPEND entries "$<TARGET_FILE_DIR:${library}>")
    get_target_property(folder ${library} LIBRARY_OUTPUT_DIRECTORY)
    if(NOT folder)
      get_target_property(folder ${library} BINARY_DIR)
    endif()
    string(LENGTH "${folder}" folder_length)
    math(EXPR length "${length} + ${folder_length} + 1")
    if(first_length EQUAL 0)
      set(first_length ${folder_length})
    endif()
  endforeach()
  set(${entries_var} "${entries}" PARENT_SCOPE)
  set(${length_var} ${length} PARENT_SCOPE)
  set(${first_length_var} ${first_length} PARENT_SCOPE)
endfunction()

# kiln_install_run_path(<target> <destination> <run path> [COMPONENT <component>])
# After install(TARGETS <target> ... DESTINATION <destination>): links <target> with the build tree's run path and
# makes the installed copy's Kiln part <run path> (e.g. "$ORIGIN/../lib").
function(kiln_install_run_path target destination run_path)
  cmake_parse_arguments(ARG "" "COMPONENT" "" ${ARGN})
  kiln_build_tree_run_path(entries length padding_length)
  # The installed run path replaces the build tree's in place, so the build tree's must be at least as long: in a
  # build folder with a very short name, it is lengthened with absolute spellings of the same folder ("dir/.").
  string(LENGTH "${run_path}:" needed)
  list(GET entries 0 padding)
  while(length LESS needed)
    string(APPEND padding "/.")
    list(APPEND entries "${padding}")
    math(EXPR padding_length "${padding_length} + 2")
    math(EXPR length "${length} + ${padding_length} + 1")
  endwhile()
  set_target_properties(${target} PROPERTIES
    BUILD_WITH_INSTALL_RPATH ON INSTALL_RPATH "${entries}" INSTALL_RPATH_USE_LINK_PATH ON)
  string(JOIN ":" old_run_path ${entries})
  set(component "")
  if(ARG_COMPONENT)
    set(component COMPONENT ${ARG_COMPONENT})
  endif()
  set(folder "\${CMAKE_INSTALL_PREFIX}/${destination}")
  if(IS_ABSOLUTE "${destination}")
    set(folder "${destination}")
  endif()
  install(CODE "file(RPATH_CHANGE FILE \"\$ENV{DESTDIR}${folder}/$<TARGET_FILE_NAME:${target}>\"
    OLD_RPATH \"${old_run_path}\" NEW_RPATH \"${run_path}\")" ${component})
endfunction()
