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
