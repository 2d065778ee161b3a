#!/usr/bin/python3
"""The 2017 ImageNet-style script of examples/ runs on Debian's PyTorch once asyncfix fixed it.

usage: ASYNCFIX_BIN=build/ci/cli/asyncfix /usr/bin/python3 -m unittest -v test_example
       (from tests/torch; CTest's torch.example does this)

On a copy of examples/imagenet_2017.py: it does not compile on this Python, and with only its
`async=` fixed (AF1xx) it still crashes on PyTorch 1.13; after `asyncfix check --fix
--unsafe-fixes` nothing is left to report, a second fix changes nothing, and the program trains
and validates for two epochs of two batches of synthetic images on the CPU, to its last line,
with DeprecationWarning, UserWarning and FutureWarning as errors.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "..", "examples", "imagenet_2017.py")
AS_ERRORS = ["-W", "error::DeprecationWarning", "-W", "error::UserWarning", "-W", "error::FutureWarning"]
ARGS = ["--fake-data", "--epochs", "2", "--steps", "2", "--image-size", "64", "-b", "8", "-j", "0"]


class LegacyExampleTest(unittest.TestCase):
    def setUp(self):
        self.binary = os.environ["ASYNCFIX_BIN"]
        self.dir = tempfile.mkdtemp(prefix="asyncfix-example-")
        self.addCleanup(shutil.rmtree, self.dir)
        self.script = os.path.join(self.dir, "imagenet_2017.py")
        shutil.copyfile(EXAMPLE, self.script)

    def asyncfix(self, *args):
        return subprocess.run([self.binary, "check", "--isolated", *args, self.script], capture_output=True,
                              text=True)

    def run_script(self):
        return subprocess.run([sys.executable, *AS_ERRORS, self.script, *ARGS], capture_output=True, text=True,
                              cwd=self.dir, timeout=600)

    def read(self):
        with open(self.script, encoding="utf-8") as f:
            return f.read()

    def test_the_fixed_script_trains_to_the_end_without_deprecation_warnings(self):
        with self.assertRaises(SyntaxError):
            compile(self.read(), self.script, "exec")

        # The premise: making it parse is not enough on today's PyTorch.
        res = self.asyncfix("--fix", "--select", "AF1")
        self.assertIn(res.returncode, (0, 1), res.stdout + res.stderr)
        compile(self.read(), self.script, "exec")
        res = self.run_script()
        self.assertNotEqual(res.returncode, 0, res.stdout)

        shutil.copyfile(EXAMPLE, self.script)
        res = self.asyncfix("--fix", "--unsafe-fixes")
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        fixed = self.read()
        res = self.asyncfix("--fix", "--unsafe-fixes")
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        self.assertEqual(self.read(), fixed)  # fixing twice changes nothing

        res = self.run_script()
        self.assertEqual(res.returncode, 0, res.stderr[-3000:] + "\n--- fixed script ---\n" + fixed)
        self.assertIn("Best Prec@1", res.stdout)
        self.assertEqual(res.stdout.count(" * Prec@1"), 2, res.stdout)  # both epochs validated


if __name__ == "__main__":
    unittest.main()
