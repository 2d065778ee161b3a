"""What the slow distribution tests (label `dist`) share: their settings from CTest, running
commands, the wheel the dist.wheel fixture built, legacy sources, the Debian roots, and a main
that reports "skipped" to CTest (exit 77) when every test skipped.

`python3 dist_util.py bookworm-root` makes the bookworm root ahead of the tests (.ci/run, while
the first lanes build; ASYNCFIX_DIST_CACHE as CTest sets it).
"""

import glob
import os
import shutil
import subprocess
import sys
import time
import unittest
import urllib.request

SOURCE = os.path.abspath(os.environ.get("ASYNCFIX_SOURCE_DIR") or os.path.join(os.path.dirname(__file__), "..", ".."))
VERSION = os.environ.get("ASYNCFIX_VERSION", "")
WHEELHOUSE = os.environ.get("ASYNCFIX_WHEELHOUSE", "")
# The aarch64 wheel dist.aarch64 cross-builds (scripts/build-manylinux.sh --arch aarch64).
AARCH64_WHEELHOUSE = os.environ.get("ASYNCFIX_AARCH64_WHEELHOUSE", "")
WHEEL_BUILD_DIR = os.environ.get("ASYNCFIX_WHEEL_BUILD_DIR", "")
CACHE = os.environ.get("ASYNCFIX_DIST_CACHE") or os.path.join(SOURCE, "build", "dist-cache")

LEGACY = (
    "import torch\n"
    "\n"
    "\n"
    "def load(batch):\n"
    "    return batch.cuda(async=True)\n"
)
FIXED = LEGACY.replace("async=True", "non_blocking=True")
FINDING = "legacy.py:5:23: AF101"
# The release wheels' platform tag (scripts/build-manylinux.sh), and its bullseye build root's key
# in CACHE.
MANYLINUX_TAG = "py3-none-manylinux_2_17_%s.manylinux2014_%s" % (os.uname().machine, os.uname().machine)
BUILD_ROOT_KEY = "bullseye-g++-python3-venv"


def run(command, check=True, timeout=1800, **kwargs):
    """subprocess.run with text output; a failure shows the command, its exit code and output."""
    result = subprocess.run([str(c) for c in command], capture_output=True, text=True, timeout=timeout, **kwargs)
    if check and result.returncode != 0:
        raise AssertionError("%s exited %d\nstdout:\n%s\nstderr:\n%s"
                             % (" ".join(map(str, command)), result.returncode, result.stdout[-6000:],
                                result.stderr[-6000:]))
    return result


def the_wheel(wheelhouse=None):
    """The wheel dist.wheel built (exactly one in the wheelhouse), or the one in `wheelhouse`."""
    wheelhouse = wheelhouse or WHEELHOUSE
    found = glob.glob(os.path.join(wheelhouse, "asyncfix-*.whl"))
    if len(found) != 1:
        raise AssertionError("expected one wheel in %s (built by its dist test), found %s" % (wheelhouse, found))
    return found[0]


def wheel_source():
    """(source tree, build tree) dist.wheel's wheel was built from: the clone's copy in the bullseye
    root and its build tree there (scripts/build-manylinux.sh), or the clone and WHEEL_BUILD_DIR.
    A build of the same source in that tree compiles nothing."""
    if is_manylinux(the_wheel()):
        root = os.path.join(CACHE, BUILD_ROOT_KEY)
        return os.path.join(root, "src"), os.path.join(root, "build-" + os.uname().machine)
    return SOURCE, WHEEL_BUILD_DIR


def is_manylinux(wheel):
    """Whether `wheel` is a release wheel of scripts/build-manylinux.sh (not the fallback of a
    machine where it cannot run)."""
    return ".manylinux2014_" in os.path.basename(wheel)


MIRROR = os.environ.get("ASYNCFIX_DEBIAN_MIRROR", "http://deb.debian.org/debian")


def reachable(url):
    try:
        with urllib.request.urlopen(url, timeout=20) as response:
            return response.status == 200
    except OSError:
        return False


def debootstrapped(key, args):
    """The path of a Debian root made by `debootstrap ARGS <root> MIRROR` (args ends with the
    suite), cached in CACHE/<key> with a stamp: made once, reused by every later run. Raises
    SkipTest when the mirror cannot be reached."""
    cached = os.path.join(CACHE, key)
    stamp = os.path.join(CACHE, key + ".done")
    if not os.path.exists(stamp):
        release = "%s/dists/%s/Release" % (MIRROR, args[-1])
        if not reachable(release):
            raise unittest.SkipTest("the Debian mirror is not reachable (%s)" % release)
        shutil.rmtree(cached, ignore_errors=True)
        os.makedirs(CACHE, exist_ok=True)
        started = time.monotonic()
        run(["debootstrap"] + list(args) + [cached, MIRROR], timeout=1700)
        with open(stamp, "w") as f:
            f.write("debootstrap %s %s\n" % (" ".join(args), MIRROR))
        print("debootstrap took %.0f s (cached in %s)" % (time.monotonic() - started, cached))
    return cached


def bookworm_root():
    """The minimal bookworm root the wheel is installed into (test_wheel.Debootstrap,
    test_manylinux.Bookworm): minbase and python3-venv, cached in CACHE."""
    return debootstrapped("bookworm-minbase-python3-venv", ["--variant=minbase", "--include=python3-venv", "bookworm"])


def main():
    """unittest's main, but exit 77 (CTest's SKIP_RETURN_CODE) when every test was skipped."""
    program = unittest.main(exit=False, verbosity=2)
    result = program.result
    # (a class skipped in setUpClass counts one skip and no test run)
    if result.skipped and len(result.skipped) >= result.testsRun and result.wasSuccessful():
        for _, reason in result.skipped:
            print("skipped: %s" % reason)
        sys.exit(77)
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == "__main__":
    if sys.argv[1:] != ["bookworm-root"]:
        sys.exit("usage: dist_util.py bookworm-root")
    print(bookworm_root())
