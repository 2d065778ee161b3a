#!/usr/bin/env bash
# The action's install step: asyncfix in a virtual environment of its own ($RUNNER_TEMP/asyncfix-venv),
# whose bin directory goes on $GITHUB_PATH for the job's later steps.
#   ASYNCFIX_WHEEL   a wheel: a path, a glob (dist/*.whl) or a URL; empty: build one from the
#                    action's own source ($GITHUB_ACTION_PATH), installing the build's packages
#                    with apt-get where they are missing (Debian and Ubuntu runners)
#   ASYNCFIX_PYTHON  the interpreter (default python3, any CPython 3.8 or newer: the wheel is py3-none)
set -euo pipefail

python=${ASYNCFIX_PYTHON:-python3}
temp=${RUNNER_TEMP:-$(mktemp -d)}
venv="$temp/asyncfix-venv"
wheel=${ASYNCFIX_WHEEL:-}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source_dir=${GITHUB_ACTION_PATH:-$(cd "$here/../.." && pwd)}

if ! command -v "$python" >/dev/null 2>&1; then
  echo "::error title=asyncfix::no Python interpreter \`$python\` (the python input); use actions/setup-python first" >&2
  exit 2
fi

# What building needs (Debian bookworm and Ubuntu names), only what is missing.
install_build_packages() {
  local packages=(g++ cmake ninja-build pkg-config nlohmann-json3-dev libcli11-dev libtomlplusplus-dev)
  command -v npm >/dev/null 2>&1 || packages+=(npm)  # fetches the pinned tree-sitter sources
  local missing=() p
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "::error title=asyncfix::building asyncfix needs ${missing[*]}; install them or give the wheel input" >&2
    exit 2
  fi
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  echo "asyncfix: installing ${missing[*]}"
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

if [ -z "$wheel" ]; then
  install_build_packages
  out="$temp/asyncfix-wheel"
  rm -rf "$out"
  # pip runs the in-tree backend (pyproject.toml) in this interpreter: no package index involved.
  "$python" -m pip wheel --no-deps --no-build-isolation --no-index --wheel-dir "$out" "$source_dir"
  wheel=$(echo "$out"/asyncfix-*.whl)
elif [[ "$wheel" != *://* ]]; then
  shopt -s nullglob
  matches=($wheel)
  shopt -u nullglob
  if [ ${#matches[@]} -ne 1 ]; then
    echo "::error title=asyncfix::the wheel input \`$wheel\` matches ${#matches[@]} files; it must name one" >&2
    exit 2
  fi
  wheel=${matches[0]}
fi

"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --no-index --no-deps --disable-pip-version-check "$wheel"
echo "$venv/bin" >>"${GITHUB_PATH:-/dev/null}"
"$venv/bin/asyncfix" --version
