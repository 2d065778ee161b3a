#!/usr/bin/env python3
"""Writes asyncfix.1, asyncfix-lsp.1 and asyncfix-rules.7 from the built commands.

The option lists are the commands' own --help output and the rule pages are `asyncfix rule --all
--output-format json`, so the man pages cannot drift from the programs. Standard library only.
"""

import argparse
import datetime
import json
import os
import re
import subprocess
import sys


# What runs the commands: nothing, or (in a cross build) CMake's emulator, e.g. qemu-aarch64-static -L …
EMULATOR = []


def run(*command):
    return subprocess.run(EMULATOR + list(command), check=True, capture_output=True, text=True).stdout


def esc(text):
    """Text safe for roff: backslashes doubled, a leading dot or quote neutralised, dashes kept."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    # Non-ASCII as groff's \[uXXXX] escapes: the pages are plain ASCII, whatever the reader's locale.
    text = "".join(c if ord(c) < 128 else f"\\[u{ord(c):04X}]" for c in text)
    return "\\&" + text if text[:1] in (".", "'") else text


def inline(text):
    """Markdown `code` and **bold** to roff fonts."""
    text = esc(text)
    text = re.sub(r"`([^`]+)`", r"\\fB\1\\fR", text)
    return re.sub(r"\*\*([^*]+)\*\*", r"\\fB\1\\fR", text)


def header(name, section, date, version, title):
    return (f'.TH "{name.upper()}" "{section}" "{date}" "asyncfix {version}" "{title}"\n'
            ".nh\n.ad l\n")


def help_section(help_text):
    """A command's --help: "Options:"-style headings become subsections, indented "term  text"
    lines tagged paragraphs (a line without a term continues the previous description)."""
    out = []
    for line in help_text.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if not line.startswith(" ") and stripped.endswith(":"):
            out.append(f".SS {esc(stripped[:-1])}")
            continue
        if not line.startswith(" "):
            out.append(".PP\n" + inline(stripped))
            continue
        term, _, description = stripped.partition("  ")
        description = description.strip()
        indent = len(line) - len(line.lstrip(" "))
        if out and out[-1].startswith(".TP") and indent > 6:
            out[-1] += "\n" + inline(stripped)  # a wrapped description
        else:
            out.append(f".TP\n{inline(term)}" + (f"\n{inline(description)}" if description else ""))
    return "\n".join(out) + "\n"


def markdown(text):
    """The subset of Markdown the rule docs use: ## headings, ``` blocks, paragraphs, lists."""
    out, in_code = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            out.append(".EX" if not in_code else ".EE")
            in_code = not in_code
        elif in_code:
            out.append(esc(line) if line else "")
        elif line.startswith("#"):
            out.append(".SS " + esc(line.lstrip("#").strip()))
        elif not line.strip():
            out.append(".PP")
        elif re.match(r"^\s*[-*] ", line):
            out.append(".IP \\(bu 2\n" + inline(re.sub(r"^\s*[-*] ", "", line)))
        else:
            out.append(inline(line))
    if in_code:
        out.append(".EE")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--asyncfix", required=True)
    parser.add_argument("--asyncfix-lsp", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--emulator", default="", help="CMake's CMAKE_CROSSCOMPILING_EMULATOR, its words joined by |")
    args = parser.parse_args()
    EMULATOR[:] = [part for part in args.emulator.split("|") if part]
    os.makedirs(args.out, exist_ok=True)
    # SOURCE_DATE_EPOCH keeps the pages reproducible.
    stamp = int(os.environ.get("SOURCE_DATE_EPOCH", "0")) or None
    date = (datetime.datetime.fromtimestamp(stamp, datetime.timezone.utc) if stamp
            else datetime.datetime.now(datetime.timezone.utc)).strftime("%Y-%m-%d")

    page = header("asyncfix", 1, date, args.version, "User Commands")
    page += ".SH NAME\nasyncfix \\- find and fix Python code broken by Python 3.7's async and await keywords\n"
    page += (".SH SYNOPSIS\n.B asyncfix check\n[\\fIOPTIONS\\fR] [\\fIPATHS\\fR...]\n.br\n"
             ".B asyncfix rule\n\\fICODE\\fR | \\fB\\-\\-all\\fR\n.br\n"
             ".B asyncfix merge\\-reports\n\\fB\\-\\-output\\-format\\fR \\fIFORMAT\\fR \\fIREPORT\\fR...\n.br\n"
             ".B asyncfix lsp\n.br\n"
             ".B asyncfix \\-\\-version\n")
    page += (".SH DESCRIPTION\n.B asyncfix\nparses Python files with tree-sitter and reports, explains and fixes "
             "every use of \\fBasync\\fR and \\fBawait\\fR as a name, PyTorch's old \\fBasync=\\fR argument "
             "(now \\fBnon_blocking=\\fR) and the renames libraries made for Python 3.7. Strings, comments "
             "and docstrings are never touched, and every fix is verified by re-parsing.\n")
    page += ".SH COMMANDS\n" + help_section(run(args.asyncfix, "--help"))
    for sub in ("check", "rule", "merge-reports", "lsp"):
        page += f".SH {sub.upper()} OPTIONS\n" + help_section(run(args.asyncfix, sub, "--help"))
    page += (".SH EXIT STATUS\n.TP\n0\nNothing left to report.\n.TP\n1\nDiagnostics remain "
             "(or \\fB\\-\\-diff\\fR has changes).\n.TP\n2\nA usage or configuration error, or a file "
             "that could not be read, decoded or written.\n")
    page += (".SH FILES\n\\fBpyproject.toml\\fR ([tool.asyncfix]), \\fBasyncfix.toml\\fR, "
             "\\fB.asyncfix.toml\\fR: the nearest one above each file applies.\n")
    page += ".SH SEE ALSO\n.BR asyncfix-lsp (1),\n.BR asyncfix-rules (7)\n"
    with open(os.path.join(args.out, "asyncfix.1"), "w", encoding="utf-8") as f:
        f.write(page)

    page = header("asyncfix-lsp", 1, date, args.version, "User Commands")
    page += ".SH NAME\nasyncfix-lsp \\- the asyncfix language server (LSP 3.17 over stdio)\n"
    page += ".SH SYNOPSIS\n.B asyncfix-lsp\n[\\fIOPTIONS\\fR]\n"
    page += (".SH DESCRIPTION\nDiagnostics as you type, quick fixes, fix-all on save and the rules' "
             "documentation on hover, for any editor that speaks the Language Server Protocol. "
             "Logs go to standard error.\n")
    page += ".SH OPTIONS\n" + help_section(run(args.asyncfix_lsp, "--help"))
    page += ".SH SEE ALSO\n.BR asyncfix (1),\n.BR asyncfix-rules (7)\n"
    with open(os.path.join(args.out, "asyncfix-lsp.1"), "w", encoding="utf-8") as f:
        f.write(page)

    rules = json.loads(run(args.asyncfix, "rule", "--all", "--output-format", "json"))
    page = header("asyncfix-rules", 7, date, args.version, "Miscellaneous")
    page += ".SH NAME\nasyncfix-rules \\- the rules of asyncfix, with what each flags and how it fixes it\n"
    page += ".SH DESCRIPTION\nEach rule as \\fBasyncfix rule\\fR \\fICODE\\fR prints it.\n"
    for rule in rules:
        page += f".SH {esc(rule['code'])} {esc(rule['name'])}\n"
        page += inline(rule["summary"]) + "\n"
        if rule.get("fix"):
            page += ".PP\n" + inline(rule["fix"]) + "\n"
        page += markdown(rule["explanation"])
        # Not rule["url"]: at build time that is the build tree's; the page is installed beside it.
        page += ".PP\nAlso in the manual installed with asyncfix: " + esc("share/doc/asyncfix/rules/%s.md" % rule["code"]) + "\n"
    page += ".SH SEE ALSO\n.BR asyncfix (1)\n"
    with open(os.path.join(args.out, "asyncfix-rules.7"), "w", encoding="utf-8") as f:
        f.write(page)
    return 0


if __name__ == "__main__":
    sys.exit(main())
