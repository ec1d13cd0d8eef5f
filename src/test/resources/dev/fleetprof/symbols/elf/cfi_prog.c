/* A program whose functions the call-frame tests locate: static and global functions, gcc clones
   (.constprop), and functions whose unlikely paths gcc -O2 moves into separate .cold parts. The
   argument is the number of rounds, so that a profiled run lasts long enough to sample. */
#include <stdio.h>
#include <stdlib.h>

static unsigned long long state = 88172645463325252ULL;

__attribute__((cold, noinline)) void report(const char *what, long v) {
  fprintf(stderr, "%s %ld\n", what, v);
}

__attribute__((noinline)) static unsigned long long next_random(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

__attribute__((noinline)) static long checked_div(long a, long b) {
  if (b == 0) {
    report("division by zero", a);
    report("again", a);
    return 0;
  }
  return a / b;
}

__attribute__((noinline)) static void bubble(int *v, int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j + 1 < n - i; j++)
      if (v[j] > v[j + 1]) {
        int t = v[j];
        v[j] = v[j + 1];
        v[j + 1] = t;
      }
}

__attribute__((noinline)) long long hash_bytes(const unsigned char *p, int n) {
  long long h = 1469598103934665603LL;
  for (int i = 0; i < n; i++) {
    h = (h ^ p[i]) * 1099511628211LL;
    if (h == 42) {
      report("unlucky hash at", i);
      report("again", h);
      h = 43;
    }
  }
  return h;
}

__attribute__((noinline)) static long mix(long x) {
  for (int i = 0; i < 50; i++) x = checked_div(x * 31 + (long)(next_random() % 1000), 7) + 1;
  return x;
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 200;
  long long acc = 0;
  int v[400];
  unsigned char buf[4096];
  for (int r = 0; r < rounds; r++) {
    for (int i = 0; i < 400; i++) v[i] = (int)(next_random() % 100000);
    bubble(v, 400);
    for (int i = 0; i < (int)sizeof buf; i++) buf[i] = (unsigned char)next_random();
    acc += hash_bytes(buf, (int)sizeof buf) + mix(v[0]) + v[399];
    if (acc == 7) {
      report("acc", acc);
      report("again", acc);
    }
  }
  printf("%lld\n", acc);
  return 0;
}
