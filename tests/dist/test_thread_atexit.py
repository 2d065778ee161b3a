"""packaging/manylinux/glibc_2_17.c (issue 31), label `package`: what the manylinux2014 artefacts
use of glibc newer than 2.17 — __cxa_thread_atexit_impl (thread_local destructors), getdents64,
renameat2, pthread_cond_clockwait — defined in the files themselves.

The probe (thread_atexit_probe.cpp) is linked like the commands (static libstdc++ and libgcc)
twice: with the file, it must neither import nor export those functions, and print what glibc's
would make it print (a thread's destructors when it ends, in reverse order, the main thread's at
exit, one registered during another's destruction; a directory's listing; renames with and
without RENAME_NOREPLACE; condition variable waits that time out after their time or wake); without
it (the control), it imports glibc's, which shows that the first check can fail. Needs readelf.
"""

import os
import re
import subprocess
import unittest

PROBE = os.environ.get("ASYNCFIX_THREAD_ATEXIT_PROBE", "")
CONTROL = os.environ.get("ASYNCFIX_THREAD_ATEXIT_CONTROL", "")
FUNCTIONS = ("__cxa_thread_atexit_impl", "getdents64", "renameat2", "pthread_cond_clockwait")
EXPECTED = """\
renameat2 onto a file: -1, EEXIST
renameat2 to a new name: 0
renameat2 without flags: 0
getdents64: a b
wait_for without a notification: timed out, after its time
wait_for with a notification: woke
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
    def test_the_probe_neither_imports_nor_exports_them(self):
        # (The rest of its glibc floor is this machine's; the bullseye build checks 2.17 whole.)
        symbols = readelf("--dyn-syms", PROBE)
        for function in FUNCTIONS:
            self.assertNotRegex(symbols, r"\s%s(@|\s|$)" % function)

    def test_it_does_what_glibcs_would(self):
        result = subprocess.run([PROBE], capture_output=True, text=True, timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, EXPECTED)

    def test_the_control_needs_glibcs_function(self):
        # Without the file, the probe and the static libstdc++ take glibc's (on a glibc ≥ 2.30
        # build machine).
        self.assertEqual({s.split("@")[0] for s in imports(CONTROL)} & set(FUNCTIONS), set(FUNCTIONS))
        self.assertIn("__cxa_thread_atexit_impl@GLIBC_2.18", imports(CONTROL))
        result = subprocess.run([CONTROL], capture_output=True, text=True, timeout=60)
        self.assertEqual(result.stdout, EXPECTED)


if __name__ == "__main__":
    unittest.main(verbosity=2)
