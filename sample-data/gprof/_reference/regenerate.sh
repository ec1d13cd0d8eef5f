#!/bin/sh
# Regenerates the gprof sample data from src/. Not run by CI.
#
# Profiles go to sample-data/gprof/<sample>/ (the only files there that the profile source lists); what
# gprof says of each, and the binary's symbols, go to sample-data/gprof/_reference/<sample>/ (this folder,
# skipped by the source like every name starting with `_`).
#
# Needs (Debian 12 package names): gcc, g++, gcc-multilib (for -m32), binutils (gprof, nm), python3.
# Binaries are built in a temporary directory and not kept; their `nm -n -C` output is saved instead
# so that tests can map addresses to functions.
#
# Usage: sample-data/gprof/_reference/regenerate.sh [WORKDIR]
set -eu

here=$(cd "$(dirname "$0")" && pwd)   # sample-data/gprof/_reference: sources, gprof text, this script
data=$(dirname "$here")                # sample-data/gprof: the profile files
work=${1:-$(mktemp -d)}
mkdir -p "$work"
echo "building in $work"

# -g adds debug info for symbolization and leaves the generated code as it is.
CFLAGS="-g -pg -O1 -fno-inline"
CXXFLAGS="-g -pg -O1"

# save_text SAMPLE BINARY GMONFILE: for the profile $data/SAMPLE/GMONFILE, save in $here/SAMPLE gprof's
# flat profile and call graph, the bins gprof credits to functions (its --debug=64 "assign_samples"
# trace: bin ranges exactly as gprof computes them, and each function's share) and the binary's symbol
# table.
save_text() {
  gmon="$data/$1/$3"; ref="$here/$1"
  mkdir -p "$ref"
  gprof -b -p "$2" "$gmon" > "$ref/gprof-p.txt"
  gprof -b -q "$2" "$gmon" > "$ref/gprof-q.txt"
  gprof --debug=64 -b -p "$2" "$gmon" | grep '^\[assign_samples\] ' > "$ref/gprof-assign.txt"
  nm -n -C "$2" > "$ref/nm.txt"
}

# run BINARY OUTDIR NAME [ARGS]: run the program in the work dir, move its gmon.out to OUTDIR/NAME
run() {
  bin=$1; out=$2; name=$3; shift 3
  (cd "$work" && rm -f gmon.out && "./$bin" "$@" > /dev/null)
  mkdir -p "$out"
  mv "$work/gmon.out" "$out/$name"
}

# 64-bit PIE C program (gcc's default on Debian is PIE; say it anyway).
gcc $CFLAGS -fPIE -pie -o "$work/workload" "$here/src/workload.c"
run workload "$data/c-pie-64" gmon.out
save_text c-pie-64 "$work/workload" gmon.out

# 64-bit non-PIE C++ program.
g++ $CXXFLAGS -no-pie -o "$work/shapes" "$here/src/shapes.cpp"
run shapes "$data/cxx-nopie-64" gmon.out
save_text cxx-nopie-64 "$work/shapes" gmon.out

# 32-bit C program (same source).
gcc -m32 $CFLAGS -o "$work/workload32" "$here/src/workload.c"
run workload32 "$data/c-32" gmon.out
save_text c-32 "$work/workload32" gmon.out

# gprof -s: sum of two more runs of the 64-bit PIE program (scales 1 and 2).
run workload "$work" run1.gmon 1
run workload "$work" run2.gmon 2
mkdir -p "$data/c-pie-64-sum"
(cd "$work" && rm -f gmon.sum && gprof -s workload run1.gmon run2.gmon && mv gmon.sum "$data/c-pie-64-sum/gmon.sum")
save_text c-pie-64-sum "$work/workload" gmon.sum

# BSD formats, written by gprof itself from the c-pie-64 profile. gprof's -O selects the input format
# too, so it cannot read the GNU file while writing BSD: seed it with a 4.4BSD conversion first.
python3 "$here/src/gnu2bsd44.py" "$data/c-pie-64/gmon.out" "$work/seed.bsd44"
mkdir -p "$data/c-pie-64-bsd44" "$data/c-pie-64-bsd"
(cd "$work" && rm -f gmon.sum && gprof -s -O 4 workload seed.bsd44 && mv gmon.sum "$data/c-pie-64-bsd44/gmon.bsd44")
(cd "$work" && rm -f gmon.sum && gprof -s -O b workload seed.bsd44 && mv gmon.sum "$data/c-pie-64-bsd/gmon.bsd")
save_text c-pie-64-bsd44 "$work/workload" gmon.bsd44
save_text c-pie-64-bsd "$work/workload" gmon.bsd

# The binaries, with debug info, for symbolization (jobs/fleet-aggregate --binaries, --gmon-binary).
mkdir -p "$here/bin"
cp "$work/workload" "$work/shapes" "$work/workload32" "$here/bin/"

# Tool versions, for README.md.
{
  echo "generated: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "os: $(. /etc/os-release && echo "$PRETTY_NAME") $(uname -m)"
  echo "gcc: $(gcc --version | head -1)"
  echo "g++: $(g++ --version | head -1)"
  echo "gprof: $(gprof --version | head -1)"
  echo "nm: $(nm --version | head -1)"
  echo "glibc: $(ldd --version | head -1)"
  echo "python3: $(python3 --version)"
} > "$here/versions.txt"

ls -l "$data"/[!_]*/ "$here"/*/
echo "done; work dir $work kept (delete it when done)"
