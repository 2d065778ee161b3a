"""The wheel's build backend (packaging/pep517/asyncfix_build) in parts, without building:
its ELF reader against binutils' readelf on the built command and the Python package's library,
the platform tag rules, the wheel writer's RECORD, the metadata from pyproject.toml and
CMakeLists.txt, and the sdist. (ctest label `package`; the whole build is dist.wheel's)
"""

import base64
import hashlib
import io
import os
import re
import shutil
import struct
import subprocess
import sys
import tarfile
import tempfile
import unittest
import zipfile

SOURCE = os.path.abspath(os.environ.get("ASYNCFIX_SOURCE_DIR") or os.path.join(os.path.dirname(__file__), "..", ".."))
VERSION = os.environ.get("ASYNCFIX_VERSION", "")
BIN = os.environ.get("ASYNCFIX_BIN", "")
MODULE = os.environ.get("ASYNCFIX_PYTHON_MODULE", "")
sys.path.insert(0, os.path.join(SOURCE, "packaging", "pep517"))

import asyncfix_build  # noqa: E402
from asyncfix_build import elf, metadata, pe, tags, wheelfile  # noqa: E402


def readelf(*args):
    return subprocess.run(["readelf", "--wide"] + list(args), capture_output=True, text=True, check=True).stdout


class ElfTest(unittest.TestCase):
    def files(self):
        found = [p for p in (BIN, MODULE) if p]
        if not found or shutil.which("readelf") is None:
            self.skipTest("no built files (ASYNCFIX_BIN, ASYNCFIX_PYTHON_MODULE) or no readelf")
        return found

    def test_needed_libraries_match_readelf(self):
        for path in self.files():
            expected = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", readelf("-d", path))
            self.assertTrue(expected, path)
            self.assertEqual(elf.read(path).needed, expected, path)

    def test_symbol_versions_match_readelf(self):
        for path in self.files():
            expected, library = {}, None
            section = readelf("-V", path).split("Version needs section")[1]
            for line in section.splitlines():
                file_match = re.search(r"File: (\S+)", line)
                name_match = re.search(r"Name: (\S+)", line)
                if file_match:
                    library = file_match.group(1)
                    expected.setdefault(library, set())
                elif name_match and library:
                    expected[library].add(name_match.group(1))
            self.assertTrue(expected, path)
            self.assertEqual(elf.read(path).versions, expected, path)

    def test_machine_and_interpreter_match_readelf(self):
        for path in self.files():
            info = elf.read(path)
            self.assertEqual(info.machine, tags.architecture())
            loader = re.search(r"Requesting program interpreter: ([^\]]+)\]", readelf("-l", path))
            self.assertEqual(info.interpreter, loader.group(1) if loader else None, path)

    def test_the_built_command_and_module_earn_a_manylinux_tag(self):
        # ASYNCFIX_STATIC_RUNTIME links the C++ runtime into both (python/CMakeLists.txt for the module).
        files = {os.path.basename(p): elf.read(p) for p in self.files()}
        tag, glibc, reasons = tags.platform_tag(files, tags.architecture())
        self.assertEqual(reasons, [])
        self.assertTrue(tag.startswith("manylinux_%d_%d_%s" % (glibc + (tags.architecture(),))), tag)

    def test_not_elf(self):
        with tempfile.NamedTemporaryFile(suffix=".py") as f:
            f.write(b"print('hi')\n" * 10)
            f.flush()
            self.assertFalse(elf.is_elf(f.name))
            with self.assertRaises(elf.NotElf):
                elf.read(f.name)
        # A 64-bit header whose section table lies past the end of the file.
        header = b"\x7fELF\x02\x01\x01" + b"\0" * 9 + struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 0, 1 << 20, 0,
                                                                    64, 56, 0, 64, 3, 0)
        with tempfile.NamedTemporaryFile() as f:
            f.write(header)
            f.flush()
            self.assertTrue(elf.is_elf(f.name))
            with self.assertRaises(elf.NotElf):
                elf.read(f.name)
        # One without section headers at all, but dynamic: its libraries cannot be known.
        if BIN:
            with open(BIN, "rb") as src:
                data = bytearray(src.read())
            struct.pack_into("<Q", data, 40, 0)  # e_shoff
            struct.pack_into("<HH", data, 60, 0, 0)  # e_shnum, e_shstrndx
            with tempfile.NamedTemporaryFile() as f:
                f.write(data)
                f.flush()
                with self.assertRaisesRegex(elf.NotElf, "without section headers"):
                    elf.read(f.name)


def info(needed=("libc.so.6",), versions=None, machine="x86_64"):
    return elf.ElfInfo(machine, list(needed), versions or {"libc.so.6": {"GLIBC_2.2.5", "GLIBC_2.34"}}, None)


class TagTest(unittest.TestCase):
    def test_glibc_only_files_are_manylinux_at_their_newest_glibc(self):
        files = {"a": info(), "b": info(["libm.so.6", "libc.so.6"], {"libm.so.6": {"GLIBC_2.29"},
                                                                     "libc.so.6": {"GLIBC_2.36", "GLIBC_2.3.4"}})}
        self.assertEqual(tags.platform_tag(files, "x86_64"), ("manylinux_2_36_x86_64", (2, 36), []))

    def test_glibc_2_17_and_older_is_manylinux2014_with_its_legacy_alias(self):
        # What the bullseye build's files need (issue 31): 2.14 at most, tagged for 2.17.
        old = {"a": info(versions={"libc.so.6": {"GLIBC_2.2.5", "GLIBC_2.14"}})}
        self.assertEqual(tags.platform_tag(old, "x86_64"),
                         ("manylinux_2_17_x86_64.manylinux2014_x86_64", (2, 17), []))
        exact = {"a": info(machine="aarch64", versions={"libc.so.6": {"GLIBC_2.17"}})}
        self.assertEqual(tags.platform_tag(exact, "aarch64")[0], "manylinux_2_17_aarch64.manylinux2014_aarch64")
        self.assertEqual(tags.platform_tag({"a": info(versions={"libc.so.6": {"GLIBC_2.18"}})}, "x86_64")[0],
                         "manylinux_2_18_x86_64")
        # No policy alias where PEP 599 names none.
        self.assertEqual(tags.platform_tag({"a": info(machine="riscv64", versions={"libc.so.6": {"GLIBC_2.27"}})},
                                           "riscv64")[0], "manylinux_2_27_riscv64")

    def test_anything_beyond_glibc_makes_it_plain_linux(self):
        tag, glibc, reasons = tags.platform_tag(
            {"a": info(["libstdc++.so.6", "libc.so.6"], {"libstdc++.so.6": {"GLIBCXX_3.4.30"}})}, "x86_64")
        self.assertEqual((tag, glibc), ("linux_x86_64", None))
        self.assertEqual(reasons, ["a needs libstdc++.so.6, which is not part of glibc"])
        tag, _, reasons = tags.platform_tag({"a": info(versions={"libc.so.6": {"GLIBC_PRIVATE"}})}, "x86_64")
        self.assertEqual(tag, "linux_x86_64")
        self.assertIn("GLIBC_PRIVATE", reasons[0])
        self.assertEqual(tags.platform_tag({}, "x86_64")[0], "linux_x86_64")

    def test_files_for_another_machine_are_an_error(self):
        with self.assertRaises(tags.TagError):
            tags.platform_tag({"a": info(machine="aarch64")}, "x86_64")

    def test_interpreter_tags_are_any_python_3(self):
        # The package loads its library with ctypes: nothing in the wheel is for one interpreter.
        self.assertEqual(tags.interpreter_tags(), ("py3", "none"))


def pe_image(machine, offset=0x80):
    """The headers of a PE file as far as pe.machine() reads them: `MZ`, the signature's offset at
    0x3C, `PE\\0\\0` there, then a COFF header starting with `machine`."""
    data = bytearray(offset + 24)
    data[:2] = b"MZ"
    struct.pack_into("<I", data, 0x3C, offset)
    data[offset:offset + 4] = b"PE\0\0"
    struct.pack_into("<H", data, offset + 4, machine)
    return bytes(data)


class PeTest(unittest.TestCase):
    """The Windows side of the tag (issue 31): a PE file's machine from its COFF header."""

    def machine_of(self, data):
        with tempfile.NamedTemporaryFile(suffix=".dll") as f:
            f.write(data)
            f.flush()
            return pe.is_pe(f.name), pe.machine(f.name)

    def test_machine_types(self):
        self.assertEqual(self.machine_of(pe_image(0x8664)), (True, ("x86_64", "win_amd64")))
        self.assertEqual(self.machine_of(pe_image(0x014C, offset=0xF8)), (True, ("i686", "win32")))
        self.assertEqual(self.machine_of(pe_image(0xAA64)), (True, ("aarch64", "win_arm64")))

    def test_not_pe(self):
        for data, why in ((b"\x7fELF" + bytes(60), "no MS-DOS header"), (b"MZ" + bytes(10), "no MS-DOS header"),
                          (pe_image(0x8664)[:0x82], "no PE signature"),
                          (pe_image(0x8664).replace(b"PE\0\0", b"NE\0\0"), "no PE signature"),
                          (pe_image(0x0200), "machine type 0x0200")):
            with self.subTest(why=why), tempfile.NamedTemporaryFile() as f:
                f.write(data)
                f.flush()
                with self.assertRaisesRegex(pe.NotPe, why):
                    pe.machine(f.name)

    def test_windows_files_are_tagged_from_their_machine(self):
        files = {"asyncfix/asyncfix.dll": ("x86_64", "win_amd64"), "x.data/scripts/asyncfix.exe": ("x86_64", "win_amd64")}
        self.assertEqual(tags.windows_platform_tag(files, "x86_64"), "win_amd64")
        with self.assertRaisesRegex(tags.TagError, "asyncfix.dll is built for i686, but the wheel is for x86_64"):
            tags.windows_platform_tag({"asyncfix/asyncfix.dll": ("i686", "win32")}, "x86_64")
        with self.assertRaisesRegex(tags.TagError, "no Windows program"):
            tags.windows_platform_tag({}, "x86_64")


class WheelFileTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="asyncfix-wheelfile-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def write(self, name="a.whl"):
        path = os.path.join(self.dir, name)
        wheelfile.write(path, [("pkg/__init__.py", b"x = 1\n", False), ("pkg-1.data/scripts/tool", b"\x7fELF...", True)],
                        "pkg-1.dist-info", [("METADATA", b"Name: pkg\n"), ("WHEEL", b"Wheel-Version: 1.0\n")])
        return path

    def test_record_lists_every_file_with_its_hash_and_record_comes_last(self):
        with zipfile.ZipFile(self.write()) as z:
            names = z.namelist()
            self.assertEqual(names[-1], "pkg-1.dist-info/RECORD")
            record = z.read("pkg-1.dist-info/RECORD").decode().splitlines()
            self.assertEqual(len(record), len(names))
            for line in record:
                path, digest, size = line.split(",")
                if path.endswith("RECORD"):
                    self.assertEqual((digest, size), ("", ""))
                    continue
                data = z.read(path)
                expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                self.assertEqual(digest, "sha256=" + expected)
                self.assertEqual(int(size), len(data))
            modes = {i.filename: i.external_attr >> 16 for i in z.infolist()}
            self.assertEqual(modes["pkg-1.data/scripts/tool"], 0o100755)
            self.assertEqual(modes["pkg/__init__.py"], 0o100644)

    def test_the_same_files_make_the_same_bytes(self):
        with open(self.write("a.whl"), "rb") as a, open(self.write("b.whl"), "rb") as b:
            self.assertEqual(a.read(), b.read())

    def test_repeated_or_escaping_paths_are_refused(self):
        for payload in ([("a", b"", False), ("a", b"", False)], [("../a", b"", False)], [("a,b", b"", False)]):
            with self.assertRaises(ValueError):
                wheelfile.write(os.path.join(self.dir, "x.whl"), payload, "x-1.dist-info", [])


class MetadataTest(unittest.TestCase):
    def test_version_from_cmake_and_metadata_from_pyproject(self):
        project = metadata.Project(SOURCE)
        if VERSION:
            self.assertEqual(project.version, VERSION)
        text = project.metadata()
        head, _, body = text.partition("\n\n")
        self.assertIn("Metadata-Version: 2.1\nName: asyncfix\nVersion: %s\n" % project.version, head + "\n")
        self.assertIn("Requires-Python: >=3.8", head)
        self.assertIn("Description-Content-Type: text/markdown", head)
        self.assertTrue(body.startswith("# asyncfix\n"))
        self.assertEqual(project.entry_points(), "[flake8.extension]\nAF = asyncfix.flake8_plugin:Plugin\n")

    def test_keys_the_backend_does_not_handle_are_errors(self):
        tmp = tempfile.mkdtemp(prefix="asyncfix-meta-")
        try:
            shutil.copy(os.path.join(SOURCE, "CMakeLists.txt"), tmp)
            with open(os.path.join(SOURCE, "pyproject.toml")) as f:
                text = f.read()
            with open(os.path.join(tmp, "pyproject.toml"), "w") as f:
                f.write(text.replace('requires-python = ">=3.8"', 'requires-python = ">=3.8"\ndependencies = ["torch"]'))
            with self.assertRaisesRegex(metadata.MetadataError, "dependencies"):
                metadata.Project(tmp)
            with open(os.path.join(tmp, "pyproject.toml"), "w") as f:
                f.write(text.replace('dynamic = ["version"]', 'version = "9"'))
            with self.assertRaisesRegex(metadata.MetadataError, "CMakeLists.txt"):
                metadata.Project(tmp)
        finally:
            shutil.rmtree(tmp)

    def test_cmake_and_pyproject_register_the_same_entry_points(self):
        with open(os.path.join(SOURCE, "python", "CMakeLists.txt")) as f:
            cmake = f.read()
        written = re.search(r'file\(WRITE "\$\{_dist\}/entry_points.txt" "([^"]*)"\)', cmake).group(1)
        written = written.encode().decode("unicode_escape")
        self.assertEqual(asyncfix_build._entry_point_set(written),
                         asyncfix_build._entry_point_set(metadata.Project(SOURCE).entry_points()))


class SdistTest(unittest.TestCase):
    def test_sdist_holds_the_sources_and_pkg_info_and_no_build_output(self):
        out = tempfile.mkdtemp(prefix="asyncfix-sdist-")
        cwd = os.getcwd()
        try:
            os.chdir(SOURCE)
            name = asyncfix_build.build_sdist(out)
        finally:
            os.chdir(cwd)
        try:
            project = metadata.Project(SOURCE)
            self.assertEqual(name, "asyncfix-%s.tar.gz" % project.version)
            with tarfile.open(os.path.join(out, name)) as tar:
                names = tar.getnames()
                pkg_info = tar.extractfile("asyncfix-%s/PKG-INFO" % project.version).read().decode()
            base = "asyncfix-%s/" % project.version
            self.assertTrue(all(n.startswith(base) for n in names))
            for wanted in ("pyproject.toml", "CMakeLists.txt", "packaging/pep517/asyncfix_build/__init__.py",
                           "python/asyncfix/__init__.py", "grammar/package-lock.json"):
                self.assertIn(base + wanted, names)
            self.assertFalse([n for n in names if n.startswith(base + "build/") or "/node_modules/" in n])
            self.assertEqual(pkg_info, project.metadata())
        finally:
            shutil.rmtree(out)


if __name__ == "__main__":
    unittest.main()
