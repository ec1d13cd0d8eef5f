/* Helpers inlined from a header in another directory (found through a relative -I). */
#ifndef HELPERS_H
#define HELPERS_H

static inline int clamp_int(int v, int lo, int hi) {
  if (v < lo) {
    return lo;
  }
  if (v > hi) {
    return hi;
  }
  return v;
}

static inline unsigned mix(unsigned h, unsigned v) {
  h ^= v + 0x9e3779b9u + (h << 6) + (h >> 2);
  return h;
}

static inline unsigned mix_all(const int *a, int n) {
  unsigned h = 17;
  for (int i = 0; i < n; i++) {
    h = mix(h, (unsigned) clamp_int(a[i], -1000, 1000));
  }
  return h;
}

#endif
