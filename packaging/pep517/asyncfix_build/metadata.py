"""The project's metadata: pyproject.toml's [project] table (PEP 621) turned into core metadata
(METADATA, PKG-INFO) and entry_points.txt, with the version taken from CMakeLists.txt's
project() — the one place the version is written.

Only the [project] keys this project uses are understood; any other key is an error rather than
something silently left out of the wheel.
"""

import os
import re

try:
    import tomllib
except ImportError:  # Python < 3.11
    try:
        import tomli as tomllib
    except ImportError:
        tomllib = None

_KNOWN = {"name", "version", "dynamic", "description", "readme", "requires-python", "license", "keywords",
          "classifiers", "urls", "entry-points", "authors", "maintainers"}
_VERSION = re.compile(r"^project\(\s*asyncfix\s+VERSION\s+([0-9][0-9A-Za-z.+-]*)", re.M)


class MetadataError(ValueError):
    """pyproject.toml or CMakeLists.txt does not say what the wheel needs."""


class Project:
    """name, version, the [project] table, and the source directory."""

    def __init__(self, source):
        self.source = source
        path = os.path.join(source, "pyproject.toml")
        if tomllib is None:
            raise MetadataError("reading pyproject.toml needs Python >= 3.11 (tomllib) or tomli")
        with open(path, "rb") as f:
            self.table = tomllib.load(f).get("project", {})
        unknown = sorted(set(self.table) - _KNOWN)
        if unknown:
            raise MetadataError("pyproject.toml: [project] keys this backend does not handle: %s"
                                % ", ".join(unknown))
        if self.table.get("dynamic", []) != ["version"] or "version" in self.table:
            raise MetadataError("pyproject.toml: the version comes from CMakeLists.txt: "
                                "set dynamic = [\"version\"] and no version")
        self.name = self.table["name"]
        if not re.match(r"^[a-z0-9]+(-[a-z0-9]+)*$", self.name):
            raise MetadataError("pyproject.toml: name %r is not a normalized name" % self.name)
        with open(os.path.join(source, "CMakeLists.txt"), encoding="utf-8") as f:
            match = _VERSION.search(f.read())
        if not match:
            raise MetadataError("CMakeLists.txt: no `project(asyncfix VERSION x.y.z …)`")
        self.version = match.group(1)

    @property
    def distribution(self):
        """The name as wheel and sdist file names spell it."""
        return self.name.replace("-", "_")

    def metadata(self):
        """Core metadata 2.1 (the wheel's METADATA, the sdist's PKG-INFO) as text."""
        t = self.table
        lines = ["Metadata-Version: 2.1", "Name: %s" % self.name, "Version: %s" % self.version]
        if "description" in t:
            lines.append("Summary: %s" % _one_line(t["description"]))
        for key, field in (("authors", "Author-email"), ("maintainers", "Maintainer-email")):
            people = ["%s <%s>" % (p["name"], p["email"]) if "name" in p else p["email"]
                      for p in t.get(key, []) if "email" in p]
            if people:
                lines.append("%s: %s" % (field, ", ".join(people)))
        if "license" in t:
            lines.append("License: %s" % _one_line(t["license"]["text"]))
        if t.get("keywords"):
            lines.append("Keywords: %s" % ",".join(t["keywords"]))
        for classifier in t.get("classifiers", []):
            lines.append("Classifier: %s" % _one_line(classifier))
        for label, url in t.get("urls", {}).items():
            lines.append("Project-URL: %s, %s" % (_one_line(label), _one_line(url)))
        if "requires-python" in t:
            lines.append("Requires-Python: %s" % t["requires-python"])
        body = ""
        if "readme" in t:
            readme = t["readme"]
            if not isinstance(readme, str) or not readme.endswith(".md"):
                raise MetadataError("pyproject.toml: readme must name a Markdown file")
            lines.append("Description-Content-Type: text/markdown")
            with open(os.path.join(self.source, readme), encoding="utf-8") as f:
                body = f.read()
        return "\n".join(lines) + "\n\n" + body

    def entry_points(self):
        """entry_points.txt, or None when there are none."""
        groups = self.table.get("entry-points", {})
        if not groups:
            return None
        out = []
        for group, entries in groups.items():
            out.append("[%s]" % group)
            out.extend("%s = %s" % (name, target) for name, target in entries.items())
            out.append("")
        return "\n".join(out)


def _one_line(text):
    if "\n" in text or "\r" in text:
        raise MetadataError("pyproject.toml: %r must be one line" % text)
    return text
