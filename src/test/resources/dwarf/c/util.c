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

/* A small stack machine and a family of generated helpers: enough code for thousands of
   addresses, with inlining through several levels. */
enum op { OP_PUSH, OP_ADD, OP_MUL, OP_NEG, OP_DUP, OP_SWAP, OP_JZ, OP_HALT };

struct vm {
  int stack[64];
  int sp;
  int pc;
};

static inline void vm_push(struct vm *m, int v) {
  if (m->sp < 64) {
    m->stack[m->sp++] = v;
  }
}

static inline int vm_pop(struct vm *m) {
  return m->sp > 0 ? m->stack[--m->sp] : 0;
}

static inline void vm_binary(struct vm *m, int mul) {
  int b = vm_pop(m);
  int a = vm_pop(m);
  vm_push(m, mul ? clamp_int(a * b, -100000, 100000) : a + b);
}

int vm_run(const int *code, int n) {
  struct vm m = {{0}, 0, 0};
  int steps = 0;
  while (m.pc < n && steps++ < 10000) {
    int op = code[m.pc++];
    switch (op) {
      case OP_PUSH: vm_push(&m, m.pc < n ? code[m.pc++] : 0); break;
      case OP_ADD: vm_binary(&m, 0); break;
      case OP_MUL: vm_binary(&m, 1); break;
      case OP_NEG: vm_push(&m, -vm_pop(&m)); break;
      case OP_DUP: { int v = vm_pop(&m); vm_push(&m, v); vm_push(&m, v); break; }
      case OP_SWAP: { int b = vm_pop(&m); int a = vm_pop(&m); vm_push(&m, b); vm_push(&m, a);
        break; }
      case OP_JZ: { int t = m.pc < n ? code[m.pc++] : 0; if (vm_pop(&m) == 0) m.pc = t; break; }
      default: return vm_pop(&m);
    }
  }
  return vm_pop(&m);
}

#define GENERATED(N)                                                   \
  static inline int gen_inner_##N(int x) {                             \
    return clamp_int(x * (N + 1), -1000 * (N + 1), 1000 * (N + 1));    \
  }                                                                    \
  __attribute__((noinline)) int gen_outer_##N(const int *v, int n) {   \
    int s = N;                                                         \
    for (int i = 0; i < n; i++) {                                      \
      s += gen_inner_##N(v[i] + i);                                    \
      if (s & 1) {                                                     \
        s = (int) mix((unsigned) s, (unsigned) N);                     \
      }                                                                \
    }                                                                  \
    return s;                                                          \
  }

GENERATED(0) GENERATED(1) GENERATED(2) GENERATED(3) GENERATED(4) GENERATED(5) GENERATED(6)
GENERATED(7) GENERATED(8) GENERATED(9) GENERATED(10) GENERATED(11) GENERATED(12)
GENERATED(13) GENERATED(14) GENERATED(15)

int generated_all(const int *v, int n) {
  return gen_outer_0(v, n) + gen_outer_1(v, n) + gen_outer_2(v, n) + gen_outer_3(v, n)
      + gen_outer_4(v, n) + gen_outer_5(v, n) + gen_outer_6(v, n) + gen_outer_7(v, n)
      + gen_outer_8(v, n) + gen_outer_9(v, n) + gen_outer_10(v, n) + gen_outer_11(v, n)
      + gen_outer_12(v, n) + gen_outer_13(v, n) + gen_outer_14(v, n) + gen_outer_15(v, n);
}
