/*
 * Sample workload for gprof sample data (fleetprof, sample-data/gprof).
 * Built with: gcc -pg -O1 -fno-inline (64-bit PIE, and -m32 for the 32-bit sample).
 * Usage: workload [scale]   (scale 1..9, default 3; about one second of CPU at the default)
 *
 * Shapes the call graph on purpose: a self-recursive function (fib), a function called
 * from two different callers (mix), a recursive sort with a helper (merge_sort/merge),
 * and plain hot loops (checksum, collatz_len), so the histogram has real samples in
 * several functions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned int rng_state = 12345u;

unsigned int mix(unsigned int x)
{
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

unsigned int next_random(void)
{
  rng_state = mix(rng_state + 0x9e3779b9u);
  return rng_state;
}

void fill_random(unsigned int *a, int n)
{
  for (int i = 0; i < n; i++)
    a[i] = next_random();
}

unsigned int checksum(const unsigned int *a, int n)
{
  unsigned int h = 0;
  for (int i = 0; i < n; i++)
    h = mix(h ^ a[i]);
  return h;
}

void merge(unsigned int *a, unsigned int *tmp, int lo, int mid, int hi)
{
  int i = lo, j = mid, k = lo;
  while (i < mid && j < hi)
    tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
  while (i < mid)
    tmp[k++] = a[i++];
  while (j < hi)
    tmp[k++] = a[j++];
  memcpy(a + lo, tmp + lo, (size_t) (hi - lo) * sizeof a[0]);
}

void merge_sort(unsigned int *a, unsigned int *tmp, int lo, int hi)
{
  if (hi - lo < 2)
    return;
  int mid = lo + (hi - lo) / 2;
  merge_sort(a, tmp, lo, mid);
  merge_sort(a, tmp, mid, hi);
  merge(a, tmp, lo, mid, hi);
}

unsigned long fib(int n)
{
  return n < 2 ? (unsigned long) n : fib(n - 1) + fib(n - 2);
}

int collatz_len(unsigned long long n)
{
  int len = 1;
  while (n != 1) {
    n = (n & 1) ? 3 * n + 1 : n / 2;
    len++;
  }
  return len;
}

unsigned long long longest_collatz(unsigned long long limit)
{
  unsigned long long best = 1;
  int best_len = 1;
  for (unsigned long long i = 1; i < limit; i++) {
    int len = collatz_len(i);
    if (len > best_len) {
      best_len = len;
      best = i;
    }
  }
  return best;
}

int main(int argc, char **argv)
{
  int scale = argc > 1 ? atoi(argv[1]) : 3;
  if (scale < 1 || scale > 9)
    scale = 3;

  int n = 250000 * scale;
  unsigned int *a = malloc((size_t) n * sizeof *a);
  unsigned int *tmp = malloc((size_t) n * sizeof *tmp);
  if (!a || !tmp)
    return 1;

  unsigned int h = 0;
  for (int round = 0; round < 4; round++) {
    fill_random(a, n);
    merge_sort(a, tmp, 0, n);
    h ^= checksum(a, n);
  }
  unsigned long f = fib(27 + scale);
  unsigned long long c = longest_collatz(450000ull * (unsigned long long) scale);

  printf("checksum %08x fib %lu collatz %llu\n", h, f, c);
  free(a);
  free(tmp);
  return 0;
}
