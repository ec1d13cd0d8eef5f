#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "helpers.h"

struct node {
  struct node *next;
  int value;
};

static int depth3(int x) {
  return clamp_int(x * 3, -50, 50) + 1;
}

static inline int depth2(int x) {
  return depth3(x + 1) * 2;
}

static inline int depth1(int x) {
  return depth2(x - 1) + depth2(x + 2);
}

__attribute__((noinline)) int chain(int x) {
  return depth1(x) ^ depth1(x * 7);
}

static struct node *push(struct node *head, int v) {
  struct node *n = malloc(sizeof *n);
  if (n == NULL) {
    abort();
  }
  n->next = head;
  n->value = v;
  return n;
}

static int sum_list(const struct node *n) {
  int s = 0;
  for (; n != NULL; n = n->next) {
    s += n->value;
  }
  return s;
}

__attribute__((noinline)) unsigned hash_args(int argc, char **argv) {
  int vals[64];
  int n = 0;
  for (int i = 0; i < argc && n < 64; i++) {
    vals[n++] = (int) strlen(argv[i]) * (i + 1);
  }
  return mix_all(vals, n);
}

/* Cold paths, so that -freorder-blocks-and-partition splits functions. */
__attribute__((noinline)) int checked_div(int a, int b) {
  if (__builtin_expect(b == 0, 0)) {
    fprintf(stderr, "division by zero: %d / %d\n", a, b);
    fflush(stderr);
    exit(3);
  }
  return a / b;
}

int sort_and_sum(int *v, int n);
int vm_run(const int *code, int n);
int generated_all(const int *v, int n);

int main(int argc, char **argv) {
  struct node *head = NULL;
  for (int i = 0; i < argc * 10; i++) {
    head = push(head, chain(i));
  }
  int total = sum_list(head);
  int arr[32];
  for (int i = 0; i < 32; i++) {
    arr[i] = (total * (i + 3)) % 101;
  }
  total += sort_and_sum(arr, 32);
  int prog[] = {0, 6, 4, 2, 0, 7, 1, 3, 5, 0, argc, 6, 0, 7};
  total += vm_run(prog, (int) (sizeof prog / sizeof prog[0]));
  total += generated_all(arr, 32);
  printf("%d %u %d\n", total, hash_args(argc, argv), checked_div(total, argc));
  return 0;
}
