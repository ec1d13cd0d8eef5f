/* libfleetwork.so: the shared library of the demo fleet (api-server and indexer both link it), so
 * that profiles have samples in a second module, loaded at an ASLR address. */
#include "fleetwork.h"

uint64_t fw_hash(const void *data, size_t n) {
    const unsigned char *p = data;
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

/* One match: the longest run in the 255 bytes before pos equal to the bytes at pos. */
static size_t longest_match(const unsigned char *in, size_t n, size_t pos, size_t *distance) {
    size_t best = 0;
    size_t from = pos > 255 ? pos - 255 : 0;
    for (size_t start = from; start < pos; start++) {
        size_t len = 0;
        while (pos + len < n && len < 255 && in[start + len] == in[pos + len]) len++;
        if (len > best) {
            best = len;
            *distance = pos - start;
        }
    }
    return best;
}

size_t fw_compress(const unsigned char *in, size_t n, unsigned char *out) {
    size_t o = 0;
    size_t i = 0;
    while (i < n) {
        size_t distance = 0;
        size_t len = longest_match(in, n, i, &distance);
        if (len >= 4) {
            out[o++] = 0xff;
            out[o++] = (unsigned char)distance;
            out[o++] = (unsigned char)len;
            i += len;
        } else {
            if (in[i] == 0xff) out[o++] = 0xff, out[o++] = 0;
            else out[o++] = in[i];
            i++;
        }
    }
    return o;
}
