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
"""

import json as _json

from . import _launcher

try:
    from . import _capi
except ImportError as _error:
    if not _launcher.running_as_main():  # `python -m asyncfix` runs the command, which does without
        raise ImportError(_launcher.import_error_message(_error)) from _error
    _capi = None

__version__ = getattr(_capi, "__version__", None)
__all__ = ["Error", "Linter", "check", "fix", "rules", "__version__"]

Error = ValueError

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


def rules():
    """Every rule, sorted by code: dicts with code, name, summary, doc and url."""
    return _capi.rules()
