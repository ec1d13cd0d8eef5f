// A C++ program for the symbolization test: templates, lambdas inlined into std::sort, a method of
// a class template in a namespace, std::map with std::string keys. Argument: how many rounds.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace work {

template <typename T>
struct Accumulator {
  T total{};
  __attribute__((noinline)) void add(const std::vector<T>& values) {
    for (const T& x : values) {
      total += x * x + (x >> 3);
    }
  }
};

__attribute__((noinline)) void sort_descending(std::vector<int>& v) {
  std::sort(v.begin(), v.end(), [](int a, int b) { return a > b; });
}

__attribute__((noinline)) long count_keys(const std::map<std::string, int>& m, int rounds) {
  long found = 0;
  for (int r = 0; r < rounds; r++) {
    for (const auto& [k, v] : m) {
      found += m.count(k) * v;
    }
  }
  return found;
}

}  // namespace work

int main(int argc, char** argv) {
  long rounds = argc > 1 ? std::atol(argv[1]) : 12;
  std::vector<int> v(200000);
  std::map<std::string, int> m;
  for (int i = 0; i < 2000; i++) {
    m["key-" + std::to_string(i)] = i;
  }
  work::Accumulator<long> acc;
  std::vector<long> longs(1000000);
  long sink = 0;
  for (long r = 0; r < rounds; r++) {
    for (size_t i = 0; i < v.size(); i++) {
      v[i] = static_cast<int>((i * 2654435761u + r) % 100003);
    }
    work::sort_descending(v);
    for (size_t i = 0; i < longs.size(); i++) {
      longs[i] = static_cast<long>(i + r);
    }
    for (int k = 0; k < 20; k++) {
      acc.add(longs);
    }
    sink += work::count_keys(m, 30);
  }
  std::printf("%ld %ld %d\n", sink, acc.total, v[0]);
  return 0;
}
