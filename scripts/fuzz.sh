#!/usr/bin/env bash
# Runs every fuzz target in fuzz/ (cargo-fuzz, libFuzzer) for SECONDS each (default 60), starting from the
# committed corpus in fuzz/corpus/<target>/. Fails on any crash, panic, timeout or out-of-memory, and
# says where the input that caused it was saved.
#
#   bash scripts/fuzz.sh [SECONDS]
#
# cargo-fuzz needs nightly compiler flags (-Zsanitizer, sanitizer coverage): RUSTC_BOOTSTRAP=1 lets the
# machine's stable toolchain take them, so no nightly toolchain is needed. cargo-fuzz itself is installed
# from crates.io into ~/.cargo/bin when missing. The fuzz build has its own target dir
# (CAIRN_FUZZ_TARGET_DIR, default ~/.cache/cairn-fuzz-target): its flags differ from the normal build's.
#
# New inputs a run finds go to a scratch dir, never into fuzz/corpus/: the committed corpus only changes
# by hand, e.g. `RUSTC_BOOTSTRAP=1 cargo fuzz cmin <target>` after a longer local run.
set -euo pipefail
cd "$(dirname "$0")/.."

secs="${1:-60}"
max_len=65536 # 64 KiB: larger than any frontmatter, session key or typical turn; see docs/serve.md
timeout=5     # seconds per input: a 64 KiB input must finish far below this (linear parsers)

export RUSTC_BOOTSTRAP=1
export CARGO_TARGET_DIR="${CAIRN_FUZZ_TARGET_DIR:-$HOME/.cache/cairn-fuzz-target}"

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz: installing cargo-fuzz from crates.io"
    CARGO_TARGET_DIR="$CARGO_TARGET_DIR/cargo-fuzz-install" cargo install cargo-fuzz --version 0.13.2 --locked
fi

# cargo fuzz has no --locked: check fuzz/Cargo.lock is up to date first (fails instead of rewriting it).
# A dependency added to cairn-core, -ingest, -route or -store needs it refreshed: run the same command
# without --locked and commit fuzz/Cargo.lock.
if ! cargo metadata --locked --format-version 1 --manifest-path fuzz/Cargo.toml >/dev/null; then
    echo "fuzz: fuzz/Cargo.lock is out of date; refresh it with" >&2
    echo "  cargo metadata --format-version 1 --manifest-path fuzz/Cargo.toml >/dev/null" >&2
    exit 1
fi
echo "fuzz: building the targets ($(cargo fuzz --version))"
cargo fuzz build

triple="$(rustc -vV | sed -n 's/^host: //p')"
bin_dir="$CARGO_TARGET_DIR/$triple/release"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

failed=()
for target in $(cargo fuzz list); do
    mkdir -p "$scratch/$target/new" "$scratch/$target/tmp" "fuzz/artifacts/$target"
    log="$scratch/$target/log"
    start=$SECONDS
    status=0
    # The first corpus dir receives new inputs (the scratch one); the committed corpus is only read.
    # TMPDIR: the capture target's store lives there.
    TMPDIR="$scratch/$target/tmp" "$bin_dir/$target" \
        "$scratch/$target/new" "fuzz/corpus/$target" \
        -max_total_time="$secs" -max_len="$max_len" -timeout="$timeout" -rss_limit_mb=2048 \
        -artifact_prefix="fuzz/artifacts/$target/" -print_final_stats=1 >"$log" 2>&1 || status=$?
    stat_of() { sed -n "s/^stat::$1: *//p" "$log"; }
    if [ "$status" -eq 0 ]; then
        echo "fuzz: $target ok: $(stat_of number_of_executed_units) runs in $((SECONDS - start)) s" \
            "($(stat_of average_exec_per_sec)/s), $(stat_of new_units_added) new inputs, slowest" \
            "$(stat_of slowest_unit_time_sec) s, peak RSS $(stat_of peak_rss_mb) MB"
    else
        failed+=("$target")
        echo "fuzz: $target FAILED (exit $status) after $((SECONDS - start)) s; the end of its log:"
        grep -v -E '^#[0-9]+|NEW_FUNC|^INFO:' "$log" | tail -60
        saved="$(sed -n "s/.*Test unit written to //p" "$log" | tail -1)"
        if [ -n "$saved" ]; then
            echo "fuzz: the input is saved in $saved; reproduce with:"
            echo "  RUSTC_BOOTSTRAP=1 cargo fuzz run $target $saved"
        fi
    fi
done

if [ "${#failed[@]}" -gt 0 ]; then
    echo "fuzz: failed: ${failed[*]}"
    exit 1
fi
echo "fuzz: every target ran ${secs} s without a crash, timeout or out-of-memory"
