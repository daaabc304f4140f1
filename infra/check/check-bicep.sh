#!/usr/bin/env bash
# Syntax check of every .bicep file under infra/ with tree-sitter-bicep (no Bicep CLI needed).
# Needs Node 20+ and, on the first run, the npm registry (npm ci installs the pinned lock file;
# the two native packages ship prebuilt binaries for linux-x64/arm64, so no compiler is needed).
# Usage: infra/check/check-bicep.sh [file-or-dir ...]   (default: self-tests, then all of infra/)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
if [[ ! -d "$here/node_modules/tree-sitter-bicep" ]]; then
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
fi
if [[ $# -eq 0 ]]; then
  set -- "$root/infra"
  # The checker's own tests first, so a parser that accepts everything cannot pass silently.
  node --test "$here/check-bicep.test.js" >/dev/null || {
    node --test "$here/check-bicep.test.js"
    echo "check-bicep: self-tests failed" >&2
    exit 2
  }
fi
exec node "$here/check-bicep.js" "$@"
