"""The wheel's tags (PEP 425): `py3-none`, since nothing in it is built for one Python (the
package loads the engine's library with ctypes), and a platform tag that says no more than the
built files show.

`manylinux_X_Y_<arch>` (PEP 600) is claimed only when every ELF file in the wheel needs nothing
but glibc's own libraries, and then X.Y is the newest glibc symbol version any of them asks for
(what auditwheel would compute for such files), but never below 2.17 (FLOOR): files that need
less are tagged for the oldest glibc the project builds for and tests on (manylinux2014; issue
31's bullseye build needs 2.14). At 2.17 the tag set also names the policy's legacy alias,
`manylinux2014_<arch>`, which pip 19.3–20.2 understands and PEP 600's tag does not.
Anything else gets the plain `linux_<arch>`, with the reasons, so the tag is never a promise the
files cannot keep.

A Windows build (PE files, cross-built with mingw-w64: docs/windows.md) is tagged from the machine
type in the files' PE headers (`win_amd64` for x86-64), and only when every file is for `arch`;
windows_platform_tag() is that side, and the manylinux rules above do not apply to it.
"""

import re
import sys
import sysconfig

# glibc's libraries and its dynamic loader: the part of PEP 600's allow-list we may rely on.
GLIBC_LIBRARIES = re.compile(r"^(libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|"
                             r"libutil\.so\.1|ld-linux[-a-z0-9_.]*\.so\.[0-9]+)$")
# The oldest glibc a wheel is tagged for, and the architectures PEP 599's manylinux2014 names.
FLOOR = (2, 17)
MANYLINUX2014_ARCHES = {"x86_64", "i686", "aarch64", "armv7l", "ppc64", "ppc64le", "s390x"}
_GLIBC_VERSION = re.compile(r"^GLIBC_([0-9]+)\.([0-9]+)(?:\.[0-9]+)?$")


class TagError(RuntimeError):
    """The build cannot be tagged honestly (files for another machine, not Linux)."""


def interpreter_tags():
    """(python tag, abi tag): ('py3', 'none'). The package is Python 3 source over a C library
    that no interpreter's ABI is part of."""
    return "py3", "none"


def architecture():
    """The machine the running interpreter is built for, as wheel tags spell it (x86_64, aarch64…)."""
    plat = sysconfig.get_platform()
    if not plat.startswith("linux-"):
        raise TagError("the asyncfix wheel is built on Linux; this is %s" % plat)
    arch = plat[len("linux-"):].replace("-", "_").replace(".", "_")
    if arch == "x86_64" and sys.maxsize <= 2**32:
        arch = "i686"  # a 32-bit interpreter on a 64-bit kernel
    return arch


def platform_tag(files, arch):
    """(tag, glibc, reasons) for `files`: {wheel path: elf.ElfInfo} of every ELF file in the
    wheel. tag may be a compressed tag set (`a.b`); glibc is the (major, minor) it is for (what the
    files need, at least FLOOR), or None when they need more than glibc; reasons says why the tag
    is not manylinux (empty when it is)."""
    reasons = []
    newest = None
    for path, info in sorted(files.items()):
        if info.machine != arch:
            raise TagError("%s is built for %s, but the interpreter is %s" % (path, info.machine, arch))
        for library in info.needed:
            if not GLIBC_LIBRARIES.match(library):
                reasons.append("%s needs %s, which is not part of glibc" % (path, library))
        for library, names in sorted(info.versions.items()):
            for name in sorted(names):
                match = _GLIBC_VERSION.match(name)
                if not GLIBC_LIBRARIES.match(library):
                    continue  # already a reason above
                if not match:
                    reasons.append("%s needs the symbol version %s of %s" % (path, name, library))
                    continue
                version = (int(match.group(1)), int(match.group(2)))
                newest = version if newest is None or version > newest else newest
    if not files:
        reasons.append("the wheel holds no ELF file")
    if reasons:
        return "linux_%s" % arch, None, reasons
    glibc = max(newest or FLOOR, FLOOR)
    tag = "manylinux_%d_%d_%s" % (glibc[0], glibc[1], arch)
    if glibc == (2, 17) and arch in MANYLINUX2014_ARCHES:
        tag += ".manylinux2014_%s" % arch
    return tag, glibc, []


def windows_platform_tag(files, arch):
    """The platform tag for `files`: {wheel path: (machine, Windows platform)} of every PE file in
    the wheel (pe.machine()), all for `arch` (x86_64 → win_amd64). TagError otherwise."""
    if not files:
        raise TagError("the wheel holds no Windows program or DLL")
    platforms = set()
    for path, (machine, platform) in sorted(files.items()):
        if machine != arch:
            raise TagError("%s is built for %s, but the wheel is for %s" % (path, machine, arch))
        platforms.add(platform)
    return platforms.pop()
