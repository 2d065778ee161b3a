// The loader emscripten writes for the browser link of the C API (cmake/WasmModules.cmake,
// target asyncfix_api_web); package.sh makes esbuild bundle it under this name.
declare module 'asyncfix-api-web' {
  interface AsyncfixModule {
    HEAPU8: Uint8Array;
    _malloc(size: number): number;
    _free(pointer: number): void;
    _asyncfix_version(): number;
    _asyncfix_last_error(): number;
    _asyncfix_last_error_code(): number;
    _asyncfix_string_free(pointer: number): void;
    _asyncfix_linter_new(options: number): number;
    _asyncfix_linter_free(linter: number): void;
    _asyncfix_linter_check(linter: number, src: number, len: number, path: number): number;
    _asyncfix_linter_fix(linter: number, src: number, len: number, path: number, unsafe: number, outLen: number): number;
    _asyncfix_report_free(report: number): void;
    _asyncfix_report_json(report: number): number;
  }
  function createAsyncfixModule(options: { wasmBinary: Uint8Array; print?: (s: string) => void; printErr?: (s: string) => void }): Promise<AsyncfixModule>;
  export = createAsyncfixModule;
}
