/* libfleetwork.so: hashing and block compression shared by the demo fleet's services. */
#ifndef FLEETWORK_H
#define FLEETWORK_H
#include <stddef.h>
#include <stdint.h>

/* 64-bit FNV-1a of n bytes, with a final avalanche step. */
uint64_t fw_hash(const void *data, size_t n);

/* LZ77-style compression of n bytes into out (room for 2 * n bytes); returns the length
 * written. Looks back up to 255 bytes for a match: slow on purpose, so it shows in profiles. */
size_t fw_compress(const unsigned char *in, size_t n, unsigned char *out);

#endif
