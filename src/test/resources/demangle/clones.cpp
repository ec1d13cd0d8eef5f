// Functions GCC clones at -O2: interprocedural scalar replacement (.isra), constant
// propagation (.constprop), partial inlining (.part) and hot/cold splitting (.cold).
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace clones {

struct Big {
  long a, b, c, d;
  std::vector<int> v;
};

// Only one field of the struct is used: the copy passed by value is replaced by that field.
static __attribute__((noinline)) long first_only(Big big, int unused) {
  return big.a * 3;
}

// Always called with the same constant: a copy specialized for it.
static __attribute__((noinline)) int scaled(int x, int factor) {
  int r = 0;
  for (int i = 0; i < factor; ++i) r += x * i;
  return r;
}

// A likely early exit before a large body: the body is split off (.part) and the test inlined
// into each caller.
static int checked(const char* s, int n) {
  if (__builtin_expect(s == nullptr || *s == 0, 1)) return n;
  int total = 0;
  for (const char* p = s; *p; ++p) {
    total += *p * n;
    if (total > 100000) total %= 977;
  }
  for (int i = 0; s[i]; ++i) total ^= s[i] << (i % 7);
  std::printf("checked %s %d\n", s, total);
  std::printf("again %s %d\n", s, total * 3);
  return total;
}
int check_one(const char* s) { return checked(s, 1); }
int check_two(const char* s) { return checked(s, 2); }
int check_three(const char* s) { return checked(s, 3); }

// A branch GCC considers cold (it throws): moved to a .cold section.
__attribute__((noinline)) int must_be_positive(int x) {
  if (__builtin_expect(x < 0, 0)) {
    throw std::invalid_argument("negative: " + std::to_string(x));
  }
  return x * 2;
}

template <typename T>
__attribute__((noinline)) T sum_of(const std::vector<T>& v, int unused_flag) {
  T s{};
  for (const T& x : v) s += x;
  return s;
}

}  // namespace clones

int main(int argc, char** argv) {
  clones::Big big{argc, 2, 3, 4, {1, 2}};
  long r = clones::first_only(big, 0) + clones::scaled(argc, 17) + clones::scaled(argc + 1, 17);
  r += clones::check_one(argv[0]) + clones::check_two(argv[argc - 1]);
  r += clones::check_three(argc > 2 ? argv[1] : nullptr);
  r += clones::must_be_positive(argc);
  std::vector<double> v{1.0, 2.0, static_cast<double>(argc)};
  r += static_cast<long>(clones::sum_of(v, 0));
  std::printf("%ld\n", r);
  return 0;
}
