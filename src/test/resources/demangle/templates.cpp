// Templates, lambdas, operators and the other shapes g++ mangles: compiled at test time and every
// symbol demangled both by c++filt and by ItaniumDemangler (see ItaniumDemanglerCorpusTest).
#include <array>
#include <complex>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#define KEEP __attribute__((noinline, used))

namespace outer {
namespace inner {
template <typename T, int N>
struct Box {
  T items[N];
  template <typename U>
  KEEP U convert(const U& u) const { return u + static_cast<U>(items[0]); }
  KEEP operator bool() const { return N > 0; }
  KEEP operator T*() { return items; }
  template <typename U>
  KEEP explicit operator std::vector<U>() const { return std::vector<U>(N); }
};
}  // namespace inner
}  // namespace outer

template <typename... Ts>
KEEP std::size_t count_all(Ts&&... ts) { return (sizeof(ts) + ... + 0); }

template <typename T>
KEEP auto twice(T t) -> decltype(t + t) { return t + t; }

template <typename T, typename U>
KEEP auto product(T t, U u) -> decltype(t * u) { return t * u; }

template <char C, bool B, long L, unsigned long UL, int* P>
KEEP int literals() { return C + B + L + static_cast<int>(UL) + *P; }

int global_int;
template <decltype(nullptr) N>
KEEP int null_arg() { return N == nullptr; }

template <int N>
KEEP int negative() { return N; }

template <typename T, T V>
KEEP T value() { return V; }

enum class Color { red, green = 7 };
template <Color C>
KEEP int color() { return static_cast<int>(C); }

struct Point {
  int x, y;
  KEEP Point operator+(const Point& o) const { return {x + o.x, y + o.y}; }
  KEEP Point& operator+=(const Point& o) { x += o.x; return *this; }
  KEEP bool operator==(const Point& o) const { return x == o.x; }
  KEEP int operator[](int i) const { return i ? y : x; }
  KEEP int operator()(int a, int b) const { return a * x + b * y; }
  KEEP Point operator-() const { return {-x, -y}; }
  KEEP Point& operator++() { ++x; return *this; }
  KEEP Point operator++(int) { Point p = *this; ++x; return p; }
  KEEP bool operator<(const Point& o) const { return x < o.x; }
  KEEP static void* operator new(std::size_t n) { return ::operator new(n); }
  KEEP static void operator delete(void* p) { ::operator delete(p); }
  KEEP static void* operator new[](std::size_t n) { return ::operator new[](n); }
  KEEP static void operator delete[](void* p) { ::operator delete[](p); }
  int Point::*member_ptr() const;
  KEEP int sum() const& { return x + y; }
  KEEP int sum() && { return x - y; }
  KEEP int twist() volatile { return x; }
  KEEP int twist() const volatile { return y; }
};
int Point::*Point::member_ptr() const { return &Point::y; }

KEEP long double operator""_km(long double d) { return d * 1000; }
KEEP unsigned long long operator""_n(unsigned long long d) { return d; }
KEEP const char* operator""_s(const char* s, std::size_t) { return s; }

KEEP int overloaded(int a) { return a; }
KEEP int overloaded(double a) { return static_cast<int>(a); }
KEEP int overloaded(const char* a, ...) { return *a; }
KEEP int overloaded(int (*fn)(int), int a) { return fn(a); }
KEEP int overloaded(int (&arr)[3]) { return arr[0]; }
KEEP int overloaded(int (*arr)[4][5]) { return (*arr)[1][2]; }
KEEP int overloaded(int Point::*pm, const Point& p) { return p.*pm; }
KEEP int overloaded(int (Point::*pmf)() const&, const Point& p) { return (p.*pmf)(); }
KEEP int overloaded(std::complex<double> c) { return static_cast<int>(c.real()); }
KEEP int overloaded(__int128 a, unsigned __int128 b) { return static_cast<int>(a + b); }
KEEP int overloaded(char8_t a, char16_t b, char32_t c, wchar_t d) { return a + b + c + d; }
KEEP int overloaded(void (*fn)() noexcept) { fn(); return 1; }
KEEP int overloaded(int* __restrict a, const volatile int* b) { return *a + *b; }
KEEP int overloaded(std::nullptr_t) { return 0; }
typedef int v4si __attribute__((vector_size(16)));
KEEP int overloaded(v4si v) { return v[0]; }
KEEP int overloaded(float&& f, signed char c, unsigned short s) { return static_cast<int>(f) + c + s; }
KEEP void noexcept_fn() noexcept {}

// ABI tags: std::string (the C++11 ABI) in a return type, and a tag of our own.
KEEP std::string tagged(int n) { return std::string(n, 'x'); }
struct __attribute__((abi_tag("v2"))) Tagged { int x; };
KEEP Tagged make_tagged() { return {1}; }
inline namespace __attribute__((abi_tag("ns1"))) version1 {
KEEP int in_tagged_namespace() { return 3; }
}

namespace {
KEEP int hidden(int x) { return x * 3; }
struct Secret { int v; KEEP int get() const { return v; } };
}  // namespace

KEEP int use_lambdas(int base) {
  auto add = [base](int x) __attribute__((noinline)) { return x + base; };
  auto generic = [](auto a, auto b) __attribute__((noinline)) { return a + b; };
  auto variadic = [](auto... xs) __attribute__((noinline)) { return (xs + ... + 0); };
  auto with_head = []<typename T, int N>(T (&arr)[N]) __attribute__((noinline)) { return arr[N - 1]; };
  int three[3] = {1, 2, 3};
  std::function<int(int)> f = add;
  static int calls = 0;  // guard variable
  ++calls;
  return f(1) + generic(1, 2) + static_cast<int>(generic(1.5, 2.5)) + variadic(1, 2, 3) + calls
      + with_head(three);
}

template <typename T>
KEEP T lambda_in_template(T t) {
  auto square = [](T v) __attribute__((noinline)) { return v * v; };
  auto captured = [&t](auto scale) __attribute__((noinline)) { return t * scale; };
  return square(t) + captured(2);
}

KEEP int local_classes(int n) {
  struct Local {
    int v;
    KEEP int get() const { return v; }
  };
  struct Other { virtual ~Other() = default; virtual int f() { return 2; } };
  Local l{n};
  Other o;
  static std::string cached = "local";  // guard variable in a local scope
  return l.get() + o.f() + static_cast<int>(cached.size());
}

// Generic lambdas at namespace scope: converting them to function pointers instantiates the
// call operator, the conversion operator and the static invoker.
auto generic_global = [](auto a, auto b) { return a + b; };
long (*generic_fp)(int, long) = generic_global;
auto variadic_global = [](auto... xs) { return (xs + ... + 0); };
int (*variadic_fp)(int, int, int) = variadic_global;

thread_local std::vector<int> per_thread{1, 2, 3};  // TLS init and wrapper functions
KEEP int read_thread_local() { return per_thread[0]; }

const int& temporary_ref = 42;  // a reference temporary

struct { int a; } unnamed_struct_object;
typedef struct { int b; } UnnamedTypedef;
KEEP int use_unnamed(UnnamedTypedef u) { return u.b + unnamed_struct_object.a; }

auto [bound_a, bound_b] = std::pair<int, long>(1, 2);  // a structured binding

template <typename T, typename Alloc = std::allocator<T>>
KEEP std::size_t container_size(const std::vector<T, Alloc>& v) { return v.size(); }

template <template <typename...> class C, typename... Args>
KEEP std::size_t template_template(const C<Args...>& c) { return c.size(); }

template <typename... Ts>
KEEP std::tuple<Ts...> make_all(Ts... ts) { return std::tuple<Ts...>(std::move(ts)...); }

template <typename T>
struct Wrapper {
  T value;
  template <typename U>
  KEEP Wrapper(U u) : value(u) {}
  KEEP ~Wrapper() {}
  template <typename F>
  KEEP auto apply(F f) const -> decltype(f(value)) { return f(value); }
};

template <typename T, std::size_t N>
KEEP std::size_t array_size(const std::array<T, N>&) { return N; }

template <typename T>
KEEP typename std::enable_if<std::is_integral<T>::value, T>::type only_integral(T t) { return t; }

template <typename T>
KEEP auto sizeof_pack(T... ) -> int { return 0; }

template <typename... Ts>
KEEP int pack_size() { return sizeof...(Ts); }

template <typename T>
KEEP auto noexcept_of(T t) noexcept(noexcept(t + 1)) -> decltype(t + 1) { return t + 1; }

int main(int argc, char** argv) {
  outer::inner::Box<int, 3> box{{1, 2, 3}};
  int* raw = box;
  std::vector<long> as_vector(box);
  int total = box.convert(2.5) + (box ? 1 : 0) + raw[1] + static_cast<int>(as_vector.size());
  total += static_cast<int>(count_all(1, 2.0, 'c', std::string("s")));
  total += twice(3) + static_cast<int>(twice(1.5)) + static_cast<int>(product(2, 3.0));
  total += literals<'a', true, -5L, 7UL, &global_int>() + null_arg<nullptr>() + negative<-3>();
  total += value<unsigned char, 200>() + value<short, -2>() + color<Color::green>();
  Point p{1, 2}, q{3, 4};
  Point r = p + q;
  r += p;
  ++r;
  r++;
  total += (r == p) + r[1] + r(1, 2) + (-r).x + (p < q) + p.sum() + Point{5, 6}.sum();
  volatile Point vp{1, 2};
  total += vp.twist();
  const volatile Point cvp{3, 4};
  total += cvp.twist();
  delete new Point{1, 1};
  delete[] new Point[2];
  total += p.*(p.member_ptr());
  total += static_cast<int>(1.5_km) + static_cast<int>(3_n) + *("x"_s);
  int arr[3] = {1, 2, 3};
  int grid[4][5] = {};
  total += overloaded(1) + overloaded(2.0) + overloaded("x", 1) + overloaded(&hidden, 2);
  total += overloaded(arr) + overloaded(&grid) + overloaded(&Point::x, p);
  total += overloaded(&Point::sum, p) + overloaded(std::complex<double>(1, 2));
  total += overloaded(static_cast<__int128>(1), static_cast<unsigned __int128>(2));
  total += overloaded(u8'a', u'b', U'c', L'd') + overloaded(&noexcept_fn) + overloaded(nullptr);
  total += overloaded(&total, &global_int) + overloaded(v4si{1, 2, 3, 4});
  total += overloaded(1.0f, 'a', 2);
  total += static_cast<int>(tagged(argc).size()) + make_tagged().x + in_tagged_namespace();
  total += hidden(argc) + Secret{argc}.get();
  total += use_lambdas(argc) + lambda_in_template(argc) + static_cast<int>(lambda_in_template(1.5));
  total += local_classes(argc) + read_thread_local() + temporary_ref;
  total += use_unnamed(UnnamedTypedef{argc}) + bound_a + static_cast<int>(bound_b);
  std::vector<int> v{1, 2, 3};
  std::map<std::string, std::vector<int>> m{{"a", v}};
  total += static_cast<int>(container_size(v) + template_template(v) + template_template(m));
  auto t = make_all(1, 2.0, std::string("three"), std::make_unique<int>(4));
  total += std::get<0>(t) + *std::get<3>(t);
  Wrapper<long> w(3);
  total += static_cast<int>(w.apply([](long x) { return x * 2; }));
  std::array<int, 4> a4{};
  total += static_cast<int>(array_size(a4)) + only_integral(argc) + pack_size<int, char, long>();
  total += noexcept_of(argc) + static_cast<int>(generic_fp(argc, 2)) + variadic_fp(1, 2, argc);
  std::unique_ptr<std::function<int(const std::string&)>> fp(
      new std::function<int(const std::string&)>([](const std::string& s) {
        return static_cast<int>(s.size());
      }));
  total += (*fp)(argv[0]);
  std::printf("%d\n", total);
  return 0;
}
