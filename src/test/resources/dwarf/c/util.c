#include <stdlib.h>
#include "helpers.h"

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *) a;
  int y = *(const int *) b;
  return (x > y) - (x < y);
}

static inline int weighted(int v, int i) {
  return clamp_int(v * (i % 7), -300, 300);
}

int sort_and_sum(int *v, int n) {
  qsort(v, (size_t) n, sizeof *v, cmp_int);
  int s = 0;
  for (int i = 0; i < n; i++) {
    s += weighted(v[i], i);
    if (s > 100000) {
      s = (int) mix((unsigned) s, (unsigned) i);
    }
  }
  return s;
}
