"""The GitHub Action (action.yml), label `dist`: its steps run here as a runner runs a composite
action — action.yml parsed, `${{ inputs.* }}` and `${{ steps.*.outputs.* }}` substituted,
each `run:` given to `bash --noprofile --norc -eo pipefail`, in order, with GITHUB_WORKSPACE,
GITHUB_ACTION_PATH, RUNNER_TEMP, GITHUB_OUTPUT, GITHUB_PATH, GITHUB_STEP_SUMMARY… pointing at
temporary files — then the annotations, the job summary, the SARIF file and the outputs are
checked. Anything in action.yml this small runner does not understand (another expression,
`uses:`, `if:`) fails the test rather than being skipped.

Installs the wheel dist.wheel built (the `wheel` input, as a glob), and once with no wheel, which
builds it from the action's source with pip (the fixture's build tree, so no rebuild).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import yaml

from dist_util import LEGACY, SOURCE, VERSION, WHEELHOUSE, main, run, the_wheel, wheel_source

SHA = "89abcdef0123456789abcdef0123456789abcdef"
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
STEP_KEYS = {"name", "id", "shell", "env", "run"}
SARIF_SCHEMA = os.environ.get("ASYNCFIX_SARIF_SCHEMA", "")


class Runner:
    """Runs action.yml's steps like a GitHub runner, for the expressions and keys it uses."""

    def __init__(self, action_dir, workspace, temp, inputs, env_extra=None):
        with open(os.path.join(action_dir, "action.yml")) as f:
            self.action = yaml.safe_load(f)
        self.action_dir = action_dir
        self.workspace = workspace
        self.temp = temp
        declared = self.action.get("inputs", {})
        unknown = set(inputs) - set(declared)
        if unknown:
            raise AssertionError("inputs action.yml does not declare: %s" % sorted(unknown))
        self.inputs = {name: str(inputs.get(name, spec.get("default", ""))) for name, spec in declared.items()}
        self.step_outputs = {}
        self.path_file = os.path.join(temp, "github_path")
        self.summary = os.path.join(temp, "step_summary.md")
        self.env_extra = env_extra or {}
        self.logs = []

    def evaluate(self, text):
        def value(match):
            parts = match.group(1).split(".")
            if len(parts) == 2 and parts[0] == "inputs" and parts[1] in self.inputs:
                return self.inputs[parts[1]]
            if len(parts) == 4 and parts[0] == "steps" and parts[2] == "outputs":
                return self.step_outputs.get(parts[1], {}).get(parts[3], "")
            raise AssertionError("the test's runner does not know the expression ${{ %s }}" % match.group(1))
        return EXPRESSION.sub(value, str(text))

    def base_env(self):
        path = os.environ.get("PATH", "/usr/bin:/bin")
        if os.path.exists(self.path_file):
            with open(self.path_file) as f:
                added = [line.strip() for line in f if line.strip()]
            path = ":".join(reversed(added)) + ":" + path  # GITHUB_PATH entries go first, newest first
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RUNNER_", "ASYNCFIX_", "PYTHON"))}
        env.update({"PATH": path, "CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": self.workspace,
                    "GITHUB_ACTION_PATH": self.action_dir, "RUNNER_TEMP": self.temp,
                    "GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "octo/legacy",
                    "GITHUB_SHA": SHA, "GITHUB_PATH": self.path_file, "GITHUB_STEP_SUMMARY": self.summary,
                    "GITHUB_ENV": os.path.join(self.temp, "github_env")})
        env.update(self.env_extra)
        return env

    def run(self):
        """Run the steps in order until one fails; the exit codes, by step name."""
        runs = self.action["runs"]
        assert runs["using"] == "composite", runs["using"]
        codes = {}
        for index, step in enumerate(runs["steps"]):
            unknown = set(step) - STEP_KEYS
            if unknown:
                raise AssertionError("step %d uses %s, which the test's runner does not emulate" % (index, unknown))
            assert step["shell"] == "bash", step["shell"]
            output = os.path.join(self.temp, "output_%d" % index)
            open(output, "w").close()
            env = self.base_env()
            env["GITHUB_OUTPUT"] = output
            env.update({k: self.evaluate(v) for k, v in (step.get("env") or {}).items()})
            script = os.path.join(self.temp, "step_%d.sh" % index)
            with open(script, "w") as f:
                f.write(self.evaluate(step["run"]))
            result = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", script], cwd=self.workspace,
                                    env=env, capture_output=True, text=True, timeout=1700)
            self.logs.append((step["name"], result))
            codes[step["name"]] = result.returncode
            if "id" in step:
                with open(output) as f:
                    self.step_outputs[step["id"]] = dict(line.split("=", 1) for line in f.read().splitlines() if "=" in line)
            if result.returncode != 0:
                break
        return codes

    def outputs(self):
        return {name: self.evaluate(spec["value"]) for name, spec in self.action.get("outputs", {}).items()}

    def log(self, name):
        return next(r for n, r in self.logs if n == name)

    def dump(self):
        return "\n".join("--- %s (exit %d)\n%s\n%s" % (n, r.returncode, r.stdout[-3000:], r.stderr[-3000:])
                         for n, r in self.logs)


class ActionTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        the_wheel()

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="asyncfix-action-")
        self.workspace = os.path.join(self.dir, "workspace")
        self.temp = os.path.join(self.dir, "runner-temp")
        os.makedirs(os.path.join(self.workspace, "src"))
        os.makedirs(self.temp)
        # 12 legacy files: more findings than the 10 annotations GitHub shows per step.
        for i in range(12):
            with open(os.path.join(self.workspace, "src", "train_%02d.py" % i), "w") as f:
                f.write(LEGACY)
        with open(os.path.join(self.workspace, "src", "clean.py"), "w") as f:
            f.write("x = 1\n")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def runner(self, action_dir=SOURCE, **inputs):
        inputs.setdefault("wheel", os.path.join(WHEELHOUSE, "asyncfix-*.whl"))
        inputs.setdefault("python", sys.executable)
        return Runner(action_dir, self.workspace, self.temp, inputs)

    def summary(self, runner):
        with open(runner.summary) as f:
            return f.read()

    def test_findings_annotate_summarize_write_sarif_and_fail(self):
        runner = self.runner(**{"sarif-file": "reports/asyncfix.sarif", "max-findings": "5"})
        codes = runner.run()
        self.assertEqual(list(codes.values()), [0, 0, 1], runner.dump())
        # Installed into its own environment, which later steps find on PATH.
        with open(runner.path_file) as f:
            self.assertEqual(f.read(), os.path.join(self.temp, "asyncfix-venv", "bin") + "\n")
        self.assertIn("asyncfix %s" % VERSION, runner.log("Install asyncfix").stdout)
        annotations = [l for l in runner.log("asyncfix check").stdout.splitlines() if l.startswith("::")]
        self.assertEqual(len(annotations), 12, runner.log("asyncfix check").stdout)
        self.assertTrue(all(a.startswith("::error ") and "file=src/train_" in a and "line=5" in a for a in annotations),
                        annotations[0])
        # The job summary: all 12, the first 5 listed, links to the lines at the commit.
        md = self.summary(runner)
        self.assertTrue(md.startswith("### asyncfix: 12 findings in 12 files\n"), md)
        self.assertIn("| 12 | 12 |", md)
        self.assertIn("**First 5 findings** (of 12):", md)
        self.assertIn("[src/train\\_00.py:5:23](https://github.com/octo/legacy/blob/%s/src/train_00.py#L5)" % SHA, md)
        self.assertIn("GitHub shows at most 10 annotations per step", md)
        # SARIF for code scanning, valid against the 2.1.0 schema.
        sarif_path = os.path.join(self.workspace, "reports", "asyncfix.sarif")
        with open(sarif_path) as f:
            sarif = json.load(f)
        self.assertEqual(sarif["version"], "2.1.0")
        self.assertEqual(len(sarif["runs"][0]["results"]), 12)
        if SARIF_SCHEMA:
            import jsonschema
            with open(SARIF_SCHEMA) as f:
                jsonschema.validate(sarif, json.load(f))
        self.assertEqual(runner.outputs(), {"exit-code": "1", "findings": "12", "sarif-file": "reports/asyncfix.sarif"})

    def test_a_clean_tree_passes(self):
        runner = self.runner(args="src/clean.py")
        codes = runner.run()
        self.assertEqual(list(codes.values()), [0, 0, 0], runner.dump())
        self.assertEqual(self.summary(runner), "### asyncfix: no findings\n\n")
        self.assertEqual(runner.outputs(), {"exit-code": "0", "findings": "0", "sarif-file": ""})

    def test_args_are_split_like_a_shell_without_running_anything(self):
        marker = os.path.join(self.dir, "pwned")
        runner = self.runner(args="--select AF101 'src/train_00.py' $(touch %s) ; touch %s" % (marker, marker),
                             summary="false")
        codes = runner.run()
        self.assertFalse(os.path.exists(marker))
        self.assertEqual(codes["asyncfix check"], 0)
        self.assertIn("$(touch", runner.log("asyncfix check").stderr)  # a path that does not exist
        self.assertFalse(os.path.exists(runner.summary))

    def test_output_format_and_bad_quoting_in_args_are_refused(self):
        runner = self.runner(args="--output-format json .")
        codes = runner.run()
        self.assertEqual(codes["asyncfix check"], 2, runner.dump())
        self.assertIn("the action sets --output-format itself", runner.log("asyncfix check").stderr)
        runner = self.runner(args="src 'unbalanced")
        codes = runner.run()
        self.assertEqual(codes["asyncfix check"], 2, runner.dump())
        self.assertIn("::error title=asyncfix::the args input cannot be split as a shell would: No closing quotation",
                      runner.log("asyncfix check").stderr)

    def test_a_wheel_glob_must_match_one_file(self):
        runner = self.runner(wheel=os.path.join(self.dir, "nothing-*.whl"))
        codes = runner.run()
        self.assertEqual(list(codes.values()), [2], runner.dump())
        self.assertIn("matches 0 files", runner.log("Install asyncfix").stderr)

    def test_without_a_wheel_it_builds_one_from_its_source(self):
        # The action in the source tree the fixture's wheel was built from, with its build tree:
        # nothing to compile, and the same wheel.
        source, build_dir = wheel_source()
        runner = self.runner(action_dir=source, wheel="")
        runner.env_extra["ASYNCFIX_WHEEL_BUILD_DIR"] = build_dir
        codes = runner.run()
        self.assertEqual(list(codes.values()), [0, 0, 1], runner.dump())
        built = os.listdir(os.path.join(self.temp, "asyncfix-wheel"))
        self.assertEqual(built, [os.path.basename(the_wheel())])
        self.assertIn("asyncfix %s" % VERSION, runner.log("Install asyncfix").stdout)


if __name__ == "__main__":
    main()
