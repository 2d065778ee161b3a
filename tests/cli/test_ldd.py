"""The shipped commands need nothing on the target machine beyond glibc (issue 14).

`ldd` of `asyncfix` (ASYNCFIX_BIN) and `asyncfix-lsp` (ASYNCFIX_LSP_BIN) may list glibc's own
libraries only: libstdc++ and libgcc are linked statically (ASYNCFIX_STATIC_RUNTIME), toml++ is
used header-only, notebooks are read with nlohmann/json (header-only) instead of
simdjson, and .gitignore is read without libgit2. Registered only for builds that link
the runtime statically (not the sanitizer builds).

Run by hand:
    ASYNCFIX_BIN=build/ci/cli/asyncfix ASYNCFIX_LSP_BIN=build/ci/lsp/asyncfix-lsp \
    python3 -m unittest -v test_ldd
"""

import os
import re
import shutil
import subprocess
import unittest

# glibc's libraries (and the kernel's vDSO), for the architectures Debian builds on.
GLIBC = re.compile(r"^(linux-vdso\.so\.1|linux-gate\.so\.1|libc\.so\.6|libm\.so\.6|libpthread\.so\.0|"
                   r"libdl\.so\.2|librt\.so\.1|libresolv\.so\.2|ld-linux[-a-z0-9_.]*\.so\.[0-9]+)$")

# Known exceptions, each with its reason (none today). An exception that is no longer needed
# fails the test, so that this list only shrinks.
EXCEPTIONS = {
    "asyncfix": set(),
    "asyncfix-lsp": set(),
}


def libraries(binary):
    """The file names `ldd` lists for `binary`."""
    out = subprocess.run(["ldd", binary], capture_output=True, text=True, check=True).stdout
    names = []
    for line in out.splitlines():
        line = line.strip()
        if not line:
            continue
        if "not found" in line:
            raise AssertionError("ldd %s: %s" % (binary, line))
        names.append(os.path.basename(line.split()[0]))
    return names


class LddTest(unittest.TestCase):
    def check(self, name, binary):
        if not binary:
            self.skipTest("the path of %s is not set" % name)
        listed = libraries(binary)
        self.assertTrue(any(n.startswith("libc.so") for n in listed), listed)  # ldd really ran
        unexpected = [n for n in listed if not GLIBC.match(n)
                      and not any(e.match(n) for e in EXCEPTIONS[name])]
        self.assertEqual(unexpected, [], "%s needs more than glibc; ldd lists %s" % (name, listed))
        for exception in EXCEPTIONS[name]:
            self.assertTrue(any(exception.match(n) for n in listed),
                            "%s no longer needs %s: remove the exception" % (name, exception.pattern))

    @classmethod
    def setUpClass(cls):
        if shutil.which("ldd") is None:
            raise unittest.SkipTest("ldd is not installed")

    def test_asyncfix(self):
        self.check("asyncfix", os.environ.get("ASYNCFIX_BIN", ""))

    def test_asyncfix_lsp(self):
        self.check("asyncfix-lsp", os.environ.get("ASYNCFIX_LSP_BIN", ""))


if __name__ == "__main__":
    unittest.main()
