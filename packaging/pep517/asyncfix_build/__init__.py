"""asyncfix's PEP 517 build backend: `python3 -m build --wheel --no-isolation` (or `pip install .`)
at the repository root builds the wheel with CMake.

In the tree (pyproject.toml's backend-path) because Debian bookworm packages no CMake-driving
backend (no scikit-build-core); it needs only the standard library, CMake and what the build
itself needs, so a build works with no package index. It configures a Release build of the
commands and the Python package's library (libstdc++ and libgcc linked statically, as the
portable commands are), installs the `bin` and `python` components into a staging directory,
and packs (tagged py3-none-<platform>: any Python 3 loads the library with ctypes):

    asyncfix/                      the Python package (API, flake8 plugin, `python -m asyncfix`)
                                   and its library, libasyncfix.so.<ABI> (the C API)
    asyncfix-V.data/scripts/       asyncfix and asyncfix-lsp, which pip puts on the environment's PATH
    asyncfix-V.data/data/share/    the man pages (<env>/share/man)
    asyncfix-V.dist-info/          METADATA, WHEEL, entry_points.txt (flake8's AF), RECORD

Config settings (`-C key=value`, or the environment variable): build-dir
(ASYNCFIX_WHEEL_BUILD_DIR; default build/wheel in the source tree, reused by the next build),
cmake-args (ASYNCFIX_WHEEL_CMAKE_ARGS, split like a shell would) and arch (ASYNCFIX_WHEEL_ARCH;
default the running interpreter's machine): the machine a cross build (cmake-args naming a cross
compiler, as scripts/build-manylinux.sh --arch aarch64 does) is for; every ELF file must be for
it, or the build fails.

The Windows x64 wheel (docs/windows.md): cmake-args
`-DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/mingw-w64.cmake` cross-builds asyncfix.exe,
asyncfix-lsp.exe and asyncfix.dll (in asyncfix/, which _capi.py loads on Windows); the tag is
`py3-none-win_amd64`, from the machine type in their PE headers (pe.py), and the wheel has no man
pages.
"""

import io
import os
import shlex
import shutil
import subprocess
import sys
import tarfile

from . import elf, metadata, pe, tags, wheelfile

__all__ = ["build_wheel", "build_sdist", "get_requires_for_build_wheel", "get_requires_for_build_sdist"]

BACKEND = "asyncfix_build"
# The CMake install components the wheel is made of; anything else in the staging tree is an error.
COMPONENTS = ("bin", "python")
# Where `cmake --install` puts the Python package, relative to the staging prefix.
PYTHON_DIR = "python"


class BuildError(RuntimeError):
    pass


def get_requires_for_build_wheel(config_settings=None):
    return []  # the standard library and CMake: nothing from a package index


def get_requires_for_build_sdist(config_settings=None):
    return []


def _setting(config_settings, key, env):
    value = (config_settings or {}).get(key)
    if isinstance(value, list):
        value = value[-1]
    return value if value not in (None, "") else os.environ.get(env) or None


def _run(command, **kwargs):
    print("asyncfix-build: " + " ".join(shlex.quote(str(c)) for c in command), file=sys.stderr, flush=True)
    result = subprocess.run([str(c) for c in command], **kwargs)
    if result.returncode != 0:
        raise BuildError("`%s` failed (exit %d)" % (command[0], result.returncode))
    return result


def _cached(build_dir, entry):
    """The value of `entry` (NAME:TYPE) in the build's CMakeCache.txt, or None."""
    try:
        with open(os.path.join(build_dir, "CMakeCache.txt"), encoding="utf-8") as f:
            for line in f:
                if line.startswith(entry + "="):
                    return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return None


def _cached_generator(build_dir):
    return _cached(build_dir, "CMAKE_GENERATOR:INTERNAL")


def _cmake_build(source, build_dir, extra_args):
    cmake = shutil.which("cmake")
    if not cmake:
        raise BuildError("building the asyncfix wheel needs CMake >= 3.25 and a C++20 compiler "
                         "(on Debian: scripts/install-deps.sh)")
    configure = [cmake, "-S", source, "-B", build_dir]
    if _cached_generator(build_dir) is None and shutil.which("ninja"):
        configure += ["-G", "Ninja"]
    configure += [
        "-DCMAKE_BUILD_TYPE=Release",
        "-DASYNCFIX_BUILD_TESTS=OFF", "-DASYNCFIX_WERROR=OFF",
        "-DASYNCFIX_SANITIZE=OFF", "-DASYNCFIX_TSAN=OFF", "-DASYNCFIX_FUZZ=OFF",
        "-DASYNCFIX_STATIC_RUNTIME=ON", "-DASYNCFIX_BUILD_CLI=ON", "-DASYNCFIX_BUILD_PYTHON=ON",
        # The interpreter that runs the build's scripts (the man pages); a virtualenv's python
        # resolves to its base. The wheel itself is for any Python 3.
        "-DPython3_EXECUTABLE=" + os.path.realpath(sys.executable),
        "-DASYNCFIX_PYTHON_INSTALL_DIR=" + PYTHON_DIR,
    ] + extra_args
    _run(configure)
    return cmake


def _check_python_module(build_dir, project):
    """The configure step leaves the Python package out when asked to (ASYNCFIX_BUILD_PYTHON=OFF in
    cmake-args) or in a sanitizer build; say so before a build that would fail with an unknown
    target."""
    entry_points = os.path.join(build_dir, "python", "%s-%s.dist-info" % (project.name, project.version),
                                "entry_points.txt")
    if not os.path.exists(entry_points):
        raise BuildError("the asyncfix wheel needs the Python package, which CMake did not configure "
                         "(ASYNCFIX_BUILD_PYTHON=OFF or ASYNCFIX_SANITIZE=ON in cmake-args?); see the configure "
                         "output above")
    with open(entry_points, encoding="utf-8") as f:
        cmake_entry_points = f.read()
    if _entry_point_set(cmake_entry_points) != _entry_point_set(project.entry_points() or ""):
        raise BuildError("the entry points in pyproject.toml and python/CMakeLists.txt differ; keep them equal "
                         "(the flake8 plugin is registered by both)")


def _entry_point_set(text):
    group, found = None, set()
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("["):
            group = line.strip("[]")
        elif "=" in line:
            name, target = line.split("=", 1)
            found.add((group, name.strip(), target.strip()))
    return found


def _staged_files(staging, project):
    """[(archive path, bytes, executable)] from the staging prefix, in a stable order."""
    data = "%s-%s.data" % (project.distribution, project.version)
    dist_info_prefix = "%s/%s-" % (PYTHON_DIR, project.distribution)
    files = []
    for root, dirs, names in os.walk(staging):
        dirs.sort()
        for name in sorted(names):
            path = os.path.join(root, name)
            rel = os.path.relpath(path, staging).replace(os.sep, "/")
            if os.path.islink(path):
                raise BuildError("unexpected symlink in the install tree: %s" % rel)
            if rel.startswith(dist_info_prefix) and ".dist-info/" in rel:
                continue  # CMake's own dist-info (for `cmake --install`); the wheel writes its own
            if rel.startswith("bin/") and rel.count("/") == 1:
                target = "%s/scripts/%s" % (data, name)
            elif rel.startswith("share/"):
                target = "%s/data/%s" % (data, rel)
            elif rel.startswith(PYTHON_DIR + "/"):
                target = rel[len(PYTHON_DIR) + 1:]
                if "__pycache__" in target.split("/"):
                    continue
            else:
                raise BuildError("the install components %s put %s where the wheel has no place for it"
                                 % (", ".join(COMPONENTS), rel))
            with open(path, "rb") as f:
                files.append((target, f.read(), bool(os.stat(path).st_mode & 0o111), path))
    return files


def _wheel_info(tag, arch, glibc):
    return ("\"\"\"What this wheel was built for; written by the wheel build (packaging/pep517), read by\n"
            "asyncfix/_launcher.py to say clearly when it is installed where it cannot run.\"\"\"\n\n"
            "TAG = %r\nMACHINE = %r\nGLIBC = %r\n" % (tag, arch, glibc)).encode("utf-8")


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    source = os.path.abspath(os.getcwd())
    project = metadata.Project(source)
    python, abi = tags.interpreter_tags()
    arch = _setting(config_settings, "arch", "ASYNCFIX_WHEEL_ARCH") or tags.architecture()
    build_dir = _setting(config_settings, "build-dir", "ASYNCFIX_WHEEL_BUILD_DIR") or os.path.join(
        "build", "wheel")
    build_dir = os.path.join(source, build_dir)  # relative to the source tree; absolute stays
    extra = shlex.split(_setting(config_settings, "cmake-args", "ASYNCFIX_WHEEL_CMAKE_ARGS") or "")

    cmake = _cmake_build(source, build_dir, extra)
    _check_python_module(build_dir, project)
    # A Windows build (cmake-args naming cmake/toolchains/mingw-w64.cmake) has no man pages.
    windows = _cached(build_dir, "ASYNCFIX_WINDOWS_BUILD:INTERNAL") == "ON"
    _run([cmake, "--build", build_dir, "--target", "asyncfix_cli", "asyncfix_lsp_bin", "asyncfix_python"]
         + ([] if windows else ["asyncfix_man"]))
    staging = os.path.join(build_dir, "wheel-staging")
    shutil.rmtree(staging, ignore_errors=True)
    for component in COMPONENTS:
        _run([cmake, "--install", build_dir, "--prefix", staging, "--component", component, "--strip"],
             stdout=subprocess.DEVNULL)

    staged = _staged_files(staging, project)
    binaries = {target: elf.read(path) for target, _, _, path in staged if elf.is_elf(path)}
    programs = {target: pe.machine(path) for target, _, _, path in staged if pe.is_pe(path)}
    if programs and binaries:
        raise BuildError("the install tree holds both ELF and Windows files (%s, %s)"
                         % (sorted(binaries)[0], sorted(programs)[0]))
    if programs:  # a Windows build: tagged from the PE headers (tags.windows_platform_tag)
        platform, glibc, reasons = tags.windows_platform_tag(programs, arch), None, []
    else:
        platform, glibc, reasons = tags.platform_tag(binaries, arch)
    for reason in reasons:
        print("asyncfix-build: platform tag %s, not manylinux: %s" % (platform, reason), file=sys.stderr)
    tag = "%s-%s-%s" % (python, abi, platform)
    payload = [(target, data, executable) for target, data, executable, _ in staged]
    payload.append(("asyncfix/_wheel_info.py", _wheel_info(tag, arch, glibc), False))
    payload.sort(key=lambda f: (".data/" in f[0], f[0]))

    dist_info = "%s-%s.dist-info" % (project.distribution, project.version)
    wheel_meta = ("Wheel-Version: 1.0\nGenerator: %s (asyncfix %s)\nRoot-Is-Purelib: false\nTag: %s\n"
                  % (BACKEND, project.version, tag))
    meta_files = [("METADATA", project.metadata().encode("utf-8")), ("WHEEL", wheel_meta.encode("utf-8"))]
    entry_points = project.entry_points()
    if entry_points:
        meta_files.append(("entry_points.txt", entry_points.encode("utf-8")))
    name = "%s-%s-%s.whl" % (project.distribution, project.version, tag)
    os.makedirs(wheel_directory, exist_ok=True)
    wheelfile.write(os.path.join(wheel_directory, name), payload, dist_info, meta_files)
    print("asyncfix-build: wrote %s" % name, file=sys.stderr)
    return name


# --- sdist ---------------------------------------------------------------------------------------

_SKIP_DIRS = {".git", "build", "node_modules", "__pycache__", "dist"}


def _source_files(source):
    """The files of the source tree: what git tracks or would add, else a walk without build
    output and caches."""
    if os.path.isdir(os.path.join(source, ".git")) or os.path.isfile(os.path.join(source, ".git")):
        git = shutil.which("git")
        if git:
            out = subprocess.run([git, "-C", source, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                                 capture_output=True, check=True).stdout
            names = [n.decode("utf-8", "surrogateescape") for n in out.split(b"\0") if n]
            return sorted(n for n in set(names) if os.path.isfile(os.path.join(source, n)))
    found = []
    for root, dirs, names in os.walk(source):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
        for name in names:
            if not name.endswith(".pyc"):
                found.append(os.path.relpath(os.path.join(root, name), source).replace(os.sep, "/"))
    return sorted(found)


def build_sdist(sdist_directory, config_settings=None):
    source = os.path.abspath(os.getcwd())
    project = metadata.Project(source)
    base = "%s-%s" % (project.distribution, project.version)
    name = base + ".tar.gz"
    os.makedirs(sdist_directory, exist_ok=True)
    mtime = int(os.environ.get("SOURCE_DATE_EPOCH", "0") or 0)

    def normalize(info):
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        info.mtime = mtime
        info.mode = 0o755 if info.mode & 0o111 else 0o644
        return info

    target = os.path.join(sdist_directory, name)
    with tarfile.open(target + ".tmp", "w:gz", format=tarfile.PAX_FORMAT) as tar:
        pkg_info = project.metadata().encode("utf-8")
        info = normalize(tarfile.TarInfo(base + "/PKG-INFO"))
        info.size = len(pkg_info)
        tar.addfile(info, io.BytesIO(pkg_info))
        for rel in _source_files(source):
            tar.add(os.path.join(source, rel), arcname="%s/%s" % (base, rel), recursive=False, filter=normalize)
    os.replace(target + ".tmp", target)
    return name
