#!/usr/bin/env bash
# Rebuilds the Go pprof samples in sample-data/pprof/ with runtime/pprof (Go's own profiler).
# Not run by CI. Needs Go (Debian package golang-go; made with go1.19). Run from anywhere:
#   bash sample-data/pprof/_reference/regenerate.sh
# The program (src/main.go) is built in $BUILD_DIR (default /tmp/fleetprof-pprof-build, wiped
# first; its path is the profiles' mapping file name) and writes:
#   cpu-labels.pb.gz  CPU profile of two goroutines under pprof.Do labels (worker, tier), with an
#                     inlined function (main.mix) so that locations carry two lines
#   heap.pb.gz        heap profile, every allocation sampled (MemProfileRate=1): four sample
#                     types and the numeric label "bytes"
#   heap.pb           the same heap profile gunzipped: raw protobuf, recognised by its structure
#   mutex.pb.gz       mutex contention profile (SetMutexProfileFraction(1))
# CPU samples depend on timing, so every run gives different (equally valid) files; the tests
# compare the decoder with `go tool pprof` run on the committed files, not with fixed numbers.
set -euo pipefail

REF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
HERE="$(dirname "$REF")"
BUILD_DIR="${BUILD_DIR:-/tmp/fleetprof-pprof-build}"
rm -rf "${BUILD_DIR:?}"
mkdir -p "$BUILD_DIR"
go version

cd "$BUILD_DIR"
cp "$REF/src/main.go" .
GO111MODULE=off go build -o profgen main.go
./profgen cpu "$HERE/cpu-labels.pb.gz"
./profgen heap "$HERE/heap.pb.gz"
gzip -dc "$HERE/heap.pb.gz" > "$HERE/heap.pb"
./profgen mutex "$HERE/mutex.pb.gz"
ls -l "$HERE"
