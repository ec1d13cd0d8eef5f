/**
 * Symbol name demangling in plain Java: {@link dev.fleetprof.symbols.demangle.ItaniumDemangler}
 * turns Itanium C++ ABI names (and the Rust names c++filt also reads) into exactly what binutils'
 * {@code c++filt} prints. The parser ({@code Parser}) builds a graph of {@code Node}s the way
 * libiberty does, and {@code Printer} prints it the way libiberty does, quirks included; both are
 * bounded so that hostile names cost little.
 */
package dev.fleetprof.symbols.demangle;
