#!/usr/bin/env bash
# Installs what is needed (Debian packages; Python packages into build/venv), builds, and runs
# every test, C++ and Python (GPU tests skip without a device); then the tests again under
# AddressSanitizer + UBSan (scripts/sanitize.sh; AMPSCOPE_SKIP_SANITIZE=1 skips it) and every fuzz
# harness for AMPSCOPE_FUZZ_SECONDS seconds (default 10; 0 skips it). docs/testing.md.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/install_deps.sh"
"$root/scripts/python_env.sh"
"$root/scripts/build.sh"
cd "${AMPSCOPE_BUILD_DIR:-$root/build}"
ctest --output-on-failure -j "$(nproc)"
if [ "${AMPSCOPE_SKIP_SANITIZE:-0}" != 1 ]; then
  # The libraries' tests, instrumented in the folder fuzz.sh builds in, to keep CI short;
  # AMPSCOPE_SANITIZE_SCOPE=all adds the CLI and collector tests (docs/testing.md).
  AMPSCOPE_SANITIZE_SCOPE="${AMPSCOPE_SANITIZE_SCOPE:-libraries}" "$root/scripts/sanitize.sh"
fi
fuzz_seconds="${AMPSCOPE_FUZZ_SECONDS:-10}"
if [ "$fuzz_seconds" != 0 ]; then
  "$root/scripts/fuzz.sh" "$fuzz_seconds"
fi
