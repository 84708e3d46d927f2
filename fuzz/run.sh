#!/bin/sh
# Runs one fuzz target: fuzz/run.sh <target> [seconds] [extra libFuzzer flags]
# One process (no -jobs/-workers: the machine is shared); allocations over 1 GiB and RSS over 2 GiB
# are failures; a unit slower than 10 s is a failure. Crashes go to fuzz/artifacts/<target>/.
set -eu
cd "$(dirname "$0")"
target=$1
seconds=${2:-300}
shift; [ $# -gt 0 ] && shift
# The project's Python (node scripts/setup.mjs creates ../.venv with zarr-python, which seeding
# shard_index needs); python3 when there is none.
python=../.venv/bin/python
[ -x "$python" ] || python=python3
[ -d "corpus/$target" ] || "$python" seed.py "$target"
dict=""
case "$target" in
  metadata_document|zom_roundtrip|array_read|hierarchy_spec) dict="-dict=dicts/zarr-json.dict" ;;
esac
unset CARGO_TARGET_DIR
exec cargo +nightly fuzz run "$target" "corpus/$target" -- \
  -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=1024 \
  -timeout=10 -print_final_stats=1 $dict "$@"
