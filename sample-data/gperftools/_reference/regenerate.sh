#!/usr/bin/env bash
# Rebuilds the gperftools CPU profile samples in this folder with the real profiler.
# Not run by CI. Needs root on Debian 12 (bookworm), amd64. Run from anywhere:
#   bash sample-data/gperftools/_reference/regenerate.sh
# The profiles go to sample-data/gperftools/ (what the profile source reads); sources, this script
# and pprof's output stay here in _reference/, which readers skip like any name starting with '_'.
# Executables and libwork.so are built in $BUILD_DIR (default /tmp/fleetprof-gperftools-build,
# wiped first; its path shows up in the profiles' maps text) and copied to bin/ here (for
# symbolization); *.prof and *.pprof-raw.txt in this folder are rewritten. SKIP_APT=1 skips step 1.
set -euo pipefail

REF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
HERE="$(dirname "$REF")"
SRC="$REF/src"
BUILD_DIR="${BUILD_DIR:-/tmp/fleetprof-gperftools-build}"
rm -rf "${BUILD_DIR:?}"
mkdir -p "$BUILD_DIR"
FREQ="${CPUPROFILE_FREQUENCY:-1000}"   # samples per second of CPU time -> period 1000 us

# Versions, for the README.
print_versions() {
    dpkg-query -W -f='${Package}:${Architecture} ${Version}\n' \
        google-perftools libgoogle-perftools-dev libgoogle-perftools4:amd64 libgoogle-perftools4:i386 \
        golang-go gcc-multilib libunwind8:amd64 2>/dev/null || true
    gcc --version | head -n 1
    go version
}

# ---- 1. packages ---------------------------------------------------------------------------
APT="apt-get -o DPkg::Lock::Timeout=900"
if [ "${SKIP_APT:-0}" != 1 ]; then
    dpkg --print-foreign-architectures | grep -qx i386 || dpkg --add-architecture i386
    $APT update || echo "warning: apt-get update reported errors; continuing with the indexes we have" >&2
    DEBIAN_FRONTEND=noninteractive $APT install -y --no-install-recommends \
        gcc gcc-multilib google-perftools libgoogle-perftools-dev golang-go \
        libgoogle-perftools4:i386
fi

# ---- 2. build ------------------------------------------------------------------------------
CFLAGS="-O0 -fno-omit-frame-pointer -g"
cd "$BUILD_DIR"
gcc $CFLAGS -o deep_recursion "$SRC/deep_recursion.c" -lprofiler
gcc $CFLAGS -pthread -o multithreaded "$SRC/multithreaded.c" -lprofiler -lm
gcc $CFLAGS -fPIC -shared -o libwork.so "$SRC/libwork.c"
gcc $CFLAGS -fPIE -pie -I"$SRC" -o shared_library "$SRC/shared_library.c" \
    -L"$BUILD_DIR" -lwork -Wl,-rpath,'$ORIGIN' -lprofiler
# The i386 runtime package has no libprofiler.so dev symlink: link the soname file directly.
gcc -m32 $CFLAGS -o x86_32 "$SRC/x86_32.c" /usr/lib/i386-linux-gnu/libprofiler.so.0
gcc $CFLAGS -o zero_samples "$SRC/zero_samples.c" -lprofiler
! command -v file >/dev/null || file deep_recursion multithreaded libwork.so shared_library x86_32 zero_samples

# The binaries, with their debug info, for symbolization (jobs/fleet-aggregate --binaries):
# bin/ is what the quick start symbolizes against. -g does not change the code gcc generates.
mkdir -p "$REF/bin"
cp deep_recursion multithreaded libwork.so shared_library x86_32 zero_samples "$REF/bin/"

# ---- 3. run (each program calls ProfilerStart(argv[1]) / ProfilerStop()) -------------------
export CPUPROFILE_FREQUENCY="$FREQ"
unset CPUPROFILE
for prog in deep_recursion multithreaded shared_library x86_32 zero_samples; do
    rm -f "$HERE/$prog.prof"
    "./$prog" "$HERE/$prog.prof"
done

# ---- 4. pprof raw dumps --------------------------------------------------------------------
export HOME="${BUILD_DIR}/home" PPROF_TMPDIR="${BUILD_DIR}/pprof-tmp"
mkdir -p "$HOME" "$PPROF_TMPDIR"
for prog in deep_recursion multithreaded shared_library x86_32 zero_samples; do
    # No binary argument and -symbolize=none: pprof prints raw addresses, no symbol lookup.
    (cd "$HERE" && go tool pprof -raw -symbolize=none "$prog.prof") > "$REF/$prog.pprof-raw.txt"
done

# ---- 5. summary ----------------------------------------------------------------------------
cd "$HERE"
print_versions
# Sample total and deepest call chain (in pprof locations) from each -raw dump.
for prog in deep_recursion multithreaded shared_library x86_32 zero_samples; do
    awk -v f="$prog.prof" -v size="$(stat -c %s "$prog.prof")" '
        /^Samples:/ {s = 1; next}
        /^Locations/ {s = 0}
        s && /^ *[0-9]+ +[0-9]+:/ {n += $1; d = NF - 2; if (d > max) max = d}
        END {printf "%-20s %7d bytes %6d samples  max depth %d\n", f, size, n, max}' "$REF/$prog.pprof-raw.txt"
done
[ -n "${KEEP_BUILD:-}" ] || rm -rf "$BUILD_DIR"
