/* libhot.so: the shared library the symbolization test programs call into. */
unsigned long lib_mix(unsigned long x, int rounds);
