# What each of Kiln's shared libraries exports. Without a version script a library exports every symbol its objects
# define, the standard library's and nlohmann::json's template instances, oneDNN's and CUB's among them, and a plugin
# or application linking it could bind to Kiln's copies of those. kiln_export_only(<target>) links <target> with a
# version script made from cmake/exports/<target>.api: the API listed there as version KILN_1, Kiln's own internals
# (namespace kiln) as KILN_PRIVATE for Kiln's parser, tools, Python module and tests, nothing else.
# tests/package/check_exports.py checks each built library against its list.

# ld reads a quoted name as itself, never as a pattern; in patterns a '?' stands for each space.
set(KILN_MANGLED_FORMS "typeinfo?for?" "typeinfo?name?for?" "vtable?for?" "VTT?for?" "non-virtual?thunk?to?"
  "virtual?thunk?to?" "guard?variable?for?")

# The version script's patterns for every symbol of namespace or class `scope`.
function(kiln_scope_patterns scope out)
  set(patterns "      ${scope}::*;")
  foreach(form IN LISTS KILN_MANGLED_FORMS)
    string(APPEND patterns "\n      ${form}${scope}::*;")
  endforeach()
  set(${out} "${patterns}" PARENT_SCOPE)
endfunction()

function(kiln_export_only target)
  set(api ${PROJECT_SOURCE_DIR}/cmake/exports/${target}.api)
  file(STRINGS ${api} lines REGEX "^[^#]")
  set(entry_points "")
  kiln_scope_patterns(kiln cpp_private)
  set(cpp_public "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^namespace (.+)$")
      kiln_scope_patterns(${CMAKE_MATCH_1} patterns)
      string(APPEND cpp_public "${patterns}\n")
    elseif(line MATCHES "^function (.+)$")
      # Its name followed by its parameters ('(' or an ABI tag's '['): ld takes neither in a pattern, so '?' stands
      # for them, and a longer name matches too; check_exports.py refuses any such name not listed.
      string(APPEND cpp_public "      ${CMAKE_MATCH_1}?*;\n")
    elseif(line MATCHES "^class (.+)$")
      set(class ${CMAKE_MATCH_1})
      string(APPEND cpp_public "      ${class}::*;\n")
      foreach(form "typeinfo for " "typeinfo name for " "vtable for ")
        string(APPEND cpp_public "      \"${form}${class}\";\n")
      endforeach()
    else()
      string(APPEND entry_points "    ${line};\n")
    endif()
  endforeach()
  # Where a symbol matches patterns of both nodes, ld gives it the later node's version: the API's.
  set(map ${CMAKE_CURRENT_BINARY_DIR}/${target}.map)
  file(WRITE ${map} "/* Made by cmake/KilnExports.cmake from ${api}. */\n"
    "KILN_PRIVATE {\n  global:\n    extern \"C++\" {\n${cpp_private}\n    };\n  local: *;\n};\n\n"
    "KILN_1 {\n  global:\n${entry_points}    extern \"C++\" {\n${cpp_public}    };\n};\n")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${api})
  target_link_options(${target} PRIVATE "LINKER:--version-script=${map}")
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${map})
endfunction()
