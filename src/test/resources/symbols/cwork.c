/*
 * A C program for the symbolization test: several hot functions called from different sites
 * (so that no frame is shared by every sample, which pprof would strip), inlined helpers at -O2,
 * and a call into a shared library. Argument: how many rounds.
 */
#include <stdio.h>
#include <stdlib.h>
#include "hot.h"

static volatile unsigned long sink;

static inline unsigned long rotl(unsigned long x, int r) {
  return (x << r) | (x >> (64 - r));
}

static inline __attribute__((always_inline)) unsigned long step(unsigned long x) {
  return rotl(x * 0x9E3779B97F4A7C15UL, 17) ^ (x >> 7);
}

__attribute__((noinline)) unsigned long hash_loop(unsigned long seed, long n) {
  for (long i = 0; i < n; i++) {
    seed = step(seed + (unsigned long) i);
  }
  return seed;
}

__attribute__((noinline)) double float_loop(long n) {
  double a = 1.0;
  for (long i = 1; i < n; i++) {
    a = a * 1.0000001 + 1.0 / (double) i;
  }
  return a;
}

__attribute__((noinline)) unsigned long via_lib(long n) {
  unsigned long s = 0;
  for (long i = 0; i < n; i++) {
    s += lib_mix(s + (unsigned long) i, 8);
  }
  return s;
}

int main(int argc, char **argv) {
  long rounds = argc > 1 ? atol(argv[1]) : 40;
  for (long r = 0; r < rounds; r++) {
    sink += hash_loop((unsigned long) r, 2000000);
    sink += (unsigned long) float_loop(1000000);
    sink += via_lib(200000);
  }
  printf("%lu\n", (unsigned long) sink);
  return 0;
}
