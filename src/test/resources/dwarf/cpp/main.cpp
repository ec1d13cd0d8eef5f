#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "shapes.hpp"

namespace {

template <int N>
int unrolled(int x) {
  return unrolled<N - 1>(x * 3 + N) ^ (x >> 1);
}

template <>
int unrolled<0>(int x) {
  return x;
}

struct Counter {
  std::map<std::string, long> counts;
  void add(const std::string &k, long v) { counts[k] += v; }
  long total() const { return geo::sum_values(counts); }
};

__attribute__((noinline)) double total_area(const std::vector<std::unique_ptr<geo::Shape>> &v) {
  double a = 0;
  for (const auto &s : v) {
    a += s->area();
  }
  return a;
}

}  // namespace

extern "C" __attribute__((noinline)) int c_linkage_entry(int x) {
  return unrolled<6>(x) + unrolled<3>(x + 1);
}

__attribute__((noinline)) long checked(long v) {
  if (__builtin_expect(v < 0, 0)) {
    throw std::runtime_error("negative: " + std::to_string(v));
  }
  return v * 2;
}

int main(int argc, char **argv) {
  std::vector<std::unique_ptr<geo::Shape>> shapes;
  for (int i = 1; i <= argc + 3; i++) {
    shapes.push_back(geo::make_square<int>(i));
    shapes.push_back(geo::make_square<double>(i * 0.5));
  }
  Counter c;
  for (const auto &s : shapes) {
    c.add(s->name(), static_cast<long>(s->area()));
  }
  geo::Poly<long> p({{1, 2}, {3, 4}, {5, 7}});
  long folded = p.fold([argc](long acc, long d) { return acc + d * argc; }, 0L);
  std::vector<int> xs(static_cast<size_t>(argc) * 16);
  std::iota(xs.begin(), xs.end(), 1);
  std::sort(xs.begin(), xs.end(), [](int a, int b) { return (a % 7) < (b % 7); });
  long acc = 0;
  std::for_each(xs.begin(), xs.end(), [&acc](int x) { acc += c_linkage_entry(x); });
  try {
    acc += checked(acc - 1000000000L);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "%s\n", e.what());
  }
  std::printf("%f %ld %ld %ld\n", total_area(shapes), c.total(), folded, acc);
  return argv[0] == nullptr;
}
