"""What an ELF file needs from the system it runs on: its machine, its shared libraries
(DT_NEEDED) and the symbol versions it asks of each (the GNU version-needs section).

Reads the section headers only; knows nothing about wheels or tags (see tags.py). Standard
library only, so that the build backend needs no binutils.
"""

import struct

MAGIC = b"\x7fELF"

# e_machine values for the architectures Linux wheels are made for.
MACHINES = {3: "i686", 62: "x86_64", 40: "armv7l", 183: "aarch64", 21: "ppc64", 22: "s390x", 243: "riscv64"}

_SHT_DYNAMIC = 6
_SHT_GNU_VERNEED = 0x6FFFFFFE
_DT_NULL = 0
_DT_NEEDED = 1
_PT_DYNAMIC = 2
_PT_INTERP = 3


class NotElf(ValueError):
    """The file is not an ELF file (or is truncated)."""


class ElfInfo:
    """machine: a name from MACHINES (or 'em<N>'); needed: the DT_NEEDED library names in order;
    versions: {library: set of version names} from the version-needs section; interpreter: the
    PT_INTERP path (the dynamic loader) or None."""

    def __init__(self, machine, needed, versions, interpreter):
        self.machine = machine
        self.needed = needed
        self.versions = versions
        self.interpreter = interpreter


def is_elf(path):
    with open(path, "rb") as f:
        return f.read(4) == MAGIC


def _cstring(table, offset):
    end = table.find(b"\0", offset)
    if offset >= len(table) or end < 0:
        raise NotElf("string offset %d out of range" % offset)
    return table[offset:end].decode("utf-8", "replace")


def read(path):
    """The ElfInfo of the file at `path`; NotElf if it is not an ELF file."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != MAGIC or len(data) < 52:
        raise NotElf("%s is not an ELF file" % path)
    bits = {1: 32, 2: 64}.get(data[4])
    order = {1: "<", 2: ">"}.get(data[5])
    if bits is None or order is None:
        raise NotElf("%s: unknown ELF class or byte order" % path)
    try:
        return _parse(data, bits, order)
    except struct.error as error:
        raise NotElf("%s: truncated ELF file (%s)" % (path, error)) from None


def _parse(data, bits, order):
    if bits == 64:
        header = struct.unpack_from(order + "HHIQQQIHHHHHH", data, 16)
        section = order + "IIQQQQIIQQ"  # name type flags addr offset size link info align entsize
        program = order + "IIQQQQQQ"  # type flags offset vaddr paddr filesz memsz align
        dyn = order + "qQ"
    else:
        header = struct.unpack_from(order + "HHIIIIIHHHHHH", data, 16)
        section = order + "IIIIIIIIII"
        program = order + "IIIIIIII"
        dyn = order + "iI"
    _, e_machine, _, _, e_phoff, e_shoff, _, _, e_phentsize, e_phnum, e_shentsize, e_shnum, _ = header
    machine = MACHINES.get(e_machine, "em%d" % e_machine)

    interpreter = None
    dynamic_segment = False
    for i in range(e_phnum):
        fields = struct.unpack_from(program, data, e_phoff + i * e_phentsize)
        p_type = fields[0]
        p_offset, p_filesz = (fields[2], fields[5]) if bits == 64 else (fields[1], fields[4])
        if p_type == _PT_INTERP:
            interpreter = data[p_offset:p_offset + p_filesz].split(b"\0", 1)[0].decode("utf-8", "replace")
        dynamic_segment = dynamic_segment or p_type == _PT_DYNAMIC

    sections = [struct.unpack_from(section, data, e_shoff + i * e_shentsize) for i in range(e_shnum)]

    def body(s):
        return data[s[4]:s[4] + s[5]]

    if dynamic_segment and not any(s[1] == _SHT_DYNAMIC for s in sections):
        raise NotElf("a dynamic ELF file without section headers; its libraries cannot be read")
    needed = []
    versions = {}
    for s in sections:
        if s[1] == _SHT_DYNAMIC:
            strings = body(sections[s[6]])
            entry = struct.calcsize(dyn)
            table = body(s)
            for off in range(0, len(table) - entry + 1, entry):
                tag, value = struct.unpack_from(dyn, table, off)
                if tag == _DT_NULL:
                    break
                if tag == _DT_NEEDED:
                    needed.append(_cstring(strings, value))
        elif s[1] == _SHT_GNU_VERNEED:
            strings = body(sections[s[6]])
            table = body(s)
            off = 0
            for _ in range(s[7]):  # sh_info: the number of Verneed entries
                _, vn_cnt, vn_file, vn_aux, vn_next = struct.unpack_from(order + "HHIII", table, off)
                names = versions.setdefault(_cstring(strings, vn_file), set())
                aux = off + vn_aux
                for _ in range(vn_cnt):
                    _, _, _, vna_name, vna_next = struct.unpack_from(order + "IHHII", table, aux)
                    names.add(_cstring(strings, vna_name))
                    aux += vna_next
                if vn_next == 0:
                    break
                off += vn_next
    return ElfInfo(machine, needed, versions, interpreter)
