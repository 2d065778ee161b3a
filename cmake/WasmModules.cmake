# The WebAssembly modules' shapes (docs/wasm.md), included by the top-level CMakeLists.txt in the
# WebAssembly build once lib/, cli/ and lsp/ have made their targets.

# wasm/bulk_memory.c: memcpy, memmove and memset as single instructions, in place of libc's loops,
# in every module (the CLI, the server and both API modules; docs/wasm.md).
add_library(asyncfix_wasm_bulk_memory OBJECT wasm/bulk_memory.c)
target_compile_options(asyncfix_wasm_bulk_memory PRIVATE -mbulk-memory -Wall -Wextra $<$<BOOL:${ASYNCFIX_WERROR}>:-Werror>)
target_link_libraries(asyncfix_cli PRIVATE asyncfix_wasm_bulk_memory)
target_link_libraries(asyncfix_lsp_bin PRIVATE asyncfix_wasm_bulk_memory)

# The CLI: emscripten's Node.js loader (build/wasm/cli/asyncfix.js beside asyncfix.wasm) with
# NODERAWFS, so that std::filesystem walks, reads and renames the host's files as the native
# command does; the exit code is the program's. Run through wasm/asyncfix.js. The module is
# compiled synchronously from the file: the loader of emscripten 3.1.6 would otherwise pass its
# path to the fetch() that Node >= 18 has, which takes no file paths.
# wasm/node-pre.js gives it Node's environment variables and says which streams are terminals.
target_link_options(asyncfix_cli PRIVATE -sNODERAWFS=1 -sENVIRONMENT=node -sEXIT_RUNTIME=1
                    -sWASM_ASYNC_COMPILATION=0 "SHELL:--pre-js ${PROJECT_SOURCE_DIR}/wasm/node-pre.js")
set_property(TARGET asyncfix_cli APPEND PROPERTY LINK_DEPENDS ${PROJECT_SOURCE_DIR}/wasm/node-pre.js)

# The language server: a standalone WASI module (imports only wasi_snapshot_preview1), which
# node:wasi and VS Code's WASI host (@vscode/wasm-wasi-lsp) run. It reads its documents over
# LSP on stdin/stdout.
# wasm/wasi_syscalls.c answers the system calls that are no WASI calls (no file is read), and
# poll() with WASI's poll_oneoff.
set_target_properties(asyncfix_lsp_bin PROPERTIES SUFFIX ".wasm")
add_library(asyncfix_wasi_syscalls OBJECT wasm/wasi_syscalls.c)
target_compile_options(asyncfix_wasi_syscalls PRIVATE -Wall -Wextra -Wno-unused-parameter
                       $<$<BOOL:${ASYNCFIX_WERROR}>:-Werror>)
target_link_libraries(asyncfix_lsp_bin PRIVATE asyncfix_wasi_syscalls)
# wasm/wasi_imports.js names the WASI calls that emscripten's library lacks (poll_oneoff).
target_link_options(asyncfix_lsp_bin PRIVATE -sSTANDALONE_WASM=1 "SHELL:--js-library ${PROJECT_SOURCE_DIR}/wasm/wasi_imports.js")
set_property(TARGET asyncfix_lsp_bin APPEND PROPERTY LINK_DEPENDS ${PROJECT_SOURCE_DIR}/wasm/wasi_imports.js)

if(ASYNCFIX_BUILD_TESTS)
  enable_testing()
  add_subdirectory(tests/wasm)
endif()

# The JavaScript API (wasm/index.js): the C API of asyncfix.h, exported as it is from a module
# with emscripten's Node.js loader (MODULARIZE: wasm/index.js makes an instance when first
# needed, and a new one after a trap). NODERAWFS for asyncfix_run(), which walks and fixes files
# on disk as the CLI does; the rest of the API reads no file. The loader must leave the host
# process alone: no handlers for uncaught exceptions or rejections, no exit.
add_executable(asyncfix_api wasm/api.c)
target_link_libraries(asyncfix_api PRIVATE asyncfix asyncfix_wasm_bulk_memory)
set_target_properties(asyncfix_api PROPERTIES OUTPUT_NAME asyncfix-api SUFFIX ".js")
target_link_options(asyncfix_api PRIVATE --no-entry -sMODULARIZE=1 -sEXPORT_NAME=createAsyncfixModule
                    -sENVIRONMENT=node -sNODERAWFS=1 -sWASM_ASYNC_COMPILATION=0
                    -sNODEJS_CATCH_EXIT=0 -sNODEJS_CATCH_REJECTION=0
                    "-sEXPORTED_FUNCTIONS=@${PROJECT_SOURCE_DIR}/wasm/api_exports.txt"
                    "SHELL:--pre-js ${PROJECT_SOURCE_DIR}/wasm/node-pre.js")
set_property(TARGET asyncfix_api APPEND PROPERTY LINK_DEPENDS ${PROJECT_SOURCE_DIR}/wasm/api_exports.txt
             ${PROJECT_SOURCE_DIR}/wasm/node-pre.js)
# In a directory of its own, beside cli/ and lsp/: the manual beside it is <build>/share/doc/asyncfix.
set_target_properties(asyncfix_api PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/api)

# The same C API linked for the browser (the VS Code extension's `browser` entry point,
# editors/vscode/src/web/): emscripten's loader for a page or a Web Worker, with its in-memory
# file system, where the library's look for the manual beside it finds nothing (-sFILESYSTEM=0
# makes that look abort). No asyncfix_run(): wasm/browser_exports.txt leaves it out.
# The loader is bundled into the web extension, which reads the .wasm itself and passes it as
# `wasmBinary`, so nothing is fetched by URL. Outputs: <build>/api-web/asyncfix-api-web.{js,wasm}.
add_executable(asyncfix_api_web wasm/api.c)
target_link_libraries(asyncfix_api_web PRIVATE asyncfix asyncfix_wasm_bulk_memory)
set_target_properties(asyncfix_api_web PROPERTIES OUTPUT_NAME asyncfix-api-web SUFFIX ".js"
                      RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/api-web)
target_link_options(asyncfix_api_web PRIVATE --no-entry -sMODULARIZE=1 -sEXPORT_NAME=createAsyncfixModule
                    -sENVIRONMENT=web,worker
                    "-sEXPORTED_FUNCTIONS=@${PROJECT_SOURCE_DIR}/wasm/browser_exports.txt")
set_property(TARGET asyncfix_api_web APPEND PROPERTY LINK_DEPENDS ${PROJECT_SOURCE_DIR}/wasm/browser_exports.txt)
# The build tree's manual, as packaging/CMakeLists.txt links it for the native build: the rule
# pages the modules link to (docs_location.cpp finds share/doc/asyncfix beside <build>/cli).
file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/share/doc)
file(CREATE_LINK ${PROJECT_SOURCE_DIR}/docs ${PROJECT_BINARY_DIR}/share/doc/asyncfix SYMBOLIC COPY_ON_ERROR)

# The npm package (`--target npm_package`): wasm/ with the modules in dist/, packed by `npm pack`
# as <build>/asyncfix-<version>.tgz (docs/wasm.md). wasm/pack.sh stages it in <build>/npm/.
find_program(ASYNCFIX_NPM npm)
if(ASYNCFIX_NPM)
  add_custom_target(npm_package
    COMMAND "${PROJECT_SOURCE_DIR}/wasm/pack.sh" "${PROJECT_BINARY_DIR}/npm" "${PROJECT_BINARY_DIR}"
            "$<TARGET_FILE:asyncfix_cli>" "$<TARGET_FILE:asyncfix_lsp_bin>" "$<TARGET_FILE:asyncfix_api>"
    DEPENDS asyncfix_cli asyncfix_lsp_bin asyncfix_api
    COMMENT "Packing the npm package"
    USES_TERMINAL VERBATIM)
endif()
