/* indexer: the demo fleet's batch job. It makes up DOCS documents from SEED (words drawn from a
 * skewed vocabulary), splits them into terms, counts the terms in a hash table keyed by
 * libfleetwork's fw_hash, sorts the terms by count (qsort, calling back into compare_terms) and
 * compresses the index with libfleetwork's fw_compress.
 *
 * Usage: indexer DOCS SEED
 * Profiled by running it with CPUPROFILE=FILE (it is linked with -lprofiler). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fleetwork.h"

#define VOCABULARY 4096
#define TABLE 8192 /* a power of two, twice the vocabulary */
#define MAX_TERM 24
#define DOC_BYTES 4096

struct term {
    char text[MAX_TERM];
    uint64_t hash;
    long count;
};

static struct term table[TABLE];
static int terms_in_table;
static char vocabulary[VOCABULARY][MAX_TERM];
static uint64_t rng_state;

static uint64_t next_random(void) {
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

static void make_vocabulary(void) {
    static const char letters[] = "etaoinshrdlucmfwypvbgkjqxz";
    for (int w = 0; w < VOCABULARY; w++) {
        int len = 3 + (int)(next_random() % 9);
        for (int i = 0; i < len; i++) vocabulary[w][i] = letters[next_random() % 26];
        vocabulary[w][len] = 0;
    }
}

/* A document: words with a skewed frequency (the minimum of two draws favours low ranks). */
static size_t make_document(char *doc) {
    size_t n = 0;
    while (n + MAX_TERM + 2 < DOC_BYTES) {
        uint64_t a = next_random() % VOCABULARY, b = next_random() % VOCABULARY;
        const char *word = vocabulary[a < b ? a : b];
        size_t len = strlen(word);
        memcpy(doc + n, word, len);
        n += len;
        doc[n++] = next_random() % 11 ? ' ' : '\n';
    }
    doc[n] = 0;
    return n;
}

static void add_term(const char *text, size_t len) {
    uint64_t h = fw_hash(text, len);
    for (size_t slot = h & (TABLE - 1);; slot = (slot + 1) & (TABLE - 1)) {
        struct term *t = &table[slot];
        if (t->count == 0) {
            memcpy(t->text, text, len);
            t->text[len] = 0;
            t->hash = h;
            t->count = 1;
            terms_in_table++;
            return;
        }
        if (t->hash == h && strncmp(t->text, text, len) == 0 && t->text[len] == 0) {
            t->count++;
            return;
        }
    }
}

static long tokenize(const char *doc, size_t n) {
    long terms = 0;
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || doc[i] == ' ' || doc[i] == '\n') {
            if (i > start) {
                add_term(doc + start, i - start);
                terms++;
            }
            start = i + 1;
        }
    }
    return terms;
}

static int compare_terms(const void *a, const void *b) {
    const struct term *x = a, *y = b;
    if (x->count != y->count) return x->count < y->count ? 1 : -1;
    return strcmp(x->text, y->text);
}

/* The table, most frequent terms first, written out and compressed. */
static size_t write_index(unsigned char *out) {
    static struct term sorted[TABLE];
    static unsigned char text[TABLE * (MAX_TERM + 12)];
    int n = 0;
    for (int i = 0; i < TABLE; i++)
        if (table[i].count) sorted[n++] = table[i];
    qsort(sorted, (size_t)n, sizeof sorted[0], compare_terms);
    size_t len = 0;
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf((char *)text + len, sizeof text - len, "%s %ld\n", sorted[i].text,
                                sorted[i].count);
    return fw_compress(text, len, out);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: indexer DOCS SEED\n");
        return 2;
    }
    long docs = atol(argv[1]);
    rng_state = strtoull(argv[2], 0, 10) | 1;
    static char doc[DOC_BYTES];
    static unsigned char index[2 * TABLE * (MAX_TERM + 12)];
    make_vocabulary();
    long terms = 0;
    for (long d = 0; d < docs; d++) terms += tokenize(doc, make_document(doc));
    size_t bytes = 0;
    for (int pass = 0; pass < 4; pass++) bytes = write_index(index);
    printf("indexer: %ld documents, %ld terms, %d distinct, index %zu bytes\n", docs, terms,
           terms_in_table, bytes);
    return 0;
}
