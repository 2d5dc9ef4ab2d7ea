/*
 * FNV-1a, 64 bits: the hash of crash-record keys, the case seed of the info
 * calls and the oracle's mismatch keys. Handler-safe. Keys are compared only
 * within one run's output directory (its faults-KEY.txt beside its records),
 * so they need not match those of other versions of this code.
 */
#ifndef ASGF_FNV_H
#define ASGF_FNV_H

#include <stddef.h>
#include <stdint.h>

#define FNV1A_BASIS 14695981039346656037ULL
#define FNV1A_PRIME 1099511628211ULL

/* [handler-safe] h extended by one byte. */
static inline uint64_t fnv1a_byte(uint64_t h, uint8_t b) { return (h ^ b) * FNV1A_PRIME; }

/* [handler-safe] h extended by n bytes (h = FNV1A_BASIS to start). */
static inline uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) h = fnv1a_byte(h, b[i]);
    return h;
}

#endif
