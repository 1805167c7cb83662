#!/usr/bin/env bash
# Builds the libFuzzer target that drives the event loop, router and sessions with whole request
# streams (Fuzz/StreamFuzz.swift) and runs it.
#   scripts/fuzz-stream.sh [SECONDS]      (default 600; 0 builds only)
# Each module is compiled with -sanitize=fuzzer,address into a static library, in dependency
# order, then linked with the target (no SwiftPM target, as for the parser's).
# Corpus: Fuzz/stream-corpus (seeds, committed) + .build-fuzz/stream-corpus (grown, not committed).
# Crashes land in fuzz-artifacts/stream- (git-ignored). Prints libFuzzer's final stats.
# Leak detection is off: a weak reference's side table is reachable only through a shifted pointer
# in its object's reference count, which LeakSanitizer cannot follow (it reports the 32 bytes of
# every `weak var` made while an input runs); AddressSanitizer's other checks stay on.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TO_RUN="${1:-600}"
OUT=.build-fuzz
mkdir -p "$OUT/stream-corpus" "$OUT/modules" fuzz-artifacts
FLAGS=(-O -sanitize=fuzzer,address -parse-as-library -swift-version 6 -package-name storehouse -I "$OUT/modules" -L "$OUT/modules")
LIBS=()
# Dependency order; a module that does not exist (yet) is skipped.
for module in StoreCore StoreKinds HTTPEngine Journal SessionCore StorehouseServer; do
    [ -d "Sources/$module" ] || continue
    mapfile -t sources < <(find "Sources/$module" -name '*.swift' | sort)
    swiftc "${FLAGS[@]}" -enable-testing -emit-library -static -emit-module -module-name "$module" \
        -emit-module-path "$OUT/modules/$module.swiftmodule" "${LIBS[@]}" "${sources[@]}" \
        -o "$OUT/modules/lib$module.a"
    LIBS+=("-l$module")
done
# Static libraries link dependents first.
LINK=(); for ((i=${#LIBS[@]}-1; i>=0; i--)); do LINK+=("${LIBS[i]}"); done
swiftc "${FLAGS[@]}" -module-name StreamFuzz Fuzz/StreamFuzz.swift "${LINK[@]}" -o "$OUT/stream-fuzz"
[ "$SECONDS_TO_RUN" = 0 ] && exit 0  # build only
exec "$OUT/stream-fuzz" "$OUT/stream-corpus" Fuzz/stream-corpus \
    -max_total_time="$SECONDS_TO_RUN" -max_len=8192 -timeout=60 -rss_limit_mb=4096 -detect_leaks=0 \
    -artifact_prefix=fuzz-artifacts/stream- -print_final_stats=1
