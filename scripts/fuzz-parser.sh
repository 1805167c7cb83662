#!/usr/bin/env bash
# Builds the libFuzzer target for the HTTP request parser and runs it.
#   scripts/fuzz-parser.sh [SECONDS]      (default 600)
# Corpus: Fuzz/corpus (seeds, committed) + .build-fuzz/corpus (grown, not committed).
# Crashes land in fuzz-artifacts/ (git-ignored). Prints libFuzzer's final stats.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TO_RUN="${1:-600}"
OUT=.build-fuzz
mkdir -p "$OUT/corpus" fuzz-artifacts
swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name ParserFuzz \
    Fuzz/ParserFuzz.swift Sources/HTTPEngine/Parser/*.swift Sources/HTTPEngine/Messages/*.swift \
    Sources/HTTPEngine/Server/ResponseEncoder.swift Sources/HTTPEngine/Server/OutboundQueue.swift \
    -o "$OUT/parser-fuzz"
exec "$OUT/parser-fuzz" "$OUT/corpus" Fuzz/corpus \
    -max_total_time="$SECONDS_TO_RUN" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix=fuzz-artifacts/ -print_final_stats=1
