package dev.fleetprof.symbols.demangle;

/**
 * Parses one mangled name into {@link Node}s. Every method returns null when the text does not
 * parse; the caller then gives up on the whole name, as c++filt does. The grammar accepted, and the
 * shape of the nodes, are those of GNU libiberty as shipped with binutils 2.40, because the printed
 * result must be byte-for-byte what c++filt prints; comments say where that differs from the
 * Itanium ABI text.
 *
 * <p>Bounds: at most {@code 2 * length} nodes and {@code length} substitutions (libiberty's own
 * limits), a recursion depth and a total amount of work proportional to nothing but constants, so
 * that a hostile name can neither overflow the stack nor take long.
 */
final class Parser {
  /**
   * Beyond this many nested productions the name is rejected. A name of at most 1024 characters
   * (c++filt's limit) cannot get near it; it is a safety net, not a limit c++filt has.
   */
  private static final int MAX_DEPTH = 8192;

  /** Function types nest at most this deep (libiberty's DEMANGLE_RECURSION_LIMIT). */
  private static final int MAX_FUNCTION_NESTING = 2048;

  /** Work units (productions entered) one name may cost; backtracking can otherwise explode. */
  private static final int MAX_WORK = 200_000;

  private final char[] s;
  private final int end;
  private int pos;
  private final int maxNodes;
  private int nodes;
  private Node[] pool;
  private final Node[] subs;
  private int subCount;

  /** The last source name seen: constructors and destructors are named after it. */
  private Node lastName;

  private boolean isExpression;
  private boolean isConversion;
  private int functionNesting;
  private int depth;
  private int work;

  /**
   * 1: read sr with the newer unresolved-name grammar first; -1: that was tried (on failure the
   * caller parses again with 0, the older grammar), as libiberty does.
   */
  private int unresolvedNameState;

  /** Parses chars (all of them: one word of c++filt's input). */
  Parser(char[] chars, boolean newerUnresolvedNames) {
    this.s = chars;
    this.unresolvedNameState = newerUnresolvedNames ? 1 : 0;
    this.pos = 0;
    this.end = chars.length;
    int length = chars.length;
    this.maxNodes = 2 * length;
    this.pool = new Node[Math.min(maxNodes, 64)];
    this.subs = new Node[length];
  }

  void skip(int n) {
    advance(n);
  }

  /** True when the newer unresolved-name grammar was tried (worth a retry without it). */
  boolean triedNewerUnresolvedNames() {
    return unresolvedNameState == -1;
  }

  boolean atEnd() {
    return pos >= end;
  }

  // ---- characters -------------------------------------------------------------------------

  private char charAt(int i) {
    return s[i];
  }

  private char peek() {
    return pos < end ? charAt(pos) : '\0';
  }

  private char peekNext() {
    return pos + 1 < end ? charAt(pos + 1) : '\0';
  }

  private char next() {
    return pos < end ? charAt(pos++) : '\0';
  }

  private boolean eat(char c) {
    if (pos < end && charAt(pos) == c) {
      pos++;
      return true;
    }
    return false;
  }

  private void advance(int n) {
    pos = Math.min(end, pos + n);
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private static boolean isUpper(char c) {
    return c >= 'A' && c <= 'Z';
  }

  private static boolean isLower(char c) {
    return c >= 'a' && c <= 'z';
  }

  // ---- nodes ------------------------------------------------------------------------------

  /**
   * A fresh node, or null once the name has used up its node allowance. Nodes come from a pool
   * indexed like libiberty's component array: backtracking frees the nodes made since the
   * checkpoint and the next ones reuse them, so a pointer that outlived the backtrack (the last
   * name seen) sees whatever reuses its node, exactly as in c++filt.
   */
  private Node alloc(int kind) {
    if (nodes >= maxNodes) {
      return null;
    }
    if (nodes == pool.length) {
      pool = java.util.Arrays.copyOf(pool, Math.min(maxNodes, pool.length * 2));
    }
    Node n = pool[nodes];
    if (n == null) {
      n = new Node(kind);
      pool[nodes] = n;
    } else {
      n.reset(kind);
    }
    nodes++;
    return n;
  }

  /**
   * A node with two links, or null when a link the kind needs is missing (this is how a failure
   * deep down propagates up).
   */
  private Node make(int kind, Node left, Node right) {
    switch (kind) {
      case Node.QUAL_NAME:
      case Node.LOCAL_NAME:
      case Node.TYPED_NAME:
      case Node.TAGGED_NAME:
      case Node.TEMPLATE:
      case Node.CONSTRUCTION_VTABLE:
      case Node.VENDOR_TYPE_QUAL:
      case Node.PTRMEM_TYPE:
      case Node.UNARY:
      case Node.BINARY:
      case Node.BINARY_ARGS:
      case Node.TRINARY:
      case Node.TRINARY_ARG1:
      case Node.LITERAL:
      case Node.LITERAL_NEG:
      case Node.VENDOR_EXPR:
      case Node.COMPOUND_NAME:
      case Node.VECTOR_TYPE:
      case Node.CLONE:
      case Node.MODULE_ENTITY:
        if (left == null || right == null) {
          return null;
        }
        break;
      case Node.ARRAY_TYPE:
      case Node.INITIALIZER_LIST:
      case Node.MODULE_NAME:
      case Node.MODULE_PARTITION:
        if (right == null) {
          return null;
        }
        break;
      case Node.FUNCTION_TYPE:
      case Node.RESTRICT:
      case Node.VOLATILE:
      case Node.CONST:
      case Node.ARGLIST:
      case Node.TEMPLATE_ARGLIST:
      case Node.RESTRICT_THIS:
      case Node.VOLATILE_THIS:
      case Node.CONST_THIS:
      case Node.REFERENCE_THIS:
      case Node.RVALUE_REFERENCE_THIS:
      case Node.TRANSACTION_SAFE:
      case Node.NOEXCEPT:
      case Node.THROW_SPEC:
      case Node.TEMPLATE_TYPE_PARM:
        break;
      default:
        if (left == null) {
          return null;
        }
        break;
    }
    Node n = alloc(kind);
    if (n != null) {
      n.left = left;
      n.right = right;
    }
    return n;
  }

  private Node makeName(char[] text, int start, int end) {
    if (end <= start) {
      return null;
    }
    Node n = alloc(Node.NAME);
    if (n != null) {
      n.text = text;
      n.start = start;
      n.end = end;
    }
    return n;
  }

  private Node makeName(char[] text) {
    return makeName(text, 0, text.length);
  }

  private Node makeNumbered(int kind, int num) {
    Node n = alloc(kind);
    if (n != null) {
      n.num = num;
    }
    return n;
  }

  private Node makeBuiltin(int index) {
    return makeNumbered(Node.BUILTIN_TYPE, index);
  }

  private Node makeStd(char[] text) {
    Node n = alloc(Node.SUB_STD);
    if (n != null) {
      n.text = text;
      n.start = 0;
      n.end = text.length;
    }
    return n;
  }

  private boolean startsWith(int at, String prefix) {
    if (end - at < prefix.length()) {
      return false;
    }
    for (int i = 0; i < prefix.length(); i++) {
      if (s[at + i] != prefix.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  private boolean addSubstitution(Node n) {
    if (n == null || subCount >= subs.length) {
      return false;
    }
    subs[subCount++] = n;
    return true;
  }

  /**
   * Entering a production (the caller decrements depth when it leaves): false, and nothing entered,
   * when the name is too deep or has cost too much already.
   */
  private boolean enter() {
    if (depth >= MAX_DEPTH || work >= MAX_WORK) {
      return false;
    }
    depth++;
    work++;
    return true;
  }

  // ---- <mangled-name> and <encoding> ------------------------------------------------------

  /** _Z &lt;encoding&gt; [clone suffixes]; outside the top level the '_' may be missing. */
  Node mangledName(boolean topLevel) {
    if (!eat('_') && topLevel) {
      return null;
    }
    if (!eat('Z')) {
      return null;
    }
    Node p = encoding(topLevel);
    if (topLevel) {
      while (peek() == '.') {
        char c = peekNext();
        if (!(isLower(c) || c == '_' || isDigit(c))) {
          break;
        }
        p = cloneSuffix(p);
      }
    }
    return p;
  }

  /** The rest of a _GLOBAL__I_ / _GLOBAL__D_ name: a mangled name or plain text. */
  Node globalKeyedName() {
    if (peek() == '_' && peekNext() == 'Z') {
      advance(2);
      Node n = encoding(false);
      pos = end;
      return n;
    }
    Node n = makeName(s, pos, end);
    pos = end;
    return n;
  }

  Node makeGlobal(boolean constructors, Node name) {
    return make(constructors ? Node.GLOBAL_CONSTRUCTORS : Node.GLOBAL_DESTRUCTORS, name, null);
  }

  private static boolean hasReturnType(Node dc) {
    while (dc != null) {
      switch (dc.kind) {
        case Node.LOCAL_NAME:
          dc = dc.right;
          continue;
        case Node.TEMPLATE:
          return !isCtorDtorOrConversion(dc.left);
        default:
          if (Node.isFunctionQualifier(dc.kind)) {
            dc = dc.left;
            continue;
          }
          return false;
      }
    }
    return false;
  }

  private static boolean isCtorDtorOrConversion(Node dc) {
    while (dc != null) {
      switch (dc.kind) {
        case Node.QUAL_NAME:
        case Node.LOCAL_NAME:
          dc = dc.right;
          continue;
        case Node.CTOR:
        case Node.DTOR:
        case Node.CONVERSION:
          return true;
        default:
          return false;
      }
    }
    return false;
  }

  private Node encoding(boolean topLevel) {
    if (!enter()) {
      return null;
    }
    try {
      char c = peek();
      if (c == 'G' || c == 'T') {
        return specialName();
      }
      Node dc = name(false);
      if (dc == null) {
        return null;
      }
      c = peek();
      if (c != '\0' && c != 'E') {
        Node ftype = bareFunctionType(hasReturnType(dc));
        if (ftype == null) {
          return null;
        }
        // A function local to another one: its return type would read as the outer one's.
        if (!topLevel && dc.kind == Node.LOCAL_NAME && ftype.kind == Node.FUNCTION_TYPE) {
          ftype.left = null;
        }
        dc = make(Node.TYPED_NAME, dc, ftype);
      }
      return dc;
    } finally {
      depth--;
    }
  }

  private Node abiTags(Node dc) {
    Node holdLastName = lastName;
    while (peek() == 'B') {
      advance(1);
      Node tag = sourceName();
      dc = make(Node.TAGGED_NAME, dc, tag);
    }
    lastName = holdLastName;
    return dc;
  }

  // ---- names ------------------------------------------------------------------------------

  /**
   * &lt;name&gt;. With {@code substitutable} the result becomes a substitution candidate (when it
   * is used as a type).
   */
  private Node name(boolean substitutable) {
    if (!enter()) {
      return null;
    }
    try {
      char c = peek();
      Node dc = null;
      Node module = null;
      boolean fromSubstitution = false;
      switch (c) {
        case 'N':
          dc = nestedName();
          break;
        case 'Z':
          dc = localName();
          break;
        case 'U':
          dc = unqualifiedName(null, null);
          break;
        default:
          if (c == 'S') {
            if (peekNext() == 't') {
              advance(2);
              dc = makeName(STD);
            }
            if (peek() == 'S') {
              module = substitution();
              if (module == null) {
                return null;
              }
              if (module.kind != Node.MODULE_NAME && module.kind != Node.MODULE_PARTITION) {
                if (dc != null) {
                  return null;
                }
                fromSubstitution = true;
                dc = module;
                module = null;
              }
            }
          }
          if (!fromSubstitution) {
            dc = unqualifiedName(dc, module);
          }
          if (peek() == 'I') {
            // <unscoped-template-name> <template-args>: the template name is a candidate.
            if (!fromSubstitution && !addSubstitution(dc)) {
              return null;
            }
            dc = make(Node.TEMPLATE, dc, templateArgs());
            fromSubstitution = false;
          }
          break;
      }
      if (substitutable && !fromSubstitution && !addSubstitution(dc)) {
        return null;
      }
      return dc;
    } finally {
      depth--;
    }
  }

  /** N [&lt;CV-qualifiers&gt;] [&lt;ref-qualifier&gt;] &lt;prefix&gt; E. */
  private Node nestedName() {
    if (!eat('N')) {
      return null;
    }
    QualifierChain quals = cvQualifiers(true);
    if (quals == null) {
      return null;
    }
    Node refQualifier = refQualifier(null);
    Node prefix = prefix(true);
    if (prefix == null) {
      return null;
    }
    Node ret = quals.close(prefix);
    if (refQualifier != null) {
      refQualifier.left = ret;
      ret = refQualifier;
    }
    if (!eat('E')) {
      return null;
    }
    return ret;
  }

  /** The &lt;prefix&gt; of a nested name, up to (not including) its closing E. */
  private Node prefix(boolean substitutable) {
    Node ret = null;
    while (true) {
      if (++work > MAX_WORK) {
        return null;
      }
      char c = peek();
      if (c == 'D' && (peekNext() == 'T' || peekNext() == 't')) {
        if (ret != null) {
          return null;
        }
        ret = type();
      } else if (c == 'I') {
        if (ret == null) {
          return null;
        }
        Node args = templateArgs();
        if (args == null) {
          return null;
        }
        ret = make(Node.TEMPLATE, ret, args);
      } else if (c == 'T') {
        if (ret != null) {
          return null;
        }
        ret = templateParam();
      } else if (c == 'M') {
        // The initializer scope of a lambda: already a candidate, nothing to print.
        advance(1);
        continue;
      } else {
        Node module = null;
        if (c == 'S') {
          module = substitution();
          if (module == null) {
            return null;
          }
          if (module.kind != Node.MODULE_NAME && module.kind != Node.MODULE_PARTITION) {
            if (ret != null) {
              return null;
            }
            ret = module;
            continue;
          }
        }
        ret = unqualifiedName(ret, module);
      }
      if (ret == null) {
        return null;
      }
      if (peek() == 'E') {
        return ret;
      }
      if (substitutable && !addSubstitution(ret)) {
        return null;
      }
    }
  }

  /** W &lt;source-name&gt; (W P for a partition), repeated; each is a candidate. */
  private boolean moduleName(Node[] module) {
    while (peek() == 'W') {
      advance(1);
      int kind = Node.MODULE_NAME;
      if (peek() == 'P') {
        kind = Node.MODULE_PARTITION;
        advance(1);
      }
      module[0] = make(kind, module[0], sourceName());
      if (module[0] == null || !addSubstitution(module[0])) {
        return false;
      }
    }
    return true;
  }

  /**
   * &lt;unqualified-name&gt;, qualified by {@code scope} when that is not null and attached to
   * {@code module}.
   */
  private Node unqualifiedName(Node scope, Node module) {
    if (!enter()) {
      return null;
    }
    try {
      Node[] moduleHolder = {module};
      if (!moduleName(moduleHolder)) {
        return null;
      }
      module = moduleHolder[0];
      char c = peek();
      Node ret;
      if (isDigit(c)) {
        ret = sourceName();
      } else if (isLower(c)) {
        boolean wasExpression = isExpression;
        if (c == 'o' && peekNext() == 'n') {
          advance(2);
          // "on" names an operator, so a following cv is a conversion operator, not a cast.
          isExpression = false;
        }
        ret = operatorName();
        isExpression = wasExpression;
        if (ret != null && ret.kind == Node.OPERATOR && "li".equals(Operators.CODE[ret.num])) {
          ret = make(Node.UNARY, ret, sourceName());
        }
      } else if (c == 'D' && peekNext() == 'C') {
        // A structured binding declaration: DC <source-name>+ E.
        advance(2);
        ret = null;
        Node previous = null;
        do {
          Node binding = make(Node.STRUCTURED_BINDING, sourceName(), null);
          if (previous != null) {
            previous.right = binding;
          } else {
            ret = binding;
          }
          previous = binding;
        } while (previous != null && peek() != 'E');
        if (previous == null) {
          return null;
        }
        advance(1);
      } else if (c == 'C' || c == 'D') {
        ret = ctorDtorName();
      } else if (c == 'L') {
        advance(1);
        ret = sourceName();
        if (ret == null || !discriminator()) {
          return null;
        }
      } else if (c == 'U') {
        char k = peekNext();
        if (k == 'l') {
          ret = lambda();
        } else if (k == 't') {
          ret = unnamedType();
        } else {
          return null;
        }
      } else {
        return null;
      }
      if (ret == null) {
        return null;
      }
      if (module != null) {
        ret = make(Node.MODULE_ENTITY, ret, module);
      }
      if (peek() == 'B') {
        ret = abiTags(ret);
      }
      if (scope != null) {
        ret = make(Node.QUAL_NAME, scope, ret);
      }
      return ret;
    } finally {
      depth--;
    }
  }

  /** &lt;source-name&gt; ::= &lt;positive length&gt; &lt;identifier&gt;. */
  private Node sourceName() {
    int len = number();
    if (len <= 0) {
      return null;
    }
    Node ret = identifier(len);
    lastName = ret;
    return ret;
  }

  /** [n] &lt;decimal digits&gt;; -1 when it does not fit an int (libiberty's d_number). */
  private int number() {
    boolean negative = false;
    if (peek() == 'n') {
      negative = true;
      advance(1);
    }
    int ret = 0;
    while (true) {
      char c = peek();
      if (!isDigit(c)) {
        return negative ? -ret : ret;
      }
      if (ret > (Integer.MAX_VALUE - (c - '0')) / 10) {
        return -1;
      }
      ret = ret * 10 + (c - '0');
      advance(1);
    }
  }

  private Node numberNode() {
    Node n = alloc(Node.NUMBER);
    if (n != null) {
      n.num = number();
    }
    return n;
  }

  // Fixed names (shared by all calls, never written).
  private static final char[] ANONYMOUS = "(anonymous namespace)".toCharArray();
  private static final char[] STD = "std".toCharArray();
  private static final char[] AUTO = "auto".toCharArray();
  private static final char[] DECLTYPE_AUTO = "decltype(auto)".toCharArray();
  private static final char[] STRING_LITERAL = "string literal".toCharArray();
  private static final char[] X_SUFFIX = {'x'};

  private Node identifier(int len) {
    if (end - pos < len) {
      return null;
    }
    int start = pos;
    advance(len);
    // GCC names the anonymous namespace _GLOBAL__N_<something>.
    if (len >= 10 && startsWith(start, "_GLOBAL_")) {
      char c = charAt(start + 8);
      if ((c == '.' || c == '_' || c == '$') && charAt(start + 9) == 'N') {
        return makeName(ANONYMOUS);
      }
    }
    return makeName(s, start, pos);
  }

  /** &lt;operator-name&gt;: a two-letter code, cv &lt;type&gt; or v &lt;digit&gt; &lt;name&gt;. */
  private Node operatorName() {
    char c1 = next();
    char c2 = next();
    if (c1 == 'v' && isDigit(c2)) {
      Node name = sourceName();
      if (name == null) {
        return null;
      }
      Node n = makeNumbered(Node.EXTENDED_OPERATOR, c2 - '0');
      if (n != null) {
        n.left = name;
      }
      return n;
    }
    if (c1 == 'c' && c2 == 'v') {
      boolean wasConversion = isConversion;
      isConversion = !isExpression;
      Node t = type();
      Node res = make(isConversion ? Node.CONVERSION : Node.CAST, t, null);
      isConversion = wasConversion;
      return res;
    }
    int op = Operators.lookup(c1, c2);
    if (op < 0) {
      return null;
    }
    return makeNumbered(Node.OPERATOR, op);
  }

  private Node javaResource() {
    int len = number();
    if (len <= 1) {
      return null;
    }
    if (next() != '_') {
      return null;
    }
    len--;
    Node p = null;
    while (len > 0) {
      if (pos >= end) {
        return null;
      }
      Node piece;
      char c = charAt(pos);
      if (c == '$') {
        char e = pos + 1 < end ? charAt(pos + 1) : '\0';
        switch (e) {
          case 'S':
            c = '/';
            break;
          case '_':
            c = '.';
            break;
          case '$':
            c = '$';
            break;
          default:
            return null;
        }
        piece = makeNumbered(Node.CHARACTER, c);
        advance(2);
        len -= 2;
      } else {
        int i = 0;
        while (i < len && pos + i < end && charAt(pos + i) != '$') {
          i++;
        }
        piece = makeName(s, pos, pos + i);
        advance(i);
        len -= i;
      }
      if (piece == null) {
        return null;
      }
      p = p == null ? piece : make(Node.COMPOUND_NAME, p, piece);
      if (p == null) {
        return null;
      }
    }
    return make(Node.JAVA_RESOURCE, p, null);
  }

  /** &lt;special-name&gt;: the T and G names (vtables, thunks, guard variables ...). */
  private Node specialName() {
    if (eat('T')) {
      switch (next()) {
        case 'V':
          return make(Node.VTABLE, type(), null);
        case 'T':
          return make(Node.VTT, type(), null);
        case 'I':
          return make(Node.TYPEINFO, type(), null);
        case 'S':
          return make(Node.TYPEINFO_NAME, type(), null);
        case 'h':
          if (!callOffset('h')) {
            return null;
          }
          return make(Node.THUNK, encoding(false), null);
        case 'v':
          if (!callOffset('v')) {
            return null;
          }
          return make(Node.VIRTUAL_THUNK, encoding(false), null);
        case 'c':
          if (!callOffset('\0') || !callOffset('\0')) {
            return null;
          }
          return make(Node.COVARIANT_THUNK, encoding(false), null);
        case 'C':
          {
            Node derived = type();
            int offset = number();
            if (offset < 0 || !eat('_')) {
              return null;
            }
            Node base = type();
            return make(Node.CONSTRUCTION_VTABLE, base, derived);
          }
        case 'F':
          return make(Node.TYPEINFO_FN, type(), null);
        case 'J':
          return make(Node.JAVA_CLASS, type(), null);
        case 'H':
          return make(Node.TLS_INIT, name(false), null);
        case 'W':
          return make(Node.TLS_WRAPPER, name(false), null);
        case 'A':
          return make(Node.TPARM_OBJ, templateArg(), null);
        default:
          return null;
      }
    }
    if (eat('G')) {
      switch (next()) {
        case 'V':
          return make(Node.GUARD, name(false), null);
        case 'R':
          {
            Node n = name(false);
            return make(Node.REFTEMP, n, numberNode());
          }
        case 'A':
          return make(Node.HIDDEN_ALIAS, encoding(false), null);
        case 'I':
          {
            Node[] module = {null};
            if (!moduleName(module) || module[0] == null) {
              return null;
            }
            return make(Node.MODULE_INIT, module[0], null);
          }
        case 'T':
          // GTn is the non-transactional clone; every other letter some transactional one.
          if (next() == 'n') {
            return make(Node.NONTRANSACTION_CLONE, encoding(false), null);
          }
          return make(Node.TRANSACTION_CLONE, encoding(false), null);
        case 'r':
          return javaResource();
        default:
          return null;
      }
    }
    return null;
  }

  /** h &lt;number&gt; _ or v &lt;number&gt; _ &lt;number&gt; _; the offsets are not printed. */
  private boolean callOffset(char c) {
    if (c == '\0') {
      c = next();
    }
    if (c == 'h') {
      number();
    } else if (c == 'v') {
      number();
      if (!eat('_')) {
        return false;
      }
      number();
    } else {
      return false;
    }
    return eat('_');
  }

  private Node ctorDtorName() {
    if (peek() == 'C') {
      boolean inheriting = false;
      if (peekNext() == 'I') {
        inheriting = true;
        advance(1);
      }
      char k = peekNext();
      if (k < '1' || k > '5') {
        return null;
      }
      advance(2);
      if (inheriting) {
        type(); // the base class an inheriting constructor comes from is not printed
      }
      return ctorDtor(Node.CTOR, k - '0');
    }
    if (peek() == 'D') {
      char k = peekNext();
      if (k != '0' && k != '1' && k != '2' && k != '4' && k != '5') {
        return null;
      }
      advance(2);
      return ctorDtor(Node.DTOR, k - '0');
    }
    return null;
  }

  private Node ctorDtor(int kind, int variant) {
    if (lastName == null) {
      return null;
    }
    Node n = makeNumbered(kind, variant);
    if (n != null) {
      n.left = lastName;
    }
    return n;
  }

  // ---- types ------------------------------------------------------------------------------

  private boolean nextIsTypeQualifier() {
    char c = peek();
    if (c == 'r' || c == 'V' || c == 'K') {
      return true;
    }
    if (c == 'D') {
      char d = peekNext();
      return d == 'x' || d == 'o' || d == 'O' || d == 'w';
    }
    return false;
  }

  /** &lt;type&gt;. */
  private Node type() {
    if (!enter()) {
      return null;
    }
    try {
      return type1();
    } finally {
      depth--;
    }
  }

  private Node type1() {
    if (nextIsTypeQualifier()) {
      // The qualified type and the bare type are candidates, the partly qualified ones not:
      // take all the qualifiers at once.
      QualifierChain quals = cvQualifiers(false);
      if (quals == null) {
        return null;
      }
      // Qualifiers before a function type apply to 'this'; the bare function type is then
      // not a candidate.
      Node inner = peek() == 'F' ? functionType() : type();
      if (inner == null) {
        return null;
      }
      Node ret;
      if (inner.kind == Node.RVALUE_REFERENCE_THIS || inner.kind == Node.REFERENCE_THIS) {
        // Put the ref-qualifier outside the cv-qualifiers so that it is printed after them.
        Node function = inner.left;
        ret = inner;
        inner.left = quals.close(function);
      } else {
        ret = quals.close(inner);
      }
      if (!addSubstitution(ret)) {
        return null;
      }
      return ret;
    }

    boolean substitutable = true;
    Node ret;
    char c = peek();
    switch (c) {
      case 'a':
      case 'b':
      case 'c':
      case 'd':
      case 'e':
      case 'f':
      case 'g':
      case 'h':
      case 'i':
      case 'j':
      case 'l':
      case 'm':
      case 'n':
      case 'o':
      case 's':
      case 't':
      case 'v':
      case 'w':
      case 'x':
      case 'y':
      case 'z':
        ret = makeBuiltin(c - 'a');
        substitutable = false;
        advance(1);
        break;
      case 'u':
        advance(1);
        ret = make(Node.VENDOR_TYPE, sourceName(), null);
        break;
      case 'F':
        ret = functionType();
        break;
      case 'A':
        ret = arrayType();
        break;
      case 'M':
        ret = pointerToMemberType();
        break;
      case 'T':
        ret = templateParam();
        if (peek() == 'I') {
          // <template-template-param> <template-args>, except in a conversion operator's type,
          // where the arguments may instead belong to the operator itself: then they are taken
          // only if a second argument list follows.
          if (!isConversion) {
            if (!addSubstitution(ret)) {
              return null;
            }
            ret = make(Node.TEMPLATE, ret, templateArgs());
          } else {
            int savedPos = pos;
            int savedNodes = nodes;
            int savedSubs = subCount;
            Node args = templateArgs();
            if (peek() == 'I') {
              if (!addSubstitution(ret)) {
                return null;
              }
              ret = make(Node.TEMPLATE, ret, args);
            } else {
              pos = savedPos;
              nodes = savedNodes;
              subCount = savedSubs;
            }
          }
        }
        break;
      case 'O':
        advance(1);
        ret = make(Node.RVALUE_REFERENCE, type(), null);
        break;
      case 'P':
        advance(1);
        ret = make(Node.POINTER, type(), null);
        break;
      case 'R':
        advance(1);
        ret = make(Node.REFERENCE, type(), null);
        break;
      case 'C':
        advance(1);
        ret = make(Node.COMPLEX, type(), null);
        break;
      case 'G':
        advance(1);
        ret = make(Node.IMAGINARY, type(), null);
        break;
      case 'U':
        {
          advance(1);
          Node qualifier = sourceName();
          if (peek() == 'I') {
            qualifier = make(Node.TEMPLATE, qualifier, templateArgs());
          }
          ret = make(Node.VENDOR_TYPE_QUAL, type(), qualifier);
          break;
        }
      case 'D':
        substitutable = false;
        advance(1);
        c = next();
        switch (c) {
          case 'T':
          case 't':
            ret = make(Node.DECLTYPE, expression(), null);
            if (ret != null && next() != 'E') {
              ret = null;
            }
            substitutable = true;
            break;
          case 'p':
            ret = make(Node.PACK_EXPANSION, type(), null);
            substitutable = true;
            break;
          case 'a':
            ret = makeName(AUTO);
            break;
          case 'c':
            ret = makeName(DECLTYPE_AUTO);
            break;
          case 'f':
            ret = makeBuiltin(Builtins.DECIMAL32);
            break;
          case 'd':
            ret = makeBuiltin(Builtins.DECIMAL64);
            break;
          case 'e':
            ret = makeBuiltin(Builtins.DECIMAL128);
            break;
          case 'h':
            ret = makeBuiltin(Builtins.HALF);
            break;
          case 'u':
            ret = makeBuiltin(Builtins.CHAR8);
            break;
          case 's':
            ret = makeBuiltin(Builtins.CHAR16);
            break;
          case 'i':
            ret = makeBuiltin(Builtins.CHAR32);
            break;
          case 'F':
            {
              // DF<N>_ is _Float<N>, DF<N>x is _Float<N>x, DF16b is std::bfloat16_t.
              int bits = number();
              if (peek() == 'b') {
                if (bits != 16) {
                  return null;
                }
                advance(1);
                ret = makeBuiltin(Builtins.BFLOAT16);
                break;
              }
              char suffix = peek();
              if (suffix != 'x' && suffix != '_') {
                return null;
              }
              ret = makeNumbered(Node.EXTENDED_BUILTIN_TYPE, bits);
              if (ret != null && suffix == 'x') {
                ret.text = X_SUFFIX;
              }
              advance(1);
              break;
            }
          case 'v':
            ret = vectorType();
            substitutable = true;
            break;
          case 'n':
            ret = makeBuiltin(Builtins.NULLPTR);
            break;
          default:
            return null;
        }
        break;
      default:
        return name(true);
    }
    if (substitutable && !addSubstitution(ret)) {
      return null;
    }
    return ret;
  }

  /**
   * A run of qualifier nodes, outermost first, whose innermost left link is still open; {@link
   * #close} fills it.
   */
  private static final class QualifierChain {
    Node first;
    Node last;

    Node close(Node inner) {
      if (first == null) {
        return inner;
      }
      last.left = inner;
      return first;
    }
  }

  /** [r] [V] [K] and the D-qualifiers (Dx, Do, DO expr E, Dw types E). */
  private QualifierChain cvQualifiers(boolean memberFunction) {
    QualifierChain chain = new QualifierChain();
    char c = peek();
    while (nextIsTypeQualifier()) {
      int kind;
      Node right = null;
      advance(1);
      if (c == 'r') {
        kind = memberFunction ? Node.RESTRICT_THIS : Node.RESTRICT;
      } else if (c == 'V') {
        kind = memberFunction ? Node.VOLATILE_THIS : Node.VOLATILE;
      } else if (c == 'K') {
        kind = memberFunction ? Node.CONST_THIS : Node.CONST;
      } else {
        c = next();
        if (c == 'x') {
          kind = Node.TRANSACTION_SAFE;
        } else if (c == 'o' || c == 'O') {
          kind = Node.NOEXCEPT;
          if (c == 'O') {
            right = expression();
            if (right == null || !eat('E')) {
              return null;
            }
          }
        } else if (c == 'w') {
          kind = Node.THROW_SPEC;
          right = parameterList();
          if (right == null || !eat('E')) {
            return null;
          }
        } else {
          return null;
        }
      }
      Node q = make(kind, null, right);
      if (q == null) {
        return null;
      }
      if (chain.first == null) {
        chain.first = q;
      } else {
        chain.last.left = q;
      }
      chain.last = q;
      c = peek();
    }
    if (!memberFunction && c == 'F') {
      // Qualifiers of a function type qualify its 'this'.
      for (Node q = chain.first; q != null; q = q == chain.last ? null : q.left) {
        switch (q.kind) {
          case Node.RESTRICT:
            q.kind = Node.RESTRICT_THIS;
            break;
          case Node.VOLATILE:
            q.kind = Node.VOLATILE_THIS;
            break;
          case Node.CONST:
            q.kind = Node.CONST_THIS;
            break;
          default:
            break;
        }
      }
    }
    return chain;
  }

  /** R or O after a function's parameters (or at the start of a nested name). */
  private Node refQualifier(Node sub) {
    char c = peek();
    if (c == 'R' || c == 'O') {
      advance(1);
      return make(c == 'R' ? Node.REFERENCE_THIS : Node.RVALUE_REFERENCE_THIS, sub, null);
    }
    return sub;
  }

  /** F [Y] &lt;bare-function-type&gt; [&lt;ref-qualifier&gt;] E. */
  private Node functionType() {
    if (functionNesting > MAX_FUNCTION_NESTING) {
      return null;
    }
    functionNesting++;
    try {
      if (!eat('F')) {
        return null;
      }
      eat('Y'); // extern "C": not printed
      Node ret = bareFunctionType(true);
      ret = refQualifier(ret);
      if (!eat('E')) {
        return null;
      }
      return ret;
    } finally {
      functionNesting--;
    }
  }

  /**
   * A right-linked list of cells of one kind ({@link Node#ARGLIST}, {@link Node#TEMPLATE_ARGLIST}),
   * each holding an item in its left link, built front to back.
   */
  private final class CellList {
    private final int kind;
    Node first;
    private Node last;

    CellList(int kind) {
      this.kind = kind;
    }

    /** Appends a cell holding {@code item}; false when the item or its cell is missing. */
    boolean add(Node item) {
      if (item == null) {
        return false;
      }
      Node cell = make(kind, item, null);
      if (cell == null) {
        return false;
      }
      if (first == null) {
        first = cell;
      } else {
        last.right = cell;
      }
      last = cell;
      return true;
    }
  }

  /** &lt;type&gt;+ up to E, '.' or the end; a lone void becomes an empty list. */
  private Node parameterList() {
    CellList parameters = new CellList(Node.ARGLIST);
    while (true) {
      char c = peek();
      if (c == '\0' || c == 'E' || c == '.') {
        break;
      }
      if ((c == 'R' || c == 'O') && peekNext() == 'E') {
        break; // a ref-qualifier of the function, not a reference parameter
      }
      if (!parameters.add(type())) {
        return null;
      }
    }
    Node first = parameters.first;
    if (first == null) {
      return null;
    }
    if (first.right == null
        && first.left.kind == Node.BUILTIN_TYPE
        && Builtins.PRINT[first.left.num] == Builtins.PRINT_VOID) {
      first.left = null;
    }
    return first;
  }

  /** [J] &lt;type&gt;+: the first type is the return type when the caller says so (or J). */
  private Node bareFunctionType(boolean withReturnType) {
    if (peek() == 'J') {
      advance(1);
      withReturnType = true;
    }
    Node returnType = null;
    if (withReturnType) {
      returnType = type();
      if (returnType == null) {
        return null;
      }
    }
    Node params = parameterList();
    if (params == null) {
      return null;
    }
    return make(Node.FUNCTION_TYPE, returnType, params);
  }

  /** A [&lt;dimension&gt;] _ &lt;element type&gt;. */
  private Node arrayType() {
    if (!eat('A')) {
      return null;
    }
    Node dim;
    char c = peek();
    if (c == '_') {
      dim = null;
    } else if (isDigit(c)) {
      int start = pos;
      do {
        advance(1);
      } while (isDigit(peek()));
      dim = makeName(s, start, pos);
      if (dim == null) {
        return null;
      }
    } else {
      dim = expression();
      if (dim == null) {
        return null;
      }
    }
    if (!eat('_')) {
      return null;
    }
    return make(Node.ARRAY_TYPE, dim, type());
  }

  /** Dv &lt;number&gt; _ &lt;type&gt; or Dv _ &lt;expression&gt; _ &lt;type&gt;. */
  private Node vectorType() {
    Node dim;
    if (peek() == '_') {
      advance(1);
      dim = expression();
    } else {
      dim = numberNode();
    }
    if (dim == null || !eat('_')) {
      return null;
    }
    return make(Node.VECTOR_TYPE, dim, type());
  }

  private Node pointerToMemberType() {
    if (!eat('M')) {
      return null;
    }
    Node cl = type();
    if (cl == null) {
      return null;
    }
    Node member = type();
    if (member == null) {
      return null;
    }
    return make(Node.PTRMEM_TYPE, cl, member);
  }

  /** [&lt;number&gt;] _ as number + 1 (0 for a lone _), or -1. */
  private int compactNumber() {
    int num;
    if (peek() == '_') {
      num = 0;
    } else if (peek() == 'n') {
      return -1;
    } else {
      num = number() + 1;
    }
    if (num < 0 || !eat('_')) {
      return -1;
    }
    return num;
  }

  private Node templateParam() {
    if (!eat('T')) {
      return null;
    }
    int param = compactNumber();
    if (param < 0) {
      return null;
    }
    return makeNumbered(Node.TEMPLATE_PARAM, param);
  }

  /** I (or J) &lt;template-arg&gt;* E. */
  private Node templateArgs() {
    if (peek() != 'I' && peek() != 'J') {
      return null;
    }
    advance(1);
    return templateArgsRest();
  }

  private Node templateArgsRest() {
    if (!enter()) {
      return null;
    }
    try {
      // The arguments' names must not become the last name a constructor is named after.
      Node holdLastName = lastName;
      if (peek() == 'E') {
        advance(1); // an empty argument pack
        return make(Node.TEMPLATE_ARGLIST, null, null);
      }
      CellList args = new CellList(Node.TEMPLATE_ARGLIST);
      while (true) {
        if (!args.add(templateArg())) {
          return null;
        }
        if (peek() == 'E') {
          advance(1);
          break;
        }
      }
      lastName = holdLastName;
      return args.first;
    } finally {
      depth--;
    }
  }

  private Node templateArg() {
    switch (peek()) {
      case 'X':
        {
          advance(1);
          Node ret = expression();
          if (!eat('E')) {
            return null;
          }
          return ret;
        }
      case 'L':
        return exprPrimary();
      case 'I':
      case 'J':
        return templateArgs(); // an argument pack
      default:
        return type();
    }
  }

  // ---- expressions ------------------------------------------------------------------------

  private Node expressionList(char terminator) {
    if (peek() == terminator) {
      advance(1);
      return make(Node.ARGLIST, null, null);
    }
    CellList args = new CellList(Node.ARGLIST);
    while (true) {
      if (!args.add(expression())) {
        return null;
      }
      if (peek() == terminator) {
        advance(1);
        return args.first;
      }
    }
  }

  /** const_cast, dynamic_cast, static_cast, reinterpret_cast. */
  static boolean isNewCast(Node op) {
    if (op.kind != Node.OPERATOR) {
      return false;
    }
    String code = Operators.CODE[op.num];
    char c0 = code.charAt(0);
    return code.charAt(1) == 'c' && (c0 == 's' || c0 == 'd' || c0 == 'c' || c0 == 'r');
  }

  private Node expression() {
    boolean wasExpression = isExpression;
    isExpression = true;
    Node ret = expression1();
    isExpression = wasExpression;
    return ret;
  }

  private Node expression1() {
    if (!enter()) {
      return null;
    }
    try {
      return expression2();
    } finally {
      depth--;
    }
  }

  private Node expression2() {
    char c = peek();
    char d = peekNext();
    if (c == 'L') {
      return exprPrimary();
    }
    if (c == 'T') {
      return templateParam();
    }
    if (c == 's' && d == 'r') {
      // sr <unresolved-qualifier-level>+ E <base-unresolved-name> is ambiguous with the older
      // sr <type> <base-unresolved-name> (A::x was sr1A1x, is now sr1AE1x): the newer form is
      // tried first, and the whole name parsed again with the older one if that fails.
      advance(2);
      char p = peek();
      Node t;
      if (unresolvedNameState != 0
          && (isDigit(p) || isLower(p) || p == 'C' || p == 'U' || p == 'L')) {
        unresolvedNameState = -1;
        t = prefix(false);
        eat('E');
      } else {
        t = type();
      }
      Node n = unqualifiedName(t, null);
      if (peek() == 'I') {
        n = make(Node.TEMPLATE, n, templateArgs());
      }
      return n;
    }
    if (c == 's' && d == 'p') {
      advance(2);
      return make(Node.PACK_EXPANSION, expression1(), null);
    }
    if (c == 'f' && d == 'p') {
      // A function parameter, in a late-specified return type.
      advance(2);
      int index;
      if (peek() == 'T') {
        advance(1);
        index = 0;
      } else {
        index = compactNumber();
        if (index == Integer.MAX_VALUE || index == -1) {
          return null;
        }
        index++;
      }
      return makeNumbered(Node.FUNCTION_PARAM, index);
    }
    if (isDigit(c) || (c == 'o' && d == 'n')) {
      // An unqualified name, as in a dependent call decltype(f(t)); on: operator-function-id.
      if (c == 'o') {
        advance(2);
      }
      Node n = unqualifiedName(null, null);
      if (n == null) {
        return null;
      }
      if (peek() == 'I') {
        return make(Node.TEMPLATE, n, templateArgs());
      }
      return n;
    }
    if ((c == 'i' || c == 't') && d == 'l') {
      // A braced initializer list, untyped (il) or typed (tl).
      advance(2);
      Node t = null;
      if (c == 't') {
        t = type();
      }
      if (peek() == '\0' || peekNext() == '\0') {
        return null;
      }
      return make(Node.INITIALIZER_LIST, t, expressionList('E'));
    }
    if (c == 'u') {
      // A vendor extended expression: u <source-name> <template-arg>* E.
      advance(1);
      Node n = sourceName();
      Node args = templateArgsRest();
      return make(Node.VENDOR_EXPR, n, args);
    }

    Node op = operatorName();
    if (op == null) {
      return null;
    }
    String code = null;
    if (op.kind == Node.OPERATOR) {
      code = Operators.CODE[op.num];
      if (code.equals("st")) {
        return make(Node.UNARY, op, type());
      }
    }
    int args;
    switch (op.kind) {
      case Node.OPERATOR:
        args = Operators.ARITY[op.num];
        break;
      case Node.EXTENDED_OPERATOR:
        args = op.num;
        break;
      case Node.CAST:
        args = 1;
        break;
      default:
        return null;
    }
    switch (args) {
      case 0:
        return make(Node.NULLARY, op, null);
      case 1:
        {
          boolean suffix = false;
          if (code != null && (code.equals("pp") || code.equals("mm"))) {
            suffix = !eat('_'); // pp_ and mm_ are the prefix forms
          }
          Node operand;
          if (op.kind == Node.CAST && eat('_')) {
            operand = expressionList('E');
          } else if (code != null && code.equals("sP")) {
            operand = templateArgsRest();
          } else {
            operand = expression1();
          }
          if (suffix) {
            operand = make(Node.BINARY_ARGS, operand, operand); // marks the suffix form
          }
          return make(Node.UNARY, op, operand);
        }
      case 2:
        {
          if (code == null) {
            return null;
          }
          Node left;
          Node right;
          if (isNewCast(op)) {
            left = type();
          } else if (code.charAt(0) == 'f') {
            left = operatorName(); // a fold expression's operator
          } else if (code.equals("di")) {
            left = unqualifiedName(null, null);
          } else {
            left = expression1();
          }
          if (code.equals("cl")) {
            right = expressionList('E');
          } else if (code.equals("dt") || code.equals("pt")) {
            char p = peek();
            char q = peekNext();
            if ((p == 'g' && q == 's') || (p == 's' && q == 'r')) {
              right = expression1();
            } else {
              right = unqualifiedName(null, null);
              if (peek() == 'I') {
                right = make(Node.TEMPLATE, right, templateArgs());
              }
            }
          } else {
            right = expression1();
          }
          return make(Node.BINARY, op, make(Node.BINARY_ARGS, left, right));
        }
      case 3:
        {
          if (code == null) {
            return null;
          }
          Node first;
          Node second;
          Node third;
          if (code.equals("qu") || code.equals("dX")) {
            first = expression1();
            second = expression1();
            third = expression1();
            if (third == null) {
              return null;
            }
          } else if (code.charAt(0) == 'f') {
            first = operatorName(); // a binary fold expression
            second = expression1();
            third = expression1();
            if (third == null) {
              return null;
            }
          } else if (code.charAt(0) == 'n') {
            // new and new[]: [placement] _ type [initializer] E
            first = expressionList('_');
            second = type();
            if (peek() == 'E') {
              advance(1);
              third = null;
            } else if (peek() == 'p' && peekNext() == 'i') {
              advance(2);
              third = expressionList('E');
            } else if (peek() == 'i' && peekNext() == 'l') {
              third = expression1();
            } else {
              return null;
            }
          } else {
            return null;
          }
          return make(
              Node.TRINARY,
              op,
              make(Node.TRINARY_ARG1, first, make(Node.TRINARY_ARG2, second, third)));
        }
      default:
        return null;
    }
  }

  /** L &lt;type&gt; &lt;value&gt; E, or L &lt;mangled-name&gt; E. */
  private Node exprPrimary() {
    if (!eat('L')) {
      return null;
    }
    Node ret;
    if (peek() == '_' || peek() == 'Z') {
      // 'Z' without '_': a G++ bug that old binaries carry.
      ret = mangledName(false);
    } else {
      Node t = type();
      if (t == null) {
        return null;
      }
      if (t.kind == Node.BUILTIN_TYPE && t.num == Builtins.NULLPTR && peek() == 'E') {
        advance(1);
        return t;
      }
      int kind = Node.LITERAL;
      if (peek() == 'n') {
        kind = Node.LITERAL_NEG;
        advance(1);
      }
      // The value is kept as text, whatever its type (floating point values are hex digits).
      int start = pos;
      while (peek() != 'E') {
        if (peek() == '\0') {
          return null;
        }
        advance(1);
      }
      ret = make(kind, t, makeName(s, start, pos));
    }
    if (!eat('E')) {
      return null;
    }
    return ret;
  }

  /** Z &lt;function encoding&gt; E &lt;entity&gt; [&lt;discriminator&gt;]. */
  private Node localName() {
    if (!eat('Z')) {
      return null;
    }
    Node function = encoding(false);
    if (function == null || !eat('E')) {
      return null;
    }
    Node name;
    if (peek() == 's') {
      advance(1);
      if (!discriminator()) {
        return null;
      }
      name = makeName(STRING_LITERAL);
    } else {
      int num = -1;
      if (peek() == 'd') {
        // Default argument scope: d [<parameter number>] _
        advance(1);
        num = compactNumber();
        if (num < 0) {
          return null;
        }
      }
      name = name(false);
      // Lambdas and unnamed types carry their own numbers, and are not followed by one.
      if (name != null
          && name.kind != Node.LAMBDA
          && name.kind != Node.UNNAMED_TYPE
          && !discriminator()) {
        return null;
      }
      if (num >= 0) {
        Node arg = makeNumbered(Node.DEFAULT_ARG, num);
        if (arg != null) {
          arg.left = name;
        }
        name = arg;
      }
    }
    // The enclosing function's return type is not printed: it would read as the local
    // entity's.
    if (function.kind == Node.TYPED_NAME && function.right.kind == Node.FUNCTION_TYPE) {
      function.right.left = null;
    }
    return make(Node.LOCAL_NAME, function, name);
  }

  /** _ &lt;digit&gt; or __ &lt;number&gt; _: read and dropped (c++filt does not print it). */
  private boolean discriminator() {
    if (peek() != '_') {
      return true;
    }
    advance(1);
    boolean twoUnderscores = false;
    if (peek() == '_') {
      twoUnderscores = true;
      advance(1);
    }
    int discriminator = number();
    if (discriminator < 0) {
      return false;
    }
    if (twoUnderscores && discriminator >= 10) {
      return eat('_');
    }
    return true;
  }

  /** A template parameter of a lambda's template head: Ty, Tn &lt;type&gt;, Tt ... E, Tp. */
  private Node templateParmDecl(boolean[] bad) {
    if (peek() != 'T') {
      return null;
    }
    Node op;
    int kind;
    switch (peekNext()) {
      case 'p':
        advance(2);
        op = templateParmDecl(bad);
        kind = Node.TEMPLATE_PACK_PARM;
        if (op == null) {
          bad[0] = true;
          return null;
        }
        break;
      case 'y':
        advance(2);
        op = null;
        kind = Node.TEMPLATE_TYPE_PARM;
        break;
      case 'n':
        advance(2);
        op = type();
        kind = Node.TEMPLATE_NON_TYPE_PARM;
        if (op == null) {
          bad[0] = true;
          return null;
        }
        break;
      case 't':
        advance(2);
        op = templateHead(bad);
        kind = Node.TEMPLATE_TEMPLATE_PARM;
        if (op == null || !eat('E')) {
          bad[0] = true;
          return null;
        }
        break;
      default:
        return null;
    }
    return make(kind, op, null);
  }

  private Node templateHead(boolean[] bad) {
    if (!enter()) {
      bad[0] = true;
      return null;
    }
    try {
      Node first = null;
      Node last = null;
      Node op;
      while ((op = templateParmDecl(bad)) != null) {
        if (first == null) {
          first = op;
        } else {
          last.right = op;
        }
        last = op;
      }
      if (first == null) {
        return null;
      }
      return make(Node.TEMPLATE_HEAD, first, null);
    } finally {
      depth--;
    }
  }

  /** Ul [&lt;template-head&gt;] &lt;lambda-sig&gt; E [&lt;number&gt;] _. */
  private Node lambda() {
    if (!eat('U') || !eat('l')) {
      return null;
    }
    boolean[] bad = {false};
    Node head = templateHead(bad);
    if (bad[0]) {
      return null;
    }
    Node params = parameterList();
    if (params == null) {
      return null;
    }
    if (head != null) {
      head.right = params;
      params = head;
    }
    if (!eat('E')) {
      return null;
    }
    int num = compactNumber();
    if (num < 0) {
      return null;
    }
    Node ret = makeNumbered(Node.LAMBDA, num);
    if (ret != null) {
      ret.left = params;
    }
    return ret;
  }

  /** Ut [&lt;number&gt;] _, itself a substitution candidate. */
  private Node unnamedType() {
    if (!eat('U') || !eat('t')) {
      return null;
    }
    int num = compactNumber();
    if (num < 0) {
      return null;
    }
    Node ret = makeNumbered(Node.UNNAMED_TYPE, num);
    if (!addSubstitution(ret)) {
      return null;
    }
    return ret;
  }

  /** A GCC clone suffix: .name (letters, digits, _) then any number of .digits. */
  private Node cloneSuffix(Node encoding) {
    int start = pos;
    int p = pos;
    if (p + 1 < end && charAt(p) == '.') {
      char c = charAt(p + 1);
      if (isLower(c) || isDigit(c) || c == '_') {
        p += 2;
        while (p < end && (isLower(charAt(p)) || isDigit(charAt(p)) || charAt(p) == '_')) {
          p++;
        }
      }
    }
    while (p + 1 < end && charAt(p) == '.' && isDigit(charAt(p + 1))) {
      p += 2;
      while (p < end && isDigit(charAt(p))) {
        p++;
      }
    }
    pos = p;
    return make(Node.CLONE, encoding, makeName(s, start, p));
  }

  // ---- substitutions ----------------------------------------------------------------------

  /** code, printed form (c++filt runs libiberty in verbose mode), name for constructors. */
  private static final String[][] STANDARD = {
    {"t", "std", null},
    {"a", "std::allocator", "allocator"},
    {"b", "std::basic_string", "basic_string"},
    {"s", "std::basic_string<char, std::char_traits<char>, std::allocator<char> >", "basic_string"},
    {"i", "std::basic_istream<char, std::char_traits<char> >", "basic_istream"},
    {"o", "std::basic_ostream<char, std::char_traits<char> >", "basic_ostream"},
    {"d", "std::basic_iostream<char, std::char_traits<char> >", "basic_iostream"},
  };

  private static final char[][] STANDARD_PRINTED = new char[STANDARD.length][];
  private static final char[][] STANDARD_CTOR_NAME = new char[STANDARD.length][];

  static {
    for (int i = 0; i < STANDARD.length; i++) {
      STANDARD_PRINTED[i] = STANDARD[i][1].toCharArray();
      STANDARD_CTOR_NAME[i] = STANDARD[i][2] == null ? null : STANDARD[i][2].toCharArray();
    }
  }

  /** S_, S &lt;base 36&gt; _, or one of the standard abbreviations St Sa Sb Ss Si So Sd. */
  private Node substitution() {
    if (!eat('S')) {
      return null;
    }
    char c = next();
    if (c == '_' || isDigit(c) || isUpper(c)) {
      long id = 0;
      if (c != '_') {
        do {
          if (isDigit(c)) {
            id = id * 36 + (c - '0');
          } else if (isUpper(c)) {
            id = id * 36 + (c - 'A' + 10);
          } else {
            return null;
          }
          if (id > Integer.MAX_VALUE) {
            return null;
          }
          c = next();
        } while (c != '_');
        id++;
      }
      if (id >= subCount) {
        return null;
      }
      return subs[(int) id];
    }
    for (int i = 0; i < STANDARD.length; i++) {
      if (c == STANDARD[i][0].charAt(0)) {
        if (STANDARD_CTOR_NAME[i] != null) {
          lastName = makeStd(STANDARD_CTOR_NAME[i]);
        }
        Node dc = makeStd(STANDARD_PRINTED[i]);
        if (peek() == 'B') {
          // With ABI tags the abbreviation becomes a candidate.
          dc = abiTags(dc);
          if (!addSubstitution(dc)) {
            return null;
          }
        }
        return dc;
      }
    }
    return null;
  }
}
