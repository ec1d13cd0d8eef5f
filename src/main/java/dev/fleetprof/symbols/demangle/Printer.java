package dev.fleetprof.symbols.demangle;

/**
 * Prints a parsed name the way c++filt (GNU libiberty, binutils 2.40, verbose) does. C++ declarator
 * syntax puts parts of a type on both sides of the name ({@code int (*f)(char)}), so pointers,
 * references, qualifiers, array bounds and function parameter lists travel down the tree as a stack
 * of pending "modifiers" that the innermost type prints where they belong. Template parameters are
 * printed as the arguments they stand for, looked up in a stack of enclosing templates.
 *
 * <p>The printer mirrors libiberty's structure closely, because its quirks are part of the output
 * (where spaces go, when {@code > >} gets a space, which names fail). It gives up (result null)
 * where libiberty does, and also when the output or the work grows beyond fixed bounds: shared
 * substitutions can make a short name print exponentially long, which c++filt would attempt.
 */
final class Printer {
  /** libiberty's MAX_RECURSION_COUNT: deeper nesting fails the name. */
  private static final int MAX_RECURSION = 1024;

  /** Longer results are given up (a 1024-character name prints far less unless it is hostile). */
  static final int MAX_OUTPUT = 1 << 20;

  /** Nodes visited (printed or searched for packs) before giving up. */
  static final int MAX_STEPS = 1 << 22;

  /** The templates whose arguments template parameters currently refer to, innermost first. */
  private static final class Tpl {
    final Node decl;
    final Tpl next;

    Tpl(Node decl, Tpl next) {
      this.decl = decl;
      this.next = next;
    }
  }

  /** A pending modifier: printed by whatever type is reached first, or else by its owner. */
  private static final class Mod {
    Node mod;
    boolean printed;
    Tpl templates;
    Mod next;

    Mod(Node mod, Tpl templates, Mod next) {
      this.mod = mod;
      this.templates = templates;
      this.next = next;
    }
  }

  /** The templates in force when a reference to a template parameter was first printed. */
  private static final class SavedScope {
    final Node container;
    final Tpl templates;
    final SavedScope next;

    SavedScope(Node container, Tpl templates, SavedScope next) {
      this.container = container;
      this.templates = templates;
      this.next = next;
    }
  }

  private final StringBuilder out;

  /** The last character appended; not always out's last one (see the argument lists). */
  private char last;

  private boolean failed;
  private int recursion;
  private int steps;
  private Tpl templates;
  private Mod modifiers;
  private int packIndex;

  /** 0 outside a lambda's signature; else 1 + the number of the lambda's template parameters. */
  private int lambdaTemplateParms;

  private Node currentTemplate;
  private SavedScope savedScopes;

  /** The nodes being printed, outermost first. */
  private Node[] stack = new Node[64];

  private int stackSize;

  private Printer(StringBuilder out) {
    this.out = out;
  }

  /** Appends the printed name to {@code out}; false (with out in any state) when it fails. */
  static boolean print(Node root, StringBuilder out) {
    Printer p = new Printer(out);
    p.printComp(root);
    return !p.failed;
  }

  // ---- output -----------------------------------------------------------------------------

  private void append(char c) {
    if (out.length() >= MAX_OUTPUT) {
      failed = true;
      return;
    }
    out.append(c);
    last = c;
  }

  private void append(String s) {
    append(s, 0, s.length());
  }

  private void append(String s, int start, int end) {
    if (end <= start) {
      return;
    }
    if (out.length() + (end - start) > MAX_OUTPUT) {
      failed = true;
      return;
    }
    out.append(s, start, end);
    last = s.charAt(end - 1);
  }

  private void append(char[] s, int start, int end) {
    if (end <= start) {
      return;
    }
    if (out.length() + (end - start) > MAX_OUTPUT) {
      failed = true;
      return;
    }
    out.append(s, start, end - start);
    last = s[end - 1];
  }

  private void appendNum(int n) {
    append(Integer.toString(n));
  }

  // ---- the tree walk ----------------------------------------------------------------------

  private void printComp(Node dc) {
    if (dc == null || dc.printing > 1 || recursion > MAX_RECURSION || ++steps > MAX_STEPS) {
      failed = true;
      return;
    }
    dc.printing++;
    recursion++;
    if (stackSize == stack.length) {
      stack = java.util.Arrays.copyOf(stack, stackSize * 2);
    }
    stack[stackSize++] = dc;
    printInner(dc);
    stackSize--;
    dc.printing--;
    recursion--;
  }

  private void printInner(Node dc) {
    if (failed) {
      return;
    }
    switch (dc.kind) {
      case Node.NAME:
      case Node.SUB_STD:
        append(dc.text, dc.start, dc.end);
        return;
      case Node.TAGGED_NAME:
        printComp(dc.left);
        append("[abi:");
        printComp(dc.right);
        append(']');
        return;
      case Node.STRUCTURED_BINDING:
        append('[');
        for (Node b = dc; ; ) {
          printComp(b.left);
          b = b.right;
          if (b == null) {
            break;
          }
          append(", ");
        }
        append(']');
        return;
      case Node.MODULE_ENTITY:
        printComp(dc.left);
        append('@');
        printComp(dc.right);
        return;
      case Node.MODULE_NAME:
      case Node.MODULE_PARTITION:
        if (dc.left != null) {
          printComp(dc.left);
        }
        if (dc.kind == Node.MODULE_PARTITION) {
          append(':');
        } else if (dc.left != null) {
          append('.');
        }
        printComp(dc.right);
        return;
      case Node.QUAL_NAME:
      case Node.LOCAL_NAME:
        {
          printComp(dc.left);
          append("::");
          Node local = dc.right;
          if (local != null && local.kind == Node.DEFAULT_ARG) {
            append("{default arg#");
            appendNum(local.num + 1);
            append("}::");
            local = local.left;
          }
          printComp(local);
          return;
        }
      case Node.TYPED_NAME:
        printTypedName(dc);
        return;
      case Node.TEMPLATE:
        {
          // A template is printed as a name: pending modifiers must not reach its arguments.
          Node holdCurrent = currentTemplate;
          currentTemplate = dc;
          Mod holdModifiers = modifiers;
          modifiers = null;
          printComp(dc.left);
          printTemplateArgs(dc.right);
          modifiers = holdModifiers;
          currentTemplate = holdCurrent;
          return;
        }
      case Node.TEMPLATE_PARAM:
        printTemplateParam(dc);
        return;
      case Node.TPARM_OBJ:
        append("template parameter object for ");
        printComp(dc.left);
        return;
      case Node.CTOR:
        printComp(dc.left);
        return;
      case Node.DTOR:
        append('~');
        printComp(dc.left);
        return;
      case Node.MODULE_INIT:
        append("initializer for module ");
        printComp(dc.left);
        return;
      case Node.VTABLE:
        prefixed("vtable for ", dc.left);
        return;
      case Node.VTT:
        prefixed("VTT for ", dc.left);
        return;
      case Node.CONSTRUCTION_VTABLE:
        append("construction vtable for ");
        printComp(dc.left);
        append("-in-");
        printComp(dc.right);
        return;
      case Node.TYPEINFO:
        prefixed("typeinfo for ", dc.left);
        return;
      case Node.TYPEINFO_NAME:
        prefixed("typeinfo name for ", dc.left);
        return;
      case Node.TYPEINFO_FN:
        prefixed("typeinfo fn for ", dc.left);
        return;
      case Node.THUNK:
        prefixed("non-virtual thunk to ", dc.left);
        return;
      case Node.VIRTUAL_THUNK:
        prefixed("virtual thunk to ", dc.left);
        return;
      case Node.COVARIANT_THUNK:
        prefixed("covariant return thunk to ", dc.left);
        return;
      case Node.JAVA_CLASS:
        prefixed("java Class for ", dc.left);
        return;
      case Node.GUARD:
        prefixed("guard variable for ", dc.left);
        return;
      case Node.TLS_INIT:
        prefixed("TLS init function for ", dc.left);
        return;
      case Node.TLS_WRAPPER:
        prefixed("TLS wrapper function for ", dc.left);
        return;
      case Node.REFTEMP:
        append("reference temporary #");
        printComp(dc.right);
        append(" for ");
        printComp(dc.left);
        return;
      case Node.HIDDEN_ALIAS:
        prefixed("hidden alias for ", dc.left);
        return;
      case Node.TRANSACTION_CLONE:
        prefixed("transaction clone for ", dc.left);
        return;
      case Node.NONTRANSACTION_CLONE:
        prefixed("non-transaction clone for ", dc.left);
        return;
      case Node.RESTRICT:
      case Node.VOLATILE:
      case Node.CONST:
        // An array's qualifiers can be pushed more than once; print each only once.
        for (Mod p = modifiers; p != null; p = p.next) {
          if (!p.printed) {
            if (!isCv(p.mod.kind)) {
              break;
            }
            if (p.mod.kind == dc.kind) {
              printComp(dc.left);
              return;
            }
          }
        }
        printModifier(dc, null, false, null);
        return;
      case Node.REFERENCE:
      case Node.RVALUE_REFERENCE:
        printReference(dc);
        return;
      case Node.VENDOR_TYPE_QUAL:
      case Node.POINTER:
      case Node.COMPLEX:
      case Node.IMAGINARY:
      case Node.RESTRICT_THIS:
      case Node.VOLATILE_THIS:
      case Node.CONST_THIS:
      case Node.REFERENCE_THIS:
      case Node.RVALUE_REFERENCE_THIS:
      case Node.TRANSACTION_SAFE:
      case Node.NOEXCEPT:
      case Node.THROW_SPEC:
        printModifier(dc, null, false, null);
        return;
      case Node.BUILTIN_TYPE:
        append(Builtins.NAMES[dc.num]);
        return;
      case Node.EXTENDED_BUILTIN_TYPE:
        append(Builtins.NAMES[Builtins.FLOAT_N]);
        appendNum(dc.num);
        if (dc.text != null) {
          append(dc.text, 0, dc.text.length);
        }
        return;
      case Node.VENDOR_TYPE:
        printComp(dc.left);
        return;
      case Node.FUNCTION_TYPE:
        if (dc.left != null) {
          // The return type goes first, unless it is itself a declarator that has to wrap us
          // (a function returning a function pointer): then it prints us via the modifier.
          Mod m = new Mod(dc, templates, modifiers);
          modifiers = m;
          printComp(dc.left);
          modifiers = m.next;
          if (m.printed) {
            return;
          }
          append(' ');
        }
        printFunctionType(dc, modifiers);
        return;
      case Node.ARRAY_TYPE:
        printArray(dc);
        return;
      case Node.PTRMEM_TYPE:
      case Node.VECTOR_TYPE:
        {
          Mod m = new Mod(dc, templates, modifiers);
          modifiers = m;
          printComp(dc.right);
          if (!m.printed) {
            printMod(dc);
          }
          modifiers = m.next;
          return;
        }
      case Node.ARGLIST:
      case Node.TEMPLATE_ARGLIST:
        if (dc.left != null) {
          printComp(dc.left);
        }
        if (dc.right != null) {
          append(", ");
          int length = out.length();
          printComp(dc.right);
          // An empty argument pack printed nothing: take the separator back (c++filt keeps
          // remembering the space as the last character).
          if (out.length() == length) {
            out.setLength(length - 2);
          }
        }
        return;
      case Node.INITIALIZER_LIST:
        if (dc.left != null) {
          printComp(dc.left);
        }
        append('{');
        printComp(dc.right);
        append('}');
        return;
      case Node.OPERATOR:
        {
          String name = Operators.SPELLING[dc.num];
          append("operator");
          char first = name.charAt(0);
          if (first >= 'a' && first <= 'z') {
            append(' '); // operator new, operator delete[] ...
          }
          int len = name.length();
          if (name.charAt(len - 1) == ' ') {
            len--;
          }
          append(name, 0, len);
          return;
        }
      case Node.EXTENDED_OPERATOR:
        append("operator ");
        printComp(dc.left);
        return;
      case Node.CONVERSION:
        append("operator ");
        printConversion(dc);
        return;
      case Node.NULLARY:
        printExprOp(dc.left);
        return;
      case Node.UNARY:
        printUnary(dc);
        return;
      case Node.BINARY:
        printBinary(dc);
        return;
      case Node.TRINARY:
        printTrinary(dc);
        return;
      case Node.LITERAL:
      case Node.LITERAL_NEG:
        printLiteral(dc);
        return;
      case Node.VENDOR_EXPR:
        printComp(dc.left);
        append('(');
        printComp(dc.right);
        append(')');
        return;
      case Node.NUMBER:
        appendNum(dc.num);
        return;
      case Node.JAVA_RESOURCE:
        prefixed("java resource ", dc.left);
        return;
      case Node.COMPOUND_NAME:
        printComp(dc.left);
        printComp(dc.right);
        return;
      case Node.CHARACTER:
        append((char) dc.num);
        return;
      case Node.DECLTYPE:
        append("decltype (");
        printComp(dc.left);
        append(')');
        return;
      case Node.PACK_EXPANSION:
        printPackExpansion(dc);
        return;
      case Node.FUNCTION_PARAM:
        if (dc.num == 0) {
          append("this");
        } else {
          append("{parm#");
          appendNum(dc.num);
          append('}');
        }
        return;
      case Node.GLOBAL_CONSTRUCTORS:
        prefixed("global constructors keyed to ", dc.left);
        return;
      case Node.GLOBAL_DESTRUCTORS:
        prefixed("global destructors keyed to ", dc.left);
        return;
      case Node.LAMBDA:
        printLambda(dc);
        return;
      case Node.UNNAMED_TYPE:
        append("{unnamed type#");
        appendNum(dc.num + 1);
        append('}');
        return;
      case Node.CLONE:
        printComp(dc.left);
        append(" [clone ");
        printComp(dc.right);
        append(']');
        return;
      case Node.TEMPLATE_HEAD:
        {
          append('<');
          int count = 0;
          for (Node parm = dc.left; parm != null; parm = parm.right) {
            if (count++ > 0) {
              append(", ");
            }
            printComp(parm);
          }
          append('>');
          return;
        }
      case Node.TEMPLATE_TYPE_PARM:
        append("typename");
        return;
      case Node.TEMPLATE_NON_TYPE_PARM:
        printComp(dc.left);
        return;
      case Node.TEMPLATE_TEMPLATE_PARM:
        append("template");
        printComp(dc.left);
        append(" class");
        return;
      case Node.TEMPLATE_PACK_PARM:
        printComp(dc.left);
        append("...");
        return;
      default:
        failed = true;
    }
  }

  private void prefixed(String text, Node dc) {
    append(text);
    printComp(dc);
  }

  private static boolean isCv(int kind) {
    return kind == Node.RESTRICT || kind == Node.VOLATILE || kind == Node.CONST;
  }

  /** '&lt;' args '&gt;', keeping '&lt;' and '&gt;' from doubling into '&lt;&lt;' or '&gt;&gt;'. */
  private void printTemplateArgs(Node args) {
    if (last == '<') {
      append(' ');
    }
    append('<');
    printComp(args);
    if (last == '>') {
      append(' ');
    }
    append('>');
  }

  /**
   * A function's name with its type: the name and any qualifiers of 'this' become modifiers, so
   * that the type prints the name between its return type and its parameters.
   */
  private void printTypedName(Node dc) {
    Mod holdModifiers = modifiers;
    modifiers = null;
    Mod[] pending = new Mod[4];
    int i = 0;
    Node typedName = dc.left;
    while (typedName != null) {
      if (i >= pending.length) {
        failed = true;
        return;
      }
      pending[i] = new Mod(typedName, templates, modifiers);
      modifiers = pending[i];
      i++;
      if (!Node.isFunctionQualifier(typedName.kind)) {
        break;
      }
      typedName = typedName.left;
    }
    if (typedName == null) {
      failed = true;
      return;
    }
    // A member function of a local class: its qualifiers sit inside the local name, but
    // qualify the whole function. Slot them in just below the local name.
    if (typedName.kind == Node.LOCAL_NAME) {
      typedName = typedName.right;
      if (typedName != null && typedName.kind == Node.DEFAULT_ARG) {
        typedName = typedName.left;
      }
      while (typedName != null && Node.isFunctionQualifier(typedName.kind)) {
        if (i >= pending.length) {
          failed = true;
          return;
        }
        Mod below = pending[i - 1];
        Mod top = new Mod(below.mod, below.templates, below);
        top.printed = below.printed;
        pending[i] = top;
        modifiers = top;
        below.mod = typedName;
        below.printed = false;
        below.templates = templates;
        i++;
        typedName = typedName.left;
      }
      if (typedName == null) {
        failed = true;
        return;
      }
    }
    // A template function's parameter and return types refer to its template arguments.
    boolean isTemplate = typedName.kind == Node.TEMPLATE;
    Tpl holdTemplates = templates;
    if (isTemplate) {
      templates = new Tpl(typedName, templates);
    }
    printComp(dc.right);
    if (isTemplate) {
      templates = holdTemplates;
    }
    while (i > 0) {
      --i;
      if (!pending[i].printed) {
        append(' ');
        printMod(pending[i].mod);
      }
    }
    modifiers = holdModifiers;
  }

  private void printTemplateParam(Node dc) {
    if (lambdaTemplateParms > dc.num + 1) {
      // A parameter of the lambda's own template head: $T0, $N1, $TT2 as g++ spells them.
      Node a = templates == null || templates.decl == null ? null : templates.decl.left;
      for (int c = dc.num; a != null && c > 0; c--) {
        a = a.right;
      }
      if (a != null && a.kind == Node.TEMPLATE_PACK_PARM) {
        a = a.left;
      }
      if (a == null) {
        failed = true;
      } else {
        printLambdaParmName(a.kind, dc.num);
      }
    } else if (lambdaTemplateParms != 0) {
      // A generic lambda's auto parameter is mangled as the template parameter it invents.
      append("auto:");
      appendNum(dc.num + 1);
    } else {
      Node a = lookupTemplateArgument(dc);
      if (a != null && a.kind == Node.TEMPLATE_ARGLIST) {
        a = indexTemplateArgument(a, packIndex);
      }
      if (a == null) {
        failed = true;
        return;
      }
      // The argument may itself refer to the parameters of an enclosing template.
      Tpl hold = templates;
      templates = hold.next;
      printComp(a);
      templates = hold;
    }
  }

  private void printLambdaParmName(int kind, int index) {
    switch (kind) {
      case Node.TEMPLATE_TYPE_PARM:
        append("$T");
        break;
      case Node.TEMPLATE_NON_TYPE_PARM:
        append("$N");
        break;
      case Node.TEMPLATE_TEMPLATE_PARM:
        append("$TT");
        break;
      default:
        failed = true;
        return;
    }
    appendNum(index);
  }

  /** A reference, collapsing references to references (&amp; with &amp;&amp; is &amp;). */
  private void printReference(Node dc) {
    Node sub = dc.left;
    Node inner = null;
    boolean restoreTemplates = false;
    Tpl savedTemplates = null;
    if (lambdaTemplateParms == 0 && sub.kind == Node.TEMPLATE_PARAM) {
      SavedScope scope = savedScope(sub);
      if (scope == null) {
        // First time through: remember the templates, for when the same parameter is reached
        // again through a substitution from elsewhere.
        savedScopes = new SavedScope(sub, templates, savedScopes);
      } else {
        boolean foundSelfOrParent = false;
        for (int i = stackSize - 1; i >= 0; i--) {
          if (stack[i] == sub || (stack[i] == dc && i != stackSize - 1)) {
            foundSelfOrParent = true;
            break;
          }
        }
        if (!foundSelfOrParent) {
          savedTemplates = templates;
          templates = scope.templates;
          restoreTemplates = true;
        }
      }
      Node a = lookupTemplateArgument(sub);
      if (a != null && a.kind == Node.TEMPLATE_ARGLIST) {
        a = indexTemplateArgument(a, packIndex);
      }
      if (a == null) {
        if (restoreTemplates) {
          templates = savedTemplates;
        }
        failed = true;
        return;
      }
      sub = a;
    }
    Node effective = dc;
    if (sub.kind == Node.REFERENCE || sub.kind == dc.kind) {
      effective = sub;
    } else if (sub.kind == Node.RVALUE_REFERENCE) {
      inner = sub.left;
    }
    printModifier(effective, inner, restoreTemplates, savedTemplates);
  }

  private SavedScope savedScope(Node container) {
    for (SavedScope s = savedScopes; s != null; s = s.next) {
      if (s.container == container) {
        return s;
      }
    }
    return null;
  }

  /** Pushes dc as a modifier, prints what it modifies, and prints dc if nobody else did. */
  private void printModifier(Node dc, Node inner, boolean restoreTemplates, Tpl savedTemplates) {
    Mod m = new Mod(dc, templates, modifiers);
    modifiers = m;
    printComp(inner != null ? inner : dc.left);
    if (!m.printed) {
      printMod(dc);
    }
    modifiers = m.next;
    if (restoreTemplates) {
      templates = savedTemplates;
    }
  }

  private void printArray(Node dc) {
    // Multi-dimensional arrays print their bounds together; a qualified array's qualifiers are
    // printed as the element type's, so they are copied down.
    Mod holdModifiers = modifiers;
    Mod[] pending = new Mod[4];
    pending[0] = new Mod(dc, templates, holdModifiers);
    modifiers = pending[0];
    int i = 1;
    for (Mod p = holdModifiers; p != null && isCv(p.mod.kind); p = p.next) {
      if (!p.printed) {
        if (i >= pending.length) {
          failed = true;
          return;
        }
        pending[i] = new Mod(p.mod, p.templates, modifiers);
        modifiers = pending[i];
        p.printed = true;
        i++;
      }
    }
    printComp(dc.right);
    modifiers = holdModifiers;
    if (pending[0].printed) {
      return;
    }
    while (i > 1) {
      --i;
      printMod(pending[i].mod);
    }
    printArrayType(dc, modifiers);
  }

  private void printModList(Mod mods, boolean suffix) {
    while (mods != null && !failed) {
      if (mods.printed || (!suffix && Node.isFunctionQualifier(mods.mod.kind))) {
        mods = mods.next;
        continue;
      }
      mods.printed = true;
      Tpl holdTemplates = templates;
      templates = mods.templates;
      Node mod = mods.mod;
      if (mod.kind == Node.FUNCTION_TYPE) {
        printFunctionType(mod, mods.next);
        templates = holdTemplates;
        return;
      }
      if (mod.kind == Node.ARRAY_TYPE) {
        printArrayType(mod, mods.next);
        templates = holdTemplates;
        return;
      }
      if (mod.kind == Node.LOCAL_NAME) {
        // Its qualifiers were pulled out already; print it without them.
        Mod holdModifiers = modifiers;
        modifiers = null;
        printComp(mod.left);
        modifiers = holdModifiers;
        append("::");
        Node dc = mod.right;
        if (dc != null && dc.kind == Node.DEFAULT_ARG) {
          append("{default arg#");
          appendNum(dc.num + 1);
          append("}::");
          dc = dc.left;
        }
        while (dc != null && Node.isFunctionQualifier(dc.kind)) {
          dc = dc.left;
        }
        printComp(dc);
        templates = holdTemplates;
        return;
      }
      printMod(mod);
      templates = holdTemplates;
      mods = mods.next;
    }
  }

  private void printMod(Node mod) {
    switch (mod.kind) {
      case Node.RESTRICT:
      case Node.RESTRICT_THIS:
        append(" restrict");
        return;
      case Node.VOLATILE:
      case Node.VOLATILE_THIS:
        append(" volatile");
        return;
      case Node.CONST:
      case Node.CONST_THIS:
        append(" const");
        return;
      case Node.TRANSACTION_SAFE:
        append(" transaction_safe");
        return;
      case Node.NOEXCEPT:
        append(" noexcept");
        if (mod.right != null) {
          append('(');
          printComp(mod.right);
          append(')');
        }
        return;
      case Node.THROW_SPEC:
        append(" throw");
        if (mod.right != null) {
          append('(');
          printComp(mod.right);
          append(')');
        }
        return;
      case Node.VENDOR_TYPE_QUAL:
        append(' ');
        printComp(mod.right);
        return;
      case Node.POINTER:
        append('*');
        return;
      case Node.REFERENCE_THIS:
        append(" &");
        return;
      case Node.REFERENCE:
        append('&');
        return;
      case Node.RVALUE_REFERENCE_THIS:
        append(" &&");
        return;
      case Node.RVALUE_REFERENCE:
        append("&&");
        return;
      case Node.COMPLEX:
        append(" _Complex");
        return;
      case Node.IMAGINARY:
        append(" _Imaginary");
        return;
      case Node.PTRMEM_TYPE:
        if (last != '(') {
          append(' ');
        }
        printComp(mod.left);
        append("::*");
        return;
      case Node.TYPED_NAME:
        printComp(mod.left);
        return;
      case Node.VECTOR_TYPE:
        append(" __vector(");
        printComp(mod.left);
        append(')');
        return;
      default:
        printComp(mod);
    }
  }

  /** A function type without its return type: (declarator)(parameters) qualifiers. */
  private void printFunctionType(Node dc, Mod mods) {
    boolean needParen = false;
    boolean needSpace = false;
    for (Mod p = mods; p != null; p = p.next) {
      if (p.printed) {
        break;
      }
      switch (p.mod.kind) {
        case Node.POINTER:
        case Node.REFERENCE:
        case Node.RVALUE_REFERENCE:
          needParen = true;
          break;
        case Node.RESTRICT:
        case Node.VOLATILE:
        case Node.CONST:
        case Node.VENDOR_TYPE_QUAL:
        case Node.COMPLEX:
        case Node.IMAGINARY:
        case Node.PTRMEM_TYPE:
          needSpace = true;
          needParen = true;
          break;
        default:
          break;
      }
      if (needParen) {
        break;
      }
    }
    if (needParen) {
      if (!needSpace && last != '(' && last != '*') {
        needSpace = true;
      }
      if (needSpace && last != ' ') {
        append(' ');
      }
      append('(');
    }
    Mod holdModifiers = modifiers;
    modifiers = null;
    printModList(mods, false);
    if (needParen) {
      append(')');
    }
    append('(');
    if (dc.right != null) {
      printComp(dc.right);
    }
    append(')');
    printModList(mods, true);
    modifiers = holdModifiers;
  }

  /** An array type without its element type: (declarator) [bound]. */
  private void printArrayType(Node dc, Mod mods) {
    boolean needSpace = true;
    if (mods != null) {
      boolean needParen = false;
      for (Mod p = mods; p != null; p = p.next) {
        if (!p.printed) {
          if (p.mod.kind == Node.ARRAY_TYPE) {
            needSpace = false;
          } else {
            needParen = true;
            needSpace = true;
          }
          break;
        }
      }
      if (needParen) {
        append(" (");
      }
      printModList(mods, false);
      if (needParen) {
        append(')');
      }
    }
    if (needSpace) {
      append(' ');
    }
    append('[');
    if (dc.left != null) {
      printComp(dc.left);
    }
    append(']');
  }

  /** A conversion operator's type, seeing the template arguments of the operator itself. */
  private void printConversion(Node dc) {
    Tpl holdTemplates = templates;
    if (currentTemplate != null) {
      templates = new Tpl(currentTemplate, templates);
    }
    Node type = dc.left;
    if (type.kind != Node.TEMPLATE) {
      printComp(type);
      templates = holdTemplates;
    } else {
      // The template type's own arguments are printed outside the operator's scope.
      printComp(type.left);
      templates = holdTemplates;
      printTemplateArgs(type.right);
    }
  }

  // ---- template arguments and packs -------------------------------------------------------

  private Node lookupTemplateArgument(Node param) {
    if (templates == null || templates.decl == null) {
      failed = true;
      return null;
    }
    return indexTemplateArgument(templates.decl.right, param.num);
  }

  /** The i-th argument of a TEMPLATE_ARGLIST (the whole list when i is negative), or null. */
  private static Node indexTemplateArgument(Node args, int i) {
    if (i < 0) {
      return args;
    }
    Node a = args;
    for (; a != null; a = a.right) {
      if (a.kind != Node.TEMPLATE_ARGLIST) {
        return null;
      }
      if (i <= 0) {
        break;
      }
      --i;
    }
    if (i != 0 || a == null) {
      return null;
    }
    return a.left;
  }

  /** Some argument pack that dc's template parameters refer to (any will do), or null. */
  private Node findPack(Node dc) {
    if (dc == null) {
      return null;
    }
    if (++steps > MAX_STEPS) {
      failed = true;
      return null;
    }
    switch (dc.kind) {
      case Node.TEMPLATE_PARAM:
        {
          Node a = lookupTemplateArgument(dc);
          return a != null && a.kind == Node.TEMPLATE_ARGLIST ? a : null;
        }
      case Node.PACK_EXPANSION:
      case Node.LAMBDA:
      case Node.NAME:
      case Node.TAGGED_NAME:
      case Node.OPERATOR:
      case Node.BUILTIN_TYPE:
      case Node.EXTENDED_BUILTIN_TYPE:
      case Node.SUB_STD:
      case Node.CHARACTER:
      case Node.FUNCTION_PARAM:
      case Node.UNNAMED_TYPE:
      case Node.DEFAULT_ARG:
      case Node.NUMBER:
        return null;
      case Node.EXTENDED_OPERATOR:
      case Node.CTOR:
      case Node.DTOR:
        return findPack(dc.left);
      default:
        {
          Node a = findPack(dc.left);
          return a != null ? a : findPack(dc.right);
        }
    }
  }

  private static int packLength(Node dc) {
    int count = 0;
    while (dc != null && dc.kind == Node.TEMPLATE_ARGLIST && dc.left != null) {
      count++;
      dc = dc.right;
    }
    return count;
  }

  /** The number of template arguments, counting each expanded pack's elements. */
  private int argsLength(Node dc) {
    int count = 0;
    for (; dc != null && dc.kind == Node.TEMPLATE_ARGLIST; dc = dc.right) {
      Node element = dc.left;
      if (element == null) {
        break;
      }
      if (element.kind == Node.PACK_EXPANSION) {
        count += packLength(findPack(element.left));
      } else {
        count++;
      }
    }
    return count;
  }

  private void printPackExpansion(Node dc) {
    Node a = lambdaTemplateParms == 0 ? findPack(dc.left) : null;
    if (a == null) {
      // Only function parameter packs (or an auto... lambda parameter): print the pattern.
      printSubexpr(dc.left);
      append("...");
      return;
    }
    int len = packLength(a);
    for (int i = 0; i < len; i++) {
      if (i > 0) {
        append(", ");
      }
      packIndex = i;
      printComp(dc.left);
    }
  }

  private void printLambda(Node dc) {
    append("{lambda");
    Node parms = dc.left;
    int savedTemplateParms = lambdaTemplateParms;
    lambdaTemplateParms = 0;
    // The lambda's template head (if any) stands in for template arguments.
    Tpl holdTemplates = templates;
    Tpl head = new Tpl(parms != null && parms.kind == Node.TEMPLATE_HEAD ? parms : null, templates);
    templates = head;
    if (head.decl != null) {
      append('<');
      for (Node parm = parms.left; parm != null; parm = parm.right) {
        if (lambdaTemplateParms++ > 0) {
          append(", ");
        }
        printComp(parm);
        append(' ');
        if (parm.kind == Node.TEMPLATE_PACK_PARM) {
          parm = parm.left; // libiberty then follows the pack's (empty) chain: later parms drop
        }
        printLambdaParmName(parm.kind, lambdaTemplateParms - 1);
      }
      append('>');
      parms = parms.right;
    }
    lambdaTemplateParms++;
    append('(');
    printComp(parms);
    lambdaTemplateParms = savedTemplateParms;
    templates = holdTemplates;
    append(")#");
    appendNum(dc.num + 1);
    append('}');
  }

  // ---- expressions ------------------------------------------------------------------------

  /** An operand: in parentheses unless it is a plain name, a parameter or a braced list. */
  private void printSubexpr(Node dc) {
    if (dc == null) {
      failed = true;
      return;
    }
    boolean simple =
        dc.kind == Node.NAME
            || dc.kind == Node.QUAL_NAME
            || dc.kind == Node.INITIALIZER_LIST
            || dc.kind == Node.FUNCTION_PARAM;
    if (!simple) {
      append('(');
    }
    printComp(dc);
    if (!simple) {
      append(')');
    }
  }

  private void printExprOp(Node dc) {
    if (dc.kind == Node.OPERATOR) {
      append(Operators.SPELLING[dc.num]);
    } else {
      printComp(dc);
    }
  }

  private static String code(Node op) {
    return op.kind == Node.OPERATOR ? Operators.CODE[op.num] : null;
  }

  private void printUnary(Node dc) {
    Node op = dc.left;
    Node operand = dc.right;
    String code = code(op);
    if (code != null) {
      if (code.equals("ad")
          && operand.kind == Node.TYPED_NAME
          && operand.left.kind == Node.QUAL_NAME
          && operand.right.kind == Node.FUNCTION_TYPE) {
        operand = operand.left; // &f: no parameter list for the address of a function
      }
      if (operand.kind == Node.BINARY_ARGS) {
        // The suffix form of ++ or --.
        printSubexpr(operand.left);
        printExprOp(op);
        return;
      }
    }
    if ("sZ".equals(code)) {
      appendNum(packLength(findPack(operand))); // sizeof...(pack) is the pack's length
      return;
    }
    if ("sP".equals(code)) {
      appendNum(argsLength(operand));
      return;
    }
    if (op.kind != Node.CAST) {
      printExprOp(op);
    } else {
      append('(');
      printComp(op.left);
      append(')');
    }
    if ("gs".equals(code)) {
      printComp(operand); // ::name, without parentheses
    } else if ("st".equals(code)) {
      append('(');
      printComp(operand);
      append(')');
    } else {
      printSubexpr(operand);
    }
  }

  private void printBinary(Node dc) {
    Node args = dc.right;
    if (args.kind != Node.BINARY_ARGS) {
      failed = true;
      return;
    }
    Node op = dc.left;
    if (Parser.isNewCast(op)) {
      printExprOp(op);
      append('<');
      printComp(args.left);
      append(">(");
      printComp(args.right);
      append(')');
      return;
    }
    if (maybePrintFold(dc) || maybePrintDesignatedInit(dc)) {
      return;
    }
    String code = code(op);
    // a > b inside template arguments would end them: parenthesize.
    boolean greater = op.kind == Node.OPERATOR && Operators.SPELLING[op.num].equals(">");
    if (greater) {
      append('(');
    }
    if ("cl".equals(code) && args.left.kind == Node.TYPED_NAME) {
      // A call prints the callee's name without its parameter types.
      Node function = args.left;
      if (function.right.kind != Node.FUNCTION_TYPE) {
        failed = true;
      }
      printSubexpr(function.left);
    } else {
      printSubexpr(args.left);
    }
    if ("ix".equals(code)) {
      append('[');
      printComp(args.right);
      append(']');
    } else {
      if (!"cl".equals(code)) {
        printExprOp(op);
      }
      printSubexpr(args.right);
    }
    if (greater) {
      append(')');
    }
  }

  private void printTrinary(Node dc) {
    Node arg1 = dc.right;
    if (arg1.kind != Node.TRINARY_ARG1
        || arg1.right == null
        || arg1.right.kind != Node.TRINARY_ARG2) {
      failed = true;
      return;
    }
    if (maybePrintFold(dc) || maybePrintDesignatedInit(dc)) {
      return;
    }
    Node op = dc.left;
    Node first = arg1.left;
    Node second = arg1.right.left;
    Node third = arg1.right.right;
    if ("qu".equals(code(op))) {
      printSubexpr(first);
      printExprOp(op);
      printSubexpr(second);
      append(" : ");
      printSubexpr(third);
    } else {
      append("new ");
      if (first.left != null) {
        printSubexpr(first); // placement arguments
        append(' ');
      }
      printComp(second);
      if (third != null) {
        printSubexpr(third);
      }
    }
  }

  /** C++17 fold expressions: (... op x), (x op ...), (a op ... op x). */
  private boolean maybePrintFold(Node dc) {
    String code = code(dc.left);
    if (code == null || code.charAt(0) != 'f') {
      return false;
    }
    Node ops = dc.right;
    Node operator = ops.left;
    Node op1 = ops.right;
    Node op2 = null;
    if (op1 != null && op1.kind == Node.TRINARY_ARG2) {
      op2 = op1.right;
      op1 = op1.left;
    }
    int savedIndex = packIndex;
    packIndex = -1; // print whole packs
    switch (code.charAt(1)) {
      case 'l':
        append("(...");
        printExprOp(operator);
        printSubexpr(op1);
        append(')');
        break;
      case 'r':
        append('(');
        printSubexpr(op1);
        printExprOp(operator);
        append("...)");
        break;
      default:
        append('(');
        printSubexpr(op1);
        printExprOp(operator);
        append("...");
        printExprOp(operator);
        printSubexpr(op2);
        append(')');
        break;
    }
    packIndex = savedIndex;
    return true;
  }

  private static boolean isDesignatedInit(Node dc) {
    if (dc == null || (dc.kind != Node.BINARY && dc.kind != Node.TRINARY)) {
      return false;
    }
    String code = code(dc.left);
    return code != null
        && code.charAt(0) == 'd'
        && (code.charAt(1) == 'i' || code.charAt(1) == 'x' || code.charAt(1) == 'X');
  }

  /** C99-style designators in a braced list: .a=x, [i]=x, [i ... j]=x. */
  private boolean maybePrintDesignatedInit(Node dc) {
    if (!isDesignatedInit(dc)) {
      return false;
    }
    char kind = code(dc.left).charAt(1);
    Node op1 = dc.right.left;
    Node op2 = dc.right.right;
    append(kind == 'i' ? '.' : '[');
    printComp(op1);
    if (kind == 'X') {
      append(" ... ");
      printComp(op2.left);
      op2 = op2.right;
    }
    if (kind != 'i') {
      append(']');
    }
    if (isDesignatedInit(op2)) {
      printComp(op2); // chained designators need no '='
    } else {
      append('=');
      printSubexpr(op2);
    }
    return true;
  }

  private void printLiteral(Node dc) {
    Node type = dc.left;
    Node value = dc.right;
    boolean negative = dc.kind == Node.LITERAL_NEG;
    int style = Builtins.PRINT_DEFAULT;
    if (type.kind == Node.BUILTIN_TYPE) {
      style = Builtins.PRINT[type.num];
      switch (style) {
        case Builtins.PRINT_INT:
        case Builtins.PRINT_UNSIGNED:
        case Builtins.PRINT_LONG:
        case Builtins.PRINT_UNSIGNED_LONG:
        case Builtins.PRINT_LONG_LONG:
        case Builtins.PRINT_UNSIGNED_LONG_LONG:
          if (value.kind == Node.NAME) {
            if (negative) {
              append('-');
            }
            printComp(value);
            switch (style) {
              case Builtins.PRINT_UNSIGNED:
                append('u');
                break;
              case Builtins.PRINT_LONG:
                append('l');
                break;
              case Builtins.PRINT_UNSIGNED_LONG:
                append("ul");
                break;
              case Builtins.PRINT_LONG_LONG:
                append("ll");
                break;
              case Builtins.PRINT_UNSIGNED_LONG_LONG:
                append("ull");
                break;
              default:
                break;
            }
            return;
          }
          break;
        case Builtins.PRINT_BOOL:
          if (value.kind == Node.NAME && value.length() == 1 && !negative) {
            if (value.charAt(0) == '0') {
              append("false");
              return;
            }
            if (value.charAt(0) == '1') {
              append("true");
              return;
            }
          }
          break;
        default:
          break;
      }
    }
    append('(');
    printComp(type);
    append(')');
    if (negative) {
      append('-');
    }
    if (style == Builtins.PRINT_FLOAT) {
      append('[');
    }
    printComp(value);
    if (style == Builtins.PRINT_FLOAT) {
      append(']');
    }
  }
}
