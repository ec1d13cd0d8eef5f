/* multithreaded: four pthreads, each doing a different kind of CPU work
 * until it has used 0.75 s of its own CPU time (3 s in total), profiled together.
 * Usage: multithreaded <profile-output>
 * Build: gcc -O0 -fno-omit-frame-pointer -g -pthread multithreaded.c -lprofiler -lm */
#include <gperftools/profiler.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CPU_SECONDS_PER_THREAD 0.75

/* CPU time used so far by the calling thread. */
static double thread_cpu_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* 1: integer hashing (FNV-1a over a counter) */
static unsigned long hash_block(unsigned long seed) {
    unsigned long h = 1469598103934665603UL;
    for (int i = 0; i < 100000; i++) {
        h ^= (seed + i) & 0xff;
        h *= 1099511628211UL;
    }
    return h;
}
static void *hash_worker(void *arg) {
    unsigned long h = 0, n = 0;
    while (thread_cpu_seconds() < CPU_SECONDS_PER_THREAD) h ^= hash_block(n++);
    *(unsigned long *)arg = h;
    return NULL;
}

/* 2: floating point (trigonometry) */
static double trig_block(double x) {
    double acc = 0;
    for (int i = 0; i < 20000; i++) acc += sin(x + i) * cos(x - i) + sqrt(i + 1.0);
    return acc;
}
static void *float_worker(void *arg) {
    double acc = 0, x = 0;
    while (thread_cpu_seconds() < CPU_SECONDS_PER_THREAD) acc += trig_block(x += 0.5);
    *(double *)arg = acc;
    return NULL;
}

/* 3: memory walking (strided sums over a 4 MiB array) */
#define MEM_WORDS (1 << 19)
static unsigned long stride_sum(const unsigned long *a, int stride) {
    unsigned long s = 0;
    for (int start = 0; start < stride; start++)
        for (int i = start; i < MEM_WORDS; i += stride) s += a[i];
    return s;
}
static void *memory_worker(void *arg) {
    unsigned long *a = malloc(MEM_WORDS * sizeof *a), s = 0;
    for (int i = 0; i < MEM_WORDS; i++) a[i] = i * 2654435761UL;
    while (thread_cpu_seconds() < CPU_SECONDS_PER_THREAD) s += stride_sum(a, 64);
    free(a);
    *(unsigned long *)arg = s;
    return NULL;
}

/* 4: sorting (qsort of a freshly shuffled array) */
#define SORT_N 20000
static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}
static void *sort_worker(void *arg) {
    int *v = malloc(SORT_N * sizeof *v);
    unsigned int seed = 12345;
    long checks = 0;
    while (thread_cpu_seconds() < CPU_SECONDS_PER_THREAD) {
        for (int i = 0; i < SORT_N; i++) v[i] = rand_r(&seed);
        qsort(v, SORT_N, sizeof *v, cmp_int);
        checks += v[SORT_N / 2] & 1;
    }
    free(v);
    *(long *)arg = checks;
    return NULL;
}

int main(int argc, char **argv) {
    const char *out = argc > 1 ? argv[1] : "multithreaded.prof";
    pthread_t t[4];
    unsigned long r_hash = 0, r_mem = 0;
    double r_float = 0;
    long r_sort = 0;
    if (!ProfilerStart(out)) { fprintf(stderr, "ProfilerStart failed\n"); return 1; }
    pthread_create(&t[0], NULL, hash_worker, &r_hash);
    pthread_create(&t[1], NULL, float_worker, &r_float);
    pthread_create(&t[2], NULL, memory_worker, &r_mem);
    pthread_create(&t[3], NULL, sort_worker, &r_sort);
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    ProfilerStop();
    printf("multithreaded: %lx %g %lx %ld\n", r_hash, r_float, r_mem, r_sort);
    return 0;
}
