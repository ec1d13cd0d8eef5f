/* deep_recursion: call chains deeper than 64 frames.
 * descend() recurses DEPTH times, then spins at the bottom, so most samples
 * carry ~DEPTH+4 PCs (more than the 64 that gperftools < 2.8.1 kept).
 * Every 4th round uses a shallow depth so short chains exist too.
 * Usage: deep_recursion <profile-output>   (CPUPROFILE_FREQUENCY sets the rate)
 * Build: gcc -O0 -fno-omit-frame-pointer -g deep_recursion.c -lprofiler */
#include <gperftools/profiler.h>
#include <stdio.h>
#include <time.h>

#define DEEP 150
#define SHALLOW 20

static volatile unsigned long sink;

static void spin(unsigned long iters) {
    unsigned long x = 0;
    for (unsigned long i = 0; i < iters; i++)
        x = x * 6364136223846793005UL + i;
    sink += x;
}

static void descend(int depth) {
    if (depth == 0) {
        spin(2000000);
        return;
    }
    descend(depth - 1);
    sink++;                     /* keeps the call from being a tail call */
}

static double cpu_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    const char *out = argc > 1 ? argv[1] : "deep_recursion.prof";
    if (!ProfilerStart(out)) { fprintf(stderr, "ProfilerStart failed\n"); return 1; }
    double start = cpu_seconds();
    int round = 0;
    while (cpu_seconds() - start < 1.5)
        descend(round++ % 4 == 3 ? SHALLOW : DEEP);
    ProfilerStop();
    printf("deep_recursion: %d rounds, sink=%lu\n", round, sink);
    return 0;
}
