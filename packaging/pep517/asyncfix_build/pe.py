"""What the wheel's tag needs from a Windows program or DLL (PE/COFF): the machine it is built
for, read from the COFF file header that follows the `PE\\0\\0` signature. Standard library only.

Layout (Microsoft's PE format): the MS-DOS header starts with `MZ` and holds at 0x3C the offset of
the signature; the 20-byte COFF header after it starts with the 16-bit little-endian Machine.
"""

import struct

# IMAGE_FILE_MACHINE_* → the machine as the wheel's ELF side spells it, and the platform tag's
# Windows name for it (PEP 425: sysconfig.get_platform() of a Windows interpreter).
MACHINES = {
    0x8664: ("x86_64", "win_amd64"),
    0x014C: ("i686", "win32"),
    0xAA64: ("aarch64", "win_arm64"),
}


class NotPe(ValueError):
    """The file is not a PE image, or its headers are cut off."""


def is_pe(path):
    try:
        with open(path, "rb") as f:
            return f.read(2) == b"MZ"
    except OSError:
        return False


def machine(path):
    """(machine, Windows platform name) of the PE file at `path`; NotPe when it is no PE image or
    its machine is not one the wheel can be tagged for."""
    with open(path, "rb") as f:
        head = f.read(0x40)
        if len(head) < 0x40 or head[:2] != b"MZ":
            raise NotPe("%s: no MS-DOS header" % path)
        (offset,) = struct.unpack_from("<I", head, 0x3C)
        f.seek(offset)
        signature = f.read(4 + 2)
    if len(signature) < 6 or signature[:4] != b"PE\0\0":
        raise NotPe("%s: no PE signature at offset %d" % (path, offset))
    (code,) = struct.unpack_from("<H", signature, 4)
    if code not in MACHINES:
        raise NotPe("%s: PE machine type 0x%04x, which no wheel tag names" % (path, code))
    return MACHINES[code]
