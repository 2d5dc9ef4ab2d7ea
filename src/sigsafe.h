/*
 * Async-signal-safe text building: no stdio, no allocation, no locks.
 * Every function here is handler-safe. Output is truncated, never overrun.
 */
#ifndef ASGF_SIGSAFE_H
#define ASGF_SIGSAFE_H

#include <stddef.h>
#include <stdint.h>

struct sbuf {
    char *p;
    size_t len, cap;
};

#define SBUF(name, storage) struct sbuf name = {storage, 0, sizeof(storage)}

void sb_str(struct sbuf *b, const char *s);
void sb_chr(struct sbuf *b, char c);
void sb_dec(struct sbuf *b, long long v);
/* 0x-prefixed, zero-padded to `digits` hex digits (0 = no padding). */
void sb_hex(struct sbuf *b, uint64_t v, int digits);
/* Lower-case hex of bytes, no prefix. */
void sb_hexbytes(struct sbuf *b, const uint8_t *bytes, size_t n);
/* write(2) all of it, retrying on EINTR and short writes. */
void sigsafe_write_all(int fd, const char *p, size_t n);
/* Name of a signal number ("SIGSEGV"), or "SIG?" */
const char *sigsafe_signame(int sig);
/* Reads n bytes at addr in this process without faulting (process_vm_readv);
 * returns 0 on success, -1 if unreadable. */
int sigsafe_read(uintptr_t addr, void *out, size_t n);

/* CLOCK_MONOTONIC in nanoseconds. */
long long sigsafe_now_ns(void);

/* Not handler-safe: installs fn for signo with SA_SIGINFO|SA_RESTART; while
 * fn runs only `block` (0: none) is blocked besides signo. 0 or -1. */
#include <signal.h>
int sigsafe_install(int signo, void (*fn)(int, siginfo_t *, void *), int block);

#endif
