package dev.fleetprof.symbols.demangle;

/**
 * The two-letter operator codes: how each is spelled in an expression and how many operands it
 * takes there. A trailing space in a spelling ("sizeof ") separates it from its operand in an
 * expression and is dropped in an operator's name ("operator sizeof").
 */
final class Operators {
  private Operators() {}

  static final String[] CODE;
  static final String[] SPELLING;
  static final int[] ARITY;
  private static final short[] BY_CODE = new short[128 * 128];

  static {
    // code, spelling, arity. "nx" (noexcept) is left out: binutils 2.40 does not know it.
    Object[][] table = {
      {"aN", "&=", 2},
      {"aS", "=", 2},
      {"aa", "&&", 2},
      {"ad", "&", 1},
      {"an", "&", 2},
      {"at", "alignof ", 1},
      {"aw", "co_await ", 1},
      {"az", "alignof ", 1},
      {"cc", "const_cast", 2},
      {"cl", "()", 2},
      {"cm", ",", 2},
      {"co", "~", 1},
      {"dV", "/=", 2},
      {"dX", "[...]=", 3},
      {"da", "delete[] ", 1},
      {"dc", "dynamic_cast", 2},
      {"de", "*", 1},
      {"di", "=", 2},
      {"dl", "delete ", 1},
      {"ds", ".*", 2},
      {"dt", ".", 2},
      {"dv", "/", 2},
      {"dx", "]=", 2},
      {"eO", "^=", 2},
      {"eo", "^", 2},
      {"eq", "==", 2},
      {"fL", "...", 3},
      {"fR", "...", 3},
      {"fl", "...", 2},
      {"fr", "...", 2},
      {"ge", ">=", 2},
      {"gs", "::", 1},
      {"gt", ">", 2},
      {"ix", "[]", 2},
      {"lS", "<<=", 2},
      {"le", "<=", 2},
      {"li", "operator\"\" ", 1},
      {"ls", "<<", 2},
      {"lt", "<", 2},
      {"mI", "-=", 2},
      {"mL", "*=", 2},
      {"mi", "-", 2},
      {"ml", "*", 2},
      {"mm", "--", 1},
      {"na", "new[]", 3},
      {"ne", "!=", 2},
      {"ng", "-", 1},
      {"nt", "!", 1},
      {"nw", "new", 3},
      {"oR", "|=", 2},
      {"oo", "||", 2},
      {"or", "|", 2},
      {"pL", "+=", 2},
      {"pl", "+", 2},
      {"pm", "->*", 2},
      {"pp", "++", 1},
      {"ps", "+", 1},
      {"pt", "->", 2},
      {"qu", "?", 3},
      {"rM", "%=", 2},
      {"rS", ">>=", 2},
      {"rc", "reinterpret_cast", 2},
      {"rm", "%", 2},
      {"rs", ">>", 2},
      {"sP", "sizeof...", 1},
      {"sZ", "sizeof...", 1},
      {"sc", "static_cast", 2},
      {"ss", "<=>", 2},
      {"st", "sizeof ", 1},
      {"sz", "sizeof ", 1},
      {"tr", "throw", 0},
      {"tw", "throw ", 1},
    };
    CODE = new String[table.length];
    SPELLING = new String[table.length];
    ARITY = new int[table.length];
    java.util.Arrays.fill(BY_CODE, (short) -1);
    for (int i = 0; i < table.length; i++) {
      String code = (String) table[i][0];
      CODE[i] = code;
      SPELLING[i] = (String) table[i][1];
      ARITY[i] = (Integer) table[i][2];
      BY_CODE[code.charAt(0) * 128 + code.charAt(1)] = (short) i;
    }
  }

  /** The operator's index, or -1 when the two characters name no operator. */
  static int lookup(char c1, char c2) {
    if (c1 >= 128 || c2 >= 128) {
      return -1;
    }
    return BY_CODE[c1 * 128 + c2];
  }
}
