"""The GitHub Action's job summary (packaging/action/summary.py) against real
`asyncfix check --output-format json` output (ASYNCFIX_BIN) of a small legacy workspace:
counts per rule, the files, the first findings with links to the lines, notebooks, odd file
names, limits, and the failure cases. (ctest label `package`)
"""

import collections
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SOURCE = os.environ.get("ASYNCFIX_SOURCE_DIR") or os.path.join(os.path.dirname(__file__), "..", "..")
BIN = os.environ.get("ASYNCFIX_BIN", "")
SCRIPT = os.path.join(SOURCE, "packaging", "action", "summary.py")

spec = importlib.util.spec_from_file_location("asyncfix_action_summary", SCRIPT)
summary = importlib.util.module_from_spec(spec)
spec.loader.exec_module(summary)

SHA = "0123456789abcdef0123456789abcdef01234567"
BLOB = "https://github.com/octo/legacy/blob/%s/" % SHA

TRAIN = (
    "import torch\n"
    "\n"
    "def load(batch, async=False):\n"
    "    x = batch.cuda(async=True)\n"
    "    y = batch.to('cuda', async=True)\n"
    "    return x, y\n"
)
WEIRD = "x.cuda(async=True)\n"
NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Training\n"]},
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
         "source": ["import torch\n", "x = torch.ones(2).cuda(async=True)\n"]},
    ],
    "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
}


class SummaryTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not BIN:
            raise unittest.SkipTest("ASYNCFIX_BIN is not set")
        cls.workspace = tempfile.mkdtemp(prefix="asyncfix-summary-")
        os.makedirs(os.path.join(cls.workspace, "src"))
        with open(os.path.join(cls.workspace, "src", "train.py"), "w") as f:
            f.write(TRAIN)
        with open(os.path.join(cls.workspace, "src", "we|ird [x].py"), "w") as f:
            f.write(WEIRD)
        with open(os.path.join(cls.workspace, "train.ipynb"), "w") as f:
            json.dump(NOTEBOOK, f)
        result = subprocess.run([BIN, "check", "--isolated", "--output-format", "json", "."], cwd=cls.workspace,
                                capture_output=True, text=True)
        assert result.returncode == 1, result.stderr
        cls.report_text = result.stdout
        cls.report = json.loads(result.stdout)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.workspace, ignore_errors=True)

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="asyncfix-summary-out-")
        self.env = {"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "octo/legacy", "GITHUB_SHA": SHA,
                    "GITHUB_WORKSPACE": self.workspace, "GITHUB_STEP_SUMMARY": os.path.join(self.tmp, "summary.md"),
                    "GITHUB_OUTPUT": os.path.join(self.tmp, "output")}

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_summary(self, report_text=None, exit_code=1, extra=(), env=None, cwd=None):
        path = os.path.join(self.tmp, "report.json")
        with open(path, "w") as f:
            f.write(self.report_text if report_text is None else report_text)
        code = summary.main(["--report", path, "--exit-code", str(exit_code)] + list(extra),
                            env=self.env if env is None else env, cwd=cwd or self.workspace)
        written = ""
        if os.path.exists(self.env["GITHUB_STEP_SUMMARY"]):
            with open(self.env["GITHUB_STEP_SUMMARY"]) as f:
                written = f.read()
        return code, written

    def outputs(self):
        with open(self.env["GITHUB_OUTPUT"]) as f:
            return dict(line.split("=", 1) for line in f.read().splitlines())

    def test_header_rule_counts_and_outputs_match_the_report(self):
        code, md = self.run_summary()
        self.assertEqual(code, 0)
        files = {d["filename"] for d in self.report}
        self.assertEqual(len(files), 3, files)
        self.assertTrue(md.startswith("### asyncfix: %d findings in 3 files\n" % len(self.report)), md)
        counts = collections.Counter(d["code"] for d in self.report)
        self.assertIn("AF101", counts)
        for code_, count in counts.items():
            url = next(d["url"] for d in self.report if d["code"] == code_)
            row = [line for line in md.splitlines() if line.startswith("| [%s](%s) |" % (code_, url))]
            self.assertEqual(len(row), 1, md)
            self.assertEqual(row[0].split(" | ")[2], str(count), row[0])
        safe = sum(1 for d in self.report if (d.get("fix") or {}).get("applicability") == "safe")
        self.assertIn("%d can be fixed with `asyncfix check --fix`" % safe, md)
        self.assertEqual(self.outputs(), {"findings": str(len(self.report)), "fixable": str(safe)})

    def test_findings_link_to_their_lines_at_the_commit(self):
        _, md = self.run_summary()
        first = next(d for d in self.report if d["filename"].endswith("train.py") and d["code"] == "AF101")
        row = first["location"]["row"]
        self.assertIn("](%ssrc/train.py#L%d)" % (BLOB, row), md)
        # A name with |, a space and brackets: escaped in the text, percent-encoded in the link.
        self.assertIn("](%ssrc/we%%7Cird%%20%%5Bx%%5D.py#L1)" % BLOB, md)
        self.assertIn("we\\|ird \\[x\\].py", md)
        self.assertNotIn("we|ird", md)
        # The message keeps its code spans; fixable findings are marked as the command marks them.
        self.assertIn("`non_blocking=`", md)
        self.assertIn("#L%d) **AF101** [\\*] `async=` is a syntax error" % row, md)
        self.assertIn("**AF001** [unsafe fix] `async` is a reserved keyword", md)

    def test_notebook_findings_name_the_cell_and_link_the_file(self):
        _, md = self.run_summary()
        line = next(l for l in md.splitlines() if l.startswith("- ") and "train.ipynb" in l)
        self.assertIn("train.ipynb:cell 2:2:", line)
        self.assertIn("](%strain.ipynb)" % BLOB, line)

    def test_files_table_lists_each_file_with_its_count(self):
        _, md = self.run_summary()
        self.assertIn("<details><summary>Files (3)</summary>", md)
        train = sum(1 for d in self.report if d["filename"].endswith("train.py"))
        self.assertIn("| [src/train.py](%ssrc/train.py) | %d |" % (BLOB, train), md)

    def test_only_the_first_findings_are_listed(self):
        _, md = self.run_summary(extra=["--max-findings", "2"])
        self.assertIn("**First 2 findings** (of %d):" % len(self.report), md)
        self.assertEqual(len([l for l in md.splitlines() if l.startswith("- ")]), 2)
        _, md = self.run_summary(extra=["--max-files", "1"])
        self.assertIn("| and 2 more | |", md)

    def test_the_annotation_limit_note_appears_past_ten_findings(self):
        many = json.dumps(self.report * 4)
        _, md = self.run_summary(many)
        self.assertIn("GitHub shows at most 10 annotations per step and 50 per job", md)
        os.remove(self.env["GITHUB_STEP_SUMMARY"])
        _, md = self.run_summary()
        self.assertNotIn("annotations per step", md)

    def test_paths_outside_the_workspace_and_missing_variables_give_no_links(self):
        outside = [dict(d, filename="../elsewhere.py") for d in self.report[:1]]
        _, md = self.run_summary(json.dumps(outside))
        self.assertIn("- ../elsewhere.py:", md.replace("\\", ""))
        self.assertNotIn("](https://", md.split("**Findings:**")[1])
        env = {k: v for k, v in self.env.items() if k != "GITHUB_SHA"}
        os.remove(self.env["GITHUB_STEP_SUMMARY"])
        _, md = self.run_summary(env=env)
        self.assertNotIn("/blob/", md)

    def test_no_findings(self):
        code, md = self.run_summary("[]", exit_code=0)
        self.assertEqual(code, 0)
        self.assertEqual(md, "### asyncfix: no findings\n\n")
        self.assertEqual(self.outputs(), {"findings": "0", "fixable": "0"})

    def test_errors_are_said(self):
        code, md = self.run_summary("", exit_code=2)  # asyncfix stopped before writing JSON
        self.assertEqual(code, 0)
        self.assertIn("no findings, but errors", md)
        self.assertIn("asyncfix exited with code 2", md)

    def test_bad_reports_fail(self):
        for text, exit_code in (("not json", 1), ("", 1), ('{"a": 1}', 1), ('[{"x": 1}]', 1)):
            code, md = self.run_summary(text, exit_code=exit_code)
            self.assertEqual(code, 2, text)
            self.assertEqual(md, "", text)

    def test_without_a_summary_file_it_prints(self):
        env = dict(self.env)
        del env["GITHUB_STEP_SUMMARY"]
        path = os.path.join(self.tmp, "report.json")
        with open(path, "w") as f:
            f.write(self.report_text)
        result = subprocess.run([sys.executable, SCRIPT, "--report", path, "--exit-code", "1"], cwd=self.workspace,
                                env=dict(os.environ, **env), capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(result.stdout.startswith("### asyncfix: "), result.stdout)

    def test_a_huge_summary_is_cut(self):
        text = summary._clip("line\n" * 300000, limit=1000)
        self.assertLessEqual(len(text.encode()), 1100)
        self.assertTrue(text.endswith("_(summary cut at 0 KiB)_\n"), text[-60:])


if __name__ == "__main__":
    unittest.main()
