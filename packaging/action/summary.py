#!/usr/bin/env python3
"""The GitHub Action's job summary: what `asyncfix check --output-format json` found, as Markdown
appended to $GITHUB_STEP_SUMMARY — counts per rule, the files, and the first findings with links
to the lines — because GitHub shows only 10 annotations per step and 50 per job.

    summary.py --report asyncfix.json --exit-code 1 [--max-findings 30] [--max-files 100]

Links are $GITHUB_SERVER_URL/$GITHUB_REPOSITORY/blob/$GITHUB_SHA/<path>#L<row>, for files inside
$GITHUB_WORKSPACE (paths in the report are relative to the working directory). Also writes
`findings` and `fixable` to $GITHUB_OUTPUT. Without those variables it prints to stdout and
links nothing. Standard library only.
"""

import argparse
import collections
import json
import os
import sys
import urllib.parse

# $GITHUB_STEP_SUMMARY takes at most 1 MiB per step; stay well below.
MAX_BYTES = 512 * 1024
_MD_SPECIAL = set("\\`*_[]<>|~&")  # what changes meaning inside a line


def md_text(text):
    """`text` shown literally in Markdown (a path, a name), on one line."""
    text = " ".join(str(text).splitlines())
    return "".join("\\" + c if c in _MD_SPECIAL else c for c in text)


def md_message(message):
    """A diagnostic message: its `code spans` kept, the rest shown literally."""
    parts = " ".join(message.splitlines()).split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: no code spans at all
        return md_text(message)
    out = []
    for i, part in enumerate(parts):
        out.append(("`" + part.replace("|", "\\|") + "`") if i % 2 else md_text(part))
    return "".join(out)


class Links:
    """Blob URLs for report paths, when the GitHub variables say where the files are."""

    def __init__(self, env, cwd):
        server, repo, sha = env.get("GITHUB_SERVER_URL"), env.get("GITHUB_REPOSITORY"), env.get("GITHUB_SHA")
        self.base = "%s/%s/blob/%s/" % (server.rstrip("/"), repo, sha) if server and repo and sha else None
        self.workspace = os.path.realpath(env.get("GITHUB_WORKSPACE") or cwd)
        self.cwd = cwd

    def path(self, filename):
        """The repository-relative path of a report path, or None when it is outside the workspace."""
        full = os.path.realpath(os.path.join(self.cwd, filename))
        rel = os.path.relpath(full, self.workspace)
        if rel == os.curdir or rel.startswith(os.pardir + os.sep) or rel == os.pardir:
            return None
        return rel.replace(os.sep, "/")

    def url(self, filename, row=None, end_row=None):
        rel = self.path(filename)
        if self.base is None or rel is None:
            return None
        url = self.base + urllib.parse.quote(rel, safe="/")
        if row:
            url += "#L%d" % row
            if end_row and end_row > row:
                url += "-L%d" % end_row
        return url


def link(text, url):
    return "[%s](%s)" % (text, url) if url else text


def position(d):
    loc = d.get("location") or {}
    where = "%s:%s" % (loc.get("row", "?"), loc.get("column", "?"))
    return ("cell %s:%s" % (d["cell"], where)) if "cell" in d else where


def fixability(d):
    fix = d.get("fix") or {}
    return fix.get("applicability")


def render(report, exit_code, links, max_findings=30, max_files=100):
    """The summary's Markdown for the diagnostics in `report` (a list of dicts)."""
    lines = []
    files = collections.Counter(d["filename"] for d in report)
    safe = sum(1 for d in report if fixability(d) == "safe")
    unsafe = sum(1 for d in report if fixability(d) == "unsafe")
    if not report:
        lines.append("### asyncfix: no findings" if exit_code != 2 else "### asyncfix: no findings, but errors")
    else:
        lines.append("### asyncfix: %d finding%s in %d file%s" % (len(report), "" if len(report) == 1 else "s",
                                                               len(files), "" if len(files) == 1 else "s"))
    lines.append("")
    if exit_code == 2:
        lines += ["asyncfix exited with code 2: a file could not be read, decoded or written, or the "
                  "configuration or arguments are invalid. The step's log says which.", ""]
    if safe or unsafe:
        text = "%d can be fixed with `asyncfix check --fix`" % safe if safe else "None can be fixed safely"
        if unsafe:
            text += "; %d more with `--unsafe-fixes`" % unsafe
        lines += [text + ".", ""]
    if not report:
        return "\n".join(lines) + "\n"

    rules = collections.OrderedDict()
    for d in sorted(report, key=lambda d: d["code"]):
        entry = rules.setdefault(d["code"], {"name": d.get("name", ""), "url": d.get("url"), "count": 0,
                                             "safe": 0, "unsafe": 0})
        entry["count"] += 1
        kind = fixability(d)
        if kind in ("safe", "unsafe"):
            entry[kind] += 1
    lines += ["| Rule | Name | Findings | Fixable |", "| --- | --- | ---: | ---: |"]
    for code, r in rules.items():
        fixable = str(r["safe"]) + (" (+%d unsafe)" % r["unsafe"] if r["unsafe"] else "")
        lines.append("| %s | %s | %d | %s |" % (link(md_text(code), r["url"]), md_text(r["name"]), r["count"], fixable))
    lines.append("")

    shown_files = sorted(files)[:max_files]
    lines += ["<details><summary>Files (%d)</summary>" % len(files), "", "| File | Findings |", "| --- | ---: |"]
    for name in shown_files:
        lines.append("| %s | %d |" % (link(md_text(name), links.url(name)), files[name]))
    if len(files) > len(shown_files):
        lines.append("| and %d more | |" % (len(files) - len(shown_files)))
    lines += ["", "</details>", ""]

    first = report[:max_findings]
    lines.append("**First %d finding%s** (of %d):" % (len(first), "" if len(first) == 1 else "s", len(report))
                 if len(first) < len(report) else "**Findings:**")
    lines.append("")
    for d in first:
        loc, end = d.get("location") or {}, d.get("end_location") or {}
        # A notebook's rows count within a cell: link the file, not a line of its JSON.
        url = links.url(d["filename"]) if "cell" in d else links.url(d["filename"], loc.get("row"), end.get("row"))
        mark = {"safe": " [\\*]", "unsafe": " [unsafe fix]"}.get(fixability(d), "")
        lines.append("- %s **%s**%s %s" % (link(md_text("%s:%s" % (d["filename"], position(d))), url),
                                           md_text(d["code"]), mark, md_message(d.get("message", ""))))
    lines.append("")
    if len(report) > 10:
        lines += ["> GitHub shows at most 10 annotations per step and 50 per job. Run `asyncfix check` "
                  "locally for the full list, or upload the SARIF report (the `sarif-file` input) to code "
                  "scanning.", ""]
    return "\n".join(lines) + "\n"


def _clip(text, limit=MAX_BYTES):
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    cut = data[:limit].decode("utf-8", "ignore")
    cut = cut[:cut.rfind("\n") + 1]
    return cut + "\n_(summary cut at %d KiB)_\n" % (limit // 1024)


def main(argv=None, env=None, cwd=None):
    env = os.environ if env is None else env
    cwd = os.getcwd() if cwd is None else cwd
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--report", required=True, help="asyncfix check --output-format json output")
    parser.add_argument("--exit-code", type=int, default=0, help="asyncfix's exit code (2: errors)")
    parser.add_argument("--max-findings", type=int, default=30)
    parser.add_argument("--max-files", type=int, default=100)
    args = parser.parse_args(argv)

    try:
        with open(args.report, encoding="utf-8") as f:
            text = f.read()
        report = json.loads(text) if text.strip() else None
    except (OSError, ValueError) as error:
        print("summary: cannot read %s: %s" % (args.report, error), file=sys.stderr)
        return 2
    if report is None:
        if args.exit_code != 2:
            print("summary: %s is empty, but asyncfix did not fail" % args.report, file=sys.stderr)
            return 2
        report = []  # asyncfix stopped before reporting (a usage error): the summary says so
    if not isinstance(report, list) or not all(isinstance(d, dict) and "filename" in d and "code" in d
                                               for d in report):
        print("summary: %s is not asyncfix's JSON output (a list of diagnostics)" % args.report, file=sys.stderr)
        return 2

    markdown = _clip(render(report, args.exit_code, Links(env, cwd), max(0, args.max_findings),
                            max(0, args.max_files)))
    target = env.get("GITHUB_STEP_SUMMARY")
    if target:
        with open(target, "a", encoding="utf-8") as f:
            f.write(markdown)
    else:
        sys.stdout.write(markdown)
    output = env.get("GITHUB_OUTPUT")
    if output:
        with open(output, "a", encoding="utf-8") as f:
            f.write("findings=%d\nfixable=%d\n" % (len(report), sum(1 for d in report if fixability(d) == "safe")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
