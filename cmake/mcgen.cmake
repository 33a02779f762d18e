# cmake/mcgen.cmake - compile ETW instrumentation manifests with mcgen.
#
#   include(path/to/mcgen/cmake/mcgen.cmake)
#   mcgen_add_manifest(<target> MANIFEST <file.man>
#                      [UM | KM] [BASE_NAME <name>] [OUTPUT_DIR <dir>]
#                      [OPTIONS <mc switches or mcgen options>...])
#
# Runs mcgen as mc.exe would (the header, the .rc, the message tables and
# TEMP.BIN) into OUTPUT_DIR (default: ${CMAKE_CURRENT_BINARY_DIR}/mcgen/
# <target>), at build time, whenever the manifest changes (mcgen's depfile
# tells the generator what it read).  The header directory is added to
# <target>'s include directories, and when the project has enabled the RC
# language the .rc is added to <target>'s sources, so the resources are
# linked in.  UM gives the header mc's user-mode logging code (-um); the
# default is the descriptors-only header.
#
# mcgen is looked up as MCGEN_EXECUTABLE (a cache variable; set it to a
# build tree's build/mcgen, or leave it to find_program).
#
# The list of outputs depends on the manifest's cultures, so it is read
# from mcgen --print-outputs when CMake configures, and the manifest is a
# configure dependency: adding a culture reconfigures.

find_program(MCGEN_EXECUTABLE mcgen DOC "the mcgen manifest compiler")

function(mcgen_add_manifest target)
  cmake_parse_arguments(PARSE_ARGV 1 MCGEN "UM;KM" "MANIFEST;BASE_NAME;OUTPUT_DIR" "OPTIONS")
  if(NOT MCGEN_MANIFEST)
    message(FATAL_ERROR "mcgen_add_manifest(${target}): MANIFEST is required")
  endif()
  if(NOT MCGEN_EXECUTABLE)
    message(FATAL_ERROR "mcgen_add_manifest(${target}): mcgen not found; set MCGEN_EXECUTABLE")
  endif()
  get_filename_component(manifest "${MCGEN_MANIFEST}" ABSOLUTE)
  if(NOT MCGEN_OUTPUT_DIR)
    set(MCGEN_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/mcgen/${target}")
  endif()
  set(args -h "${MCGEN_OUTPUT_DIR}" -r "${MCGEN_OUTPUT_DIR}")
  if(MCGEN_UM)
    list(APPEND args -um)
  elseif(MCGEN_KM)
    list(APPEND args -km)
  endif()
  if(MCGEN_BASE_NAME)
    list(APPEND args -z "${MCGEN_BASE_NAME}")
  endif()
  list(APPEND args ${MCGEN_OPTIONS})

  execute_process(
    COMMAND "${MCGEN_EXECUTABLE}" --print-outputs ${args} "${manifest}"
    OUTPUT_VARIABLE listed ERROR_VARIABLE err RESULT_VARIABLE rc
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "mcgen_add_manifest(${target}): ${err}")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${manifest}")
  string(REPLACE "\n" ";" outputs "${listed}")
  set(header "")
  set(rc_file "")
  foreach(f IN LISTS outputs)
    if(f MATCHES "\\.rc$")
      set(rc_file "${f}")
    elseif(NOT header)
      set(header "${f}")
    endif()
  endforeach()

  set(depfile "${MCGEN_OUTPUT_DIR}/${target}.mcgen.d")
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND "${MCGEN_EXECUTABLE}" ${args} "--depfile=${depfile}" "${manifest}"
    DEPENDS "${manifest}" "${MCGEN_EXECUTABLE}"
    DEPFILE "${depfile}"
    COMMENT "mcgen ${MCGEN_MANIFEST}"
    VERBATIM)
  add_custom_target(${target}_mcgen DEPENDS ${outputs})
  add_dependencies(${target} ${target}_mcgen)
  target_include_directories(${target} PRIVATE "${MCGEN_OUTPUT_DIR}")
  target_sources(${target} PRIVATE "${header}")
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(rc_file AND "RC" IN_LIST languages)
    target_sources(${target} PRIVATE "${rc_file}")
    # the .rc names the binaries beside it
    set_source_files_properties("${rc_file}" PROPERTIES
      OBJECT_DEPENDS "${outputs}" GENERATED TRUE)
  endif()
endfunction()
