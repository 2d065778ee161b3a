"""Differential test: asyncfix's own reading of git's ignore files against `git check-ignore`.

Each case is a random tree in a fresh `git init` repository (sometimes with a separate git
directory, a linked work tree or a nested repository) with random `.gitignore` files at several
levels, `.git/info/exclude` and a core.excludesFile set in one of the places git reads it from
(the repository's config, ~/.gitconfig, $XDG_CONFIG_HOME/git/config, or the default
$XDG_CONFIG_HOME/git/ignore / ~/.config/git/ignore). Patterns are made from the tree's own names:
`*`, `?`, `**` in every position, sets and ranges and classes, escapes, negation, anchoring,
directory-only, trailing spaces, comments, CRLF and a BOM.

For every file and directory, the answer of `gitignore_probe` (GitIgnore::ignored) must equal
git's (`git check-ignore --no-index`, asked in the repository that holds the path), and
`asyncfix check --show-files` must list exactly the Python files that neither git nor the
walk's own rules leave out. git and asyncfix run in the same controlled environment: a temporary
HOME, XDG_CONFIG_HOME set or not, GIT_CONFIG_NOSYSTEM=1.

A fixed seed runs first, then a fresh one (printed). To reproduce a failure:
    ASYNCFIX_GITIGNORE_SEED=<seed> [ASYNCFIX_GITIGNORE_CASE=<n>] \
    ASYNCFIX_BIN=build/ci/cli/asyncfix ASYNCFIX_GITIGNORE_PROBE=build/ci/tests/cli/gitignore_probe \
    python3 -m unittest -v test_gitignore
"""

import os
import random
import shutil
import subprocess
import sys
import tempfile
import unittest

BIN = os.environ.get("ASYNCFIX_BIN", "")
PROBE = os.environ.get("ASYNCFIX_GITIGNORE_PROBE", "")

FIXED_SEED = 14001
FIXED_CASES = int(os.environ.get("ASYNCFIX_GITIGNORE_CASES", "250"))
FRESH_CASES = int(os.environ.get("ASYNCFIX_GITIGNORE_FRESH_CASES", "60"))

# Names that the walk leaves out by itself (its default excludes, hidden directories) are not
# used for directories; files may be hidden.
DIR_NAMES = ["a", "b", "src", "pkg", "lib", "deep", "d1", "d2", "x y", "Doc", "foo.d", "[ab]", "q?",
             "sp ", "a*", "logs", "out", "tmp", "cache", "test", "A", "nested", "m-n", "\\b"]
FILE_NAMES = ["a.py", "b.py", "main.py", "test_a.py", "x y.py", "Foo.py", "a.pyc", "x.txt", "notes.md",
              "foo", "out", "a", "b", "log.txt", "data.json", "q?.py", "a*b.py", "[ab].py",
              "back\\slash.py", "sp .py", "ends ", "#hash.py", "!bang.py", "1.py", "9.txt", ".hidden.py",
              "a.b.c.py", "CAPS.PY", "tmp", "z.pyi", "nb.ipynb", "-dash.py", "x]y.py", "u\u00e9.py"]
PYTHON_SUFFIXES = (".py", ".pyi", ".ipynb")
EDGE_PATTERNS = ["*", "**", "*.py", "*.txt", "**/*.py", "/*", "*/", "**/", "a**", "**a", "a/**b", "***",
                 "?", "[", "[]", "[!]", "\\", "a\\", "[a-", "[[:foo:]]", "[[:alpha:]", "[]a]", "[!]a]",
                 "[a-c-e].py", "[z-a]", "/", "//a", "a//", "**/**", "/**/a", "*/*/*", "[[:upper:]]*",
                 "[[:punct:]]*", "[^a]*", "\\#hash.py", "\\!bang.py", "x\\]y.py", "[x\\]]y.py", "#hash.py",
                 "\t", "a.py\t", "[[:space:]]*", "*[[:digit:]].*", "[a-z].py", "[!a-z]*", "**/[ab]/**"]


def git(*args, cwd, env, stdin=None):
    return subprocess.run(["git", *args], cwd=cwd, env=env, input=stdin, capture_output=True, check=True)


class Case:
    """One random tree, its ignore files and configuration, made from one seed."""

    def __init__(self, seed, base):
        self.rng = random.Random(seed)
        self.base = base
        self.root = os.path.join(base, "tree")
        self.home = os.path.join(base, "home")
        os.makedirs(self.home)
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": self.home, "LC_ALL": "C",
                    "GIT_CONFIG_NOSYSTEM": "1"}
        if self.rng.random() < 0.8:
            self.env["XDG_CONFIG_HOME"] = os.path.join(base, "xdg")
        self.notes = []  # what a failure report shows besides the files
        self.ignore_files = {}  # path → text, for the report

    # --- the repository and the tree -----------------------------------------------------------

    def make(self):
        rng = self.rng
        shape = rng.random()
        if shape < 0.12:
            self.notes.append("separate git directory (.git is a file)")
            git("init", "-q", "--separate-git-dir", os.path.join(self.base, "gitdir"), self.root,
                cwd=self.base, env=self.env)
            self.common_dir = os.path.join(self.base, "gitdir")
        elif shape < 0.22:
            self.notes.append("linked work tree")
            main = os.path.join(self.base, "main")
            git("init", "-q", main, cwd=self.base, env=self.env)
            git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x",
                cwd=main, env=self.env)
            git("worktree", "add", "-q", self.root, cwd=main, env=self.env)
            self.common_dir = os.path.join(main, ".git")
            # The main work tree's own ignore files must not leak into the linked one.
            self.write(os.path.join(main, ".gitignore"), "*\n")
        else:
            git("init", "-q", self.root, cwd=self.base, env=self.env)
            self.common_dir = os.path.join(self.root, ".git")
        self.repos = {"": self.common_dir}  # relative root → its common git directory
        self.dirs, self.files = [""], []
        self.grow("", 0)
        if rng.random() < 0.2 and len(self.dirs) > 1:
            inner = rng.choice(self.dirs[1:])
            self.notes.append("nested repository at " + inner)
            git("init", "-q", os.path.join(self.root, inner), cwd=self.base, env=self.env)
            self.repos[inner] = os.path.join(self.root, inner, ".git")
        # Ignore files: the root's, some directories', info/exclude, core.excludesFile.
        for d in self.dirs:
            if d == "" or rng.random() < 0.35:
                self.write(os.path.join(self.root, d, ".gitignore"), self.ignore_text(d))
        for inner, common in self.repos.items():
            if rng.random() < 0.5:
                self.write(os.path.join(common, "info", "exclude"), self.ignore_text(inner))
        self.configure_excludes_file()

    def grow(self, rel, depth):
        rng = self.rng
        for name in rng.sample(FILE_NAMES, rng.randint(1, 6)):
            path = os.path.join(rel, name) if rel else name
            self.files.append(path)
            self.write(os.path.join(self.root, path), "x = 1\n")
        if depth >= 4:
            return
        for name in rng.sample(DIR_NAMES, rng.randint(0, 3 if depth < 2 else 2)):
            path = os.path.join(rel, name) if rel else name
            if path in self.files:
                continue
            self.dirs.append(path)
            os.makedirs(os.path.join(self.root, path), exist_ok=True)
            self.grow(path, depth + 1)

    def write(self, path, text):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(text.encode("utf-8") if isinstance(text, str) else text)
        self.ignore_files[path] = text

    def configure_excludes_file(self):
        rng = self.rng
        where = rng.choice(["none", "repo", "repo-tilde", "repo-relative", "global", "xdg-config", "default"])
        xdg = self.env.get("XDG_CONFIG_HOME")
        path = os.path.join(self.base, "user-ignore")
        if where == "none":
            return
        self.notes.append("core.excludesFile: " + where + ("" if xdg else " (no XDG_CONFIG_HOME)"))
        if where == "repo":
            git("config", "core.excludesFile", path, cwd=self.root, env=self.env)
        elif where == "repo-tilde":
            path = os.path.join(self.home, "ign")
            git("config", "core.excludesFile", "~/ign", cwd=self.root, env=self.env)
        elif where == "repo-relative":
            path = os.path.join(self.root, "rel-ignore")
            git("config", "core.excludesFile", "rel-ignore", cwd=self.root, env=self.env)
        elif where == "global":
            git("config", "--global", "core.excludesFile", path, cwd=self.root, env=self.env)
        elif where == "xdg-config" and xdg:
            os.makedirs(os.path.join(xdg, "git"), exist_ok=True)
            with open(os.path.join(xdg, "git", "config"), "w") as f:
                f.write("[core]\n\texcludesfile = \"%s\"  ; a comment\n" % path)
        else:
            path = os.path.join(xdg or os.path.join(self.home, ".config"), "git", "ignore")
        self.write(path, self.ignore_text(""))

    # --- patterns ---------------------------------------------------------------------------------

    def names_below(self, rel):
        """Paths of files and directories below `rel`, relative to it."""
        prefix = rel + "/" if rel else ""
        return [p[len(prefix):] for p in self.files + self.dirs if p and p.startswith(prefix)]

    def component(self, name):
        """A glob made from `name` that often still matches it: characters turned into `?`,
        sets, ranges or classes, a part replaced by `*`; special characters escaped."""
        rng = self.rng
        tokens = []
        for ch in name:
            r = rng.random()
            if ch in "*?[]\\!#":
                tokens.append("\\" + ch if rng.random() < 0.85 or ch in "!#" else ch)
            elif ch == "/":
                tokens.append(ch)
            elif r < 0.05:
                tokens.append("?")
            elif r < 0.08:
                tokens.append("[" + ch + rng.choice("abcxy1._") + "]")
            elif r < 0.10:
                tokens.append("[!" + rng.choice("xyz") + "]")
            elif r < 0.12 and ch.isascii() and ch.isalpha():
                tokens.append(rng.choice(["[[:alpha:]]", "[[:alnum:]]", "[[:lower:]]", "[[:upper:]]"]))
            elif r < 0.13 and ch.isdigit():
                tokens.append("[[:digit:]]")
            elif r < 0.15 and ch.isascii():
                tokens.append("[" + rng.choice("a0.") + "-" + ch + "]")
            elif r < 0.16:
                tokens.append("[^" + ch + "]")
            else:
                tokens.append(ch)
        r = rng.random()
        k = rng.randrange(len(tokens) + 1)
        if r < 0.1:
            tokens = ["*"] + tokens[max(k, 1):]
        elif r < 0.2:
            tokens = tokens[:max(k, 1)] + ["*"]
        elif r < 0.25:
            tokens = tokens[:k] + ["*"] + tokens[k + 1:]
        elif r < 0.27:
            tokens = tokens[:k] + ["**"] + tokens[k:]
        return "".join(tokens)

    def pattern(self, rel):
        rng = self.rng
        below = self.names_below(rel)
        r = rng.random()
        if r < 0.06 or not below:
            body = rng.choice(EDGE_PATTERNS)
        else:
            parts = rng.choice(below).split("/")
            form = rng.random()
            if form < 0.35:
                body = self.component(parts[-1])
            elif form < 0.5:
                body = "/" + self.component(parts[0])
            elif form < 0.62:
                body = "**/" + self.component(parts[-1])
            else:
                globs = [self.component(p) if rng.random() < 0.8 else "*" for p in parts]
                if len(globs) > 1 and rng.random() < 0.35:
                    i = rng.randrange(len(globs))
                    j = rng.randrange(i, len(globs))
                    globs[i:j + 1] = ["**"]
                elif rng.random() < 0.2:
                    globs.append("**")
                body = ("/" if rng.random() < 0.4 else "") + "/".join(globs)
        if rng.random() < 0.25:
            body += "/"
        if rng.random() < 0.3:
            body = "!" + body
        r = rng.random()
        if r < 0.05:
            body += "  "
        elif r < 0.08:
            body += "\\ "
        elif r < 0.09:
            body += " \\ \\  "
        return body

    def ignore_text(self, rel):
        rng = self.rng
        lines = []
        for _ in range(rng.randint(1, 5)):
            r = rng.random()
            if r < 0.05:
                lines.append("# a comment " + self.pattern(rel))
            elif r < 0.08:
                lines.append(rng.choice(["", "   ", "#", "!", "\\", "\\#x"]))
            else:
                lines.append(self.pattern(rel))
        eol = "\r\n" if rng.random() < 0.1 else "\n"
        text = eol.join(lines) + ("" if rng.random() < 0.15 else eol)
        if rng.random() < 0.05:
            text = "\ufeff" + text
        return text

    # --- the answers --------------------------------------------------------------------------------

    def repo_of(self, path):
        """The relative root of the repository holding `path` (the nearest one strictly above it)."""
        parts = path.split("/")
        for n in range(len(parts) - 1, 0, -1):
            candidate = "/".join(parts[:n])
            if candidate in self.repos:
                return candidate
        return ""

    def git_answers(self, paths):
        by_repo = {}
        for p in paths:
            by_repo.setdefault(self.repo_of(p), []).append(p)
        ignored = set()
        for repo, members in by_repo.items():
            prefix = repo + "/" if repo else ""
            stdin = b"".join(p[len(prefix):].encode() + b"\0" for p in members)
            res = subprocess.run(["git", "check-ignore", "--no-index", "--stdin", "-z"], cwd=os.path.join(self.root, repo),
                                 env=self.env, input=stdin, capture_output=True)
            if res.returncode not in (0, 1):
                raise AssertionError("git check-ignore failed: " + res.stderr.decode(errors="replace"))
            ignored.update(prefix + p.decode() for p in res.stdout.split(b"\0") if p)
        return ignored

    def explain(self, path):
        repo = self.repo_of(path)
        prefix = repo + "/" if repo else ""
        res = subprocess.run(["git", "check-ignore", "--no-index", "-v", "-n", "--stdin", "-z"],
                             cwd=os.path.join(self.root, repo), env=self.env,
                             input=path[len(prefix):].encode() + b"\0", capture_output=True)
        fields = res.stdout.split(b"\0")
        return "git: %r" % [f.decode(errors="replace") for f in fields[:3]]

    def probe_answers(self, paths):
        order = list(paths)
        self.rng.shuffle(order)  # not top-down: the probe builds what it needs itself
        res = subprocess.run([PROBE], cwd=self.root, env=self.env, capture_output=True,
                             input=b"".join(p.encode() + b"\0" for p in order), check=True)
        answers = res.stdout.decode().split("\n")
        return {p for p, a in zip(order, answers) if a == "1"}

    def walk(self):
        res = subprocess.run([BIN, "check", "--show-files", "."], cwd=self.root, env=self.env, capture_output=True)
        if res.returncode != 0:
            raise AssertionError("asyncfix check --show-files failed: " + res.stderr.decode(errors="replace"))
        return set(res.stdout.decode().splitlines())

    def report(self):
        lines = list(self.notes)
        for path, text in sorted(self.ignore_files.items()):
            if path.startswith(self.root + "/") and not path.endswith(".gitignore") and "/.git/" not in path:
                continue
            lines.append("--- %s\n%s" % (os.path.relpath(path, self.base), text if isinstance(text, str) else text))
        return "\n".join(lines)


def run_case(test, seed, number):
    where = "seed %d, case %d" % (seed, number)
    with tempfile.TemporaryDirectory(prefix="asyncfix-gitignore-") as base:
        case = Case(seed * 100003 + number, base)
        case.make()
        paths = [p for p in case.dirs if p] + case.files
        expected = case.git_answers(paths)
        got = case.probe_answers(paths)
        wrong = sorted(expected ^ got)
        if wrong:
            detail = "\n".join("%s: git says %s, asyncfix %s; %s" % (
                p, "ignored" if p in expected else "not ignored", "ignored" if p in got else "not ignored",
                case.explain(p)) for p in wrong)
            test.fail("%s: GitIgnore disagrees with git about %d of %d paths\n%s\n%s"
                      % (where, len(wrong), len(paths), detail, case.report()))
        # The walk: a Python file is listed when no directory above it and not itself is ignored.
        def listed(path):
            parts = path.split("/")
            return not any("/".join(parts[:n]) in expected for n in range(1, len(parts) + 1))
        want = {p for p in case.files if p.endswith(PYTHON_SUFFIXES) and listed(p)}
        walked = case.walk()
        if walked != want:
            test.fail("%s: the walk lists %s that git ignores and misses %s\n%s"
                      % (where, sorted(walked - want), sorted(want - walked), case.report()))
        return len(paths)


class GitIgnoreOracleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not BIN or not PROBE:
            raise unittest.SkipTest("ASYNCFIX_BIN and ASYNCFIX_GITIGNORE_PROBE must be set")
        if shutil.which("git") is None:
            raise unittest.SkipTest("git is not installed")

    def cases(self, seed, count):
        only = os.environ.get("ASYNCFIX_GITIGNORE_CASE")
        numbers = [int(only)] if only is not None else range(count)
        paths = 0
        for n in numbers:
            with self.subTest(seed=seed, case=n):
                paths += run_case(self, seed, n)
        self.assertGreaterEqual(paths, len(numbers))  # every case asked about something

    def test_fixed_seed(self):
        seed = int(os.environ.get("ASYNCFIX_GITIGNORE_SEED", FIXED_SEED))
        print("\ngitignore oracle: seed %d, %d cases" % (seed, FIXED_CASES), file=sys.stderr)
        self.cases(seed, FIXED_CASES)

    def test_fresh_seed(self):
        if "ASYNCFIX_GITIGNORE_SEED" in os.environ:
            self.skipTest("ASYNCFIX_GITIGNORE_SEED pins the seed (test_fixed_seed runs it)")
        seed = random.SystemRandom().randrange(1, 10**9)
        print("\ngitignore oracle: fresh seed %d, %d cases (reproduce with ASYNCFIX_GITIGNORE_SEED=%d)"
              % (seed, FRESH_CASES, seed), file=sys.stderr)
        self.cases(seed, FRESH_CASES)


if __name__ == "__main__":
    unittest.main()
