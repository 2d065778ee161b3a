# Obtains and builds the tree-sitter runtime and the tree-sitter-python grammar.
#
# Default: the sources pinned in grammar/package-lock.json are fetched with `npm ci` into the build
# directory at configure time (npm verifies their sha512), and built as static C libraries.
# Packagers: ASYNCFIX_SYSTEM_TREE_SITTER=ON + ASYNCFIX_PYTHON_GRAMMAR_DIR=<dir with src/parser.c>.
#
# Result: the targets asyncfix::ts_runtime and asyncfix::ts_python.

option(ASYNCFIX_SYSTEM_TREE_SITTER "Use a system tree-sitter (>= 0.25, via pkg-config) instead of npm" OFF)
set(ASYNCFIX_PYTHON_GRAMMAR_DIR "" CACHE PATH
    "Directory of tree-sitter-python 0.23.6 (holding src/parser.c); empty = fetch it with npm")

set(_grammar_src "${PROJECT_SOURCE_DIR}/grammar")
set(_npm_dir "${PROJECT_BINARY_DIR}/_deps/grammar")

include(${CMAKE_CURRENT_LIST_DIR}/NpmCi.cmake)

if(NOT ASYNCFIX_SYSTEM_TREE_SITTER OR ASYNCFIX_PYTHON_GRAMMAR_DIR STREQUAL "")
  asyncfix_npm_ci("${_grammar_src}" "${_npm_dir}" "the pinned tree-sitter sources"
                  "configure with -DASYNCFIX_SYSTEM_TREE_SITTER=ON -DASYNCFIX_PYTHON_GRAMMAR_DIR=<dir>.")
endif()

# --- the runtime -------------------------------------------------------------------------------
if(ASYNCFIX_SYSTEM_TREE_SITTER)
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(TREE_SITTER REQUIRED IMPORTED_TARGET "tree-sitter>=0.25")
  add_library(asyncfix_ts_runtime INTERFACE)
  target_link_libraries(asyncfix_ts_runtime INTERFACE PkgConfig::TREE_SITTER)
else()
  set(_ts "${_npm_dir}/node_modules/tree-sitter/vendor/tree-sitter/lib")
  if(NOT EXISTS "${_ts}/src/lib.c")
    message(FATAL_ERROR "asyncfix: ${_ts}/src/lib.c is missing; delete ${_npm_dir} and re-configure")
  endif()
  add_library(asyncfix_ts_runtime STATIC "${_ts}/src/lib.c")
  target_include_directories(asyncfix_ts_runtime SYSTEM PUBLIC "${_ts}/include" PRIVATE "${_ts}/src")
  target_compile_definitions(asyncfix_ts_runtime PRIVATE _POSIX_C_SOURCE=200112L _DEFAULT_SOURCE)
  set_target_properties(asyncfix_ts_runtime PROPERTIES C_STANDARD 11 POSITION_INDEPENDENT_CODE ON)
  target_compile_options(asyncfix_ts_runtime PRIVATE -w)
endif()
add_library(asyncfix::ts_runtime ALIAS asyncfix_ts_runtime)

# --- the Python grammar ------------------------------------------------------------------------
if(ASYNCFIX_PYTHON_GRAMMAR_DIR STREQUAL "")
  set(_py "${_npm_dir}/node_modules/tree-sitter-python")
else()
  set(_py "${ASYNCFIX_PYTHON_GRAMMAR_DIR}")
endif()
if(NOT EXISTS "${_py}/src/parser.c")
  message(FATAL_ERROR "asyncfix: no tree-sitter-python grammar at ${_py} (src/parser.c missing)")
endif()
add_library(asyncfix_ts_python STATIC "${_py}/src/parser.c" "${_py}/src/scanner.c")
target_include_directories(asyncfix_ts_python PRIVATE "${_py}/src")
set_target_properties(asyncfix_ts_python PROPERTIES C_STANDARD 11 POSITION_INDEPENDENT_CODE ON)
target_compile_options(asyncfix_ts_python PRIVATE -w)
add_library(asyncfix::ts_python ALIAS asyncfix_ts_python)
