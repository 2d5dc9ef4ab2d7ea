/* Crash record writer (see record.h and docs/crash-record.md). */
#include <fcntl.h>
#include <limits.h>
#include <time.h>
#include <unistd.h>
#include "arch.h"
#include "record.h"
#include "regions.h"
#include "sigsafe.h"

int record_backtrace(ucontext_t *uc, uintptr_t *pcs, int max)
{
    int n = 0;
    if (max <= 0) return 0;
    pcs[n++] = (uintptr_t)*arch_reg_slot(uc, ARCH_REG_PC);
    uintptr_t fp = (uintptr_t)*arch_reg_slot(uc, ARCH_REG_FP);
    while (n < max && fp && !(fp & 7)) {
        uintptr_t link[2]; /* saved fp, return address: same layout on x86_64 and aarch64 */
        if (sigsafe_read(fp, link, sizeof link) || !link[1]) break;
        pcs[n++] = link[1];
        /* Frames grow toward higher addresses; anything else is a broken chain. */
        if (link[0] <= fp || link[0] - fp > (1u << 20)) break;
        fp = link[0];
    }
    return n;
}

static void frame_line(struct sbuf *b, const char *key, int index, uintptr_t pc)
{
    uintptr_t off = 0;
    const char *module = regions_module_of(pc, &off);
    sb_str(b, key);
    if (index >= 0) {
        sb_dec(b, index);
        sb_chr(b, ' ');
    }
    sb_hex(b, pc, 16);
    sb_chr(b, ' ');
    if (module) {
        sb_str(b, module);
        sb_chr(b, '+');
        sb_hex(b, off, 0);
    } else {
        sb_chr(b, '?');
    }
    sb_chr(b, '\n');
}

static const char *or_unknown(const char *s) { return s ? s : "?"; }

int record_write(const struct record_info *ri)
{
    struct sbuf b = {ri->buf, 0, ri->buf_len};
    int tid = threads_gettid();
    const struct thread_info *t = threads_find(tid);
    const struct guard_call *c = ri->call;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);

    sb_str(&b, "ASGF-RECORD 1\npid: ");
    sb_dec(&b, getpid());
    sb_str(&b, "\ntid: ");
    sb_dec(&b, tid);
    sb_str(&b, "\nthread: ");
    sb_str(&b, t ? t->name : "?");
    sb_str(&b, "\ntime_ns: ");
    sb_dec(&b, (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
    sb_str(&b, "\nbackend: ");
    sb_str(&b, or_unknown(c ? c->backend : 0));
    sb_str(&b, "\nentry: ");
    sb_str(&b, or_unknown(c ? c->entry : 0));
    sb_str(&b, "\nmode: ");
    sb_str(&b, or_unknown(c ? c->mode : 0));
    /* The framework's verdict, apart from anything the VM returned: the
     * prototype's own codes include -17 and -18, so a bare number could be
     * read either way. */
    sb_str(&b, "\noutcome: fault\nvm_last: ");
    if (c && c->last_vm && *c->last_vm != INT_MIN) sb_dec(&b, *c->last_vm);
    else sb_str(&b, "none");
    sb_str(&b, "\nsignal: ");
    sb_dec(&b, ri->sig);
    sb_chr(&b, ' ');
    sb_str(&b, sigsafe_signame(ri->sig));
    sb_str(&b, "\nsi_code: ");
    sb_dec(&b, ri->si->si_code);
    sb_str(&b, "\nsi_addr: ");
    sb_hex(&b, (uintptr_t)ri->si->si_addr, 16);
    sb_chr(&b, '\n');

    uintptr_t pcs[RECORD_MAX_FRAMES];
    int n = record_backtrace(ri->uc, pcs, RECORD_MAX_FRAMES);
    frame_line(&b, "pc: ", -1, pcs[0]);
    for (int i = 0; i < n; i++) frame_line(&b, "frame: ", i, pcs[i]);
    sb_str(&b, "case: ");
    if (c && c->case_bytes) sb_hexbytes(&b, c->case_bytes, c->case_len);
    sb_str(&b, "\nEND\n");

    struct sbuf path = {ri->path_out, 0, ri->path_len};
    sb_str(&path, ri->dir);
    sb_str(&path, "/record-");
    sb_dec(&path, getpid());
    sb_chr(&path, '-');
    sb_dec(&path, tid);
    sb_chr(&path, '-');
    sb_dec(&path, ri->seq);
    sb_str(&path, ".txt");
    int fd = open(ri->path_out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        ri->path_out[0] = 0;
        return -1;
    }
    sigsafe_write_all(fd, b.p, b.len);
    close(fd);
    return b.len + 1 < b.cap ? 0 : -1;
}
