/* api-server: the demo fleet's web service, a toy JSON API. It makes up REQUESTS requests from
 * SEED (a request line, headers, a query string), parses each one, finds its route, renders a JSON
 * response and checksums it with libfleetwork.
 *
 * Usage: api-server REQUESTS SEED [strict-escaping]
 * Profiled by running it with CPUPROFILE=FILE (it is linked with -lprofiler).
 *
 * strict-escaping is the feature flag behind the demo's regression: it escapes every
 * non-alphanumeric byte as \u00XX and, to place each one, finds the end of the field again by
 * scanning it from its start, so escaping a field becomes quadratic in its length. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fleetwork.h"

#define MAX_REQUEST 2048
#define MAX_RESPONSE 65536

struct request {
    char method[8];
    char path[64];
    char query[256];
    int headers;
    uint64_t user;
};

static const char *const routes[] = {
    "/v1/users", "/v1/orders", "/v1/search", "/v1/carts", "/v1/items", "/healthz",
};
#define ROUTES (sizeof routes / sizeof routes[0])

static const char *const words[] = {
    "alpha", "bravo", "charlie", "delta", "echo", "fox", "golf", "hotel", "india", "juliet",
    "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango",
};
#define WORDS (sizeof words / sizeof words[0])

static uint64_t rng_state;

static uint64_t next_random(void) {
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

static int strict_escaping;

/* A request as a client would send it. */
static size_t make_request(char *buf) {
    const char *route = routes[next_random() % ROUTES];
    int n = snprintf(buf, MAX_REQUEST, "GET %s?q=", route);
    int terms = 1 + next_random() % 6;
    for (int i = 0; i < terms; i++)
        n += snprintf(buf + n, MAX_REQUEST - n, "%s%s", i ? "+" : "", words[next_random() % WORDS]);
    n += snprintf(buf + n, MAX_REQUEST - n,
                  "&page=%d HTTP/1.1\r\nHost: api.example.com\r\n"
                  "User-Agent: demo-client/2.%d\r\nX-User: %llu\r\nAccept: application/json\r\n\r\n",
                  (int)(next_random() % 20), (int)(next_random() % 9),
                  (unsigned long long)(next_random() % 100000));
    return (size_t)n;
}

/* Splits the request line and counts the headers; returns 0 if the request is malformed. */
static int parse_request(const char *buf, size_t len, struct request *req) {
    size_t i = 0, j = 0;
    memset(req, 0, sizeof *req);
    while (i < len && buf[i] != ' ' && j < sizeof req->method - 1) req->method[j++] = buf[i++];
    if (i++ >= len) return 0;
    for (j = 0; i < len && buf[i] != '?' && buf[i] != ' ' && j < sizeof req->path - 1;)
        req->path[j++] = buf[i++];
    if (i < len && buf[i] == '?') i++;
    for (j = 0; i < len && buf[i] != ' ' && j < sizeof req->query - 1;) req->query[j++] = buf[i++];
    for (; i + 1 < len; i++) {
        if (buf[i] == '\r' && buf[i + 1] == '\n') {
            req->headers++;
            if (strncmp(buf + i + 2, "X-User: ", 8) == 0) req->user = strtoull(buf + i + 10, 0, 10);
        }
    }
    return req->headers > 0;
}

static int route_lookup(const struct request *req) {
    uint64_t h = fw_hash(req->path, strlen(req->path));
    for (size_t r = 0; r < ROUTES; r++)
        if (strcmp(routes[r], req->path) == 0) return (int)r;
    return (int)(h % ROUTES);
}

/* Appends text to the response as a JSON string's content; returns the new length. */
static size_t escape_field(char *out, size_t len, const char *text) {
    static const char hex[] = "0123456789abcdef";
    size_t start = len;
    for (const char *p = text; *p && len + 8 < MAX_RESPONSE; p++) {
        unsigned char c = (unsigned char)*p;
        if (strict_escaping && !((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
            /* The regression: where does the field end? Scan it again, for every escaped byte. */
            size_t end = start;
            out[len] = 0;
            while (out[end]) end++;
            memcpy(out + end, "\\u00", 4);
            out[end + 4] = hex[c >> 4];
            out[end + 5] = hex[c & 15];
            len = end + 6;
        } else if (c == '"' || c == '\\' || c < 0x20) {
            out[len++] = '\\';
            out[len++] = c < 0x20 ? 'n' : (char)c;
        } else {
            out[len++] = (char)c;
        }
    }
    out[len] = 0;
    return len;
}

static size_t render_response(const struct request *req, int route, char *out) {
    size_t len = (size_t)snprintf(out, MAX_RESPONSE, "{\"route\":\"");
    len = escape_field(out, len, routes[route]);
    len += (size_t)snprintf(out + len, MAX_RESPONSE - len, "\",\"items\":[");
    int items = route == 5 ? 1 : 8 + (int)(req->user % 24);
    for (int i = 0; i < items && len + 512 < MAX_RESPONSE; i++) {
        char field[320];
        snprintf(field, sizeof field, "item %d for user %llu: \"%s\" (page/%s)", i,
                 (unsigned long long)req->user, req->query, req->method);
        len += (size_t)snprintf(out + len, MAX_RESPONSE - len, "%s{\"id\":%d,\"text\":\"",
                                i ? "," : "", i);
        len = escape_field(out, len, field);
        len += (size_t)snprintf(out + len, MAX_RESPONSE - len, "\"}");
    }
    len += (size_t)snprintf(out + len, MAX_RESPONSE - len, "]}");
    return len;
}

/* A session check: a few rounds of hashing the user's token (in libfleetwork). */
static int authorize(const struct request *req) {
    uint64_t token = req->user * 0x9e3779b97f4a7c15ULL;
    for (int round = 0; round < 16; round++) token = fw_hash(&token, sizeof token);
    return (token & 0xfff) != 0;
}

static uint64_t handle_request(const char *buf, size_t len, char *out) {
    struct request req;
    if (!parse_request(buf, len, &req) || !authorize(&req)) return 0;
    int route = route_lookup(&req);
    size_t n = render_response(&req, route, out);
    return fw_hash(out, n);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: api-server REQUESTS SEED [strict-escaping]\n");
        return 2;
    }
    long requests = atol(argv[1]);
    rng_state = strtoull(argv[2], 0, 10) | 1;
    strict_escaping = argc > 3 && strcmp(argv[3], "strict-escaping") == 0;
    static char request[MAX_REQUEST], response[MAX_RESPONSE];
    uint64_t checksum = 0;
    for (long i = 0; i < requests; i++) {
        size_t n = make_request(request);
        checksum ^= handle_request(request, n, response);
    }
    printf("api-server: %ld requests, checksum %016llx\n", requests, (unsigned long long)checksum);
    return 0;
}
