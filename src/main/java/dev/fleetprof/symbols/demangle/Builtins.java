package dev.fleetprof.symbols.demangle;

/**
 * The builtin types: their spelling and how a literal of the type is printed. Indexes 0..25 are the
 * one-letter codes a..z (absent letters are null), the rest are the D-prefixed types.
 */
final class Builtins {
  private Builtins() {}

  // How c++filt prints a literal (L <type> <value> E) of the type.
  static final int PRINT_DEFAULT = 0; // (type)value
  static final int PRINT_INT = 1; // value
  static final int PRINT_UNSIGNED = 2; // value u
  static final int PRINT_LONG = 3; // value l
  static final int PRINT_UNSIGNED_LONG = 4; // value ul
  static final int PRINT_LONG_LONG = 5; // value ll
  static final int PRINT_UNSIGNED_LONG_LONG = 6; // value ull
  static final int PRINT_BOOL = 7; // true / false
  static final int PRINT_FLOAT = 8; // (type)[value]
  static final int PRINT_VOID = 9;

  static final int DECIMAL32 = 26;
  static final int DECIMAL64 = 27;
  static final int DECIMAL128 = 28;
  static final int HALF = 29;
  static final int CHAR8 = 30;
  static final int CHAR16 = 31;
  static final int CHAR32 = 32;
  static final int NULLPTR = 33;
  static final int FLOAT_N = 34;
  static final int BFLOAT16 = 35;

  static final String[] NAMES = new String[36];
  static final int[] PRINT = new int[36];

  private static void put(int index, String name, int print) {
    NAMES[index] = name;
    PRINT[index] = print;
  }

  private static void letter(char c, String name, int print) {
    put(c - 'a', name, print);
  }

  static {
    letter('a', "signed char", PRINT_DEFAULT);
    letter('b', "bool", PRINT_BOOL);
    letter('c', "char", PRINT_DEFAULT);
    letter('d', "double", PRINT_FLOAT);
    letter('e', "long double", PRINT_FLOAT);
    letter('f', "float", PRINT_FLOAT);
    letter('g', "__float128", PRINT_FLOAT);
    letter('h', "unsigned char", PRINT_DEFAULT);
    letter('i', "int", PRINT_INT);
    letter('j', "unsigned int", PRINT_UNSIGNED);
    letter('l', "long", PRINT_LONG);
    letter('m', "unsigned long", PRINT_UNSIGNED_LONG);
    letter('n', "__int128", PRINT_DEFAULT);
    letter('o', "unsigned __int128", PRINT_DEFAULT);
    letter('s', "short", PRINT_DEFAULT);
    letter('t', "unsigned short", PRINT_DEFAULT);
    letter('v', "void", PRINT_VOID);
    letter('w', "wchar_t", PRINT_DEFAULT);
    letter('x', "long long", PRINT_LONG_LONG);
    letter('y', "unsigned long long", PRINT_UNSIGNED_LONG_LONG);
    letter('z', "...", PRINT_DEFAULT);
    put(DECIMAL32, "decimal32", PRINT_DEFAULT);
    put(DECIMAL64, "decimal64", PRINT_DEFAULT);
    put(DECIMAL128, "decimal128", PRINT_DEFAULT);
    put(HALF, "half", PRINT_FLOAT);
    put(CHAR8, "char8_t", PRINT_DEFAULT);
    put(CHAR16, "char16_t", PRINT_DEFAULT);
    put(CHAR32, "char32_t", PRINT_DEFAULT);
    put(NULLPTR, "decltype(nullptr)", PRINT_DEFAULT);
    put(FLOAT_N, "_Float", PRINT_FLOAT);
    put(BFLOAT16, "std::bfloat16_t", PRINT_FLOAT);
  }
}
