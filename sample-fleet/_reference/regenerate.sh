#!/usr/bin/env bash
# Rebuilds the demo fleet in sample-fleet/ with the real profilers: three small C services and a Go
# one, built and installed under $PREFIX (default /opt/demo, as on a deployed host; its paths show
# up in the profiles' maps text and mappings), run once per host and day with different inputs,
# their profiles placed as
#   sample-fleet/date=YYYY-MM-DD/host=NAME/program=PROG/version=V/{cpu.prof,gmon.out,cpu.pprof,heap.pprof}
# Not run by CI. Needs root (for $PREFIX and apt) on Debian 12 (bookworm), amd64. Run from anywhere:
#   bash sample-fleet/_reference/regenerate.sh
# Sources, this script, the binaries (bin/, for symbolization) and what pprof and gprof say of each
# profile (pprof/, gprof/) stay in _reference/, which readers skip like any name starting with '_'.
# $PREFIX is wiped first; the date= directories of sample-fleet and pprof/, gprof/ here are
# rewritten. SKIP_APT=1 skips the package step. ONLY="PROG ..." retakes only those programs'
# profiles and wipes nothing else: the C programs are not rebuilt (the ones installed in $PREFIX
# run), the Go service is; e.g. ONLY=gateway after changing gateway.go keeps every other profile
# and binary as it is.
set -euo pipefail

REF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
FLEET="$(dirname "$REF")"
SRC="$REF/src"
PREFIX="${PREFIX:-/opt/demo}"
WORK="$(mktemp -d)"
ONLY="${ONLY:-}"
# Whether a program's profiles are retaken in this run.
selected() { [ -z "$ONLY" ] || [[ " $ONLY " == *" $1 "* ]]; }
trap 'rm -rf "$WORK"' EXIT

# ---- 1. packages ---------------------------------------------------------------------------
APT="apt-get -o DPkg::Lock::Timeout=900"
if [ "${SKIP_APT:-0}" != 1 ]; then
    $APT update || echo "warning: apt-get update reported errors; continuing with the indexes we have" >&2
    DEBIAN_FRONTEND=noninteractive $APT install -y --no-install-recommends \
        gcc binutils google-perftools libgoogle-perftools-dev golang-go
fi

# ---- 2. build and install ------------------------------------------------------------------
# -O1 as a release build might be; -fno-inline keeps every function of the sources a function of
# its own (so each one shows up by name, in pprof and in gprof alike); frame pointers and -g for
# the profilers and for symbolization.
CFLAGS="-O1 -fno-inline -fno-omit-frame-pointer -g"
[ -n "$ONLY" ] || rm -rf "${PREFIX:?}"
mkdir -p "$PREFIX/bin" "$PREFIX/lib" "$PREFIX/src"
# Built from a copy of the sources in $PREFIX/src, so the debug info names /opt/demo/src/*.c
# (and the Go profiles' lines /opt/demo/src/gateway.go).
cp "$SRC"/*.c "$SRC"/*.h "$SRC"/*.go "$PREFIX/src/"
cd "$PREFIX/src"
# The Go service: no modules, no network; its build cache in $WORK. Its profiles name their own
# functions, so its binary is not needed in bin/.
GOCACHE="$WORK/go-cache" GO111MODULE=off go build -o "$PREFIX/bin/gateway" gateway.go
if [ -z "$ONLY" ]; then
gcc $CFLAGS -fPIC -shared -o "$PREFIX/lib/libfleetwork.so" libfleetwork.c
for prog in api-server indexer; do
    # PIE (Debian's default), libfleetwork from $PREFIX/lib, libprofiler started by CPUPROFILE.
    gcc $CFLAGS -o "$PREFIX/bin/$prog" "$prog.c" \
        -L"$PREFIX/lib" -lfleetwork -Wl,-rpath,"$PREFIX/lib" -Wl,--no-as-needed -lprofiler
done
gcc $CFLAGS -pg -o "$PREFIX/bin/report-gen" report-gen.c

# The binaries, with their debug info, for symbolization (jobs/fleet-aggregate --binaries finds
# them by file name; a gmon.out is named by its program= directory, hence report-gen's name).
rm -rf "$REF/bin"
mkdir -p "$REF/bin"
cp "$PREFIX/bin/api-server" "$PREFIX/bin/indexer" "$PREFIX/bin/report-gen" \
    "$PREFIX/lib/libfleetwork.so" "$REF/bin/"
fi

# ---- 3. run --------------------------------------------------------------------------------
# date host program version arguments. web-2 serves more traffic than web-1; on 2026-11-21 web-2
# runs api-server 1.5, which turns the strict-escaping flag on (the regression); batch-1's corpus
# and logs grow every day. edge-1's Go gateway (flags of gateway.go) opens a search route in 2.1
# (2026-11-20) and signs every response in 2.2 (2026-11-21), when its heap profile is taken too.
RUNS="
2026-11-19 web-1   api-server 1.4 60000 1901
2026-11-19 web-2   api-server 1.4 75000 1902
2026-11-19 batch-1 indexer    3.2 20000 1903
2026-11-19 batch-1 report-gen 0.9 1800000 1904
2026-11-19 edge-1  gateway    2.0 -requests 50000 -seed 1905
2026-11-20 web-1   api-server 1.4 62000 2001
2026-11-20 web-2   api-server 1.4 78000 2002
2026-11-20 batch-1 indexer    3.2 22000 2003
2026-11-20 batch-1 report-gen 0.9 2000000 2004
2026-11-20 edge-1  gateway    2.1 -requests 52000 -seed 2005 -routes users,orders,search
2026-11-21 web-1   api-server 1.4 61000 2101
2026-11-21 web-2   api-server 1.5 77000 2102 strict-escaping
2026-11-21 batch-1 indexer    3.2 25000 2103
2026-11-21 batch-1 report-gen 0.9 2200000 2104
2026-11-21 edge-1  gateway    2.2 -requests 52000 -seed 2105 -routes users,orders,search -sign -heap
"
if [ -z "$ONLY" ]; then
    rm -rf "$FLEET"/date=* "$REF/pprof" "$REF/gprof"
fi
export CPUPROFILE_FREQUENCY=1000   # samples per second of CPU time -> period 1000 us
export HOME="$WORK/home" PPROF_TMPDIR="$WORK/pprof-tmp" PPROF_BINARY_PATH="$REF/bin"
mkdir -p "$HOME" "$PPROF_TMPDIR"
while read -r date host prog version args; do
    [ -n "$date" ] || continue
    selected "$prog" || continue
    dir="$FLEET/date=$date/host=$host/program=$prog/version=$version"
    ref="date=$date/host=$host/program=$prog/version=$version"
    rm -rf "$dir" "$REF/pprof/$ref" "$REF/gprof/$ref"
    mkdir -p "$dir" "$WORK/run"
    # shellcheck disable=SC2086
    if [ "$prog" = gateway ]; then
        "$PREFIX/bin/$prog" -profiles "$dir" $args > /dev/null
        mkdir -p "$REF/pprof/$ref"
        # The profiles name their functions: no binary, no symbolization. -raw: the records (every
        # sample type); -top in nanoseconds for CPU time, in bytes for the heap's default type.
        go tool pprof -raw -symbolize=none "$dir/cpu.pprof" > "$REF/pprof/$ref/cpu.pprof-raw.txt"
        go tool pprof -top -symbolize=none -sample_index=cpu -unit=ns -nodecount=1000000 \
            -nodefraction=0 "$dir/cpu.pprof" > "$REF/pprof/$ref/cpu.pprof-top.txt" 2>/dev/null
        if [ -f "$dir/heap.pprof" ]; then
            go tool pprof -raw -symbolize=none "$dir/heap.pprof" > "$REF/pprof/$ref/heap.pprof-raw.txt"
            go tool pprof -top -symbolize=none -sample_index=inuse_space -unit=B -nodecount=1000000 \
                -nodefraction=0 "$dir/heap.pprof" > "$REF/pprof/$ref/heap.pprof-top.txt" 2>/dev/null
        fi
    elif [ "$prog" = report-gen ]; then
        (cd "$WORK/run" && rm -f gmon.out && "$PREFIX/bin/$prog" $args > /dev/null)
        mv "$WORK/run/gmon.out" "$dir/gmon.out"
        mkdir -p "$REF/gprof/$ref"
        gprof -b -p "$REF/bin/$prog" "$dir/gmon.out" > "$REF/gprof/$ref/gprof-p.txt"
    else
        CPUPROFILE="$dir/cpu.prof" "$PREFIX/bin/$prog" $args > /dev/null
        mkdir -p "$REF/pprof/$ref"
        # -raw without symbols: the records as pprof reads them (the sample totals to compare);
        # -top with the committed binaries: what it names.
        go tool pprof -raw -symbolize=none "$dir/cpu.prof" > "$REF/pprof/$ref/cpu.pprof-raw.txt"
        go tool pprof -top -nodecount=1000 "$REF/bin/$prog" "$dir/cpu.prof" \
            > "$REF/pprof/$ref/cpu.pprof-top.txt" 2>/dev/null
    fi
done <<< "$RUNS"

# ---- 4. summary ----------------------------------------------------------------------------
dpkg-query -W -f='${Package} ${Version}\n' \
    gcc-12 binutils google-perftools libgoogle-perftools-dev libunwind8 golang-go 2>/dev/null \
    > "$REF/versions.txt" || true
{ gcc --version | head -n 1; go version; uname -srm; } >> "$REF/versions.txt"
cd "$FLEET"
find date=* -type f | sort | while read -r f; do
    printf '%-50s %7d bytes\n' "$f" "$(stat -c %s "$f")"
done
du -sh "$FLEET"
