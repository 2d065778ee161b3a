"""packaging/manylinux/glibc_2_17.c (issue 31), label `package`: the thread_local destructors of
the manylinux2014 artefacts without glibc 2.18's __cxa_thread_atexit_impl.

The probe (thread_atexit_probe.cpp) is linked like the commands (static libstdc++ and libgcc)
twice: with the file, it must neither import nor export that function, and
print what the standard asks (a thread's destructors when it ends, in reverse order, the main
thread's at exit, and one registered during another's destruction); without it (the control), it
imports __cxa_thread_atexit_impl, which shows that the first check can fail. Needs readelf.
"""

import os
import re
import subprocess
import unittest

PROBE = os.environ.get("ASYNCFIX_THREAD_ATEXIT_PROBE", "")
CONTROL = os.environ.get("ASYNCFIX_THREAD_ATEXIT_CONTROL", "")
EXPECTED = """\
destroyed second after 1 use(s)
destroyed late after 1 use(s)
destroyed first after 1 use(s)
joined
exiting
destroyed second after 2 use(s)
destroyed late after 1 use(s)
destroyed first after 1 use(s)
"""


def readelf(*args):
    return subprocess.run(["readelf", "--wide"] + list(args), capture_output=True, text=True, check=True).stdout


def imports(path):
    """The dynamic symbols `path` needs from elsewhere, with their versions."""
    return set(re.findall(r"\sUND\s+(\S+)", readelf("--dyn-syms", path)))


@unittest.skipUnless(PROBE and CONTROL, "the probes are built with the static C++ runtime only (no sanitizer)")
class ThreadAtexit(unittest.TestCase):
    def test_the_probe_neither_imports_nor_exports_it(self):
        # (The rest of its glibc floor is this machine's; the bullseye build checks 2.17 whole.)
        self.assertNotIn("__cxa_thread_atexit_impl", readelf("--dyn-syms", PROBE))

    def test_destructors_run_in_order_in_threads_and_at_exit(self):
        result = subprocess.run([PROBE], capture_output=True, text=True, timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, EXPECTED)

    def test_the_control_needs_glibcs_function(self):
        # Without the file, the static libstdc++ takes glibc's (on a glibc ≥ 2.18 build machine).
        self.assertIn("__cxa_thread_atexit_impl@GLIBC_2.18", imports(CONTROL))
        result = subprocess.run([CONTROL], capture_output=True, text=True, timeout=60)
        self.assertEqual(result.stdout, EXPECTED)


if __name__ == "__main__":
    unittest.main(verbosity=2)
