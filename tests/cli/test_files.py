"""File safety of `asyncfix check --fix`: what happens to files when things go wrong.

- A run killed with SIGKILL in the middle of a large fix leaves every file either as it was or
  fully fixed, never half-written; what it may leave is a hidden `.NAME.asyncfix-XXXXXX`
  temporary file beside one of them (documented in the README), never a `.py` file.
- A file changed on disk (or deleted, or replaced) between its read and its write is not
  overwritten; the run reports it and goes on.
- Hard links: a file with several links is reported and not rewritten (replacing it would
  leave the other names with the old text). Symlinks named on the command line are written
  through, the link stays a link; symlinks met during a walk are not followed.
- Mode, owner (as root) and line endings are kept.

The "between read and write" tests are not timed: they wait for Linux's inotify to say the
binary has closed the file after reading it (IN_CLOSE_NOWRITE), then change it while the binary
is still busy fixing a large file (most of a second of work in a release build, ten seconds under
ASan, against the microseconds of the change).
"""

import ctypes
import ctypes.util
import os
import re
import select
import signal
import stat
import struct
import subprocess
import time
import unittest

from test_cli import BIN, NOBODY, TORCH, TORCH_FIXED, CliTestCase, read, run, write

TEMP_NAME = re.compile(r"^\.(.+)\.asyncfix-[A-Za-z0-9]{6}$")


def big_source(lines):
    """A file with one AF101 finding per line: `lines` findings, slow enough to fix."""
    return "".join(f"y{i} = x.cuda(async=True)  # é {i}\n" for i in range(lines))


def big_fixed(lines):
    return "".join(f"y{i} = x.cuda(non_blocking=True)  # é {i}\n" for i in range(lines))


class Inotify:
    """The least of Linux inotify through ctypes: watch one file for IN_CLOSE_NOWRITE."""

    IN_CLOSE_NOWRITE = 0x10

    def __init__(self):
        self.libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        self.fd = self.libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")

    def watch(self, path):
        wd = self.libc.inotify_add_watch(self.fd, os.fsencode(path), self.IN_CLOSE_NOWRITE)
        if wd < 0:
            raise OSError(ctypes.get_errno(), "inotify_add_watch", path)

    def wait_closed(self, timeout):
        """True when a watched file was closed after a read-only open within `timeout` seconds."""
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return False
        data = os.read(self.fd, 4096)
        mask = struct.unpack_from("iIII", data)[1]
        return bool(mask & self.IN_CLOSE_NOWRITE)

    def close(self):
        os.close(self.fd)


class FileSafetyTest(CliTestCase):
    def start(self, *args):
        return subprocess.Popen([BIN, "check", *args], cwd=self.dir, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)

    def change_after_read(self, name, change):
        """Runs `--fix` on a big file `name` and calls change() once the binary has read it."""
        lines = 12000
        write(self.path(name), big_source(lines))
        notify = Inotify()
        self.addCleanup(notify.close)
        notify.watch(self.path(name))
        proc = self.start("--fix", "-j1", name)
        try:
            self.assertTrue(notify.wait_closed(60), "the binary never read the file")
            self.assertIsNone(proc.poll(), "the fix finished before the file could be changed")
            change()
            out, err = proc.communicate(timeout=300)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        return proc.returncode, out.decode(), err.decode()

    def test_a_file_changed_after_it_was_read_is_not_overwritten(self):
        edited = "# the user's edit, made while asyncfix was working\n"

        def change():
            with open(self.path("big.py"), "a", encoding="utf-8") as f:
                f.write(edited)

        code, out, err = self.change_after_read("big.py", change)
        self.assertEqual(code, 2, err)
        self.assertIn("big.py: file changed while it was being checked, not written", err)
        self.assertEqual(read(self.path("big.py")).decode(), big_source(12000) + edited)
        self.assertEqual(os.listdir(self.dir), ["big.py"])

    def test_a_file_replaced_after_it_was_read_is_not_overwritten(self):
        replacement = "print('a new file under the old name')\n"

        def change():
            write(self.path("new.tmp"), replacement)
            os.rename(self.path("new.tmp"), self.path("big.py"))

        code, out, err = self.change_after_read("big.py", change)
        self.assertEqual(code, 2, err)
        self.assertIn("big.py: file changed while it was being checked, not written", err)
        self.assertEqual(read(self.path("big.py")).decode(), replacement)

    def test_a_file_deleted_after_it_was_read_is_not_recreated(self):
        code, out, err = self.change_after_read("big.py", lambda: os.unlink(self.path("big.py")))
        self.assertEqual(code, 2, err)
        self.assertIn("big.py: no such file or directory", err)
        self.assertEqual(os.listdir(self.dir), [])

    def test_vanished_file_is_reported_and_the_rest_fixed(self):
        write(self.path("ok.py"), TORCH)
        res = self.check("--fix", "gone.py", "ok.py")
        self.assertEqual(res.code, 2, res)
        self.assertIn("gone.py: no such file or directory", res.stderr)
        self.assertEqual(read(self.path("ok.py")).decode(), TORCH_FIXED)

    def test_sigkill_during_a_large_fix_never_leaves_a_half_written_file(self):
        files, lines = 24, 4000
        source, fixed = big_source(lines).encode(), big_fixed(lines).encode()
        crlf_source, crlf_fixed = source.replace(b"\n", b"\r\n"), fixed.replace(b"\n", b"\r\n")
        for round_, delay in enumerate((0.1, 0.5, 1.5)):
            with self.subTest(kill_after=delay):
                base = self.path(f"round{round_}")
                for i in range(files):
                    write(os.path.join(base, f"f{i:03d}.py"), crlf_source if i % 2 else source, 0o640)
                proc = self.start("--fix", "-j2", f"round{round_}")
                time.sleep(delay)
                proc.send_signal(signal.SIGKILL)
                proc.communicate()
                states = {"original": 0, "fixed": 0}
                for entry in sorted(os.listdir(base)):
                    path = os.path.join(base, entry)
                    temp = TEMP_NAME.match(entry)
                    if temp:
                        # A temporary file the kill interrupted: hidden, not *.py, and its
                        # target is intact (checked below like every other file).
                        self.assertIn(temp.group(1), os.listdir(base))
                        continue
                    data = read(path)
                    odd = int(entry[1:4]) % 2
                    if data == (crlf_source if odd else source):
                        states["original"] += 1
                    elif data == (crlf_fixed if odd else fixed):
                        states["fixed"] += 1
                    else:
                        self.fail(f"{entry} is neither the original nor the fixed text ({len(data)} bytes)")
                    self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o640)
                self.assertEqual(sum(states.values()), files, states)
                # A second run finishes the job and removes nothing it should not.
                res = self.check("--fix", f"round{round_}")
                self.assertEqual(res.code, 0, res)
                for i in range(files):
                    self.assertEqual(read(os.path.join(base, f"f{i:03d}.py")), crlf_fixed if i % 2 else fixed)

    def test_hard_linked_file_is_reported_and_not_split(self):
        write(self.path("a.py"), TORCH)
        os.link(self.path("a.py"), self.path("b.py"))
        write(self.path("ok.py"), TORCH)
        res = self.check("--fix", ".")
        self.assertEqual(res.code, 2, res)
        self.assertRegex(res.stderr, r"a\.py: has 2 hard links, not written")
        self.assertEqual(read(self.path("a.py")).decode(), TORCH)
        self.assertEqual(os.stat(self.path("a.py")).st_ino, os.stat(self.path("b.py")).st_ino)
        self.assertEqual(read(self.path("ok.py")).decode(), TORCH_FIXED)
        # Checking (no --fix) a hard-linked file is fine.
        res = self.check("a.py")
        self.assertEqual(res.code, 1, res)

    def test_symlink_in_a_walk_is_not_followed_and_its_target_untouched(self):
        write(self.path("outside", "t.py"), TORCH)
        os.makedirs(self.path("proj"))
        os.symlink(self.path("outside", "t.py"), self.path("proj", "link.py"))
        write(self.path("proj", "own.py"), TORCH)
        res = self.check("--fix", "proj")
        self.assertEqual(res.code, 0, res)
        self.assertTrue(os.path.islink(self.path("proj", "link.py")))
        self.assertEqual(read(self.path("outside", "t.py")).decode(), TORCH)
        self.assertEqual(read(self.path("proj", "own.py")).decode(), TORCH_FIXED)

    @unittest.skipUnless(os.geteuid() == 0, "changing a file's owner needs root")
    def test_owner_group_and_mode_are_kept(self):
        write(self.path("theirs.py"), TORCH)
        os.chown(self.path("theirs.py"), NOBODY, NOBODY)
        os.chmod(self.path("theirs.py"), 0o2750)  # after chown, which clears set-id bits
        res = self.check("--fix", "theirs.py")
        self.assertEqual(res.code, 0, res)
        st = os.stat(self.path("theirs.py"))
        self.assertEqual((st.st_uid, st.st_gid), (NOBODY, NOBODY))
        self.assertEqual(stat.S_IMODE(st.st_mode), 0o2750)
        self.assertEqual(read(self.path("theirs.py")).decode(), TORCH_FIXED)


if __name__ == "__main__":
    unittest.main()
