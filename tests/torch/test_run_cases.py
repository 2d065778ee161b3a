#!/usr/bin/python3
"""run_cases.py fails a case whose premise, fix or output is wrong (it can fail, and says why).

usage: ASYNCFIX_BIN=build/ci/cli/asyncfix /usr/bin/python3 -m unittest -v test_run_cases
"""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))

LEGACY = """# expect-before: {expect}
# fixes: {fixes}
import torch

loss = torch.nn.functional.mse_loss(torch.ones(3), torch.zeros(3))
print('%.3f' % loss.data[0])
"""
REFERENCE = """import torch

loss = torch.nn.functional.mse_loss(torch.ones(3), torch.zeros(3))
print('%.3f' % {value})
"""


class RunCasesTest(unittest.TestCase):
    def run_cases(self, legacy, reference=None):
        with tempfile.TemporaryDirectory() as cases:
            with open(os.path.join(cases, "AF301_probe.py"), "w") as f:
                f.write(legacy)
            if reference is not None:
                with open(os.path.join(cases, "AF301_probe.ref.py"), "w") as f:
                    f.write(reference)
            return subprocess.run([sys.executable, os.path.join(HERE, "run_cases.py"), os.environ["ASYNCFIX_BIN"],
                                   cases], capture_output=True, text=True)

    def test_a_true_case_holds(self):
        res = self.run_cases(LEGACY.format(expect="IndexError: invalid index of a 0-dim tensor", fixes="safe"),
                             REFERENCE.format(value="loss.item()"))
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        self.assertIn("ok   AF301_probe.py", res.stdout)

    def test_a_premise_that_this_pytorch_does_not_show_fails(self):
        res = self.run_cases(LEGACY.format(expect="KeyError", fixes="safe"), REFERENCE.format(value="loss.item()"))
        self.assertEqual(res.returncode, 1, res.stdout)
        self.assertIn("does not match /KeyError/", res.stdout)

    def test_a_fixed_program_that_computes_something_else_fails(self):
        res = self.run_cases(LEGACY.format(expect="IndexError", fixes="safe"), REFERENCE.format(value="(2 * loss.item())"))
        self.assertEqual(res.returncode, 1, res.stdout)
        self.assertIn("where the reference prints", res.stdout)

    def test_a_rule_that_does_not_report_fails(self):
        legacy = "# expect-before: IndexError\n# fixes: none\nimport torch\ntorch.zeros(())[0]\n"
        res = self.run_cases(legacy)
        self.assertEqual(res.returncode, 1, res.stdout)
        self.assertIn("does not report the original", res.stdout)

    def test_a_silent_premise_fails_when_the_original_warns(self):
        legacy = "# expect-before: nothing\n# fixes: none\nimport warnings\nimport torch\n" \
                 "warnings.warn('legacy', UserWarning)\nx = torch.FloatTensor(2)\n"
        with tempfile.TemporaryDirectory() as cases:
            with open(os.path.join(cases, "AF318_probe.py"), "w") as f:
                f.write(legacy)
            res = subprocess.run([sys.executable, os.path.join(HERE, "run_cases.py"), os.environ["ASYNCFIX_BIN"],
                                  cases], capture_output=True, text=True)
        self.assertEqual(res.returncode, 1, res.stdout)
        self.assertIn("was to run silently", res.stdout)

    def test_without_cuda_a_fixed_program_that_fails_otherwise_fails(self):
        legacy = ("# expect-before: TypeError: type torch.cuda.FloatTensor not available\n# fixes: safe\n"
                  "# without-cuda: Torch not compiled with CUDA enabled\nimport torch\n"
                  "x = torch.cuda.FloatTensor(2)\n")
        for reference, holds in (("import torch\nx = torch.empty(2, device='cuda')\n", True),
                                 ("import torch\nraise KeyError('not the device')\n", False)):
            with tempfile.TemporaryDirectory() as cases:
                with open(os.path.join(cases, "AF318_probe.py"), "w") as f:
                    f.write(legacy)
                with open(os.path.join(cases, "AF318_probe.ref.py"), "w") as f:
                    f.write(reference)
                res = subprocess.run([sys.executable, os.path.join(HERE, "run_cases.py"),
                                      os.environ["ASYNCFIX_BIN"], cases], capture_output=True, text=True)
            self.assertEqual(res.returncode, 0 if holds else 1, res.stdout)
            if not holds:
                self.assertIn("without CUDA, the reference was to fail", res.stdout)

    def test_a_case_without_its_header_fails(self):
        res = self.run_cases("import torch\n")
        self.assertEqual(res.returncode, 1, res.stdout)
        self.assertIn("needs `# expect-before: REGEX`", res.stdout)


if __name__ == "__main__":
    unittest.main()
