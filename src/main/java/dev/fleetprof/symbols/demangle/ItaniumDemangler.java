package dev.fleetprof.symbols.demangle;

/**
 * Demangles Itanium C++ ABI symbol names (what g++ and clang emit on Linux) into exactly the text
 * that {@code c++filt} from GNU binutils 2.40 prints for them with its default options, and
 * returns anything else unchanged, as c++filt does. Pure Java, no native code; thread-safe (every
 * call works on its own state) and bounded in time and memory whatever the input.
 *
 * <h2>What is covered</h2>
 *
 * Everything binutils 2.40's demangler (libiberty's cp-demangle) reads: {@code _Z} encodings with
 * parameter lists; nested names with cv- and ref-qualifiers; local names ({@code Z...E}, string
 * literals, default-argument scopes, discriminators {@code _N} and {@code __N_}); substitutions
 * ({@code S_}, {@code S<seq-id>_}) and the standard abbreviations, spelled out as c++filt does
 * ({@code Ss} is {@code std::basic_string<char, std::char_traits<char>, std::allocator<char> >});
 * template arguments and parameters, argument packs and pack expansions; builtin types including
 * the {@code D} ones ({@code Dn Di Ds Du Da Dc}, {@code DF16_}, {@code DF32x}, {@code DF16b});
 * pointers, references, pointers to members, arrays, vectors, function types with
 * {@code noexcept}/{@code throw} and {@code transaction_safe}; vendor qualifiers and types;
 * operators, conversion operators and literal operators ({@code li}); constructors and destructors
 * (including inheriting constructors); ABI tags ({@code [abi:cxx11]}); lambdas (including generic
 * ones and those with a template head) and unnamed types; {@code (anonymous namespace)};
 * expressions in template arguments and {@code decltype}, literals ({@code (char)97}, {@code true},
 * {@code 5u}, {@code (double)[3ff0000000000000]}), fold expressions, designated initializers;
 * structured bindings; C++20 module names; special names (vtables, VTTs, construction vtables,
 * typeinfo and typeinfo names, thunks, covariant thunks, guard variables, reference temporaries,
 * TLS init and wrapper functions, hidden aliases, transaction clones, template parameter objects);
 * GCC clone suffixes ({@code foo() [clone .isra.0] [clone .cold]}); and the
 * {@code _GLOBAL__I_}/{@code _GLOBAL__D_} names ("global constructors keyed to").
 *
 * <h2>As c++filt</h2>
 *
 * The argument is treated like one line of c++filt's input: it is split into words of letters,
 * digits, {@code _ $ .} and each word is demangled on its own ({@code _Z3foov@plt} gives
 * {@code foo()@plt}); a word starting with {@code .} or {@code $} is demangled without it (and a
 * {@code .} is put back). Words longer than 1024 characters are left alone, as c++filt leaves them,
 * and so are names that start with {@code _Z} but do not parse ({@code _ZN}, {@code _Z3foo}x), C
 * names ({@code main}) and {@code _GLOBAL__sub_I_...} (GCC's static initializers, which c++filt
 * does not demangle).
 *
 * <h2>Known differences from c++filt</h2>
 *
 * <ul>
 *   <li>Rust symbols: c++filt tries the Rust demangler before the C++ one. Rust v0 names
 *       ({@code _R...}) are returned unchanged here; legacy Rust names ({@code _ZN...17h<hash>E})
 *       come out as C++ names, which differ from c++filt's only where the Rust path escapes
 *       ({@code $LT$}, {@code ..}) appear.
 *   <li>Names whose printed form would exceed {@value Printer#MAX_OUTPUT} characters, or whose
 *       printing visits more than a million nodes, are returned unchanged. Only hostile names
 *       (substitutions that refer to each other so that the output grows exponentially) get
 *       there; c++filt tries to print them and runs out of time or memory.
 *   <li>A word longer than 32766 characters is cut by c++filt into pieces (its buffer size); that
 *       is copied, but a NUL character, which c++filt treats as part of a word, is treated here as
 *       a separator.
 * </ul>
 */
public final class ItaniumDemangler {
  private ItaniumDemangler() {}

  /** libiberty refuses names whose node budget (2 per character) exceeds its recursion limit. */
  private static final int MAX_MANGLED_LENGTH = 1024;
  /** c++filt reads words into a buffer of this many characters (and a NUL). */
  private static final int CPPFILT_WORD = 32766;

  /**
   * What c++filt prints for {@code symbol}: its mangled words demangled, everything else as is.
   * Never throws; null gives null.
   */
  public static String demangle(String symbol) {
    if (symbol == null) {
      return null;
    }
    int n = symbol.length();
    int i = 0;
    while (i < n && isWordChar(symbol.charAt(i))) {
      i++;
    }
    if (i == n && n <= CPPFILT_WORD) {
      return demangleWord(symbol, 0, n); // the usual case: one word
    }
    StringBuilder out = new StringBuilder(n + 32);
    i = 0;
    while (i < n) {
      int start = i;
      while (i < n && isWordChar(symbol.charAt(i)) && i - start < CPPFILT_WORD) {
        i++;
      }
      if (i > start) {
        out.append(demangleWord(symbol, start, i));
      }
      if (i < n) {
        out.append(symbol.charAt(i++)); // a separator, or the character after a full buffer
      }
    }
    return out.toString();
  }

  private static boolean isWordChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
        || c == '_' || c == '$' || c == '.';
  }

  /** c++filt's handling of one word: a leading '.' or '$' is set aside, '.' is put back. */
  private static String demangleWord(String s, int start, int end) {
    int from = start;
    char first = s.charAt(start);
    if (first == '.' || first == '$') {
      from++;
    }
    String result = demangleMangled(s, from, end);
    if (result == null) {
      return s.substring(start, end);
    }
    return first == '.' ? "." + result : result;
  }

  /**
   * libiberty's cplus_demangle in c++filt's mode for s[start, end): Rust first, then C++; null
   * when it is neither.
   */
  private static String demangleMangled(String s, int start, int end) {
    int length = end - start;
    if (length >= 3 && s.charAt(start) == '_'
        && (s.charAt(start + 1) == 'R' || s.charAt(start + 1) == 'Z')) {
      try {
        String rust = RustDemangler.demangle(s, start, end);
        if (rust != null) {
          return rust;
        }
      } catch (StackOverflowError e) {
        return null;
      }
    }
    boolean mangled = length >= 2 && s.charAt(start) == '_' && s.charAt(start + 1) == 'Z';
    boolean global = !mangled && length >= 11 && s.startsWith("_GLOBAL_", start)
        && isOneOf(s.charAt(start + 8), "._$") && isOneOf(s.charAt(start + 9), "DI")
        && s.charAt(start + 10) == '_';
    if ((!mangled && !global) || length > MAX_MANGLED_LENGTH) {
      return null;
    }
    try {
      Node root = parse(s, start, end, mangled, true);
      if (root == null) {
        return null;
      }
      StringBuilder out = new StringBuilder(length * 2);
      return Printer.print(root, out) ? out.toString() : null;
    } catch (StackOverflowError e) {
      // The depth bounds keep well inside any sane thread stack; this is the last line.
      return null;
    }
  }

  private static Node parse(String s, int start, int end, boolean mangled, boolean newer) {
    Parser parser = new Parser(s, start, end, newer);
    Node root;
    if (mangled) {
      root = parser.mangledName(true);
    } else {
      parser.skip(11);
      root = parser.makeGlobal(s.charAt(start + 9) == 'I', parser.globalKeyedName());
    }
    if (root != null && parser.atEnd()) {
      return root;
    }
    return newer && parser.triedNewerUnresolvedNames() ? parse(s, start, end, mangled, false)
        : null;
  }

  private static boolean isOneOf(char c, String set) {
    return set.indexOf(c) >= 0;
  }
}
