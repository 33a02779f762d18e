# cmake/mcgen.cmake - compile ETW instrumentation manifests and message-text
# files with mcgen as a build step.
#
#   find_package(mcgen REQUIRED)                 # an installed mcgen, or
#   include(path/to/mcgen/cmake/mcgen.cmake)     # a source tree's
#
#   mcgen_add_manifest(<target> [MANIFEST <file.man>...] [MC <file.mc>...]
#                      [UM | KM] [BASE_NAME <name>] [OUTPUT_DIR <dir>]
#                      [NO_RESOURCES] [OPTIONS <mc switches or mcgen options>...])
#
# Each call compiles at build time, as mc.exe would: one MANIFEST and one MC
# together in one run (mc's `mc app.man msgs.mc`: both headers, one .rc, and
# message tables holding both files' messages), otherwise every file in a run
# of its own.  A run writes into OUTPUT_DIR (default ${CMAKE_CURRENT_BINARY_DIR}
# /mcgen/<target>/<base>, <base> the name of its .mc, else of its manifest,
# or BASE_NAME; with OUTPUT_DIR and several runs, OUTPUT_DIR/<base>), so two
# manifests' MSG00001.bin never meet.  Call it as often as you like for one
# target.  Each run's directory is added to <target>'s include path.  UM gives
# the headers mc's user-mode logging code (-um), KM the kernel-mode one; the
# default is the descriptors-only header.
#
# Resources: with the RC language enabled, the .rc of the target's first run
# is added to its sources, so its message tables and WEVT_TEMPLATE are linked
# in.  Only one: Windows looks up resource 1 of each type (FormatMessage, the
# event log), and GNU ld merges two .rc's resources of the same id into a
# broken .rsrc with nothing but a warning.  Later runs give their headers only,
# and CMake warns when it configures unless the call says NO_RESOURCES (which
# also keeps a call's .rc out when it would be the first).  A
# program that needs a manifest's events and a .mc's messages in one binary
# compiles them together (one MANIFEST and one MC in one call).
#
# Nothing runs when CMake configures: no manifest is read then, so a typo in
# one fails the build with mcgen's own `file:line:col: error:` line (which
# IDEs parse), and editing a manifest never re-runs CMake's configure step.
# The names CMake must know (the headers and the .rc) follow from the file
# names alone; the message tables' names depend on the manifest's cultures or
# the .mc's LanguageNames, so CMake is not told them: after mcgen, a second
# command (this file in script mode) writes <base>.mcgen-tables, a digest of
# every output rewritten only when one of them changed, which the .rc's object
# depends on.  mcgen's --depfile names what each run read, so an edit (or a
# --templates template's) re-runs it and a second build has nothing to do.
# The cost: the tables are neither OUTPUT nor BYPRODUCTS (`clean` leaves them,
# and another rule cannot name them), and -z/-e belong in BASE_NAME, not
# OPTIONS, since CMake must know the header's and the .rc's names.
#
# mcgen is MCGEN_EXECUTABLE (a cache variable: mcgen-config.cmake sets it to
# the installed bin/mcgen; otherwise find_program, or set it, e.g. to a build
# tree's build/mcgen).  It need not exist when CMake configures.
# CMake 3.20 or later (DEPFILE with the Ninja and Makefile generators).

cmake_minimum_required(VERSION 3.20)

if(CMAKE_SCRIPT_MODE_FILE AND DEFINED MCGEN_RAW_DEPFILE)
  # The step after mcgen: cmake -DMCGEN_RAW_DEPFILE=... -DMCGEN_DEPFILE=...
  # -DMCGEN_TABLES=... -DMCGEN_STAMP=... -P mcgen.cmake.  mcgen's depfile
  # names every output (the tables too); CMake's names only the first OUTPUT,
  # as the generators want, with mcgen's inputs.
  file(READ "${MCGEN_RAW_DEPFILE}" rule)
  string(ASCII 1 space)
  string(ASCII 2 colon)
  string(REPLACE "\\ " "${space}" rule "${rule}")
  string(REPLACE "\\:" "${colon}" rule "${rule}")
  string(FIND "${rule}" ":" sep)
  string(SUBSTRING "${rule}" 0 ${sep} targets)
  math(EXPR sep "${sep} + 1")
  string(SUBSTRING "${rule}" ${sep} -1 inputs)
  string(REPLACE "${space}" "\\ " inputs "${inputs}")
  string(REPLACE "${colon}" "\\:" inputs "${inputs}")
  string(REPLACE " " "\\ " stamp_rule "${MCGEN_STAMP}")
  string(REPLACE ":" "\\:" stamp_rule "${stamp_rule}")
  string(REPLACE "$" "$$" stamp_rule "${stamp_rule}")
  set(rule "${stamp_rule}:${inputs}")
  string(REPLACE "\\#" "#" targets "${targets}")
  string(REPLACE "$$" "$" targets "${targets}")
  string(STRIP "${targets}" targets)
  string(REPLACE " " ";" targets "${targets}")
  set(digest "")
  foreach(f IN LISTS targets)
    string(REPLACE "${space}" " " f "${f}")
    string(REPLACE "${colon}" ":" f "${f}")
    if(EXISTS "${f}")
      file(SHA256 "${f}" sum)
      string(APPEND digest "${sum}  ${f}\n")
    endif()
  endforeach()
  foreach(pair "MCGEN_TABLES;digest" "MCGEN_DEPFILE;rule")
    list(GET pair 0 file)
    list(GET pair 1 text)
    set(old "")
    if(EXISTS "${${file}}")
      file(READ "${${file}}" old)
    endif()
    if(NOT old STREQUAL "${${text}}")
      file(WRITE "${${file}}" "${${text}}")
    endif()
  endforeach()
  # make has no restat: the first OUTPUT is dated by every run
  file(TOUCH "${MCGEN_STAMP}")
  return()
endif()

if(NOT MCGEN_EXECUTABLE)
  find_program(MCGEN_EXECUTABLE mcgen DOC "the mcgen manifest compiler")
endif()
set_property(GLOBAL PROPERTY MCGEN_CMAKE_FILE "${CMAKE_CURRENT_LIST_FILE}")

# One mcgen run of mcgen_add_manifest: `manifest` and/or `mc` (absolute),
# into `dir`; the caller's MCGEN_* arguments are in scope.
function(_mcgen_run target manifest mc dir)
  set(args -h "${dir}" -r "${dir}")
  if(MCGEN_UM)
    list(APPEND args -um)
  elseif(MCGEN_KM)
    list(APPEND args -km)
  endif()
  set(headers "")
  if(MCGEN_BASE_NAME)
    list(APPEND args -z "${MCGEN_BASE_NAME}")
  endif()
  foreach(input IN ITEMS "${manifest}" "${mc}")
    if(input)
      get_filename_component(base "${input}" NAME_WLE)
      set(rc_base "${base}")
      if(MCGEN_BASE_NAME)
        set(base "${MCGEN_BASE_NAME}")
        set(rc_base "${MCGEN_BASE_NAME}")
      endif()
      list(APPEND headers "${dir}/${base}.h")
    endif()
  endforeach()
  # BASE_NAME for a manifest and a .mc names both headers alike: mcgen
  # refuses that when it runs, CMake must not see one OUTPUT twice first
  list(REMOVE_DUPLICATES headers)
  list(APPEND args ${MCGEN_OPTIONS})

  get_property(used GLOBAL PROPERTY MCGEN_OUTPUT_DIRS)
  if("${dir}" IN_LIST used)
    message(FATAL_ERROR "mcgen_add_manifest(${target}): a second run into ${dir}; "
                        "give it another BASE_NAME or OUTPUT_DIR")
  endif()
  set_property(GLOBAL APPEND PROPERTY MCGEN_OUTPUT_DIRS "${dir}")

  get_filename_component(name "${dir}" NAME)
  set(stamp "${dir}/${name}.mcgen-stamp")
  set(tables "${dir}/${name}.mcgen-tables")
  set(rc_file "${dir}/${rc_base}.rc")
  set(inputs "")
  foreach(input IN ITEMS "${manifest}" "${mc}")
    if(input)
      list(APPEND inputs "${input}")
    endif()
  endforeach()
  set(tool_dep "")
  if(IS_ABSOLUTE "${MCGEN_EXECUTABLE}")
    set(tool_dep "${MCGEN_EXECUTABLE}")
  endif()
  get_property(script GLOBAL PROPERTY MCGEN_CMAKE_FILE)
  file(RELATIVE_PATH shown "${CMAKE_BINARY_DIR}" "${dir}")
  add_custom_command(
    OUTPUT "${stamp}" ${headers} "${rc_file}" "${tables}"
    COMMAND "${MCGEN_EXECUTABLE}" ${args} "--depfile=${dir}/${name}.mcgen-raw.d" ${inputs}
    COMMAND "${CMAKE_COMMAND}" "-DMCGEN_RAW_DEPFILE=${dir}/${name}.mcgen-raw.d"
            "-DMCGEN_DEPFILE=${dir}/${name}.mcgen.d" "-DMCGEN_TABLES=${tables}"
            "-DMCGEN_STAMP=${stamp}" -P "${script}"
    DEPENDS ${inputs} ${tool_dep}
    DEPFILE "${dir}/${name}.mcgen.d"
    COMMENT "mcgen ${shown}"
    VERBATIM)
  target_include_directories(${target} PRIVATE "${dir}")
  target_sources(${target} PRIVATE ${headers})

  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  get_property(has_rc TARGET ${target} PROPERTY MCGEN_RESOURCES SET)
  if(NOT MCGEN_NO_RESOURCES AND has_rc AND "RC" IN_LIST languages)
    get_property(first TARGET ${target} PROPERTY MCGEN_RESOURCES)
    file(RELATIVE_PATH first "${CMAKE_BINARY_DIR}" "${first}")
    message(WARNING "mcgen_add_manifest(${target}): ${shown}'s message tables and "
                    "WEVT_TEMPLATE are not linked into ${target}: it links ${first}'s, "
                    "and a module holds one resource 1 of each type; compile the two "
                    "as one manifest, link them into separate modules, or pass "
                    "NO_RESOURCES to say that only the header is wanted")
  endif()
  if(NOT MCGEN_NO_RESOURCES AND NOT has_rc AND "RC" IN_LIST languages)
    set_property(TARGET ${target} PROPERTY MCGEN_RESOURCES "${rc_file}")
    target_sources(${target} PRIVATE "${rc_file}")
    # the .rc names the tables and TEMP.BIN beside it; the digest stands
    # for them
    set_source_files_properties("${rc_file}" PROPERTIES
      OBJECT_DEPENDS "${tables}" GENERATED TRUE)
  endif()
endfunction()

function(mcgen_add_manifest target)
  cmake_parse_arguments(PARSE_ARGV 1 MCGEN "UM;KM;NO_RESOURCES" "BASE_NAME;OUTPUT_DIR"
                        "MANIFEST;MC;OPTIONS")
  if(MCGEN_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "mcgen_add_manifest(${target}): unknown arguments ${MCGEN_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT MCGEN_MANIFEST AND NOT MCGEN_MC)
    message(FATAL_ERROR "mcgen_add_manifest(${target}): MANIFEST or MC is required")
  endif()
  if(NOT MCGEN_EXECUTABLE)
    message(FATAL_ERROR "mcgen_add_manifest(${target}): mcgen not found; set MCGEN_EXECUTABLE")
  endif()
  set(runs "")
  list(LENGTH MCGEN_MANIFEST n_man)
  list(LENGTH MCGEN_MC n_mc)
  if(n_man LESS_EQUAL 1 AND n_mc LESS_EQUAL 1)
    list(APPEND runs "${MCGEN_MANIFEST}|${MCGEN_MC}")
  else()
    if(MCGEN_BASE_NAME)
      message(FATAL_ERROR "mcgen_add_manifest(${target}): BASE_NAME names one run's outputs, "
                          "and these files are ${n_man} + ${n_mc} runs")
    endif()
    foreach(f IN LISTS MCGEN_MANIFEST)
      list(APPEND runs "${f}|")
    endforeach()
    foreach(f IN LISTS MCGEN_MC)
      list(APPEND runs "|${f}")
    endforeach()
  endif()
  list(LENGTH runs n_runs)
  foreach(run IN LISTS runs)
    string(REPLACE "|" ";" pair "${run}|")
    list(GET pair 0 manifest)
    list(GET pair 1 mc)
    foreach(v manifest mc)
      if(${v})
        get_filename_component(${v} "${${v}}" ABSOLUTE)
      endif()
    endforeach()
    if(mc)
      get_filename_component(base "${mc}" NAME_WLE)
    else()
      get_filename_component(base "${manifest}" NAME_WLE)
    endif()
    if(MCGEN_BASE_NAME)
      set(base "${MCGEN_BASE_NAME}")
    endif()
    if(MCGEN_OUTPUT_DIR AND n_runs EQUAL 1)
      get_filename_component(dir "${MCGEN_OUTPUT_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
    elseif(MCGEN_OUTPUT_DIR)
      get_filename_component(dir "${MCGEN_OUTPUT_DIR}/${base}" ABSOLUTE
                             BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
    else()
      set(dir "${CMAKE_CURRENT_BINARY_DIR}/mcgen/${target}/${base}")
    endif()
    _mcgen_run(${target} "${manifest}" "${mc}" "${dir}")
  endforeach()
endfunction()
