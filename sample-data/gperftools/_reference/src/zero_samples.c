/* zero_samples: starts and stops the profiler without burning CPU, so the
 * profile has a header, the trailer and the maps text but no sample records.
 * Usage: zero_samples <profile-output>
 * Build: gcc -O0 -fno-omit-frame-pointer -g zero_samples.c -lprofiler */
#include <gperftools/profiler.h>
#include <stdio.h>
#include <time.h>

int main(int argc, char **argv) {
    const char *out = argc > 1 ? argv[1] : "zero_samples.prof";
    if (!ProfilerStart(out)) { fprintf(stderr, "ProfilerStart failed\n"); return 1; }
    struct timespec pause = { 0, 50 * 1000 * 1000 };   /* 50 ms asleep: no CPU time */
    nanosleep(&pause, NULL);
    ProfilerStop();
    printf("zero_samples: done\n");
    return 0;
}
