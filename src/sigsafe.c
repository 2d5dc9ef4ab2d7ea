/* Async-signal-safe helpers (see sigsafe.h). */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "sigsafe.h"

void sb_chr(struct sbuf *b, char c)
{
    if (b->len + 1 < b->cap) b->p[b->len++] = c;
    if (b->cap) b->p[b->len] = 0;
}

void sb_str(struct sbuf *b, const char *s)
{
    while (s && *s) sb_chr(b, *s++);
}

void sb_dec(struct sbuf *b, long long v)
{
    char tmp[24];
    int n = 0;
    unsigned long long u = v < 0 ? -(unsigned long long)v : (unsigned long long)v;
    do tmp[n++] = (char)('0' + u % 10); while ((u /= 10) && n < (int)sizeof tmp);
    if (v < 0) sb_chr(b, '-');
    while (n) sb_chr(b, tmp[--n]);
}

void sb_hex(struct sbuf *b, uint64_t v, int digits)
{
    static const char hex[] = "0123456789abcdef";
    char tmp[16];
    int n = 0;
    do tmp[n++] = hex[v & 15]; while ((v >>= 4) && n < 16);
    while (n < digits && n < 16) tmp[n++] = '0';
    sb_str(b, "0x");
    while (n) sb_chr(b, tmp[--n]);
}

void sb_hexbytes(struct sbuf *b, const uint8_t *bytes, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        sb_chr(b, hex[bytes[i] >> 4]);
        sb_chr(b, hex[bytes[i] & 15]);
    }
}

void sigsafe_write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return;
        p += w, n -= (size_t)w;
    }
}

const char *sigsafe_signame(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    case SIGABRT: return "SIGABRT";
    case SIGTRAP: return "SIGTRAP";
    default: return "SIG?";
    }
}

int sigsafe_read(uintptr_t addr, void *out, size_t n)
{
    struct iovec local = {out, n}, remote = {(void *)addr, n};
    int saved = errno;
    ssize_t r = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    errno = saved;
    return r == (ssize_t)n ? 0 : -1;
}

long long sigsafe_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int sigsafe_install(int signo, void (*fn)(int, siginfo_t *, void *), int block)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = fn;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (block) sigaddset(&sa.sa_mask, block);
    return sigaction(signo, &sa, NULL);
}
