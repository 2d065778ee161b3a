"""asyncfix's rules as a flake8 plugin: ``flake8 --select AF`` reports AF codes.

Registered through the ``flake8.extension`` entry point ``AF`` (see the dist-info installed next
to this package). Each file is checked with the asyncfix configuration that applies to it
(``[tool.asyncfix]`` in the nearest pyproject.toml, or asyncfix.toml / .asyncfix.toml), as the
``asyncfix`` command does; ``--asyncfix-target-version`` and ``--asyncfix-rename-style`` (also in
flake8's configuration as ``asyncfix-target-version = py38``) win over it. A configuration error
is reported once per file as ``AF000``.

flake8 stops at a file's first SyntaxError (E999) before any plugin runs, and ``async=True`` is
one on Python >= 3.7 — exactly what asyncfix explains. So while this plugin is loaded, a file
whose syntax error asyncfix reports a finding on (on the same line) is checked as if it parsed
(with an empty tree for the other tree plugins): its AF diagnostics replace E999. Any other
syntax error still gives E999.
"""

import ast
import json

from . import _capi

_options = {}
_state = {}


def _project():
    """The linters for the files flake8 checks (configuration files + flake8's options)."""
    if "project" not in _state:
        _state["project"] = _capi.ProjectLinters(_options.get("target-version"), _options.get("rename-style"))
    return _state["project"]


def _linter():
    """asyncfix's defaults (with flake8's options): what decides whether a SyntaxError is ours."""
    if "default" not in _state:
        _state["default"] = _capi.Linter(json.dumps(_options))
    return _state["default"]


def _explained_by_asyncfix(source, lineno):
    """True when asyncfix reports a finding on line ``lineno`` of ``source`` (whatever its
    severity: with a py35/py36 target the findings are warnings, yet the running Python cannot
    parse the line)."""
    try:
        found = json.loads(_linter().check_json(source, "-"))
    except ValueError:
        return False
    return any(d["location"]["row"] == lineno for d in found)


def _install_syntax_error_bridge():
    try:
        from flake8.processor import FileProcessor
    except ImportError:  # not running under flake8
        return
    original = FileProcessor.build_ast
    if getattr(original, "_asyncfix_bridge", False):
        return

    def build_ast(self):
        try:
            return original(self)
        except SyntaxError as error:
            if error.lineno and _explained_by_asyncfix("".join(self.lines), error.lineno):
                return ast.Module(body=[], type_ignores=[])
            raise

    build_ast._asyncfix_bridge = True
    FileProcessor.build_ast = build_ast


_install_syntax_error_bridge()


class Plugin:
    """The flake8 checker: runs asyncfix over the file's lines."""

    name = "asyncfix"
    version = _capi.__version__

    def __init__(self, tree, filename, lines):
        self.filename = filename
        self.lines = lines

    @classmethod
    def add_options(cls, manager):
        manager.add_option("--asyncfix-target-version", parse_from_config=True, default=None,
                           help="asyncfix: the Python version to target, py35 … py314 (default py38)")
        manager.add_option("--asyncfix-rename-style", parse_from_config=True, default=None,
                           help="asyncfix: async_ (default), is_async, or a template such as {name}_flag")

    @classmethod
    def parse_options(cls, options):
        _options.clear()
        if options.asyncfix_target_version:
            _options["target-version"] = options.asyncfix_target_version
        if options.asyncfix_rename_style:
            _options["rename-style"] = options.asyncfix_rename_style
        _state.clear()
        _project()  # report invalid options now, once

    def run(self):
        source = "".join(self.lines)
        path = self.filename if self.filename and self.filename not in ("-", "stdin") else "-"
        try:
            found = json.loads(_project().check_json(source, path))
        except _capi.ConfigError as error:
            yield 1, 0, f"AF000 asyncfix configuration error: {error}", type(self)
            return
        except ValueError:
            return  # not UTF-8 or a NUL byte: flake8 reports that itself
        for d in found:
            # flake8 columns are 0-based offsets; asyncfix's are 1-based code points.
            yield (d["location"]["row"], d["location"]["column"] - 1,
                   f"{d['code']} {d['message']}", type(self))
