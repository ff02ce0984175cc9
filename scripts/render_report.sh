#!/usr/bin/env bash
# Renders DIR/report.html to a PNG with headless Chromium, to look at a report the way a person
# sees it (CI artifacts, review). Installs Debian's chromium when it is missing (idempotent, like
# install_deps.sh). The page is self-contained, so Chromium needs no network.
#   scripts/render_report.sh DIR [OUT.png] [WIDTHxHEIGHT]
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 3 ]; then
  echo "usage: $0 REPORT_DIR [OUT.png] [WIDTHxHEIGHT]" >&2
  exit 2
fi
dir=$(cd "$1" && pwd)
out=${2:-$dir/report.png}
size=${3:-1400x2400}
if [ ! -f "$dir/report.html" ]; then
  echo "render_report: $dir/report.html not found; write it with 'ampscope report TRACE --out $1'" >&2
  exit 1
fi
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac

browser=""
for candidate in chromium chromium-browser; do
  if command -v "$candidate" >/dev/null 2>&1; then browser=$candidate; break; fi
done
if [ -z "$browser" ]; then
  echo "render_report: installing chromium"
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
  browser=chromium
fi

# A throwaway profile keeps runs independent of (and from polluting) the user's browser profile.
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$profile" \
  --screenshot="$out" --window-size="${size/x/,}" "file://$dir/report.html" 2>/dev/null
if [ ! -s "$out" ]; then
  echo "render_report: $browser wrote no screenshot to $out" >&2
  exit 1
fi
echo "render_report: $out"
