#!/usr/bin/env bash
# Installs the Debian packages ampscope builds against. Idempotent: installs only what is missing.
# (The CUDA toolkit is not a Debian package here; the build uses it when nvcc is on the PATH.)
# clang and its runtimes (libFuzzer, ASan, UBSan) build scripts/sanitize.sh's and scripts/fuzz.sh's
# instrumented tests and harnesses.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  python3-venv python3-dev
  libsqlite3-dev zlib1g-dev libre2-dev
  libsimdjson-dev libfmt-dev libcli11-dev nlohmann-json3-dev
  libgtest-dev
  clang libclang-rt-dev
  libopenblas-dev
  qt6-base-dev qt6-charts-dev libqt6opengl6-dev libgl-dev fonts-dejavu-core
  dataset-fashion-mnist
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install_deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install_deps: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
