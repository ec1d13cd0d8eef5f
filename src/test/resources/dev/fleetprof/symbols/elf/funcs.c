/* Test program for the ELF symbol tests: functions of every shape addr2line has to pick among. */
#include <stdio.h>
#include <stdlib.h>

static int counter;

__attribute__((noinline)) static int helper_static(int x) { counter += x; return counter * 3; }
__attribute__((noinline)) int global_fn(int x) { return helper_static(x) + 1; }
__attribute__((noinline, weak)) int weak_fn(int x) { return x * 7 + counter; }
/* An alias: two symbols, one address. */
int alias_fn(int x) __attribute__((alias("global_fn")));
/* Aligned: a gap of padding before it. */
__attribute__((noinline, aligned(256))) int aligned_fn(int x) { return x ^ 0x5a; }
/* In an output section of its own. */
__attribute__((noinline, section("fleetprof_text"))) int other_section_fn(int x) {
  return x + 42;
}
__attribute__((noinline, cold)) void cold_fn(const char *m) {
  fprintf(stderr, "%s\n", m);
  abort();
}

static int impl_a(int x) { return x + 1; }
static int (*resolve_ifn(void))(int) { return impl_a; }
int ifunc_fn(int) __attribute__((ifunc("resolve_ifn")));

/* Hand-written assembly: a function without .size, a NOTYPE label, a hidden local NOTYPE label of
   size 0 (like annobin's markers, which bfd skips), and a function symbol inside another's range. */
__asm__(
    ".text\n"
    ".globl asm_nosize\n"
    ".type asm_nosize, @function\n"
    "asm_nosize:\n"
    "  nop\n  nop\n  ret\n"
    ".globl asm_notype\n"
    "asm_notype:\n"
    "  nop\n  ret\n"
    ".type annobin_like, @notype\n"
    ".hidden annobin_like\n"
    "annobin_like:\n"
    "  nop\n  nop\n  ret\n"
    ".globl asm_outer\n"
    ".type asm_outer, @function\n"
    "asm_outer:\n"
    "  nop\n  nop\n"
    ".globl asm_inner\n"
    ".type asm_inner, @function\n"
    "asm_inner:\n"
    "  nop\n  nop\n  ret\n"
    ".size asm_outer, .-asm_outer\n");

extern int generated_sum(int x);

int main(int argc, char **argv) {
  (void) argv;
  int v = argc;
  v += global_fn(v);
  v += weak_fn(v);
  v += alias_fn(v);
  v += aligned_fn(v);
  v += other_section_fn(v);
  v += ifunc_fn(v);
  v += generated_sum(v);
  if (v == 123456789) cold_fn("unlikely");
  printf("%d\n", v);
  return 0;
}
