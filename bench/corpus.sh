#!/usr/bin/env bash
# bench/corpus.sh — build the benchmark corpora from Debian's own packages (nothing is committed).
#
#   bench/corpus.sh [CACHE]     default CACHE: $ASYNCFIX_BENCH_CACHE or ~/.cache/asyncfix-bench
#
# Downloads the .deb files of large pure-Python packages with `apt-get download` (no install,
# no root needed once the package lists exist), unpacks them with `dpkg -x`, and keeps only the
# .py files under CACHE/corpus/<package>/. Then makes CACHE/injected/, a copy in which a few
# percent of the files get legacy async/await code appended (bench/inject.py), so the fixer has
# real work. The PyTorch-heavy corpus (issue 16) is fetched the same way into CACHE/torch/, and
# its generated dense variant (bench/gen_torch.py) is written to CACHE/dense/, with one dense
# 20 000-line file in CACHE/dense-file/, and the same corpus with nothing to report (today's
# spelling of the same code) in CACHE/dense-clean/. Idempotent: a package already unpacked is not fetched
# again, a generated tree is regenerated only when bench/gen_torch.py changes.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${1:-${ASYNCFIX_BENCH_CACHE:-$HOME/.cache/asyncfix-bench}}"
mkdir -p "$cache/debs" "$cache/corpus" "$cache/torch"

# Chosen for size and variety: scientific stacks (PyTorch among them), web frameworks, the
# standard library and its test suite, and the Azure SDK (generated code full of `async def`,
# `await` and the word "async" in docstrings — the prefilter's hardest case).
packages=(
  python3-torch python3-scipy python3-sklearn python3-django python3-sympy python3-matplotlib
  libpython3.11-stdlib libpython3.11-testsuite python3-numpy python3-pandas python3-astropy
  python3-statsmodels python3-skimage python3-networkx python3-sqlalchemy python3-twisted
  python3-mypy python3-azure
)

if [ ! -d /var/lib/apt/lists ] || [ -z "$(ls /var/lib/apt/lists 2>/dev/null | grep -v -e lock -e partial)" ]; then
  echo "corpus.sh: apt package lists are empty; run 'apt-get update' first" >&2
  exit 2
fi

# As root, apt hands downloads to the _apt user, who may not write to CACHE: keep them as root.
apt_opts=""
[ "$(id -u)" -eq 0 ] && apt_opts="-o APT::Sandbox::User=root"

# fetch DIR PACKAGE... — the .py files of each package under DIR/<package>/, once per package.
fetch() {
  local dir="$1" p dest deb
  shift
  for p in "$@"; do
    dest="$dir/$p"
    [ -f "$dest/.done" ] && continue
    echo "corpus.sh: fetching $p" >&2
    rm -rf "$dest" "$cache/unpack"
    (cd "$cache/debs" && ls "${p}"_*.deb >/dev/null 2>&1 || apt-get download -q $apt_opts "$p" >/dev/null)
    deb="$(ls "$cache/debs/${p}"_*.deb | head -n1)"
    dpkg -x "$deb" "$cache/unpack"
    mkdir -p "$dest"
    # Keep the .py files only, with their relative paths (symlinks dropped: they'd count twice).
    (cd "$cache/unpack" && find . -type f -name '*.py' -print0 | xargs -0 -r cp --parents -p -t "$dest")
    rm -rf "$cache/unpack"
    touch "$dest/.done"
  done
}

fetch "$cache/corpus" "${packages[@]}"

# PyTorch code, every package of it that bookworm has (`apt-cache rdepends python3-torch`): torch
# itself, its domain libraries, and skorch. Left out: python3-eagerpy (a framework-neutral wrapper,
# one PyTorch backend file), libtorch-dev and libtorch-test (no .py files).
torch_packages=(python3-torch python3-torchvision python3-torchaudio python3-torchtext python3-skorch)
fetch "$cache/torch" "${torch_packages[@]}"

if [ ! -f "$cache/injected/.done" ]; then
  rm -rf "$cache/injected"
  cp -a "$cache/corpus" "$cache/injected"
  python3 "$here/inject.py" "$cache/injected"
  touch "$cache/injected/.done"
fi

# The generated corpora are stamped with the generator's hash: a changed generator rewrites them.
gen_hash="$(sha256sum "$here/gen_torch.py" | cut -d' ' -f1)"
if [ ! -f "$cache/dense/.done" ] || [ "$(cat "$cache/dense/.done")" != "$gen_hash" ]; then
  rm -rf "$cache/dense" "$cache/dense-file" "$cache/dense-clean"
  python3 "$here/gen_torch.py" "$cache/dense"
  python3 "$here/gen_torch.py" "$cache/dense-clean" --clean
  python3 "$here/gen_torch.py" "$cache/dense-file/train_20000.py" --lines 20000
  echo "$gen_hash" > "$cache/dense/.done"
fi

for dir in "$cache/corpus" "$cache/torch" "$cache/dense" "$cache/dense-clean"; do
  files=$(find "$dir" -name '*.py' | wc -l)
  bytes=$(find "$dir" -name '*.py' -printf '%s\n' | awk '{s+=$1} END {print s}')
  echo "corpus.sh: $dir: $files .py files, $((bytes / 1000000)) MB" >&2
done
