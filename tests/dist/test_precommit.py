"""The pre-commit hooks (.pre-commit-hooks.yaml), label `dist`: Debian's pre-commit runs them
from a throwaway git repository, offline — pip with no index (PIP_NO_INDEX), npm from its cache,
and, where this runs as root with unshare(1), in a network namespace with no network at all.

pre-commit installs the hook repository as users get it: it clones it at a rev and pip-installs
it (`language: python`), which builds the wheel from source. The hook repository is this
source tree committed with fixed dates, so unchanged sources give the same rev and pre-commit's
environment, cached in <build>/dist-cache/precommit, is built only once.

Checked: a legacy file fails `asyncfix` and `asyncfix-fix` repairs it (then passes); a notebook
and a file with a syntax error elsewhere are reported with exit code 1, no crash; files of other
types are not passed to the hooks.
"""

import json
import os
import shutil
import subprocess
import tempfile
import time
import unittest

from dist_util import CACHE, FIXED, LEGACY, SOURCE, main, run

NOTEBOOK = {
    "cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
               "source": ["import torch\n", "x = torch.ones(2).cuda(async=True)\n"]}],
    "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
}
BROKEN = "def f(:\n    pass\n\n\nx.cuda(async=True)\n"
FIXED_DATE = "2024-01-01T00:00:00+0000"


def git(*args, cwd, env=None):
    return run(["git", "-c", "init.defaultBranch=main", "-c", "user.name=asyncfix tests",
                "-c", "user.email=tests@asyncfix.invalid", "-c", "commit.gpgsign=false"] + list(args), cwd=cwd, env=env)


def snapshot(source, target):
    """Commit the files of `source` (tracked or not ignored, as they are now) into a new git
    repository at `target`; the same files give the same commit. Returns its sha."""
    listed = run(["git", "-C", source, "ls-files", "-z", "--cached", "--others", "--exclude-standard"]).stdout
    shutil.rmtree(target, ignore_errors=True)
    os.makedirs(target)
    for name in sorted(set(n for n in listed.split("\0") if n)):
        path = os.path.join(source, name)
        if not os.path.isfile(path) and not os.path.islink(path):
            continue  # deleted but still tracked
        os.makedirs(os.path.dirname(os.path.join(target, name)), exist_ok=True)
        shutil.copy2(path, os.path.join(target, name), follow_symlinks=False)
    env = dict(os.environ, GIT_AUTHOR_DATE=FIXED_DATE, GIT_COMMITTER_DATE=FIXED_DATE)
    git("init", "-q", cwd=target)
    git("add", "-A", cwd=target)
    git("commit", "-q", "-m", "asyncfix hooks under test", cwd=target, env=env)
    return git("rev-parse", "HEAD", cwd=target).stdout.strip()


class PreCommit(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        for tool in ("pre-commit", "git"):
            if not shutil.which(tool):
                raise unittest.SkipTest("%s is not installed (scripts/install-deps.sh installs it)" % tool)
        base = os.path.join(CACHE, "precommit")
        cls.hooks = os.path.join(base, "hookrepo")
        cls.rev = snapshot(SOURCE, cls.hooks)
        cls.home = os.path.join(base, "home")
        cls.work = tempfile.mkdtemp(prefix="asyncfix-precommit-")
        git("init", "-q", cwd=cls.work)
        with open(os.path.join(cls.work, ".pre-commit-config.yaml"), "w") as f:
            f.write("repos:\n  - repo: %s\n    rev: %s\n    hooks:\n      - id: asyncfix\n      - id: asyncfix-fix\n"
                    % (cls.hooks, cls.rev))
        files = {"legacy.py": LEGACY, "train.ipynb": json.dumps(NOTEBOOK, indent=1) + "\n", "broken.py": BROKEN,
                 "notes.txt": LEGACY, "clean.py": "x = 1\n"}
        for name, text in files.items():
            with open(os.path.join(cls.work, name), "w") as f:
                f.write(text)
        git("add", "-A", cwd=cls.work)
        git("commit", "-q", "-m", "legacy code", cwd=cls.work)
        cls.env = dict(os.environ, PRE_COMMIT_HOME=cls.home, PRE_COMMIT_COLOR="never", PIP_NO_INDEX="1",
                       PIP_DISABLE_PIP_VERSION_CHECK="1", npm_config_offline="true")
        for variable in ("PYTHONPATH", "VIRTUAL_ENV", "ASYNCFIX_WHEEL_BUILD_DIR"):
            cls.env.pop(variable, None)
        cls.offline = []
        if os.geteuid() == 0 and shutil.which("unshare") and \
                subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0:
            cls.offline = ["unshare", "-n"]  # a network namespace of its own: no network at all
        started = time.monotonic()
        result = cls.pre_commit("install-hooks", timeout=3500)
        if result.returncode != 0:
            raise AssertionError("pre-commit install-hooks failed:\n%s\n%s\n%s" % (
                result.stdout[-4000:], result.stderr[-4000:], cls.log()))
        print("pre-commit install-hooks: %.0f s%s" % (time.monotonic() - started,
                                                       " (network namespace: offline)" if cls.offline else ""))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.work, ignore_errors=True)

    @classmethod
    def log(cls):
        try:
            with open(os.path.join(cls.home, "pre-commit.log")) as f:
                return f.read()[-6000:]
        except OSError:
            return ""

    @classmethod
    def pre_commit(cls, *args, timeout=600):
        return run(cls.offline + ["pre-commit"] + list(args), check=False, cwd=cls.work, env=cls.env, timeout=timeout)

    def hook(self, hook_id, *files):
        result = self.pre_commit("run", hook_id, "--files", *files)
        self.assertNotIn("Traceback", result.stdout + result.stderr)
        return result

    def read(self, name):
        with open(os.path.join(self.work, name)) as f:
            return f.read()

    def test_legacy_file_fails_the_check_and_the_fix_hook_repairs_it(self):
        result = self.hook("asyncfix", "legacy.py")
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertRegex(result.stdout, r"asyncfix\.+Failed")
        self.assertIn("- exit code: 1", result.stdout)
        self.assertIn("legacy.py:5:23: AF101", result.stdout)
        self.assertEqual(self.read("legacy.py"), LEGACY)  # the check hook writes nothing

        result = self.hook("asyncfix-fix", "legacy.py")
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertIn("- files were modified by this hook", result.stdout)
        self.assertEqual(self.read("legacy.py"), FIXED)
        result = self.hook("asyncfix-fix", "legacy.py")
        self.assertEqual(result.returncode, 0, result.stdout)
        self.assertRegex(result.stdout, r"asyncfix \(fix\)\.+Passed")
        self.assertRegex(self.hook("asyncfix", "legacy.py").stdout, r"asyncfix\.+Passed")

    def test_notebook_is_reported_and_exits_1(self):
        result = self.hook("asyncfix", "train.ipynb")
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertIn("- exit code: 1", result.stdout)
        self.assertIn("train.ipynb:cell 1:2:", result.stdout)
        self.assertIn("AF101", result.stdout)

    def test_syntax_error_elsewhere_is_reported_and_exits_1(self):
        result = self.hook("asyncfix", "broken.py")
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertIn("- exit code: 1", result.stdout)
        self.assertIn("broken.py:5:8: AF101", result.stdout)

    def test_other_file_types_are_not_given_to_the_hooks(self):
        result = self.hook("asyncfix", "notes.txt")
        self.assertEqual(result.returncode, 0, result.stdout)
        self.assertRegex(result.stdout, r"asyncfix\.+\(no files to check\)Skipped")

    def test_clean_file_passes(self):
        result = self.hook("asyncfix", "clean.py")
        self.assertEqual(result.returncode, 0, result.stdout)
        self.assertRegex(result.stdout, r"asyncfix\.+Passed")


if __name__ == "__main__":
    main()
