/* libwork.so: the CPU work for shared_library.c lives here, so most samples
 * have their leaf PC inside this library's mapping.
 * Build: gcc -O0 -fno-omit-frame-pointer -g -fPIC -shared libwork.c -o libwork.so */
#include "libwork.h"

static unsigned long mix(unsigned long x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdUL;
    x ^= x >> 33;
    return x;
}

unsigned long work_checksum(unsigned long seed, long iters) {
    unsigned long acc = seed;
    for (long i = 0; i < iters; i++)
        acc += mix(acc + i);
    return acc;
}
