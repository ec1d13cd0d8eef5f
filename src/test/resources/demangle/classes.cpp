// Class hierarchies: virtual and multiple inheritance give thunks (non-virtual, virtual and
// covariant), VTTs and construction vtables; constructors, destructors, inheriting
// constructors, typeinfo, and the standard containers and smart pointers.
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#define KEEP __attribute__((noinline, used))

namespace shapes {
struct Base {
  virtual ~Base() {}
  virtual int area() const { return 0; }
  virtual Base* clone() const { return new Base(*this); }
};
struct Named {
  virtual ~Named() {}
  virtual std::string name() const { return "named"; }
};
struct Left : virtual Base {
  int l = 1;
  int area() const override { return l; }
};
struct Right : virtual Base {
  int r = 2;
  int area() const override { return r; }
};
struct Diamond : Left, Right, Named {
  int area() const override { return l + r; }
  Diamond* clone() const override { return new Diamond(*this); }
  std::string name() const override { return "diamond"; }
};

struct Widget {
  explicit Widget(int v) : value(v) {}
  Widget(const Widget&) = default;
  Widget(Widget&& o) noexcept : value(o.value) {}
  virtual ~Widget() {}
  int value;
};
struct Gadget : Widget {
  using Widget::Widget;  // inheriting constructors
};
}  // namespace shapes

template <typename K, typename V>
class Registry {
 public:
  KEEP void add(const K& k, V v) { items_[k].push_back(std::move(v)); }
  KEEP std::size_t size() const { return items_.size(); }
  KEEP const std::vector<V>* find(const K& k) const {
    auto it = items_.find(k);
    return it == items_.end() ? nullptr : &it->second;
  }
 private:
  std::map<K, std::vector<V>> items_;
};

KEEP int use_containers(int n) {
  Registry<std::string, std::unique_ptr<shapes::Base>> reg;
  reg.add("a", std::make_unique<shapes::Diamond>());
  reg.add("b", std::unique_ptr<shapes::Base>(new shapes::Left));
  std::unordered_map<int, std::function<int(int)>> ops{{1, [](int x) { return x + 1; }}};
  std::set<std::pair<int, std::string>> seen{{n, "n"}};
  std::shared_ptr<shapes::Widget> w = std::make_shared<shapes::Gadget>(n);
  const auto* found = reg.find("a");
  return static_cast<int>(reg.size()) + ops[1](n) + static_cast<int>(seen.size()) + w->value
      + (found ? (*found)[0]->area() : 0);
}

KEEP int use_shapes(shapes::Named* named, shapes::Base* base) {
  shapes::Base* copy = base->clone();
  int a = copy->area() + static_cast<int>(named->name().size());
  delete copy;
  return a;
}

int main(int argc, char**) {
  shapes::Diamond d;
  shapes::Gadget g(argc);
  shapes::Gadget moved(std::move(g));
  std::printf("%d %d %d\n", use_shapes(&d, &d), use_containers(argc), moved.value);
  try {
    if (argc > 5) throw shapes::Widget(argc);
  } catch (const shapes::Widget& w) {
    return w.value;
  }
  return 0;
}
