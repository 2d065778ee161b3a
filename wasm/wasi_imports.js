// The WASI functions the language server's module imports that emscripten 3.1.6's own library
// lacks (cmake/WasmModules.cmake: --js-library). Only the link reads this file: the module
// imports them from wasi_snapshot_preview1, and its WASI host (node:wasi, VS Code's) provides
// them. The JavaScript emscripten writes beside a standalone module is not used.
mergeInto(LibraryManager.library, {
  poll_oneoff: function () {
    throw new Error('poll_oneoff comes from the WASI host');
  },
});
