#!/usr/bin/env bash
# Installs the Debian packages the test suites and the judge need, when they are missing.
# Used by .ci/run and by `npm test` on a fresh machine (needs root for apt-get).
#   ensure-packages.sh          everything the suites need
#   ensure-packages.sh judge    only what the judge worker needs (`npm start` runs one)
set -euo pipefail
need=()
if [ "${1:-all}" != judge ]; then
  [ -d /usr/lib/postgresql ] || need+=(postgresql)
  command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
  [ -f /usr/include/librdkafka/rdkafka_mock.h ] || need+=(librdkafka-dev)
  command -v cc >/dev/null 2>&1 || need+=(gcc libc6-dev)
  # The web app's browser tests (tests/web) drive Debian's Chromium through playwright-core.
  [ -x /usr/bin/chromium ] || need+=(chromium)
  # Thai glyphs for its screenshots (Chromium draws boxes without a Thai font).
  [ -d /usr/share/fonts/truetype/tlwg ] || need+=(fonts-thai-tlwg-ttf)
fi
# The judge's sandbox (judge/src/sandbox) and languages (judge/src/languages): bubblewrap, the seccomp
# BPF generator's library, and the Debian compilers/interpreter it calls by absolute path.
[ -x /usr/bin/bwrap ] || need+=(bubblewrap)
[ -f /usr/include/seccomp.h ] || need+=(libseccomp-dev)
[ -x /usr/bin/gcc ] || need+=(gcc)
[ -x /usr/bin/g++ ] || need+=(g++)
[ -x /usr/bin/python3 ] || need+=(python3)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "missing Debian packages: ${need[*]} (run as root, or: sudo apt-get install ${need[*]})" >&2
  exit 1
fi
echo "installing Debian packages: ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=600 update -qq
apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${need[@]}" >/dev/null
