#!/usr/bin/env bash
# The Debian packages the tests and experiments use, installed when missing (as
# root, or with password-less sudo): GNU Go, the real opponent of the GTP tests
# and of experiments/crosschecks/vs_gnugo.py, and Chromium, the browser of the `dlgo serve`
# tests. Where that cannot be done it says so and exits 0, and the tests that
# need them skip with the reason.
set -u
# package and the program it installs (Debian's "pachi" is a platform game, not the Go engine)
declare -A programs=([gnugo]=/usr/games/gnugo [chromium]=/usr/bin/chromium)
missing=()
for p in "${!programs[@]}"; do
    [ -x "${programs[$p]}" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if ! command -v apt-get >/dev/null; then
    echo "note: no apt-get here; install ${missing[*]} by hand for the tests that need them" >&2
    exit 0
fi
if [ "$(id -u)" -eq 0 ]; then sudo=(); elif sudo -n true 2>/dev/null; then sudo=(sudo -n); else
    echo "note: not root and no password-less sudo; run: sudo apt-get install -y ${missing[*]}" >&2
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get install -y -q "${missing[@]}" >/dev/null 2>&1 \
    || { "${sudo[@]}" apt-get update -q >/dev/null 2>&1 \
         && "${sudo[@]}" apt-get install -y -q "${missing[@]}" >/dev/null; } \
    || echo "note: apt-get could not install ${missing[*]}; the tests that need them will skip" >&2
exit 0
