# SPDX-License-Identifier: MIT
# Read by cpack (CPACK_PROJECT_CONFIG_FILE, through the generated cpack_project_config.cmake) before
# it packages: the Debian package's Depends, computed by dpkg-shlibdeps over the built programs as
# debhelper's ${shlibs:Depends} would be, plus KS_PACKAGE_EXTRA_DEPENDS (what is needed but not
# linked). LibTorch and the CUDA runtime come from a Python torch installation and belong to no
# Debian package, so their missing dependency information is ignored here; the launcher
# (app/cli_launcher.cpp) checks them on every start.
if(NOT CPACK_GENERATOR STREQUAL "DEB")
    return()
endif()
find_program(KS_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(NOT KS_DPKG_SHLIBDEPS)
    message(FATAL_ERROR "cpack -G DEB computes the package's dependencies with dpkg-shlibdeps, which is "
                        "missing: apt-get install dpkg-dev")
endif()
# dpkg-shlibdeps wants to run in a source package: an empty debian/control is enough.
file(MAKE_DIRECTORY "${KS_SHLIBDEPS_DIR}/debian")
file(WRITE "${KS_SHLIBDEPS_DIR}/debian/control" "")
execute_process(COMMAND "${KS_DPKG_SHLIBDEPS}" -O --ignore-missing-info ${KS_PACKAGED_PROGRAMS}
                WORKING_DIRECTORY "${KS_SHLIBDEPS_DIR}"
                OUTPUT_VARIABLE _out ERROR_VARIABLE _err RESULT_VARIABLE _rc OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT _rc EQUAL 0 OR NOT _out MATCHES "^shlibs:Depends=")
    message(FATAL_ERROR "dpkg-shlibdeps failed (${_rc}) on ${KS_PACKAGED_PROGRAMS}:\n${_err}")
endif()
string(REGEX REPLACE "^shlibs:Depends=" "" _deps "${_out}")
set(CPACK_DEBIAN_PACKAGE_DEPENDS "${_deps}, ${KS_PACKAGE_EXTRA_DEPENDS}")
message(STATUS "kernelsieve Depends: ${CPACK_DEBIAN_PACKAGE_DEPENDS}")
