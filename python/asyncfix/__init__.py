"""asyncfix: find and fix Python code broken by Python 3.7's ``async``/``await`` keywords.

    >>> import asyncfix
    >>> asyncfix.check("x.cuda(async=True)\\n")[0]["code"]
    'AF101'
    >>> asyncfix.fix("x.cuda(async=True)\\n")
    'x.cuda(non_blocking=True)\\n'

Options are the configuration file's keys, with ``_`` for ``-``: ``select``, ``ignore``,
``extend_select``, ``target_version``, ``rename_style``, ``unsafe_fixes``, ``severity``,
``per_file_ignores``, ``renames``. A list of codes may also be given as one comma-separated
string. Invalid options or input raise ``ValueError`` (``asyncfix.Error``).

Files and directories on disk are checked (and fixed) as the ``asyncfix`` command does it, with
their configuration files and all the files seen together, by ``check_paths``.
"""

import json as _json
import os as _os
import warnings as _warnings

from . import _launcher

try:
    from . import _capi
except ImportError as _error:
    if not _launcher.running_as_main():  # `python -m asyncfix` runs the command, which does without
        raise ImportError(_launcher.import_error_message(_error)) from _error
    _capi = None

__version__ = getattr(_capi, "__version__", None)
__all__ = ["Error", "Linter", "RunError", "check", "check_paths", "fix", "rules", "__version__"]

Error = ValueError


class RunError(ValueError):
    """``check_paths`` met paths or files it could not use (the command exits 2 then). The run
    went on without them: ``diagnostics`` holds its findings, ``messages`` its ``error: …`` lines
    (the first is the exception's message), and with ``fix=True`` the other files were fixed."""

    def __init__(self, messages, diagnostics):
        super().__init__(messages[0] if len(messages) == 1 else "%s (and %d more)" % (messages[0], len(messages) - 1))
        self.messages = messages
        self.diagnostics = diagnostics

_LIST_KEYS = {"select", "ignore", "extend-select"}


def _options_json(options):
    table = {}
    for key, value in options.items():
        if value is None:
            continue
        key = key.replace("_", "-")
        if key in _LIST_KEYS and isinstance(value, str):
            value = [code.strip() for code in value.split(",") if code.strip()]
        elif key in _LIST_KEYS:
            value = list(value)
        table[key] = value
    return _json.dumps(table)


class Linter:
    """A configured set of rules; make one per configuration and reuse it (thread-safe)."""

    def __init__(self, **options):
        self._native = _capi.Linter(_options_json(options))

    def check(self, src, path="-"):
        """The diagnostics of ``src`` (str or UTF-8 bytes) as a list of dicts, each exactly an
        object of ``asyncfix check --output-format json``."""
        return _json.loads(self._native.check_json(src, path))

    def fix(self, src, path="-", unsafe=False):
        """``src`` with its safe fixes applied (and unsafe ones with ``unsafe=True``)."""
        return self._native.fix(src, path, unsafe)


def check(src, path="-", **options):
    """The diagnostics of ``src`` as a list of dicts (see ``Linter.check``)."""
    return Linter(**options).check(src, path)


def fix(src, path="-", unsafe=False, **options):
    """``src`` with its fixes applied (see ``Linter.fix``)."""
    return Linter(**options).fix(src, path, unsafe)


def check_paths(paths, *, fix=False, **options):
    """The diagnostics of the files and directories ``paths`` (a path, or a list of them; relative
    to the current directory; none: ``"."``) as ``asyncfix check --output-format json PATHS``
    reports them: a list of dicts in path order. It is the command's own run: directories are
    walked with ``exclude`` and ``.gitignore``, each file takes the configuration file nearest to
    it, and the files are seen together (a parameter renamed across files, a module named
    ``async`` renamed with its importers).

    With ``fix=True`` the files are fixed on disk as ``asyncfix check --fix`` fixes them (unsafe
    fixes too with ``unsafe_fixes=True``, or where a configuration file says so), and the list
    holds what remains. Options are the command's flags, with ``_`` for ``-``: ``select``,
    ``extend_select``, ``ignore``, ``target_version``, ``rename_style``, ``unsafe_fixes``
    (``False``: none, whatever the files say), ``respect_gitignore``, ``docs_url``, ``config`` (one
    configuration file for every file), ``isolated`` (no configuration files) and ``jobs`` (worker
    threads; 0: one per processor).

    Invalid options raise ``ValueError``; paths or files that could not be used raise
    ``RunError`` after the run; a fix the run did not apply is a ``RuntimeWarning``."""
    if isinstance(paths, (str, bytes)) or hasattr(paths, "__fspath__"):
        paths = [paths]
    if "config" in options and options["config"] is not None:
        options["config"] = _os.fsdecode(options["config"])
    text, messages = _capi.run(list(paths), _options_json(options), fix)
    diagnostics = _json.loads(text)
    errors = []
    for line in messages.splitlines():
        if line.startswith("error: "):
            errors.append(line[len("error: "):])
        else:
            _warnings.warn(line[len("warning: "):] if line.startswith("warning: ") else line, RuntimeWarning,
                           stacklevel=2)
    if errors:
        raise RunError(errors, diagnostics)
    return diagnostics


def rules():
    """Every rule, sorted by code: dicts with code, name, summary, doc and url."""
    return _capi.rules()
