/* libhot.so: a hot loop around an inlined helper, in a shared library (-fPIC -shared). */
#include "hot.h"

static inline unsigned long mixer(unsigned long x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdUL;
  x ^= x >> 33;
  return x;
}

unsigned long lib_mix(unsigned long x, int rounds) {
  for (int i = 0; i < rounds; i++) {
    x = mixer(x + (unsigned long) i);
  }
  return x;
}
