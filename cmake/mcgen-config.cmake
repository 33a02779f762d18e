# cmake/mcgen-config.cmake - find_package(mcgen) for an installed mcgen.
#
# Installed as <prefix>/lib/cmake/mcgen/mcgen-config.cmake beside mcgen.cmake
# and mcgen-config-version.cmake (which gives mcgen_VERSION).  It sets
# MCGEN_EXECUTABLE to <prefix>/bin/mcgen (bin/mcgen.exe on a Windows host),
# found from this file's own directory so that a tree moved elsewhere or
# unpacked from a zip still works, unless the user set MCGEN_EXECUTABLE, and
# includes mcgen.cmake, which defines mcgen_add_manifest().  Without the
# program, find_package reports mcgen as not found.

get_filename_component(_mcgen_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(CMAKE_HOST_WIN32)
  set(_mcgen_exe "${_mcgen_prefix}/bin/mcgen.exe")
else()
  set(_mcgen_exe "${_mcgen_prefix}/bin/mcgen")
endif()
if(NOT MCGEN_EXECUTABLE)
  if(EXISTS "${_mcgen_exe}")
    set(MCGEN_EXECUTABLE "${_mcgen_exe}" CACHE FILEPATH "the mcgen manifest compiler")
  else()
    set(mcgen_FOUND FALSE)
    set(mcgen_NOT_FOUND_MESSAGE "${_mcgen_exe} is missing (or set MCGEN_EXECUTABLE)")
    unset(_mcgen_prefix)
    unset(_mcgen_exe)
    return()
  endif()
endif()
unset(_mcgen_prefix)
unset(_mcgen_exe)
include("${CMAKE_CURRENT_LIST_DIR}/mcgen.cmake")
