#!/usr/bin/env bash
# Instructions per gathered record, counted by callgrind: the noise-free
# figure of the gather path's cost (wall time on a shared machine is not).
# Builds //tools/bench:gather_per_record optimised, then for each codec runs
# it under callgrind with instrumentation on only for the measured pass
# (every thread, the pool's hand-off included) and prints user-space
# instructions per record and system calls per record (callgrind counts no
# kernel instructions, so the system calls are the other half of the cost).
#
#   bash tools/bench/callgrind_per_record.sh [--record_bytes=64]
#       [--batch=4096] [--batches=8] [--records=65536] [--codecs="raw zstd"]
#       [--measure=gather|append|ragged]
# (append: the measured pass appends all `records`, `batch` at a time;
# ragged: it reads the gather's batches through `RaggedStore::Read` from a
# ragged store of the same records.)
set -euo pipefail
cd "$(dirname "$0")/../.."
record_bytes=64 batch=4096 batches=8 records=65536 codecs="raw zstd"
measure=gather
for arg in "$@"; do
  case "$arg" in
    --record_bytes=*) record_bytes=${arg#*=} ;;
    --batch=*) batch=${arg#*=} ;;
    --batches=*) batches=${arg#*=} ;;
    --records=*) records=${arg#*=} ;;
    --codecs=*) codecs=${arg#*=} ;;
    --measure=*) measure=${arg#*=} ;;
    *) echo "callgrind_per_record.sh: unknown argument $arg" >&2; exit 2 ;;
  esac
done
command -v valgrind >/dev/null || {
  echo "callgrind_per_record.sh: valgrind is missing (apt-get install valgrind)" >&2
  exit 1
}
bazel build --config=opt //tools/bench:gather_per_record >&2
binary=bazel-bin/tools/bench/gather_per_record
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-6s %12s %8s %14s %18s %16s\n' codec record_bytes batch \
  records_counted instructions/record syscalls/record
for codec in $codecs; do
  out="$work/callgrind.$codec"
  valgrind --tool=callgrind --callgrind-out-file="$out" --instr-atstart=no \
    --collect-systime=yes \
    "$binary" --codec="$codec" --record_bytes="$record_bytes" \
    --batch="$batch" --batches="$batches" --records="$records" \
    --measure="$measure" \
    --dir="$work" >"$work/stdout" 2>"$work/stderr" || {
    cat "$work/stderr" >&2
    exit 1
  }
  read -r instructions syscalls < <(awk '/^totals:/ {print $2, $3}' "$out")
  # callgrind leaves trailing zero counts off the totals line.
  syscalls=${syscalls:-0}
  counted=$((batch * batches))
  [[ $measure == append ]] && counted=$((records / batch * batch))
  printf '%-6s %12s %8s %14s %18.1f %16.3f\n' "$codec" "$record_bytes" \
    "$batch" "$counted" "$(echo "$instructions / $counted" | bc -l)" \
    "$(echo "$syscalls / $counted" | bc -l)"
done
