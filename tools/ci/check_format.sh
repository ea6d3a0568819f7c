#!/usr/bin/env bash
# Fails, naming the files, if any C++ source differs from what clang-format
# (Google style, .clang-format) makes of it (`clang-format -i FILE` fixes
# one), or if any tracked file still holds merge conflict markers.
set -euo pipefail
cd "$(dirname "$0")/../.."

mapfile -t sources < <(git ls-files --cached --others --exclude-standard '*.cc' '*.h')
unformatted=()
for file in "${sources[@]}"; do
  if ! clang-format --dry-run --Werror "$file" >/dev/null 2>&1; then
    unformatted+=("$file")
  fi
done
if ((${#unformatted[@]} > 0)); then
  echo "not clang-formatted (run clang-format -i on them):" >&2
  printf '  %s\n' "${unformatted[@]}" >&2
  exit 1
fi
echo "format: ${#sources[@]} C++ files clang-formatted"

# A merge conflict resolved by committing its markers must not land.
if git grep -n -E '^(<<<<<<< |>>>>>>> )' -- . >&2; then
  echo "merge conflict markers committed (above)" >&2
  exit 1
fi
