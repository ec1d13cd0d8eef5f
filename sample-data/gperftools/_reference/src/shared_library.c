/* shared_library: a PIE program whose CPU time is spent mostly in
 * work_checksum() from its own libwork.so (loaded at an ASLR address).
 * Usage: shared_library <profile-output>
 * Build: gcc -O0 -fno-omit-frame-pointer -g -fPIE -pie shared_library.c \
 *            -L. -lwork -Wl,-rpath,'$ORIGIN' -lprofiler */
#include <gperftools/profiler.h>
#include <stdio.h>
#include <time.h>
#include "libwork.h"

static double cpu_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A little work in the executable itself, for contrast. */
static unsigned long local_work(unsigned long x) {
    for (int i = 0; i < 200000; i++) x = x * 31 + i;
    return x;
}

int main(int argc, char **argv) {
    const char *out = argc > 1 ? argv[1] : "shared_library.prof";
    unsigned long acc = 0;
    if (!ProfilerStart(out)) { fprintf(stderr, "ProfilerStart failed\n"); return 1; }
    double start = cpu_seconds();
    while (cpu_seconds() - start < 1.5) {
        acc = work_checksum(acc, 2000000);
        acc = local_work(acc);
    }
    ProfilerStop();
    printf("shared_library: main=%p work_checksum=%p acc=%lx\n",
           (void *)main, (void *)work_checksum, acc);
    return 0;
}
