// Sample workload for gprof sample data (fleetprof, sample-data/gprof).
// Built with: g++ -pg -O1 -no-pie (64-bit, non-PIE).
// Usage: shapes [scale]   (scale 1..9, default 3; about one second of CPU at the default)
//
// Gives gprof C++ names to demangle (namespaces, templates, overloaded operators, virtual
// methods), a template instantiation of std::sort calling a comparator functor, and a
// two-function cycle (is_even/is_odd) that gprof reports as <cycle 1>.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

namespace geo {

struct Vec2 {
  double x, y;
  Vec2 operator+(const Vec2 &o) const { return {x + o.x, y + o.y}; }
  Vec2 operator*(double k) const { return {x * k, y * k}; }
};

class Shape {
 public:
  virtual ~Shape() = default;
  virtual double area() const = 0;
  virtual Vec2 centroid() const = 0;
};

class Circle : public Shape {
 public:
  Circle(Vec2 c, double r) : c_(c), r_(r) {}
  double area() const override { return 3.141592653589793 * r_ * r_; }
  Vec2 centroid() const override { return c_; }

 private:
  Vec2 c_;
  double r_;
};

class Polygon : public Shape {
 public:
  explicit Polygon(std::vector<Vec2> pts) : pts_(std::move(pts)) {}
  double area() const override {
    double a = 0;
    for (size_t i = 0, n = pts_.size(); i < n; i++) {
      const Vec2 &p = pts_[i], &q = pts_[(i + 1) % n];
      a += p.x * q.y - q.x * p.y;
    }
    return a < 0 ? -a / 2 : a / 2;
  }
  Vec2 centroid() const override {
    Vec2 s{0, 0};
    for (const Vec2 &p : pts_) s = s + p;
    return s * (1.0 / static_cast<double>(pts_.size()));
  }

 private:
  std::vector<Vec2> pts_;
};

}  // namespace geo

template <typename T>
struct ByKey {
  bool operator()(const T &a, const T &b) const { return a.first < b.first; }
};

static unsigned long long lcg_state = 42;

unsigned long long lcg() {
  lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
  return lcg_state >> 17;
}

bool is_odd(unsigned n);
bool is_even(unsigned n) { return n == 0 ? true : is_odd(n - 1); }
bool is_odd(unsigned n) { return n == 0 ? false : is_even(n - 1); }

std::vector<std::unique_ptr<geo::Shape>> make_shapes(int n) {
  std::vector<std::unique_ptr<geo::Shape>> v;
  v.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; i++) {
    double a = static_cast<double>(lcg() % 1000) / 10.0;
    if (i % 3 == 0) {
      v.push_back(std::make_unique<geo::Circle>(geo::Vec2{a, a / 2}, a / 7 + 1));
    } else {
      std::vector<geo::Vec2> pts;
      int k = 3 + static_cast<int>(lcg() % 6);
      for (int j = 0; j < k; j++)
        pts.push_back({static_cast<double>(lcg() % 100), static_cast<double>(lcg() % 100)});
      v.push_back(std::make_unique<geo::Polygon>(std::move(pts)));
    }
  }
  return v;
}

double total_area(const std::vector<std::unique_ptr<geo::Shape>> &v) {
  double t = 0;
  for (const auto &s : v) t += s->area() + s->centroid().x * 1e-9;
  return t;
}

int main(int argc, char **argv) {
  int scale = argc > 1 ? std::atoi(argv[1]) : 3;
  if (scale < 1 || scale > 9) scale = 3;

  auto shapes = make_shapes(20000 * scale);
  double area = 0;
  for (int r = 0; r < 150; r++) area += total_area(shapes);

  std::vector<std::pair<unsigned long long, int>> keyed;
  for (int i = 0; i < 400000 * scale; i++) keyed.emplace_back(lcg(), i);
  std::sort(keyed.begin(), keyed.end(), ByKey<std::pair<unsigned long long, int>>());

  unsigned evens = 0;
  for (unsigned i = 0; i < 1000u * static_cast<unsigned>(scale); i++) evens += is_even(i * 7u) ? 1 : 0;

  std::printf("area %.3f first %llu evens %u\n", area, keyed.front().first, evens);
  return 0;
}
