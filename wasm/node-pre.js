// Put at the top of the CLI's emscripten loader (cmake/WasmModules.cmake: --pre-js), in its scope
// (Module, ENV, FS): what the native command gets from its process, the WebAssembly one gets
// from Node's.
Module['preRun'] = [function () {
  // The environment (NO_COLOR, TERM, HOME, ...) as it is, without emscripten's made-up defaults.
  for (var name of ['USER', 'LOGNAME', 'PATH', 'PWD', 'HOME', 'LANG', '_']) ENV[name] = undefined;
  Object.assign(ENV, process.env);
}];
Module['onRuntimeInitialized'] = function () {
  // The standard streams are terminals when they are (NODERAWFS says they always are): colours
  // and the like follow isatty() as in the native command.
  var tty = require('tty');
  for (var fd = 0; fd < 3; fd++) if (FS.streams[fd]) FS.streams[fd].tty = tty.isatty(fd);
};
