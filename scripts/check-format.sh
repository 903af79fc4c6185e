#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fails when a tracked C file is not formatted as .clang-format says.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "clang-format not installed"; exit 77; }
files=$(git ls-files '*.c' '*.h' 2>/dev/null || find src include tests bench examples -name '*.[ch]')
[ -n "$files" ] || exit 0
clang-format --dry-run -Werror $files
echo "clang-format: $(echo "$files" | wc -l) files formatted"
