# The WebAssembly modules' shapes (docs/wasm.md), included by the top-level CMakeLists.txt in the
# WebAssembly build once lib/, cli/ and lsp/ have made their targets.

# The CLI: emscripten's Node.js loader (build/wasm/cli/asyncfix.js beside asyncfix.wasm) with
# NODERAWFS, so that std::filesystem walks, reads and renames the host's files as the native
# command does; the exit code is the program's. Run through wasm/asyncfix.js. The module is
# compiled synchronously from the file: the loader of emscripten 3.1.6 would otherwise pass its
# path to the fetch() that Node >= 18 has, which takes no file paths.
# wasm/cli-pre.js gives it Node's environment variables and says which streams are terminals.
target_link_options(asyncfix_cli PRIVATE -sNODERAWFS=1 -sENVIRONMENT=node -sEXIT_RUNTIME=1
                    -sWASM_ASYNC_COMPILATION=0 "SHELL:--pre-js ${PROJECT_SOURCE_DIR}/wasm/cli-pre.js")
set_property(TARGET asyncfix_cli APPEND PROPERTY LINK_DEPENDS ${PROJECT_SOURCE_DIR}/wasm/cli-pre.js)

# The language server: a standalone WASI module (imports only wasi_snapshot_preview1), which
# node:wasi and VS Code's WASI host (@vscode/wasm-wasi-lsp) run. It reads its documents over
# LSP on stdin/stdout.
# wasm/wasi_syscalls.c answers the system calls that are no WASI calls (no file is read).
set_target_properties(asyncfix_lsp_bin PROPERTIES SUFFIX ".wasm")
add_library(asyncfix_wasi_syscalls OBJECT wasm/wasi_syscalls.c)
target_compile_options(asyncfix_wasi_syscalls PRIVATE -Wall -Wextra -Wno-unused-parameter
                       $<$<BOOL:${ASYNCFIX_WERROR}>:-Werror>)
target_link_libraries(asyncfix_lsp_bin PRIVATE asyncfix_wasi_syscalls)
target_link_options(asyncfix_lsp_bin PRIVATE -sSTANDALONE_WASM=1)

if(ASYNCFIX_BUILD_TESTS)
  enable_testing()
  add_subdirectory(tests/wasm)
endif()
