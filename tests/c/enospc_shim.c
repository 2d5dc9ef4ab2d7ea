/*
 * A full disk without mounting one: LD_PRELOAD this into the process under
 * test and writes to regular files below ASGF_ENOSPC_DIR fail with ENOSPC
 * once ASGF_ENOSPC_AFTER bytes (default 0) have been written there.
 * Covered: write, pwrite, writev (they use the budget up; a write that
 * crosses it is cut short, the next one fails), and fallocate,
 * posix_fallocate, ftruncate growing a file (they fail once the budget is
 * used up, and do not use it: the disk fills with data, so reservations made
 * before that succeed). Also their 64-bit names. Other files (the JDK's own, stdout
 * and stderr) are left alone, so the messages of the process stay visible.
 * ASGF_ENOSPC_SPARE names one file (a base name) that is always written, as if
 * space were freed before the process wrote it at exit.
 * [handler-safe] once loaded (the constructor resolves the real calls):
 * fstat, readlink and atomics only, no malloc.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static _Atomic long long budget = -1; /* -1: not read yet */
static char dir[512];
static size_t dir_len;
static char spare[128];

static void setup(void)
{
    if (atomic_load(&budget) != -1) return;
    const char *d = getenv("ASGF_ENOSPC_DIR");
    const char *n = getenv("ASGF_ENOSPC_AFTER");
    if (d && strlen(d) < sizeof dir) {
        strcpy(dir, d);
        dir_len = strlen(dir);
        while (dir_len > 1 && dir[dir_len - 1] == '/') dir[--dir_len] = 0;
    }
    const char *sp = getenv("ASGF_ENOSPC_SPARE");
    if (sp && strlen(sp) < sizeof spare) strcpy(spare, sp);
    atomic_store(&budget, n ? atoll(n) : 0);
}

/* 1 when fd is a regular file below the directory. */
static int watched(int fd)
{
    struct stat st;
    if (!dir_len || fstat(fd, &st) || !S_ISREG(st.st_mode)) return 0;
    char link[32], target[600];
    char num[16];
    int k = 0;
    for (unsigned v = (unsigned)fd; k == 0 || v; v /= 10) num[k++] = (char)('0' + v % 10);
    memcpy(link, "/proc/self/fd/", 14);
    for (int i = 0; i < k; i++) link[14 + i] = num[k - 1 - i];
    link[14 + k] = 0;
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n <= 0) return 0;
    target[n] = 0;
    if (strncmp(target, dir, dir_len) || (target[dir_len] != '/' && target[dir_len] != 0)) return 0;
    const char *base = strrchr(target, '/');
    return !(spare[0] && base && !strcmp(base + 1, spare));
}

/* 1 once the budget is used up. */
static int exhausted(void)
{
    setup();
    return atomic_load(&budget) <= 0;
}

/* Takes n bytes from the budget: 0 when all of them fit, else the number
 * that still fit (a short write), or -1 for none. */
static long long take(long long n)
{
    setup();
    for (;;) {
        long long left = atomic_load(&budget);
        if (left <= 0) return -1;
        long long got = n < left ? n : left;
        if (atomic_compare_exchange_weak(&budget, &left, left - got)) return got == n ? 0 : got;
    }
}

static __typeof__(write) *real_write;
static __typeof__(pwrite) *real_pwrite;
static __typeof__(writev) *real_writev;
static __typeof__(fallocate) *real_fallocate;
static __typeof__(posix_fallocate) *real_posix_fallocate;
static __typeof__(ftruncate) *real_ftruncate;

__attribute__((constructor)) static void resolve(void)
{
    real_write = dlsym(RTLD_NEXT, "write");
    real_pwrite = dlsym(RTLD_NEXT, "pwrite");
    real_writev = dlsym(RTLD_NEXT, "writev");
    real_fallocate = dlsym(RTLD_NEXT, "fallocate");
    real_posix_fallocate = dlsym(RTLD_NEXT, "posix_fallocate");
    real_ftruncate = dlsym(RTLD_NEXT, "ftruncate");
    setup();
}

ssize_t write(int fd, const void *buf, size_t n)
{
    setup();
    if (n && watched(fd)) {
        long long got = take((long long)n);
        if (got < 0) return errno = ENOSPC, -1;
        if (got > 0) n = (size_t)got;
    }
    return real_write(fd, buf, n);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    setup();
    if (n && watched(fd)) {
        long long got = take((long long)n);
        if (got < 0) return errno = ENOSPC, -1;
        if (got > 0) n = (size_t)got;
    }
    return real_pwrite(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off) { return pwrite(fd, buf, n, off); }

ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
    setup();
    size_t n = 0;
    for (int i = 0; i < cnt; i++) n += iov[i].iov_len;
    if (n && watched(fd) && take((long long)n) != 0) return errno = ENOSPC, -1;
    return real_writev(fd, iov, cnt);
}

int fallocate(int fd, int mode, off_t off, off_t len)
{
    setup();
    if (watched(fd) && exhausted()) return errno = ENOSPC, -1;
    return real_fallocate(fd, mode, off, len);
}

int fallocate64(int fd, int mode, off_t off, off_t len) { return fallocate(fd, mode, off, len); }

int posix_fallocate(int fd, off_t off, off_t len)
{
    setup();
    if (watched(fd) && exhausted()) return ENOSPC;
    return real_posix_fallocate(fd, off, len);
}

int posix_fallocate64(int fd, off_t off, off_t len) { return posix_fallocate(fd, off, len); }

int ftruncate(int fd, off_t len)
{
    setup();
    struct stat st;
    if (watched(fd) && !fstat(fd, &st) && len > st.st_size && exhausted()) return errno = ENOSPC, -1;
    return real_ftruncate(fd, len);
}

int ftruncate64(int fd, off_t len) { return ftruncate(fd, len); }
