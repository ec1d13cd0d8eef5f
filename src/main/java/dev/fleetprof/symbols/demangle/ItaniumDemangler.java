package dev.fleetprof.symbols.demangle;

/**
 * Demangles Itanium C++ ABI symbol names (what g++ and clang emit on Linux) into exactly the text
 * that {@code c++filt} from GNU binutils 2.40 prints for them with its default options, and returns
 * anything else unchanged, as c++filt does. Pure Java; thread-safe (every call works on its own
 * state, nothing is shared but constant tables) and bounded in time and memory whatever the input.
 *
 * <h2>What is covered</h2>
 *
 * Everything binutils 2.40's demangler (libiberty's cp-demangle) reads, with c++filt's spelling:
 * {@code _Z} encodings with parameter lists; nested names with cv- and ref-qualifiers; local names
 * ({@code Z...E}, string literals, default-argument scopes, discriminators {@code _N} and {@code
 * __N_}); substitutions ({@code S_}, {@code S<seq-id>_}) and the standard abbreviations, spelled
 * out as c++filt's verbose mode does ({@code Ss} is {@code std::basic_string<char,
 * std::char_traits<char>, std::allocator<char> >}); template arguments and parameters, argument
 * packs and pack expansions; builtin types including the {@code D} ones ({@code Dn Di Ds Du Da Dc
 * Dh}, {@code DF16_}, {@code DF32x}, {@code DF16b}); pointers, references, pointers to members,
 * arrays, vectors, function types with {@code noexcept}, {@code throw()} and {@code
 * transaction_safe}; vendor qualifiers and types; operators, conversion operators and literal
 * operators ({@code li}); constructors and destructors of every variant, inheriting constructors
 * included; ABI tags ({@code [abi:cxx11]}); lambdas (generic ones as {@code {lambda(auto:1)#1}},
 * ones with a template head as {@code {lambda<typename $T0>($T0)#1}}) and unnamed types; {@code
 * (anonymous namespace)}; expressions in template arguments and {@code decltype}, literals ({@code
 * (char)97}, {@code true}, {@code 5u}, {@code -3l}, {@code (double)[3ff0000000000000]}), fold
 * expressions, designated initializers, both forms of {@code sr} unresolved names; structured
 * bindings; C++20 module names; special names (vtables, VTTs, construction vtables, typeinfo and
 * typeinfo names, thunks, covariant thunks, guard variables, reference temporaries, TLS init and
 * wrapper functions, hidden aliases, transaction clones, template parameter objects, module
 * initializers); GCC clone suffixes ({@code foo() [clone .isra.0] [clone .cold]}); {@code
 * _GLOBAL__I_}/{@code _GLOBAL__D_} names ("global constructors keyed to"); and Rust names, which
 * c++filt tries first: legacy ones ({@code _ZN...17h<hash>E}, with their {@code $LT$}-style
 * escapes) and v0 ones ({@code _R...}).
 *
 * <h2>As c++filt</h2>
 *
 * The argument is treated like one line of c++filt's input: it is split into words of letters,
 * digits and {@code _ $ .}, and each word is demangled on its own ({@code _Z3foov@plt} gives {@code
 * foo()@plt}); a word starting with {@code .} or {@code $} is demangled without it (and a {@code .}
 * is put back). Left unchanged, as by c++filt: C++ names longer than 1024 characters; names that
 * start with {@code _Z} but do not parse ({@code _ZN}, {@code _Z3fooQ}); names that parse but nest
 * deeper than c++filt prints (1024 levels); C names ({@code main}); and {@code _GLOBAL__sub_I_...}
 * (GCC's static initializers, which c++filt does not demangle). Libiberty's quirks are kept too,
 * down to nodes reused after backtracking, so that malformed names fail or print as they do in
 * c++filt.
 *
 * <h2>Known differences from c++filt</h2>
 *
 * <ul>
 *   <li>Names whose printed form would exceed {@value Printer#MAX_OUTPUT} characters, or whose
 *       printing visits more than four million nodes, are returned unchanged. Only hostile names
 *       (substitutions or Rust back references that refer to each other so that the output grows
 *       exponentially) get there; c++filt tries to print them and runs out of time or memory.
 *   <li>Some malformed names crash c++filt 2.40 (a segmentation fault: {@code sZ} in a lambda's
 *       signature makes libiberty dereference a null template); they are returned unchanged.
 *   <li>Punycode Rust identifiers that decode to code points beyond Unicode (or to surrogates) are
 *       given up, or printed with U+FFFD, where c++filt writes invalid UTF-8.
 *   <li>A word longer than 32766 characters is cut by c++filt into pieces (its buffer size); that
 *       is copied, but a NUL character, which c++filt takes as part of a word, is a separator here.
 * </ul>
 *
 * <p>A name nested about a thousand levels deep can need more stack than the calling thread has;
 * such a name (and only such a name) is then demangled again on a short-lived thread with a 64 MiB
 * stack, so that the result never depends on the caller's stack size.
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
    if (symbol == null || symbol.isEmpty()) {
      return symbol;
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
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || c == '_'
        || c == '$'
        || c == '.';
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

  /** Stack for names nested too deeply for the caller's thread (at most 1024 levels deep). */
  private static final long DEEP_STACK_BYTES = 64L << 20;

  /**
   * libiberty's cplus_demangle in c++filt's mode for s[start, end): Rust first, then C++; null when
   * it is neither.
   */
  private static String demangleMangled(String s, int start, int end) {
    int length = end - start;
    if (length < 2 || s.charAt(start) != '_') {
      return null;
    }
    try {
      return demangleMangledHere(s, start, end);
    } catch (StackOverflowError e) {
      // A name nested about a thousand levels deep, which c++filt still prints, can need more
      // stack than a small thread (or large JIT-compiled frames) leaves: do it once more on a
      // thread of our own with a big stack. Rare: ordinary names nest a few dozen levels.
      return onDeepStack(s, start, end);
    }
  }

  private static String onDeepStack(String s, int start, int end) {
    String[] result = new String[1];
    Thread worker =
        new Thread(
            null,
            () -> {
              try {
                result[0] = demangleMangledHere(s, start, end);
              } catch (StackOverflowError e) {
                result[0] = null; // cannot happen within the depth bounds; give up on the name
              }
            },
            "demangle-deep-name",
            DEEP_STACK_BYTES);
    worker.setDaemon(true);
    worker.start();
    try {
      worker.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
    return result[0];
  }

  private static String demangleMangledHere(String s, int start, int end) {
    int length = end - start;
    char second = s.charAt(start + 1);
    if (length >= 3 && (second == 'R' || second == 'Z')) {
      String rust = RustDemangler.demangle(s, start, end);
      if (rust != null) {
        return rust;
      }
    }
    boolean mangled = second == 'Z';
    boolean global =
        !mangled
            && length >= 11
            && s.startsWith("_GLOBAL_", start)
            && isOneOf(s.charAt(start + 8), "._$")
            && isOneOf(s.charAt(start + 9), "DI")
            && s.charAt(start + 10) == '_';
    if ((!mangled && !global) || length > MAX_MANGLED_LENGTH) {
      return null;
    }
    char[] chars = new char[length];
    s.getChars(start, end, chars, 0);
    Node root = parse(chars, mangled, true);
    if (root == null) {
      return null;
    }
    StringBuilder out = new StringBuilder(length * 3);
    return Printer.print(root, out) ? out.toString() : null;
  }

  private static Node parse(char[] chars, boolean mangled, boolean newer) {
    Parser parser = new Parser(chars, newer);
    Node root;
    if (mangled) {
      root = parser.mangledName(true);
    } else {
      parser.skip(11);
      root = parser.makeGlobal(chars[9] == 'I', parser.globalKeyedName());
    }
    if (root != null && parser.atEnd()) {
      return root;
    }
    return newer && parser.triedNewerUnresolvedNames() ? parse(chars, mangled, false) : null;
  }

  private static boolean isOneOf(char c, String set) {
    return set.indexOf(c) >= 0;
  }
}
