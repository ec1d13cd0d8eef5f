package dev.fleetprof.symbols.demangle;

/**
 * Rust symbol names as c++filt (binutils 2.40, verbose) prints them. c++filt tries Rust before C++,
 * because legacy Rust names ({@code _ZN...17h<16 hex digits>E}) are also valid C++ names; v0 names
 * start with {@code _R}. Verbose mode shows the legacy hash, v0 crate disambiguators ({@code
 * core[9071c5eb0b65983b]}) and the types of const generic arguments.
 */
final class RustDemangler {
  /** libiberty's RUST_MAX_RECURSION_COUNT. */
  private static final int MAX_RECURSION = 1024;

  /** Back references can make a short name print exponentially long: give up past this. */
  private static final int MAX_STEPS = Printer.MAX_STEPS;

  private final String sym;

  /** The symbol proper is sym[base, base + length). */
  private final int base;

  private int length;
  private int next;
  private boolean errored;
  private boolean skipping;
  private final boolean legacy;
  private int recursion;
  private int steps;
  private long boundLifetimeDepth;
  private final StringBuilder out = new StringBuilder();

  private RustDemangler(String sym, int base, int length, boolean legacy) {
    this.sym = sym;
    this.base = base;
    this.length = length;
    this.legacy = legacy;
  }

  /** The demangled name of s[start, end), or null when it is not a Rust symbol. */
  static String demangle(String s, int start, int end) {
    int n = end - start;
    if (n >= 3
        && s.charAt(start) == '_'
        && s.charAt(start + 1) == 'Z'
        && s.charAt(start + 2) == 'N') {
      return legacy(s, start + 3, end);
    }
    if (n >= 3 && s.charAt(start) == '_' && s.charAt(start + 1) == 'R') {
      return v0(s, start + 2, end);
    }
    return null;
  }

  private static boolean isAlnum(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  // ---- legacy -----------------------------------------------------------------------------

  private static String legacy(String s, int base, int end) {
    // Cheap rejection first (most _ZN names are C++): a legacy name ends in E or E.suffix.
    if (s.charAt(end - 1) != 'E' && s.lastIndexOf('.', end - 1) < base) {
      return null;
    }
    for (int i = base; i < end; i++) {
      char c = s.charAt(i);
      if (!(c == '_' || isAlnum(c) || c == '$' || c == '.' || c == ':' || c == '@')) {
        return null;
      }
    }
    // Ends with E, possibly followed by a .suffix (from LLVM or GCC) that is dropped.
    int len = end - base;
    boolean dotSuffix = true;
    while (len > 0 && !(dotSuffix && s.charAt(base + len - 1) == 'E')) {
      dotSuffix = s.charAt(base + len - 1) == '.';
      len--;
    }
    if (!(len > 0 && s.charAt(base + len - 1) == 'E')) {
      return null;
    }
    len--;
    // The last path segment is the hash, 17h<16 hex digits>.
    if (!(len > 19 && s.startsWith("17h", base + len - 19))) {
      return null;
    }
    RustDemangler d = new RustDemangler(s, base, len, true);
    int identStart;
    int identLength;
    do {
      long ident = d.parseIdent();
      if (d.errored || ident == -1 || identLen(ident) == 0) {
        return null;
      }
      identStart = identStart(ident);
      identLength = identLen(ident);
    } while (d.next < d.length);
    if (!isLegacyHash(s, base + identStart, identLength)) {
      return null;
    }
    d.next = 0;
    do {
      if (d.next > 0) {
        d.out.append("::");
      }
      long ident = d.parseIdent();
      if (d.errored) {
        return null;
      }
      d.printLegacyIdent(base + identStart(ident), identLen(ident));
    } while (d.next < d.length);
    return d.errored ? null : d.out.toString();
  }

  /** h and 16 lowercase hex digits, at least 5 of them different. */
  private static boolean isLegacyHash(String s, int start, int len) {
    if (len != 17 || s.charAt(start) != 'h') {
      return false;
    }
    int seen = 0;
    for (int i = 1; i <= 16; i++) {
      int nibble = lowerHex(s.charAt(start + i));
      if (nibble < 0) {
        return false;
      }
      seen |= 1 << nibble;
    }
    return Integer.bitCount(seen) >= 5;
  }

  private static int lowerHex(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return 10 + c - 'a';
    }
    return -1;
  }

  private void printLegacyIdent(int start, int len) {
    // The mangler puts _ before an escape to start the identifier with a letter-like char.
    if (len >= 2 && sym.charAt(start) == '_' && sym.charAt(start + 1) == '$') {
      start++;
      len--;
    }
    while (len > 0) {
      char c = sym.charAt(start);
      int used;
      if (c == '$') {
        int escape = legacyEscape(start, len);
        if (escape < 0) {
          append(sym, start, start + len); // not an escape after all: the rest as is
          return;
        }
        append((char) (escape & 0xff));
        used = escape >> 8;
      } else if (c == '.') {
        if (len >= 2 && sym.charAt(start + 1) == '.') {
          append("::");
          used = 2;
        } else {
          append(".");
          used = 1;
        }
      } else {
        used = 0;
        while (used < len && sym.charAt(start + used) != '$' && sym.charAt(start + used) != '.') {
          used++;
        }
        append(sym, start, start + used);
      }
      start += used;
      len -= used;
    }
  }

  /** A $..$ escape at s[start]: (its length &lt;&lt; 8 | the character), or -1. */
  private int legacyEscape(int start, int len) {
    if (len < 3 || sym.charAt(start) != '$') {
      return -1;
    }
    int e = start + 1;
    len--;
    char c = 0;
    int escapeLength = 0;
    if (sym.charAt(e) == 'C') {
      escapeLength = 1;
      c = ',';
    } else if (len > 2) {
      escapeLength = 2;
      String code = sym.substring(e, e + 2);
      switch (code) {
        case "SP":
          c = '@';
          break;
        case "BP":
          c = '*';
          break;
        case "RF":
          c = '&';
          break;
        case "LT":
          c = '<';
          break;
        case "GT":
          c = '>';
          break;
        case "LP":
          c = '(';
          break;
        case "RP":
          c = ')';
          break;
        default:
          if (sym.charAt(e) == 'u' && len > 3) {
            escapeLength = 3;
            int hi = lowerHex(sym.charAt(e + 1));
            int lo = lowerHex(sym.charAt(e + 2));
            if (hi < 0 || lo < 0 || hi > 7) {
              return -1; // only printable ASCII
            }
            c = (char) (hi << 4 | lo);
            if (c < 0x20) {
              return -1;
            }
          }
          break;
      }
    }
    if (c == 0 || len <= escapeLength || sym.charAt(e + escapeLength) != '$') {
      return -1;
    }
    return (2 + escapeLength) << 8 | c;
  }

  // ---- v0 ---------------------------------------------------------------------------------

  private static String v0(String s, int base, int end) {
    char first = s.charAt(base);
    if (first < 'A' || first > 'Z') {
      return null;
    }
    int len = 0;
    for (int i = base; i < end; i++) {
      char c = s.charAt(i);
      if (c == '.') {
        break; // a suffix, not printed
      }
      if (!(c == '_' || isAlnum(c))) {
        return null;
      }
      len++;
    }
    RustDemangler d = new RustDemangler(s, base, len, false);
    d.path(true);
    if (!d.errored && d.next < d.length) {
      d.skipping = true; // the instantiating crate is not printed
      d.path(false);
    }
    if (d.next != d.length) {
      d.errored = true;
    }
    return d.errored ? null : d.out.toString();
  }

  private char peek() {
    return next < length ? sym.charAt(base + next) : '\0';
  }

  private boolean eat(char c) {
    if (peek() == c) {
      next++;
      return true;
    }
    return false;
  }

  private char nextChar() {
    char c = peek();
    if (c == '\0') {
      errored = true;
    } else {
      next++;
    }
    return c;
  }

  /** A base-62 number ending in _ ("_" is 0, else the number + 1), as an unsigned 64 bits. */
  private long integer62() {
    if (eat('_')) {
      return 0;
    }
    long x = 0;
    while (!eat('_') && !errored) {
      char c = nextChar();
      x *= 62;
      if (isDigit(c)) {
        x += c - '0';
      } else if (c >= 'a' && c <= 'z') {
        x += 10 + (c - 'a');
      } else if (c >= 'A' && c <= 'Z') {
        x += 36 + (c - 'A');
      } else {
        errored = true;
        return 0;
      }
    }
    return x + 1;
  }

  private long optInteger62(char tag) {
    if (!eat(tag)) {
      return 0;
    }
    return 1 + integer62();
  }

  private long disambiguator() {
    return optInteger62('s');
  }

  /** Hex digits up to _: their count, the value (low 64 bits) in hexValue. */
  private long hexValue;

  private int hexNibbles() {
    int count = 0;
    hexValue = 0;
    while (!eat('_')) {
      hexValue <<= 4;
      char c = nextChar();
      if (isDigit(c)) {
        hexValue |= c - '0';
      } else if (c >= 'a' && c <= 'f') {
        hexValue |= 10 + (c - 'a');
      } else {
        errored = true;
        return 0;
      }
      count++;
    }
    return count;
  }

  // An identifier is returned packed: start (relative to base) << 32 | length, or -1 on error;
  // v0 punycode identifiers set punycodeStart / punycodeLength.
  private int punycodeStart;
  private int punycodeLength;

  private static int identStart(long ident) {
    return (int) (ident >>> 32);
  }

  private static int identLen(long ident) {
    return (int) ident;
  }

  private long parseIdent() {
    punycodeLength = 0;
    boolean punycode = !legacy && eat('u');
    char c = nextChar();
    if (!isDigit(c)) {
      errored = true;
      return -1;
    }
    long len = c - '0';
    if (c != '0') {
      while (isDigit(peek())) {
        len = len * 10 + (nextChar() - '0');
        if (len > Integer.MAX_VALUE) {
          errored = true;
          return -1;
        }
      }
    }
    if (!legacy) {
      eat('_');
    }
    int start = next;
    if (len > length - start) {
      errored = true;
      return -1;
    }
    next += (int) len;
    int asciiLength = (int) len;
    if (punycode) {
      // The last _ separates the ASCII characters from the punycode insertions.
      int p = 0;
      while (asciiLength > 0) {
        asciiLength--;
        if (sym.charAt(base + start + asciiLength) == '_') {
          break;
        }
        p++;
      }
      if (p == 0) {
        errored = true;
        return -1;
      }
      punycodeStart = start + (int) len - p;
      punycodeLength = p;
    }
    return (long) start << 32 | asciiLength;
  }

  private void append(String s) {
    if (!errored && !skipping) {
      out.append(s);
      checkSize();
    }
  }

  private void append(char c) {
    if (!errored && !skipping) {
      out.append(c);
      checkSize();
    }
  }

  private void append(String s, int start, int end) {
    if (!errored && !skipping) {
      out.append(s, start, end);
      checkSize();
    }
  }

  private void checkSize() {
    if (out.length() > Printer.MAX_OUTPUT) {
      errored = true;
    }
  }

  /** Entering a production: false (and errored) past the recursion or work bounds. */
  private boolean enter() {
    if (++recursion > MAX_RECURSION || ++steps > MAX_STEPS) {
      errored = true;
      return false;
    }
    return true;
  }

  private void printIdent(long ident) {
    if (errored || skipping) {
      return;
    }
    int start = base + identStart(ident);
    int len = identLen(ident);
    if (punycodeLength == 0) {
      append(sym, start, start + len);
      return;
    }
    decodePunycode(start, len, base + punycodeStart, punycodeLength);
  }

  /** RFC 3492 decoding of the insertions into the ASCII part, as Rust encodes identifiers. */
  private void decodePunycode(int asciiStart, int asciiLength, int pStart, int pLength) {
    int[] cps = new int[Math.max(4, asciiLength + pLength)];
    int n = 0;
    for (; n < asciiLength; n++) {
      cps[n] = sym.charAt(asciiStart + n);
    }
    final long base36 = 36;
    final long tMin = 1;
    final long tMax = 26;
    long bias = 72;
    long damp = 700;
    long i = 0;
    long c = 0x80;
    int pos = 0;
    while (pos < pLength) {
      long delta = 0;
      long w = 1;
      long k = 0;
      long t;
      int d;
      do {
        k += base36;
        t = k < bias ? 0 : k - bias;
        t = Math.max(tMin, Math.min(tMax, t));
        if (pos >= pLength) {
          return; // truncated: libiberty prints nothing more for this identifier
        }
        char ch = sym.charAt(pStart + pos++);
        if (ch >= 'a' && ch <= 'z') {
          d = ch - 'a';
        } else if (isDigit(ch)) {
          d = 26 + (ch - '0');
        } else {
          errored = true;
          return;
        }
        delta += d * w;
        w *= base36 - t;
        if (delta > (1L << 40) || w > (1L << 40)) {
          errored = true; // far beyond any code point: libiberty's arithmetic would wrap
          return;
        }
      } while (d >= t);
      n++;
      i += delta;
      c += i / n;
      i %= n;
      if (c > 0x10FFFF || n > cps.length) {
        errored = true;
        return;
      }
      System.arraycopy(cps, (int) i, cps, (int) i + 1, n - 1 - (int) i);
      cps[(int) i] = (int) c;
      if (pos == pLength) {
        break;
      }
      i++;
      delta /= damp;
      damp = 2;
      delta += delta / n;
      k = 0;
      while (delta > ((base36 - tMin) * tMax) / 2) {
        delta /= base36 - tMin;
        k += base36;
      }
      bias = k + ((base36 - tMin + 1) * delta) / (delta + 38);
    }
    StringBuilder sb = new StringBuilder();
    for (int j = 0; j < n; j++) {
      int cp = cps[j];
      if (cp >= 0xD800 && cp <= 0xDFFF) {
        sb.append('\uFFFD'); // not valid in UTF-8, which is what c++filt writes
      } else {
        sb.appendCodePoint(cp);
      }
    }
    append(sb.toString());
  }

  private void printLifetime(long lt) {
    append('\'');
    if (lt == 0) {
      append('_');
      return;
    }
    long depth = boundLifetimeDepth - lt;
    if (Long.compareUnsigned(depth, 26) < 0) {
      append((char) ('a' + depth));
    } else {
      append('_');
      append(Long.toUnsignedString(depth));
    }
  }

  /** An optional G binder: for&lt;'a, 'b&gt;; the caller restores the lifetime depth. */
  private void binder() {
    if (errored) {
      return;
    }
    long bound = optInteger62('G');
    if (bound != 0) {
      append("for<");
      for (long i = 0; Long.compareUnsigned(i, bound) < 0 && !errored; i++) {
        if (++steps > MAX_STEPS) {
          errored = true; // a huge count: printed (or skipped) one by one
          break;
        }
        if (i > 0) {
          append(", ");
        }
        boundLifetimeDepth++;
        printLifetime(1);
      }
      append("> ");
    }
  }

  /** Follows a back reference B &lt;offset&gt;: runs {@code r} at the offset, then returns. */
  private boolean backref(Runnable r) {
    long target = integer62();
    if (!skipping && !errored) {
      int saved = next;
      next = Long.compareUnsigned(target, length) > 0 ? length : (int) target;
      r.run();
      next = saved;
    }
    return true;
  }

  private void path(boolean inValue) {
    if (errored) {
      return;
    }
    if (!enter()) {
      recursion--;
      return;
    }
    char tag = nextChar();
    switch (tag) {
      case 'C':
        {
          long dis = disambiguator();
          long name = parseIdent();
          if (name != -1) {
            printIdent(name);
          }
          append('[');
          append(Long.toHexString(dis));
          append(']');
          break;
        }
      case 'N':
        {
          char ns = nextChar();
          boolean upper = ns >= 'A' && ns <= 'Z';
          if (!upper && !(ns >= 'a' && ns <= 'z')) {
            errored = true;
            break;
          }
          path(inValue);
          long dis = disambiguator();
          long name = parseIdent();
          int savedPunycode = punycodeLength;
          boolean hasName = name != -1 && (identLen(name) > 0 || savedPunycode > 0);
          if (upper) {
            // Closures, shims and other special namespaces.
            append("::{");
            if (ns == 'C') {
              append("closure");
            } else if (ns == 'S') {
              append("shim");
            } else {
              append(ns);
            }
            if (hasName) {
              append(':');
              punycodeLength = savedPunycode;
              printIdent(name);
            }
            append('#');
            append(Long.toUnsignedString(dis));
            append('}');
          } else if (hasName) {
            append("::");
            printIdent(name);
          }
          break;
        }
      case 'M':
      case 'X':
      case 'Y':
        if (tag != 'Y') {
          // The impl's own path is not printed.
          disambiguator();
          boolean wasSkipping = skipping;
          skipping = true;
          path(inValue);
          skipping = wasSkipping;
        }
        append('<');
        type();
        if (tag != 'M') {
          append(" as ");
          path(false);
        }
        append('>');
        break;
      case 'I':
        path(inValue);
        if (inValue) {
          append("::");
        }
        append('<');
        for (int i = 0; !errored && !eat('E'); i++) {
          if (i > 0) {
            append(", ");
          }
          genericArg();
        }
        append('>');
        break;
      case 'B':
        backref(() -> path(inValue));
        break;
      default:
        errored = true;
        break;
    }
    recursion--;
  }

  private void genericArg() {
    if (eat('L')) {
      printLifetime(integer62());
    } else if (eat('K')) {
      constant();
    } else {
      type();
    }
  }

  private static String basicType(char tag) {
    switch (tag) {
      case 'b':
        return "bool";
      case 'c':
        return "char";
      case 'e':
        return "str";
      case 'u':
        return "()";
      case 'a':
        return "i8";
      case 's':
        return "i16";
      case 'l':
        return "i32";
      case 'x':
        return "i64";
      case 'n':
        return "i128";
      case 'i':
        return "isize";
      case 'h':
        return "u8";
      case 't':
        return "u16";
      case 'm':
        return "u32";
      case 'y':
        return "u64";
      case 'o':
        return "u128";
      case 'j':
        return "usize";
      case 'f':
        return "f32";
      case 'd':
        return "f64";
      case 'z':
        return "!";
      case 'p':
        return "_";
      case 'v':
        return "...";
      default:
        return null;
    }
  }

  private void type() {
    if (errored) {
      return;
    }
    char tag = nextChar();
    String basic = basicType(tag);
    if (basic != null) {
      append(basic);
      return;
    }
    if (!enter()) {
      recursion--;
      return;
    }
    switch (tag) {
      case 'R':
      case 'Q':
        append('&');
        if (eat('L')) {
          long lt = integer62();
          if (lt != 0) {
            printLifetime(lt);
            append(' ');
          }
        }
        if (tag != 'R') {
          append("mut ");
        }
        type();
        break;
      case 'P':
      case 'O':
        append('*');
        append(tag != 'P' ? "mut " : "const ");
        type();
        break;
      case 'A':
      case 'S':
        append('[');
        type();
        if (tag == 'A') {
          append("; ");
          constant();
        }
        append(']');
        break;
      case 'T':
        {
          append('(');
          int i = 0;
          for (; !errored && !eat('E'); i++) {
            if (i > 0) {
              append(", ");
            }
            type();
          }
          if (i == 1) {
            append(',');
          }
          append(')');
          break;
        }
      case 'F':
        functionType();
        break;
      case 'D':
        {
          append("dyn ");
          long savedDepth = boundLifetimeDepth;
          binder();
          for (int i = 0; !errored && !eat('E'); i++) {
            if (i > 0) {
              append(" + ");
            }
            dynTrait();
          }
          boundLifetimeDepth = savedDepth;
          if (!eat('L')) {
            errored = true;
            break;
          }
          long lt = integer62();
          if (lt != 0) {
            append(" + ");
            printLifetime(lt);
          }
          break;
        }
      case 'B':
        backref(this::type);
        break;
      default:
        // Not a type tag: a path (go back to the tag, which the path reads).
        if (tag != '\0') {
          next--;
        }
        path(false);
        break;
    }
    recursion--;
  }

  private void functionType() {
    long savedDepth = boundLifetimeDepth;
    binder();
    if (eat('U')) {
      append("unsafe ");
    }
    if (eat('K')) {
      String abi;
      if (eat('C')) {
        abi = "C";
      } else {
        long ident = parseIdent();
        if (ident == -1 || identLen(ident) == 0 || punycodeLength > 0) {
          errored = true;
          boundLifetimeDepth = savedDepth;
          return;
        }
        int start = base + identStart(ident);
        abi = sym.substring(start, start + identLen(ident));
      }
      append("extern \"");
      // A '-' in the ABI name was mangled as '_'. (libiberty skips checking the character
      // right after each '_' it replaces; so does this.)
      int from = 0;
      for (int i = 0; from + i < abi.length(); i++) {
        if (abi.charAt(from + i) == '_') {
          append(abi, from, from + i);
          append('-');
          from += i + 1;
          i = 0;
        }
      }
      append(abi, from, abi.length());
      append("\" ");
    }
    append("fn(");
    for (int i = 0; !errored && !eat('E'); i++) {
      if (i > 0) {
        append(", ");
      }
      type();
    }
    append(')');
    if (!eat('u')) {
      append(" -> ");
      type();
    }
    boundLifetimeDepth = savedDepth;
  }

  /** A path whose generic arguments stay open for associated types (dyn Trait&lt;A=B&gt;). */
  private boolean pathMaybeOpenGenerics() {
    boolean open = false;
    if (errored) {
      return false;
    }
    if (!enter()) {
      recursion--;
      return false;
    }
    if (eat('B')) {
      long target = integer62();
      if (!skipping && !errored) {
        int saved = next;
        next = Long.compareUnsigned(target, length) > 0 ? length : (int) target;
        open = pathMaybeOpenGenerics();
        next = saved;
      }
    } else if (eat('I')) {
      path(false);
      append('<');
      open = true;
      for (int i = 0; !errored && !eat('E'); i++) {
        if (i > 0) {
          append(", ");
        }
        genericArg();
      }
    } else {
      path(false);
    }
    recursion--;
    return open;
  }

  private void dynTrait() {
    if (errored) {
      return;
    }
    boolean open = pathMaybeOpenGenerics();
    while (eat('p')) {
      append(open ? ", " : "<");
      open = true;
      long name = parseIdent();
      if (name != -1) {
        printIdent(name);
      }
      append(" = ");
      type();
    }
    if (open) {
      append('>');
    }
  }

  private void constant() {
    if (errored) {
      return;
    }
    if (!enter()) {
      recursion--;
      return;
    }
    if (eat('B')) {
      backref(this::constant);
      recursion--;
      return;
    }
    char tag = nextChar();
    switch (tag) {
      case 'p':
        append('_');
        recursion--;
        return;
      case 'h':
      case 't':
      case 'm':
      case 'y':
      case 'o':
      case 'j':
        constUnsigned();
        break;
      case 'a':
      case 's':
      case 'l':
      case 'x':
      case 'n':
      case 'i':
        if (eat('n')) {
          append('-');
        }
        constUnsigned();
        break;
      case 'b':
        if (hexNibbles() != 1) {
          errored = true;
        } else if (hexValue == 0) {
          append("false");
        } else if (hexValue == 1) {
          append("true");
        } else {
          errored = true;
        }
        break;
      case 'c':
        constChar();
        break;
      default:
        errored = true;
        break;
    }
    if (!errored) {
      append(": ");
      append(basicType(tag));
    }
    recursion--;
  }

  private void constUnsigned() {
    if (errored) {
      return;
    }
    int count = hexNibbles();
    if (count > 16) {
      // Too big for 64 bits: the digits as they are. (libiberty prints the window one
      // character too late: without the first digit and with the closing _. So does this.)
      append("0x");
      append(sym, base + next - count, base + next);
    } else if (count > 0) {
      append(Long.toUnsignedString(hexValue));
    } else {
      errored = true;
    }
  }

  private void constChar() {
    int count = hexNibbles();
    if (count == 0 || count > 8) {
      errored = true;
      return;
    }
    long value = hexValue;
    append('\'');
    if (value == '\t') {
      append("\\t");
    } else if (value == '\r') {
      append("\\r");
    } else if (value == '\n') {
      append("\\n");
    } else if (value > ' ' && value < '~') {
      append((char) value);
    } else {
      append("\\u{");
      append(Long.toHexString(value));
      append('}');
    }
    append('\'');
  }
}
