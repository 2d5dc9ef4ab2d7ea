/* Per-thread in-flight case file (see inflight.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "case.h"
#include "inflight.h"
#include "regions.h"

#define FILE_SIZE (INFLIGHT_HEADER + CASE_MAX_SIZE)

static __thread uint8_t *map __attribute__((tls_model("initial-exec")));
static __thread char *path_of_map __attribute__((tls_model("initial-exec")));

/* One line for the first failure only: every sampled thread would repeat it.
 * Without its file a thread runs on; its cases are then not kept. */
static void said(const char *path, const char *what, int err)
{
    static _Atomic int once;
    if (atomic_exchange(&once, 1)) return;
    fprintf(stderr, "asgst-fuzz: in-flight case file %s: %s: %s; threads without one run on, "
                    "but a VM crash on them keeps no case\n", path, what, strerror(err));
}

int inflight_open(const char *dir)
{
    static __thread char path[256];
    if (map) return 0;
    snprintf(path, sizeof path, "%s/inflight-%d-%d.bin", dir, (int)getpid(), threads_gettid());
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return said(path, "cannot create", errno), -1;
    /* The blocks are reserved before mapping: stores into a sparse mapping on
     * a full file system would raise SIGBUS in the sampled (JVM) thread. */
    int err = posix_fallocate(fd, 0, FILE_SIZE);
    if (err) {
        close(fd);
        unlink(path);
        return said(path, "cannot reserve space", err), -1;
    }
    void *m = mmap(NULL, FILE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED) {
        said(path, "cannot map", errno);
        unlink(path);
        return -1;
    }
    map = m;
    path_of_map = path;
    memcpy(map, INFLIGHT_MAGIC, 8);
    uint32_t tid = (uint32_t)threads_gettid();
    memcpy(map + 12, &tid, 4);
    return 0;
}

void inflight_store(const uint8_t *bytes, size_t len)
{
    if (!map) return;
    if (len > CASE_MAX_SIZE) len = CASE_MAX_SIZE;
    uint32_t n = (uint32_t)len;
    memcpy(map + 8, &n, 4);
    memcpy(map + INFLIGHT_HEADER, bytes, len);
}

uint32_t inflight_hide(void)
{
    uint32_t n = 0, zero = 0;
    if (!map) return 0;
    memcpy(&n, map + 8, 4);
    memcpy(map + 8, &zero, 4);
    return n;
}

void inflight_restore(uint32_t len)
{
    if (map) memcpy(map + 8, &len, 4);
}

void inflight_close(int keep)
{
    uint8_t *m = map;
    if (!m) return;
    /* Clear before unmapping: a sampling signal may land in between, and
     * inflight_store must then see no mapping rather than a dead one. */
    map = NULL;
    atomic_signal_fence(memory_order_seq_cst);
    munmap(m, FILE_SIZE);
    if (!keep) unlink(path_of_map);
}

void inflight_remove_all(const char *dir)
{
    char prefix[32];
    snprintf(prefix, sizeof prefix, "inflight-%d-", (int)getpid());
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (!strncmp(e->d_name, prefix, strlen(prefix))) {
            char path[600];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    if (d) closedir(d);
}
