# Obtains what the tests need from outside the repository (no third-party file is committed).
#
# The SARIF 2.1.0 JSON schema that the CLI tests validate `--output-format sarif` against: the
# package pinned in tests/sarif/package-lock.json is fetched with `npm ci` into the build directory
# at configure time (npm verifies its sha512), the same way as the grammar (cmake/Grammar.cmake).
# It ships the schema the SARIF technical committee published for 2.1.0 (sarif-2.1.0-rtm.5.json).
# Packagers and offline builds: -DASYNCFIX_SARIF_SCHEMA=<path to a SARIF 2.1.0 JSON schema>.
#
# Result: ASYNCFIX_SARIF_SCHEMA_FILE, the schema's path (CTest hands it to the CLI tests).

set(ASYNCFIX_SARIF_SCHEMA "" CACHE FILEPATH
    "SARIF 2.1.0 JSON schema for the CLI tests; empty = fetch it with npm (tests/sarif)")

function(_asyncfix_test_deps_npm_ci)
  set(_src "${PROJECT_SOURCE_DIR}/tests/sarif")
  set(_dir "${PROJECT_BINARY_DIR}/_deps/test-sarif")
  find_program(ASYNCFIX_NPM npm)
  if(NOT ASYNCFIX_NPM)
    message(FATAL_ERROR
      "asyncfix: the tests need npm to fetch the pinned SARIF schema "
      "(tests/sarif/package-lock.json).\n"
      "Install it with:  sudo apt-get install npm\n"
      "or configure with -DASYNCFIX_SARIF_SCHEMA=<file> or -DASYNCFIX_BUILD_TESTS=OFF.")
  endif()
  file(MAKE_DIRECTORY "${_dir}")
  foreach(f package.json package-lock.json .npmrc)
    configure_file("${_src}/${f}" "${_dir}/${f}" COPYONLY)
  endforeach()
  # Re-run npm ci only when the lockfile changed (idempotent, no network on re-configure).
  file(SHA256 "${_src}/package-lock.json" _lock_hash)
  set(_stamp "${_dir}/node_modules/.asyncfix-stamp")
  set(_old_hash "")
  if(EXISTS "${_stamp}")
    file(READ "${_stamp}" _old_hash)
  endif()
  if(NOT "${_old_hash}" STREQUAL "${_lock_hash}")
    message(STATUS "asyncfix: npm ci (pinned SARIF 2.1.0 schema for the tests) in ${_dir}")
    execute_process(
      COMMAND "${ASYNCFIX_NPM}" ci --ignore-scripts --no-audit --no-fund
      WORKING_DIRECTORY "${_dir}"
      RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
    if(NOT _rc EQUAL 0)
      message(FATAL_ERROR "asyncfix: `npm ci` failed in ${_dir} (exit ${_rc}):\n${_out}\n${_err}")
    endif()
    file(WRITE "${_stamp}" "${_lock_hash}")
  endif()
  set(_schema "${_dir}/node_modules/@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json")
  if(NOT EXISTS "${_schema}")
    message(FATAL_ERROR "asyncfix: ${_schema} is missing; delete ${_dir} and re-configure")
  endif()
  set(ASYNCFIX_SARIF_SCHEMA_FILE "${_schema}" PARENT_SCOPE)
endfunction()

if(ASYNCFIX_SARIF_SCHEMA STREQUAL "")
  _asyncfix_test_deps_npm_ci()
else()
  set(ASYNCFIX_SARIF_SCHEMA_FILE "${ASYNCFIX_SARIF_SCHEMA}")
endif()
