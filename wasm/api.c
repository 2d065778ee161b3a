// wasm/api.c — the module of the JavaScript API (wasm/index.js) is the C API of
// lib/include/asyncfix.h as it stands: cmake/WasmModules.cmake links libasyncfix.a into
// asyncfix-api.wasm and exports the functions wasm/index.js calls. A target needs a source file;
// this one adds nothing to the C API.
#include "asyncfix.h"
