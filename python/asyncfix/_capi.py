"""asyncfix's engine through its C API (lib/include/asyncfix.h), with ctypes from the standard
library: the package's own copy of the library, libasyncfix.so.<ABI> (asyncfix.dll on Windows)
beside this file, and thin
classes over its handles. Nothing here is compiled for one Python, so one package serves them all.

What the rest of the package uses: ``Linter(options_json)`` with ``check_json(src, path)`` and
``fix(src, path, unsafe)``; ``ProjectLinters(target_version, rename_style)`` with
``check_json(src, path)``; ``run(paths, options_json, fix)``; ``ConfigError``; ``rules()``;
``__version__``. Text goes in as UTF-8
(a str is encoded, bytes pass as they are) and comes back as str. Failures raise ValueError
(ConfigError for an invalid configuration file), MemoryError, or RuntimeError for a bug. ctypes
lets go of the GIL during each call, so threads lint in parallel (the library's linters may be
shared by threads); the library keeps each thread's last error apart.

Importing fails with an ImportError that names the library file when it is missing, cut off (a
segment past its end, which dlopen would find out by crashing), cannot be loaded (corrupt, or
built for another machine) or is not the ABI this file was written for.
"""

import ctypes
import os

from . import _launcher

# The C API's ASYNCFIX_ABI_VERSION these declarations follow; python/CMakeLists.txt refuses to
# configure when asyncfix.h says otherwise (check that the functions below still mean the same,
# then change it here).
ABI = 6
# Windows: asyncfix.dll (the Windows build's DLL, linked statically: it needs nothing beside it).
LIBRARY = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "asyncfix.dll" if os.name == "nt" else "libasyncfix.so.%d" % ABI)
REINSTALL = "reinstall asyncfix (pip install --force-reinstall asyncfix-*.whl)"

# asyncfix_status
_ERROR_MEMORY = 4
_ERROR_INTERNAL = 5
_ERROR_CONFIG = 6


class ConfigError(ValueError):
    """A configuration file that applies to the checked file is invalid (its file, line and
    column are in the message)."""


_c = ctypes
_HANDLE = _c.c_void_p  # asyncfix_linter *, asyncfix_report *, asyncfix_project *
_OWNED = _c.c_void_p  # char * owned by the caller: read, then asyncfix_string_free()
_TEXT = [_c.c_char_p, _c.c_size_t]  # a pointer and a length
_FUNCTIONS = {  # name: (result type, argument types)
    "asyncfix_version": (_c.c_char_p, []),
    "asyncfix_abi_version": (_c.c_int, []),
    "asyncfix_last_error": (_c.c_char_p, []),
    "asyncfix_last_error_code": (_c.c_int, []),
    "asyncfix_string_free": (None, [_OWNED]),
    "asyncfix_linter_new": (_HANDLE, [_c.c_char_p]),
    "asyncfix_linter_free": (None, [_HANDLE]),
    "asyncfix_linter_check": (_HANDLE, [_HANDLE] + _TEXT + [_c.c_char_p]),
    "asyncfix_linter_fix": (_OWNED, [_HANDLE] + _TEXT + [_c.c_char_p, _c.c_int, _c.POINTER(_c.c_size_t)]),
    "asyncfix_report_free": (None, [_HANDLE]),
    "asyncfix_report_json": (_OWNED, [_HANDLE]),
    "asyncfix_project_new": (_HANDLE, [_c.c_char_p, _c.c_char_p]),
    "asyncfix_project_free": (None, [_HANDLE]),
    "asyncfix_project_check": (_HANDLE, [_HANDLE] + _TEXT + [_c.c_char_p]),
    "asyncfix_run": (_OWNED, [_c.POINTER(_c.c_char_p), _c.c_size_t, _c.c_char_p, _c.c_int, _c.POINTER(_OWNED)]),
    "asyncfix_rule_count": (_c.c_size_t, []),
    "asyncfix_rule_code": (_c.c_char_p, [_c.c_size_t]),
    "asyncfix_rule_name": (_c.c_char_p, [_c.c_size_t]),
    "asyncfix_rule_summary": (_c.c_char_p, [_c.c_size_t]),
    "asyncfix_rule_doc": (_c.c_char_p, [_c.c_size_t]),
    "asyncfix_rule_url": (_c.c_char_p, [_c.c_size_t]),
}


def _cut_off(path):
    """How much of the ELF file at `path` is missing when its loadable segments reach past its
    end, else None (also when it is no ELF file: dlopen says what it is then)."""
    segments = _launcher.elf_segments(path)
    needed = max([offset + size for kind, offset, size in segments or [] if kind == _launcher.PT_LOAD] or [0])
    have = os.path.getsize(path)
    return "%d of the %d bytes its segments need" % (have, needed) if needed > have else None


def load(path=LIBRARY):
    """The library at `path` with every function above declared; ImportError naming it if not."""
    if not os.path.isfile(path):
        raise ImportError("asyncfix's library %s is missing; %s" % (path, REINSTALL), path=path)
    cut = _cut_off(path)
    if cut:
        raise ImportError("asyncfix's library %s is cut off (%s); %s" % (path, cut, REINSTALL), path=path)
    try:
        lib = ctypes.CDLL(path)
    except OSError as error:
        raise ImportError("asyncfix's library %s cannot be loaded (%s); %s" % (path, error, REINSTALL),
                          path=path) from None
    for name, (result, arguments) in _FUNCTIONS.items():
        try:
            function = getattr(lib, name)
        except AttributeError:
            raise ImportError("asyncfix's library %s has no function %s: it is not the library this package was "
                              "built with; %s" % (path, name, REINSTALL), path=path) from None
        function.restype = result
        function.argtypes = arguments
    abi = lib.asyncfix_abi_version()
    if abi != ABI:
        raise ImportError("asyncfix's library %s has ABI version %d, this package expects %d; %s"
                          % (path, abi, ABI, REINSTALL), path=path)
    return lib


_lib = load()
__version__ = _lib.asyncfix_version().decode("utf-8")


def _failure():
    """The exception for the last failing call on this thread."""
    code = _lib.asyncfix_last_error_code()
    message = (_lib.asyncfix_last_error() or b"unknown error").decode("utf-8", "replace")
    if code == _ERROR_CONFIG:
        return ConfigError(message)
    if code == _ERROR_MEMORY:
        return MemoryError(message)
    if code == _ERROR_INTERNAL:
        return RuntimeError(message)
    return ValueError(message)


def _text(src):
    if isinstance(src, str):
        return src.encode("utf-8")
    if isinstance(src, (bytes, bytearray, memoryview)):
        return bytes(src)
    raise TypeError("src must be str or bytes, not %s" % type(src).__name__)


def _name(value):
    """A path or setting as the C API takes it (None stays NULL)."""
    if value is None:
        return None
    value = os.fspath(value)
    return value if isinstance(value, bytes) else value.encode("utf-8", "surrogateescape")


def _take(pointer, length=None):
    """The text of a string the library returned (NULL: the call failed), released."""
    if not pointer:
        raise _failure()
    try:
        data = ctypes.string_at(pointer) if length is None else ctypes.string_at(pointer, length)
    finally:
        _lib.asyncfix_string_free(pointer)
    return data.decode("utf-8", "surrogateescape")


def _report_json(report):
    """asyncfix_report_json() of a report a check returned, which is released."""
    if not report:
        raise _failure()
    try:
        return _take(_lib.asyncfix_report_json(report))
    finally:
        _lib.asyncfix_report_free(report)


class Linter:
    """A configured set of rules (asyncfix_linter); `options_json` as the C API takes it."""

    def __init__(self, options_json=""):
        self._handle = None
        self._handle = _lib.asyncfix_linter_new(_name(options_json or None))
        if not self._handle:
            raise _failure()

    def __del__(self, _free=_lib.asyncfix_linter_free):
        if self._handle:
            _free(self._handle)
            self._handle = None

    def check_json(self, src, path="-"):
        """The CLI's JSON array of `src`'s diagnostics."""
        data = _text(src)
        return _report_json(_lib.asyncfix_linter_check(self._handle, data, len(data), _name(path)))

    def fix(self, src, path="-", unsafe=False):
        """The fixed text."""
        data = _text(src)
        length = ctypes.c_size_t()
        return _take(_lib.asyncfix_linter_fix(self._handle, data, len(data), _name(path), 1 if unsafe else 0,
                                              ctypes.byref(length)), length.value)


class ProjectLinters:
    """Settings from the configuration files nearest to each path, as the command finds them,
    with these overrides on top (asyncfix_project). For the flake8 plugin."""

    def __init__(self, target_version=None, rename_style=None):
        self._handle = None
        self._handle = _lib.asyncfix_project_new(_name(target_version), _name(rename_style))
        if not self._handle:
            raise _failure()

    def __del__(self, _free=_lib.asyncfix_project_free):
        if self._handle:
            _free(self._handle)
            self._handle = None

    def check_json(self, src, path):
        """The CLI's JSON array of `src`'s diagnostics as the file `path`; ConfigError when the
        configuration that applies to `path` is invalid."""
        data = _text(src)
        return _report_json(_lib.asyncfix_project_check(self._handle, data, len(data), _name(path)))


# asyncfix_run_mode
_RUN_CHECK = 0
_RUN_FIX = 1


def run(paths, options_json="", fix=False):
    """asyncfix_run(): ``asyncfix check --output-format json [--fix] PATHS`` in this process.
    Returns the JSON it prints and the lines it writes on stderr (a str each); ValueError for
    invalid options (problems with the files are in the lines)."""
    names = [_name(path) for path in paths]
    array = (ctypes.c_char_p * max(len(names), 1))(*names)
    messages = ctypes.c_void_p()
    json = _lib.asyncfix_run(array, len(names), _name(options_json or None), _RUN_FIX if fix else _RUN_CHECK,
                             ctypes.byref(messages))
    if not json:
        raise _failure()
    try:
        text = _take(json)
    except BaseException:
        _lib.asyncfix_string_free(messages)
        raise
    return text, _take(messages.value)


def rules():
    """Every rule, sorted by code: dicts with code, name, summary, doc (Markdown) and url."""
    out = []
    for i in range(_lib.asyncfix_rule_count()):
        out.append({key: getattr(_lib, "asyncfix_rule_" + key)(i).decode("utf-8")
                    for key in ("code", "name", "summary", "doc", "url")})
    return out
