# The WebAssembly build (issue 33; the `wasm` preset, docs/wasm.md), with Debian's emscripten.
#
# Included by the top-level CMakeLists.txt when EMSCRIPTEN is set (emscripten's toolchain file).
# It stands in for the find_package() calls of a native build: nlohmann/json, CLI11 and toml++
# are header-only, so their Debian headers are used as they are, through a directory that holds
# only them (putting /usr/include itself on the path would put glibc's headers before
# emscripten's libc). No threads: every threaded path of the run and the server has a
# single-threaded one (docs/wasm.md says which), so Threads::Threads is an empty target.
#
# Module shapes (docs/wasm.md):
#   asyncfix.js + asyncfix.wasm   the CLI: emscripten's Node.js loader with NODERAWFS (the real
#                                 file system: walks, reads, atomic writes), run by wasm/asyncfix.js
#   asyncfix-lsp.wasm             the language server: a standalone WASI module (imports only
#                                 wasi_snapshot_preview1) that speaks LSP on stdin/stdout
#   libasyncfix.a                 the library, for other emscripten programs

set(ASYNCFIX_WASM_OPT "-O2" CACHE STRING "Optimization of the WebAssembly build (-O2, -O3, -Os, -Oz)")
# Exceptions are WebAssembly's own (no JavaScript round trip): a standalone WASI module can then
# throw and catch, and Node >= 16 runs them without flags.
add_compile_options(-fwasm-exceptions ${ASYNCFIX_WASM_OPT})
add_link_options(-fwasm-exceptions ${ASYNCFIX_WASM_OPT} -sALLOW_MEMORY_GROWTH=1)
# add_compile_options() reaches the targets made after it, and cmake/Grammar.cmake made
# tree-sitter's runtime and the Python grammar before this file: they were compiled without any
# -O (the build type's is cleared below), and their parse ran 5-8 times slower than native
# (bench/RESULTS.md, "Issue 33, session 7").
foreach(_target asyncfix_ts_runtime asyncfix_ts_python)
  get_target_property(_type ${_target} TYPE)
  if(NOT _type STREQUAL "INTERFACE_LIBRARY")
    target_compile_options(${_target} PRIVATE ${ASYNCFIX_WASM_OPT})
  endif()
endforeach()
# emscripten's JavaScript optimizer needs acorn, which Debian's node-acorn puts under
# /usr/share/nodejs: Debian's Node.js looks there, a Node.js from elsewhere (nodesource) does not.
set(CMAKE_CXX_LINKER_LAUNCHER ${CMAKE_COMMAND} -E env NODE_PATH=/usr/share/nodejs)
# The build type's own -O would come after ours on the command line.
foreach(_lang C CXX)
  foreach(_type RELEASE RELWITHDEBINFO MINSIZEREL)
    set(CMAKE_${_lang}_FLAGS_${_type} "-DNDEBUG")
  endforeach()
endforeach()

set(_wasm_headers "${PROJECT_BINARY_DIR}/_deps/wasm-include")
file(MAKE_DIRECTORY "${_wasm_headers}")
foreach(_dir nlohmann CLI toml++)
  if(NOT EXISTS "/usr/include/${_dir}")
    message(FATAL_ERROR "asyncfix (wasm): /usr/include/${_dir} is missing (scripts/install-deps.sh wasm)")
  endif()
  file(CREATE_LINK "/usr/include/${_dir}" "${_wasm_headers}/${_dir}" SYMBOLIC)
endforeach()
foreach(_target nlohmann_json CLI11 tomlplusplus)
  add_library(asyncfix_wasm_${_target} INTERFACE)
  target_include_directories(asyncfix_wasm_${_target} SYSTEM INTERFACE "${_wasm_headers}")
  add_library(${_target}::${_target} ALIAS asyncfix_wasm_${_target})
endforeach()
add_library(asyncfix_wasm_threads INTERFACE)
add_library(Threads::Threads ALIAS asyncfix_wasm_threads)
