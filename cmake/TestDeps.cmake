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

include(${CMAKE_CURRENT_LIST_DIR}/NpmCi.cmake)

function(_asyncfix_sarif_schema)
  set(_dir "${PROJECT_BINARY_DIR}/_deps/test-sarif")
  asyncfix_npm_ci("${PROJECT_SOURCE_DIR}/tests/sarif" "${_dir}" "the pinned SARIF 2.1.0 schema for the tests"
                  "configure with -DASYNCFIX_SARIF_SCHEMA=<file> or -DASYNCFIX_BUILD_TESTS=OFF.")
  set(_schema "${_dir}/node_modules/@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json")
  if(NOT EXISTS "${_schema}")
    message(FATAL_ERROR "asyncfix: ${_schema} is missing; delete ${_dir} and re-configure")
  endif()
  set(ASYNCFIX_SARIF_SCHEMA_FILE "${_schema}" PARENT_SCOPE)
endfunction()

if(ASYNCFIX_SARIF_SCHEMA STREQUAL "")
  _asyncfix_sarif_schema()
else()
  set(ASYNCFIX_SARIF_SCHEMA_FILE "${ASYNCFIX_SARIF_SCHEMA}")
endif()
