"""The manual (README.md and docs/): every relative link resolves, and the rule pages are what the
rule registry generates (scripts/gen-rule-docs.py --check).

ASYNCFIX_BIN names the built `asyncfix`; the source tree is this file's ../..
"""
import json
import os
import re
import shutil
import subprocess
import tempfile
import sys
import unittest
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("ASYNCFIX_BIN", "asyncfix")


def slug(heading):
    """GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces as `-`."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def outside_fences(path):
    """(line number, line) of a Markdown file, skipping fenced code blocks."""
    fence = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if line.startswith("```"):
                fence = not fence
            elif not fence:
                yield number, line


def anchors(path):
    return {slug(line.lstrip("#")) for _, line in outside_fences(path) if re.match(r"#{1,6} ", line)}


def manual_files():
    files = [os.path.join(ROOT, "README.md")]
    for directory, _, names in os.walk(os.path.join(ROOT, "docs")):
        files += [os.path.join(directory, n) for n in sorted(names) if n.endswith(".md")]
    return files


class LinkTest(unittest.TestCase):
    def test_relative_links_resolve(self):
        broken = []
        for path in manual_files():
            for number, line in outside_fences(path):
                for target in re.findall(r"\]\(([^)\s]+)\)", line):
                    if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                        continue  # https:, mailto:
                    file_part, _, anchor = target.partition("#")
                    resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
                    where = "%s:%d: %s" % (os.path.relpath(path, ROOT), number, target)
                    if not os.path.exists(resolved):
                        broken.append(where + " (no such file)")
                    elif anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
                        broken.append(where + " (no such heading)")
        self.assertEqual(broken, [])

    def test_readme_is_the_first_five_minutes(self):
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            lines = f.read().split("\n")
        self.assertLess(len(lines), 300)
        headings = [line for line in lines if line.startswith("## ")]
        for wanted in ("## Install", "## Quick start", "## Editors", "## Documentation"):
            self.assertIn(wanted, headings)

    def test_every_page_is_in_the_index(self):
        with open(os.path.join(ROOT, "docs", "README.md"), encoding="utf-8") as f:
            index = f.read()
        for name in sorted(os.listdir(os.path.join(ROOT, "docs"))):
            if name.endswith(".md") and name != "README.md":
                self.assertIn("](%s)" % name, index, name)


class RulePagesTest(unittest.TestCase):
    def test_rule_pages_are_generated_from_the_registry(self):
        run = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen-rule-docs.py"), "--asyncfix", BIN,
                              "--check"], capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)

    def test_a_stale_or_missing_page_fails_the_check(self):
        with tempfile.TemporaryDirectory() as root:
            shutil.copy(os.path.join(ROOT, "README.md"), root)
            shutil.copytree(os.path.join(ROOT, "docs", "rules"), os.path.join(root, "docs", "rules"))
            os.remove(os.path.join(root, "docs", "rules", "AF101.md"))
            with open(os.path.join(root, "docs", "rules", "AF001.md"), "a", encoding="utf-8") as f:
                f.write("edited by hand\n")
            with open(os.path.join(root, "docs", "rules", "AF999.md"), "w", encoding="utf-8") as f:
                f.write("a rule that is gone\n")
            command = [sys.executable, os.path.join(ROOT, "scripts", "gen-rule-docs.py"), "--asyncfix", BIN,
                       "--root", root]
            run = subprocess.run(command + ["--check"], capture_output=True, text=True)
            self.assertEqual(run.returncode, 1)
            for stale in ("AF001.md", "AF101.md (missing)", "AF999.md (no such rule)"):
                self.assertIn(stale, run.stderr)
            # Regenerating makes the check pass, with the repository's pages.
            subprocess.run(command, check=True, capture_output=True)
            self.assertEqual(subprocess.run(command + ["--check"], capture_output=True).returncode, 0)
            for name in os.listdir(os.path.join(ROOT, "docs", "rules")):
                with open(os.path.join(root, "docs", "rules", name), encoding="utf-8") as got, \
                        open(os.path.join(ROOT, "docs", "rules", name), encoding="utf-8") as want:
                    self.assertEqual(got.read(), want.read(), name)

    def test_each_rule_has_a_page_with_its_documentation(self):
        rules = json.loads(subprocess.run([BIN, "rule", "--all", "--output-format", "json"], capture_output=True,
                                          text=True, check=True).stdout)
        self.assertTrue(rules)
        for rule in rules:
            page = os.path.join(ROOT, "docs", "rules", rule["code"] + ".md")
            self.assertTrue(os.path.isfile(page), page)
            with open(page, encoding="utf-8") as f:
                text = f.read()
            self.assertIn("# %s %s" % (rule["code"], rule["name"]), text)
            self.assertIn(rule["explanation"].strip(), text)


def url_path(url):
    """The file a file:// URL names."""
    assert url.startswith("file://"), url
    return urllib.parse.unquote(urllib.parse.urlparse(url).path)


class LinkTargetTest(unittest.TestCase):
    """The links asyncfix prints lead to a page that exists: from the build tree, the repository's
    docs/ (<build>/share/doc/asyncfix links there); `docs-url` and `--docs-url` move them."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="asyncfix-docs-")
        self.addCleanup(shutil.rmtree, self.dir)
        with open(os.path.join(self.dir, "t.py"), "w", encoding="utf-8") as f:
            f.write("import torch\nx = torch.zeros(1)\nx.cuda(async=True)\n")

    def check(self, *args):
        return subprocess.run([BIN, "check", "--isolated", *args], cwd=self.dir, capture_output=True, text=True)

    def check_with_config(self, *args):
        return subprocess.run([BIN, "check", *args], cwd=self.dir, capture_output=True, text=True)

    def test_json_sarif_and_rule_links_resolve_to_the_rule_pages(self):
        [finding] = json.loads(self.check("--output-format", "json", "t.py").stdout)
        self.assertTrue(finding["url"].endswith("/rules/AF101.md"), finding["url"])
        self.assertTrue(os.path.isfile(url_path(finding["url"])), finding["url"])
        self.assertEqual(os.path.realpath(url_path(finding["url"])),
                         os.path.realpath(os.path.join(ROOT, "docs", "rules", "AF101.md")))
        sarif = json.loads(self.check("--output-format", "sarif", "t.py").stdout)
        driver = sarif["runs"][0]["tool"]["driver"]
        self.assertTrue(os.path.isfile(url_path(driver["informationUri"])), driver["informationUri"])
        for rule in driver["rules"]:
            self.assertTrue(os.path.isfile(url_path(rule["helpUri"])), rule["helpUri"])
        for rule in json.loads(subprocess.run([BIN, "rule", "--all", "--output-format", "json"], capture_output=True,
                                              text=True, check=True).stdout):
            self.assertTrue(os.path.isfile(url_path(rule["url"])), rule["url"])

    def test_no_link_points_at_a_domain_nobody_owns(self):
        outputs = [self.check("--output-format", fmt, "t.py").stdout for fmt in ("json", "sarif")]
        outputs.append(subprocess.run([BIN, "rule", "--all", "--output-format", "json"], capture_output=True,
                                      text=True).stdout)
        for out in outputs:
            self.assertNotIn("asyncfix.dev", out)

    def test_docs_url_option_and_configuration_key(self):
        base = "https://docs.test/asyncfix"
        [finding] = json.loads(self.check("--output-format", "json", "--docs-url", base + "/", "t.py").stdout)
        self.assertEqual(finding["url"], base + "/rules/AF101.md")
        sarif = json.loads(self.check("--output-format", "sarif", "--docs-url", base, "t.py").stdout)
        driver = sarif["runs"][0]["tool"]["driver"]
        self.assertEqual(driver["informationUri"], base + "/README.md")
        self.assertEqual({r["helpUri"] for r in driver["rules"]},
                         {base + "/rules/%s.md" % r["id"] for r in driver["rules"]})
        rule = json.loads(subprocess.run([BIN, "rule", "AF101", "--output-format", "json", "--docs-url", base],
                                         capture_output=True, text=True, check=True).stdout)
        self.assertEqual(rule["url"], base + "/rules/AF101.md")
        # The configuration file's `docs-url`, which the flag overrides.
        with open(os.path.join(self.dir, "asyncfix.toml"), "w", encoding="utf-8") as f:
            f.write('docs-url = "https://docs.test/from-config"\n')
        [finding] = json.loads(self.check_with_config("--output-format", "json", "t.py").stdout)
        self.assertEqual(finding["url"], "https://docs.test/from-config/rules/AF101.md")
        [finding] = json.loads(self.check_with_config("--output-format", "json", "--docs-url", base, "t.py").stdout)
        self.assertEqual(finding["url"], base + "/rules/AF101.md")

    def test_a_docs_url_that_is_no_url_is_refused(self):
        # The flags judge as the configuration file does: a scheme before `://`, something after.
        for url in ("docs.test/asyncfix", "://docs.test", "1x://docs.test", "https://"):
            for command in (["check", "t.py"], ["rule", "AF101"]):
                with self.subTest(url=url, command=command[0]):
                    run = subprocess.run([BIN, *command, "--docs-url", url], cwd=self.dir, capture_output=True,
                                         text=True)
                    self.assertEqual(run.returncode, 2, run.stdout)
                    self.assertIn("--docs-url", run.stderr)
        with open(os.path.join(self.dir, "asyncfix.toml"), "w", encoding="utf-8") as f:
            f.write('docs-url = "not a url"\n')
        run = self.check_with_config("t.py")
        self.assertEqual(run.returncode, 2)
        self.assertIn("asyncfix.toml:1:", run.stderr)
        self.assertIn("`docs-url` must be an absolute URL", run.stderr)


if __name__ == "__main__":
    unittest.main()
