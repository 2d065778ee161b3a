// Put at the top of the emscripten loaders of the CLI and of the JavaScript API
// (cmake/WasmModules.cmake: --pre-js), in their scope (Module, ENV, FS): what the native
// command gets from its process, the WebAssembly one gets from Node's.
Module['preRun'] = [function () {
  // The environment (NO_COLOR, TERM, HOME, ...) as it is, without emscripten's made-up defaults.
  for (var name of ['USER', 'LOGNAME', 'PATH', 'PWD', 'HOME', 'LANG', '_']) ENV[name] = undefined;
  Object.assign(ENV, process.env);
  // The running program is the module, not Node.js: /proc/self/exe names a file beside the
  // loader (dist/asyncfix, dist/asyncfix-api), so that the manual found beside the program
  // (lib/src/files/docs_location.cpp) is the package's share/doc/asyncfix, or the build tree's.
  var readlink = FS.readlink;
  FS.readlink = function (path) {
    if (path === '/proc/self/exe') return require('path').join(__dirname, require('path').basename(__filename, '.js'));
    return readlink(path);
  };
}];
Module['onRuntimeInitialized'] = function () {
  // The standard streams are terminals when they are (NODERAWFS says they always are): colours
  // and the like follow isatty() as in the native command.
  var tty = require('tty');
  for (var fd = 0; fd < 3; fd++) if (FS.streams[fd]) FS.streams[fd].tty = tty.isatty(fd);
};
