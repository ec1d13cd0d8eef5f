/* report-gen: the demo fleet's nightly report, built with gcc -pg (gprof). It makes up ROWS
 * request-log rows from SEED (endpoint, status, latency), groups them per endpoint, sorts each
 * group's latencies (its own merge sort: gprof's histogram covers this program's code only) and
 * formats percentiles. gmon.out is written to the working directory at exit.
 *
 * Usage: report-gen ROWS SEED */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ENDPOINTS 12

struct row {
    int endpoint;
    int status;
    double latency_ms;
};

struct group {
    double *latencies;
    long n;
    long errors;
};

static uint64_t rng_state;

static uint64_t next_random(void) {
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

static void load_rows(struct row *rows, long n) {
    for (long i = 0; i < n; i++) {
        rows[i].endpoint = (int)(next_random() % ENDPOINTS);
        rows[i].status = next_random() % 50 ? 200 : 500;
        double u = (double)(next_random() >> 11) / 9007199254740992.0;
        rows[i].latency_ms = 2.0 + 40.0 * u * u * u + (double)rows[i].endpoint;
    }
}

static void group_rows(const struct row *rows, long n, struct group *groups) {
    for (long i = 0; i < n; i++) {
        struct group *g = &groups[rows[i].endpoint];
        g->latencies[g->n++] = rows[i].latency_ms;
        if (rows[i].status >= 500) g->errors++;
    }
}

static void merge(double *a, long mid, long n, double *tmp) {
    long i = 0, j = mid, k = 0;
    while (i < mid && j < n) tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
    while (i < mid) tmp[k++] = a[i++];
    while (j < n) tmp[k++] = a[j++];
    memcpy(a, tmp, (size_t)n * sizeof *a);
}

static void sort_latencies(double *a, long n, double *tmp) {
    if (n < 2) return;
    long mid = n / 2;
    sort_latencies(a, mid, tmp);
    sort_latencies(a + mid, n - mid, tmp);
    merge(a, mid, n, tmp);
}

static double percentile(const double *sorted, long n, double p) {
    if (n == 0) return 0;
    long i = (long)(p * (double)(n - 1));
    return sorted[i];
}

static void format_report(const struct group *groups, FILE *out) {
    fprintf(out, "endpoint  requests  errors      p50      p99    p99.9\n");
    for (int e = 0; e < ENDPOINTS; e++) {
        const struct group *g = &groups[e];
        fprintf(out, "%8d  %8ld  %6ld  %7.2f  %7.2f  %7.2f\n", e, g->n, g->errors,
                percentile(g->latencies, g->n, 0.5), percentile(g->latencies, g->n, 0.99),
                percentile(g->latencies, g->n, 0.999));
    }
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: report-gen ROWS SEED\n");
        return 2;
    }
    long n = atol(argv[1]);
    rng_state = strtoull(argv[2], 0, 10) | 1;
    struct row *rows = malloc((size_t)n * sizeof *rows);
    double *tmp = malloc((size_t)n * sizeof *tmp);
    struct group groups[ENDPOINTS] = {0};
    for (int e = 0; e < ENDPOINTS; e++) groups[e].latencies = malloc((size_t)n * sizeof(double));
    if (!rows || !tmp) return 1;
    load_rows(rows, n);
    group_rows(rows, n, groups);
    for (int e = 0; e < ENDPOINTS; e++) sort_latencies(groups[e].latencies, groups[e].n, tmp);
    format_report(groups, stdout);
    return 0;
}
