// Templates, lambdas and inline members, used from another directory through a relative -I.
#ifndef SHAPES_HPP
#define SHAPES_HPP

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

namespace geo {

template <typename T>
struct Vec {
  T x;
  T y;
  Vec operator+(const Vec &o) const { return {x + o.x, y + o.y}; }
  Vec scaled(T k) const { return {x * k, y * k}; }
  T dot(const Vec &o) const { return x * o.x + y * o.y; }
};

class Shape {
 public:
  virtual ~Shape() = default;
  virtual double area() const = 0;
  virtual std::string name() const = 0;
};

template <typename T>
class Poly : public Shape {
 public:
  explicit Poly(std::vector<Vec<T>> pts) : pts_(std::move(pts)) {}
  double area() const override {
    T twice = 0;
    for (size_t i = 0; i < pts_.size(); i++) {
      const Vec<T> &a = pts_[i];
      const Vec<T> &b = pts_[(i + 1) % pts_.size()];
      twice += a.x * b.y - b.x * a.y;
    }
    return twice < 0 ? -twice / 2.0 : twice / 2.0;
  }
  std::string name() const override { return "poly" + std::to_string(pts_.size()); }
  template <typename F>
  T fold(F f, T init) const {
    return std::accumulate(pts_.begin(), pts_.end(), init,
                           [&](T acc, const Vec<T> &p) { return f(acc, p.dot(p)); });
  }

 private:
  std::vector<Vec<T>> pts_;
};

template <typename T>
std::unique_ptr<Shape> make_square(T side) {
  std::vector<Vec<T>> pts{{0, 0}, {side, 0}, {side, side}, {0, side}};
  return std::make_unique<Poly<T>>(std::move(pts));
}

template <typename K, typename V>
V sum_values(const std::map<K, V> &m) {
  V total{};
  for (const auto &kv : m) {
    total += kv.second;
  }
  return total;
}

}  // namespace geo

#endif
