/* x86_32: 32-bit (gcc -m32) program linked against the i386 libprofiler, so
 * the profile uses 4-byte slots. Some recursion (depth 30) plus a busy loop.
 * Usage: x86_32 <profile-output>
 * Build: gcc -m32 -O0 -fno-omit-frame-pointer -g x86_32.c \
 *            /usr/lib/i386-linux-gnu/libprofiler.so.0 */
#include <gperftools/profiler.h>
#include <stdio.h>
#include <time.h>

static volatile unsigned int sink;

static unsigned int spin(unsigned int iters) {
    unsigned int x = 1;
    for (unsigned int i = 0; i < iters; i++) x = x * 1103515245u + 12345u + i;
    return x;
}

static void climb(int depth) {
    if (depth == 0) { sink += spin(1000000); return; }
    climb(depth - 1);
    sink++;
}

static double cpu_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    const char *out = argc > 1 ? argv[1] : "x86_32.prof";
    if (!ProfilerStart(out)) { fprintf(stderr, "ProfilerStart failed\n"); return 1; }
    double start = cpu_seconds();
    int round = 0;
    while (cpu_seconds() - start < 1.5) {
        climb(round % 2 ? 30 : 5);
        sink += spin(500000);
        round++;
    }
    ProfilerStop();
    printf("x86_32: sizeof(void*)=%u rounds=%d sink=%u\n", (unsigned)sizeof(void *), round, sink);
    return 0;
}
