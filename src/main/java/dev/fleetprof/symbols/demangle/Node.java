package dev.fleetprof.symbols.demangle;

/**
 * One piece of a parsed mangled name. A name is parsed into a graph of these (a tree, except that
 * substitutions and template parameters share pieces) and then printed. The kinds and their meaning
 * follow the Itanium C++ ABI grammar; which piece goes in {@link #left} and {@link #right} is
 * listed with each kind. Nodes belong to one demangling call: the parser patches some links after
 * creating a node (return types elided, qualifier chains closed) and the printer counts its
 * re-entries in {@link #printing}, so nodes are never shared between threads.
 */
final class Node {
  // Names. NAME: text. QUAL_NAME, LOCAL_NAME: scope, entity. TYPED_NAME: name, function type.
  static final int NAME = 0;
  static final int QUAL_NAME = 1;
  static final int LOCAL_NAME = 2;
  static final int TYPED_NAME = 3;

  /** left: template name, right: TEMPLATE_ARGLIST. */
  static final int TEMPLATE = 4;

  /** num: the parameter's index (T_ is 0). */
  static final int TEMPLATE_PARAM = 5;

  /** num: 0 for {@code this}, else the 1-based parameter number. */
  static final int FUNCTION_PARAM = 6;

  /** left: the class name, num: the constructor or destructor variant. */
  static final int CTOR = 7;

  static final int DTOR = 8;
  // Special names, each about left (CONSTRUCTION_VTABLE: left in right; REFTEMP: left, #right).
  static final int VTABLE = 9;
  static final int VTT = 10;
  static final int CONSTRUCTION_VTABLE = 11;
  static final int TYPEINFO = 12;
  static final int TYPEINFO_NAME = 13;
  static final int TYPEINFO_FN = 14;
  static final int THUNK = 15;
  static final int VIRTUAL_THUNK = 16;
  static final int COVARIANT_THUNK = 17;
  static final int JAVA_CLASS = 18;
  static final int GUARD = 19;
  static final int TLS_INIT = 20;
  static final int TLS_WRAPPER = 21;
  static final int REFTEMP = 22;
  static final int HIDDEN_ALIAS = 23;
  static final int TRANSACTION_CLONE = 24;
  static final int NONTRANSACTION_CLONE = 25;

  /** A standard abbreviation (St, Sa, Ss ...): text is its spelling. */
  static final int SUB_STD = 26;

  // Qualifiers of a type (left): the _THIS ones qualify a member function's this.
  static final int RESTRICT = 27;
  static final int VOLATILE = 28;
  static final int CONST = 29;
  static final int RESTRICT_THIS = 30;
  static final int VOLATILE_THIS = 31;
  static final int CONST_THIS = 32;
  static final int REFERENCE_THIS = 33;
  static final int RVALUE_REFERENCE_THIS = 34;
  static final int TRANSACTION_SAFE = 35;

  /** right: the noexcept expression, if any. */
  static final int NOEXCEPT = 36;

  /** right: the ARGLIST of the dynamic exception specification. */
  static final int THROW_SPEC = 37;

  /** left: the type, right: the qualifier's name (U &lt;source-name&gt;). */
  static final int VENDOR_TYPE_QUAL = 38;

  static final int POINTER = 39;
  static final int REFERENCE = 40;
  static final int RVALUE_REFERENCE = 41;
  static final int COMPLEX = 42;
  static final int IMAGINARY = 43;

  /** num: index into {@link Builtins}. */
  static final int BUILTIN_TYPE = 44;

  /** _Float&lt;N&gt;[x]: num is N, text (when not null) the x. */
  static final int EXTENDED_BUILTIN_TYPE = 45;

  /** u &lt;source-name&gt;: left is the name. */
  static final int VENDOR_TYPE = 46;

  /** left: return type (or null), right: ARGLIST of parameters. */
  static final int FUNCTION_TYPE = 47;

  /** left: dimension (or null), right: element type. */
  static final int ARRAY_TYPE = 48;

  /** left: class type, right: member type. */
  static final int PTRMEM_TYPE = 49;

  /** left: dimension, right: element type. */
  static final int VECTOR_TYPE = 50;

  /** A list cell: left is the element (null in an empty list), right the next cell. */
  static final int ARGLIST = 51;

  static final int TEMPLATE_ARGLIST = 52;

  /** TA: left is the template argument. */
  static final int TPARM_OBJ = 53;

  /** left: type (or null), right: ARGLIST of elements. */
  static final int INITIALIZER_LIST = 54;

  /** num: index into {@link Operators}. */
  static final int OPERATOR = 55;

  /** v &lt;digit&gt; &lt;source-name&gt;: num is the arity, left the name. */
  static final int EXTENDED_OPERATOR = 56;

  /** left: the target type (in an expression). */
  static final int CAST = 57;

  /** left: the target type (a conversion operator's name). */
  static final int CONVERSION = 58;

  // Expressions: left is the operator; UNARY right: operand, BINARY right: BINARY_ARGS(l, r),
  // TRINARY right: TRINARY_ARG1(first, TRINARY_ARG2(second, third)).
  static final int NULLARY = 59;
  static final int UNARY = 60;
  static final int BINARY = 61;
  static final int BINARY_ARGS = 62;
  static final int TRINARY = 63;
  static final int TRINARY_ARG1 = 64;
  static final int TRINARY_ARG2 = 65;

  /** left: type, right: NAME holding the value's digits. */
  static final int LITERAL = 66;

  static final int LITERAL_NEG = 67;

  /** u &lt;source-name&gt; &lt;template-args&gt;: left name, right arguments. */
  static final int VENDOR_EXPR = 68;

  static final int JAVA_RESOURCE = 69;
  static final int COMPOUND_NAME = 70;

  /** num: the character. */
  static final int CHARACTER = 71;

  /** num: the number. */
  static final int NUMBER = 72;

  static final int DECLTYPE = 73;
  static final int GLOBAL_CONSTRUCTORS = 74;
  static final int GLOBAL_DESTRUCTORS = 75;

  /** left: ARGLIST (or TEMPLATE_HEAD whose right is the ARGLIST), num: the 0-based index. */
  static final int LAMBDA = 76;

  /** left: the entity, num: the 0-based parameter index. */
  static final int DEFAULT_ARG = 77;

  /** num: the 0-based index. */
  static final int UNNAMED_TYPE = 78;

  static final int PACK_EXPANSION = 79;

  /** left: name, right: the tag's name. */
  static final int TAGGED_NAME = 80;

  /** left: the encoding, right: NAME holding the suffix. */
  static final int CLONE = 81;

  /** left: a name, right: the next STRUCTURED_BINDING (or null). */
  static final int STRUCTURED_BINDING = 82;

  /** left: the enclosing module (or null), right: the name. */
  static final int MODULE_NAME = 83;

  static final int MODULE_PARTITION = 84;

  /** left: the entity's name, right: its module. */
  static final int MODULE_ENTITY = 85;

  static final int MODULE_INIT = 86;

  /** left: the first template parameter, chained through right. */
  static final int TEMPLATE_HEAD = 87;

  static final int TEMPLATE_TYPE_PARM = 88;
  static final int TEMPLATE_NON_TYPE_PARM = 89;
  static final int TEMPLATE_TEMPLATE_PARM = 90;
  static final int TEMPLATE_PACK_PARM = 91;

  /** Mutable only for the parser, which makes K into K-of-this when a function type follows. */
  int kind;

  Node left;
  Node right;
  int num;

  /** A NAME's (or SUB_STD's) characters are text[start, end); never written through. */
  char[] text;

  int start;
  int end;

  /** How many times this node is being printed right now (the printer's loop guard). */
  int printing;

  Node(int kind) {
    this.kind = kind;
  }

  /** Makes a pooled node new again (see Parser#alloc). */
  void reset(int kind) {
    this.kind = kind;
    left = null;
    right = null;
    num = 0;
    text = null;
    start = 0;
    end = 0;
    printing = 0;
  }

  int length() {
    return end - start;
  }

  char charAt(int i) {
    return text[start + i];
  }

  /** True for the qualifiers that apply to a member function rather than to a type. */
  static boolean isFunctionQualifier(int kind) {
    switch (kind) {
      case RESTRICT_THIS:
      case VOLATILE_THIS:
      case CONST_THIS:
      case REFERENCE_THIS:
      case RVALUE_REFERENCE_THIS:
      case TRANSACTION_SAFE:
      case NOEXCEPT:
      case THROW_SPEC:
        return true;
      default:
        return false;
    }
  }
}
