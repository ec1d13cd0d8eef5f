/* deep_service: a real program whose profiles have deep, repeated call chains, for the bench's
 * deep fleet (bench/README.md). It evaluates the expression trees of a workload by mutual
 * recursion (eval -> eval_filter / eval_join / ... -> eval -> ...). Each tree is a spine 5 to 164
 * nodes deep with short side branches, so most samples are two frames per level deep and many
 * reach the profiler's cap (253 pcs); time goes mostly to three leaf functions. The workload number
 * seeds the trees: processes of one workload repeat the same chains (at the addresses their ASLR
 * gives them), as the hosts of one service do.
 *
 * Usage: deep_service <workload> <cpu-seconds>   (CPUPROFILE names the profile: libprofiler starts
 * the profiler itself; CPUPROFILE_FREQUENCY sets the rate)
 * Build: gcc -O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls deep_service.c -lprofiler
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { FILTER, PROJECT, MAP, LET, JOIN, UNION, HASH, SCAN, COPY };

typedef struct Node {
    int op;
    unsigned work;
    struct Node *kid[2];
} Node;

static volatile unsigned long sink;
static unsigned long rng;

static unsigned long next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

__attribute__((noinline)) static unsigned long leaf_hash(unsigned work) {
    unsigned long x = work;
    for (unsigned i = 0; i < work; i++)
        x = (x ^ i) * 0x9e3779b97f4a7c15UL;
    return x;
}

__attribute__((noinline)) static unsigned long leaf_scan(unsigned work) {
    static unsigned char table[1 << 16];
    unsigned long x = 0;
    for (unsigned i = 0; i < work; i++)
        x += table[(i * 2654435761u) & 0xffff] + i;
    return x;
}

__attribute__((noinline)) static unsigned long leaf_copy(unsigned work) {
    static unsigned long a[4096], b[4096];
    for (unsigned i = 0; i < work; i++)
        b[i & 4095] = a[(i * 7) & 4095] + i;
    return b[work & 4095];
}

static unsigned long eval(const Node *n);

__attribute__((noinline)) static unsigned long eval_filter(const Node *n) {
    unsigned long v = eval(n->kid[0]);
    return v & 1 ? v : v + 1;
}

__attribute__((noinline)) static unsigned long eval_project(const Node *n) {
    return eval(n->kid[0]) * 3 + 1;
}

__attribute__((noinline)) static unsigned long eval_map(const Node *n) {
    unsigned long v = eval(n->kid[0]);
    return v ^ (v >> 3);
}

__attribute__((noinline)) static unsigned long eval_let(const Node *n) {
    unsigned long v = eval(n->kid[0]);
    sink += v;
    return v;
}

__attribute__((noinline)) static unsigned long eval_join(const Node *n) {
    unsigned long a = eval(n->kid[0]);
    unsigned long b = eval(n->kid[1]);
    return a * 31 + b;
}

__attribute__((noinline)) static unsigned long eval_union(const Node *n) {
    unsigned long b = eval(n->kid[1]);
    unsigned long a = eval(n->kid[0]);
    return a + b;
}

__attribute__((noinline)) static unsigned long eval(const Node *n) {
    switch (n->op) {
    case FILTER: return eval_filter(n);
    case PROJECT: return eval_project(n);
    case MAP: return eval_map(n);
    case LET: return eval_let(n);
    case JOIN: return eval_join(n);
    case UNION: return eval_union(n);
    case HASH: return leaf_hash(n->work);
    case SCAN: return leaf_scan(n->work);
    default: return leaf_copy(n->work);
    }
}

static Node *leaf(unsigned scale) {
    Node *n = calloc(1, sizeof *n);
    n->op = HASH + (int)(next() % 3);
    n->work = scale * (1 + (unsigned)(next() % 4));
    return n;
}

/* A chain of depth unary or binary nodes ending in a leaf; binary nodes' other child is a short
 * subtree (a side branch). */
static Node *tree(int depth, int side) {
    if (depth <= 0)
        return leaf(side ? 2000 : 20000);
    Node *n = calloc(1, sizeof *n);
    int binary = !side && next() % 100 < 12;
    n->op = binary ? JOIN + (int)(next() % 2) : FILTER + (int)(next() % 4);
    n->kid[0] = tree(depth - 1, side);
    if (binary)
        n->kid[1] = tree(1 + (int)(next() % 4), 1);
    return n;
}

static double cpu_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: deep_service <workload> <cpu-seconds>\n");
        return 2;
    }
    enum { TREES = 8 };
    rng = 0x2545f4914f6cdd1dUL ^ (strtoul(argv[1], NULL, 10) * 0x9e3779b97f4a7c15UL);
    Node *trees[TREES];
    for (int t = 0; t < TREES; t++) {
        /* 5 to 164 levels (two frames each): about a fifth of the trees go beyond the
         * profiler's cap. */
        int depth = 5 + (int)(next() % 160);
        trees[t] = tree(depth, 0);
    }
    double budget = atof(argv[2]);
    double start = cpu_seconds();
    unsigned long round = 0;
    while (cpu_seconds() - start < budget) {
        /* Tree t runs (t+1) times as often as tree 0: some chains are hot. */
        unsigned long r = next() % (TREES * (TREES + 1) / 2);
        int t = 0;
        while (r >= (unsigned long)(t + 1)) {
            r -= (unsigned long)(t + 1);
            t++;
        }
        sink += eval(trees[t]);
        round++;
    }
    printf("deep_service: %lu rounds\n", round);
    return 0;
}
