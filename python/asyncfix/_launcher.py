"""Runs the `asyncfix` command installed with this package (`python -m asyncfix ARGS...`), and
says clearly when this installation cannot run on this machine.

Knows where installers put a package's commands (the interpreter's scripts directory, the user
scheme's, `--target`/`--prefix` trees, a system install's bin) and, for a wheel, what the wheel
was built for (asyncfix/_wheel_info.py, written by the wheel build). Loads nothing native, so
that it can speak where the library (asyncfix/_capi.py) cannot be loaded.
"""

import errno
import os
import platform
import shutil
import struct
import sys
import sysconfig

try:
    from . import _wheel_info as WHEEL
except ImportError:  # installed by CMake or the Debian package, not from a wheel
    WHEEL = None

BUILD_FROM_SOURCE = "build asyncfix from source instead (README: \"Building from source\")"


def glibc_version():
    """(major, minor) of the running glibc, or None when the C library is not glibc."""
    try:
        text = os.confstr("CS_GNU_LIBC_VERSION") or ""
    except (ValueError, OSError, AttributeError):
        return None
    name, _, version = text.partition(" ")
    parts = version.split(".")
    if name != "glibc" or len(parts) < 2 or not (parts[0].isdigit() and parts[1].isdigit()):
        return None
    return int(parts[0]), int(parts[1])


def _this_machine():
    libc = glibc_version()
    return "%s %s with %s" % (platform.system() or sys.platform, platform.machine() or "?",
                              "glibc %d.%d" % libc if libc else "a C library that is not glibc")


# A Windows wheel's tags (packaging/pep517/asyncfix_build/pe.py), and Windows's names for machines
# (platform.machine()) as the wheel's MACHINE spells them.
WINDOWS_TAGS = ("win_amd64", "win32", "win_arm64")
WINDOWS_MACHINES = {"amd64": "x86_64", "x86_64": "x86_64", "arm64": "aarch64", "x86": "i686"}


def platform_problem(info=WHEEL):
    """Why a wheel built for `info` cannot run here, or None when nothing is known against it."""
    if info is None:
        return None
    if info.TAG.endswith(WINDOWS_TAGS):
        machine = platform.machine()
        if sys.platform != "win32" or WINDOWS_MACHINES.get(machine.lower(), machine) != info.MACHINE:
            return ("this asyncfix wheel (%s) is for Windows %s; this machine is %s %s. Install a wheel built "
                    "for this platform, or %s." % (info.TAG, info.MACHINE, platform.system() or sys.platform,
                                                  machine or "?", BUILD_FROM_SOURCE))
        return None
    glibc = tuple(info.GLIBC) if info.GLIBC else None
    needs = "Linux %s%s" % (info.MACHINE, " with glibc %d.%d or newer" % glibc if glibc else "")
    libc = glibc_version()
    if (not sys.platform.startswith("linux") or platform.machine() != info.MACHINE
            or (glibc and (libc is None or libc < glibc))):
        return ("this asyncfix wheel (%s) is for %s; this machine is %s. Install a wheel built for this "
                "platform, or %s." % (info.TAG, needs, _this_machine(), BUILD_FROM_SOURCE))
    return None


def import_error_message(error, info=WHEEL):
    """The message for an ImportError of the engine (asyncfix/_capi.py, which names the library)."""
    why = platform_problem(info)
    if why:
        return "asyncfix cannot be loaded: %s (%s)" % (why, error)
    return "asyncfix cannot be loaded: %s" % error


def running_as_main():
    """True while `python -m asyncfix` imports the package (sys.argv[0] is '-m' then)."""
    if sys.argv[:1] != ["-m"]:
        return False
    argv = list(getattr(sys, "orig_argv", []))
    return any((a == "-m" and argv[i + 1:i + 2] == ["asyncfix"]) or a == "-masyncfix" for i, a in enumerate(argv))


def script_dirs():
    """Where an installer may have put this package's commands, most specific first."""
    dirs = [sysconfig.get_path("scripts")]
    try:
        user = sysconfig.get_preferred_scheme("user")
    except AttributeError:  # Python < 3.10
        user = "posix_user"
    try:
        dirs.append(sysconfig.get_path("scripts", scheme=user))
    except KeyError:
        pass
    # pip --target T (T/bin beside T/asyncfix), --prefix P (P/lib/pythonX.Y/site-packages/asyncfix),
    # a system install (/usr/lib/python3/dist-packages/asyncfix → /usr/bin).
    here = os.path.dirname(os.path.abspath(__file__))
    for _ in range(4):
        here = os.path.dirname(here)
        dirs.append(os.path.join(here, "bin"))
    unique = []
    for d in dirs:
        if d and d not in unique:
            unique.append(d)
    return unique


def find(name, dirs=None):
    """The path of the command `name`: in the installer's directories, else on PATH; None."""
    for d in script_dirs() if dirs is None else dirs:
        for file in (name + ".exe", name) if os.name == "nt" else (name,):  # Windows: asyncfix.exe
            path = os.path.join(d, file)
            if os.path.isfile(path):
                return path
    return shutil.which(name) if dirs is None else None


PT_LOAD, PT_INTERP = 1, 3


def elf_segments(path):
    """[(p_type, p_offset, p_filesz)] of the ELF file at `path`, from its program headers; None
    when it is not an ELF file or they cannot be read."""
    try:
        with open(path, "rb") as f:
            data = f.read(1 << 16)
        if data[:4] != b"\x7fELF" or data[4] not in (1, 2) or data[5] not in (1, 2):
            return None
        order = "<" if data[5] == 1 else ">"
        if data[4] == 2:
            phoff, = struct.unpack_from(order + "Q", data, 32)
            phentsize, phnum = struct.unpack_from(order + "HH", data, 54)
            fmt, off_index, size_index = order + "IIQQQQQQ", 2, 5
        else:
            phoff, = struct.unpack_from(order + "I", data, 28)
            phentsize, phnum = struct.unpack_from(order + "HH", data, 42)
            fmt, off_index, size_index = order + "IIIIIIII", 1, 4
        segments = []
        for i in range(phnum):
            entry = struct.unpack_from(fmt, data, phoff + i * phentsize)
            segments.append((entry[0], entry[off_index], entry[size_index]))
        return segments
    except (OSError, struct.error):
        return None


def elf_interpreter(path):
    """The dynamic loader an ELF program asks for (PT_INTERP), or None."""
    for kind, start, size in elf_segments(path) or []:
        if kind == PT_INTERP:
            try:
                with open(path, "rb") as f:
                    f.seek(start)
                    data = f.read(size)
            except OSError:
                return None
            return data.split(b"\0", 1)[0].decode("utf-8", "replace")
    return None


def explain_exec_error(error, path, info=WHEEL):
    built_for = " (the wheel is %s)" % info.TAG if info else ""
    if error.errno == errno.ENOEXEC:
        return ("%s is not a program this machine can run%s; this machine is %s. Install asyncfix for this "
                "platform, or %s." % (path, built_for, _this_machine(), BUILD_FROM_SOURCE))
    if error.errno == errno.ENOENT and os.path.exists(path):
        loader = elf_interpreter(path)
        return ("%s needs the program loader %s, which this machine does not have%s; this machine is %s. "
                "Install asyncfix for this platform, or %s."
                % (path, loader or "of another C library", built_for, _this_machine(), BUILD_FROM_SOURCE))
    if error.errno == errno.EACCES:
        return "%s is not executable (%s); reinstall asyncfix." % (path, error.strerror)
    return "%s: %s" % (path, error.strerror or error)


def main(name, args, dirs=None, info=WHEEL):
    """Replace this process with the command `name` and `args`; return an exit status (2) only
    when that cannot be done, after saying why on stderr."""
    problem = platform_problem(info)
    if problem:
        print("asyncfix: " + problem, file=sys.stderr)
        return 2
    path = find(name, dirs)
    if path is None:
        where = ", ".join(script_dirs() if dirs is None else dirs)
        print("asyncfix: the `%s` command is not installed with this Python package (looked in %s and on "
              "PATH); reinstall asyncfix (pip install --force-reinstall asyncfix-*.whl)." % (name, where),
              file=sys.stderr)
        return 2
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        if os.name == "nt":  # no exec on Windows (os.execv starts a process and ends this one at once)
            import subprocess
            return subprocess.call([path] + list(args))
        os.execv(path, [path] + list(args))
    except OSError as error:
        print("asyncfix: " + explain_exec_error(error, path, info), file=sys.stderr)
        return 2
    return 2  # not reached
