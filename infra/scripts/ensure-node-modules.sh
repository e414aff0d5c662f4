#!/bin/sh
# `npm start` / `npm test` on a fresh clone: installs the dependencies, including Node 24 itself (the npm
# package `node`, which every npm script then runs on), when node_modules is missing. Plain sh: on a fresh
# machine this runs before Node 24 exists.
set -e
cd "$(dirname "$0")/../.."
if [ ! -x node_modules/.bin/node ]; then
  echo "First run: installing dependencies (npm ci) ..." >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
fi
# `npm start` also runs a judge worker: its sandbox and compilers come from Debian. Install them when we
# can (root); otherwise the worker explains what is missing and the API runs without judging.
if [ "${1:-}" = start ] && [ "$(id -u)" = 0 ]; then
  bash infra/scripts/ensure-packages.sh judge || echo "could not install the judge's Debian packages; judging stays off until they are installed" >&2
fi
