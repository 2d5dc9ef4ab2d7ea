/*
 * asgf-replay: runs case files in a JVM without a fuzzer, N times each,
 * and reports outcomes, faults, crash records and the reproduction rate.
 *
 *   asgf-replay [-n N] [--until-fault] [--record-dir DIR]
 *               [--mode signal|thread|queue] [--fail-on-fault] [-v] CASE|DIR...
 *
 * Inputs: our binary case files, libFuzzer crash-* files and AFL++
 * crashes/id:* files (the same bytes), and text cases ("asgf-case 1").
 * A directory stands for its files (sorted; dot files, README.txt and
 * *.md notes are skipped). Every input is validated before the JVM starts.
 *
 * Exit status:
 *   0  every case ran (with or without faults)
 *   1  --fail-on-fault was given and at least one fault was caught
 *   2  usage error, or an input is missing, unreadable or not a valid case
 *   3  the JVM or the harness could not start
 *   4  some case never ran: its worker did not answer in any of the N runs
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "feedback.h"
#include "harness.h"
#include "regions.h"
#include "sigsafe.h"

#define MAX_CASES 100000
#define HANDSHAKE_WAIT_MS 1000 /* a queue handler runs within ms where queues are processed at all */

struct input {
    char *path;
    uint8_t bytes[CASE_MAX_SIZE];
    size_t len;
};

static struct input *inputs;
static int ninputs;

static int usage(const char *why, const char *what)
{
    if (why) fprintf(stderr, "asgf-replay: %s%s%s\n", why, what ? " " : "", what ? what : "");
    fprintf(stderr,
            "usage: asgf-replay [-n N] [--until-fault] [--record-dir DIR] [--mode signal|thread|queue] "
            "[--fail-on-fault] [-v] CASE|DIR...\n"
            "  -n N             runs per case (default 1); prints the reproduction rate\n"
            "  --until-fault    stop a case's runs at its first fault (one record per case)\n"
            "  --record-dir DIR crash records and hs_err files go here (default $ASGF_OUT or ./replay-out)\n"
            "  --mode M         run every case in mode M instead of the case's own\n"
            "  --fail-on-fault  exit 1 when any run faulted (default: 0 when all ran)\n"
            "  -v               one line per run\n"
            "exit: 0 all ran, 1 fault (with --fail-on-fault), 2 bad usage or input, 3 start-up failed, 4 a case never ran\n");
    return 2;
}

static int add_path(const char *path)
{
    if (ninputs == MAX_CASES) {
        fprintf(stderr, "asgf-replay: more than %d cases\n", MAX_CASES);
        return -1;
    }
    if (!inputs && !(inputs = calloc(MAX_CASES, sizeof *inputs))) return -1;
    inputs[ninputs++].path = strdup(path);
    return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }

/* Notes beside cases (README.txt, a reproducer's NAME.md) are not inputs. */
static int skip_entry(const struct dirent *e)
{
    size_t n = strlen(e->d_name);
    return e->d_name[0] != '.' && strcmp(e->d_name, "README.txt") && !(n > 3 && !strcmp(e->d_name + n - 3, ".md"));
}

static int add_arg(const char *arg)
{
    struct stat st;
    if (stat(arg, &st)) {
        fprintf(stderr, "asgf-replay: %s: %s\n", arg, strerror(errno));
        return -1;
    }
    if (S_ISREG(st.st_mode)) return add_path(arg);
    if (!S_ISDIR(st.st_mode)) {
        /* A FIFO or device would block the read. */
        fprintf(stderr, "asgf-replay: %s: not a regular file or directory\n", arg);
        return -1;
    }
    struct dirent **list;
    int n = scandir(arg, &list, skip_entry, by_name);
    if (n < 0) {
        fprintf(stderr, "asgf-replay: %s: %s\n", arg, strerror(errno));
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", arg, list[i]->d_name);
        if (!rc && !stat(path, &st) && S_ISREG(st.st_mode)) rc = add_path(path);
        free(list[i]);
    }
    free(list);
    return rc;
}

/* Reads and strictly validates one input; text cases are encoded. */
static int load(struct input *in)
{
    static char buf[CASE_TEXT_MAX + 1];
    FILE *f = fopen(in->path, "rb");
    if (!f) {
        fprintf(stderr, "asgf-replay: %s: %s\n", in->path, strerror(errno));
        return -1;
    }
    size_t n = fread(buf, 1, CASE_TEXT_MAX, f);
    fclose(f);
    buf[n] = 0;
    if (case_is_text(buf, n)) {
        struct case_prog p;
        char err[256];
        if (case_parse_text(buf, &p, err, sizeof err)) {
            fprintf(stderr, "asgf-replay: %s:%s\n", in->path, err);
            return -1;
        }
        in->len = case_encode(&p, in->bytes);
        return 0;
    }
    size_t off;
    const char *err;
    /* One byte past the maximum is enough for the validator to name it. */
    size_t len = n > CASE_MAX_SIZE + 1 ? CASE_MAX_SIZE + 1 : n;
    if (case_validate((const uint8_t *)buf, len, &off, &err)) {
        fprintf(stderr, "asgf-replay: %s: offset %zu: %s\n", in->path, off, err);
        return -1;
    }
    memcpy(in->bytes, buf, len);
    in->len = len;
    return 0;
}

struct tally {
    int runs, ran, faults;
    int handshakes, handshake_faults, handshake_missed; /* runs whose case has handshake qops */
    long frames_sum;
    int frames_max;
    unsigned long long outcome[FEEDBACK_CLASSES];
    struct harness_result first_fault;
};

static void print_fault(const struct guard_fault *f)
{
    uintptr_t off = 0;
    const char *module = regions_module_of(f->pc, &off);
    printf("  fault: %s si_code %d addr 0x%lx pc 0x%lx %s+0x%lx\n", sigsafe_signame(f->sig), f->code,
           (unsigned long)f->addr, (unsigned long)f->pc, module ? module : "?", (unsigned long)off);
    printf("  record: %s\n", f->record[0] ? f->record : "(none: this pc and case were recorded before)");
}

static void print_case(const struct input *in, const struct tally *t, const struct case_prog *p)
{
    printf("case %s (%zu bytes): %s, mode %s, worker %u, records: %d mut, %d stk, %d qop\n", in->path, in->len,
           case_entry_name(p->entry), case_mode_name(p->mode), p->worker, p->nmut, p->nstk, p->nqop);
    printf("  outcomes:");
    for (int c = 0; c < FEEDBACK_CLASSES; c++)
        if (t->outcome[c]) printf(" %s=%llu", harness_class_name(c), t->outcome[c]);
    if (t->ran) printf(" (frames: max %d, mean %.1f)", t->frames_max, (double)t->frames_sum / t->ran);
    if (t->ran < t->runs) printf(" not-run=%d", t->runs - t->ran);
    printf("\n  faults: %d/%d runs (reproduction %.0f%%)\n", t->faults, t->runs, 100.0 * t->faults / t->runs);
    if (t->handshakes || t->handshake_missed)
        printf("  handshake ops: ran after %d of %d runs, a fault among them in %d (the crash record names it)\n",
               t->handshakes, t->handshakes + t->handshake_missed, t->handshake_faults);
    if (t->faults > t->handshake_faults) print_fault(&t->first_fault.out.fault);
}

int main(int argc, char **argv)
{
    long runs = 1;
    const char *record_dir = NULL;
    int mode = -1, fail_on_fault = 0, until_fault = 0, verbose = 0, i;
    for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            i++;
            break;
        } else if (!strcmp(a, "-n") || !strcmp(a, "--record-dir") || !strcmp(a, "--mode")) {
            if (i + 1 >= argc) return usage("missing value for", a);
            const char *v = argv[++i];
            char *end;
            if (a[1] == 'n') {
                runs = strtol(v, &end, 10);
                if (*end || runs < 1 || runs > 100000000) return usage("-n wants a count 1..100000000, got", v);
            } else if (a[2] == 'r') {
                record_dir = v;
            } else if ((mode = case_mode_parse(v)) < 0) {
                return usage("--mode wants signal, thread or queue, got", v);
            }
        } else if (!strcmp(a, "--fail-on-fault")) {
            fail_on_fault = 1;
        } else if (!strcmp(a, "--until-fault")) {
            until_fault = 1;
        } else if (!strcmp(a, "-v")) {
            verbose = 1;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(NULL, NULL);
            return 0;
        } else {
            return usage("unknown option", a);
        }
    }
    if (i == argc) return usage("no case files given", NULL);
    for (; i < argc; i++)
        if (add_arg(argv[i])) return 2;
    if (!ninputs) return usage("no case files found in", argv[argc - 1]);
    int bad = 0;
    for (int k = 0; k < ninputs; k++) bad |= load(&inputs[k]) != 0;
    if (bad) return 2;

    struct harness_config c;
    char err[1024];
    if (harness_config_from_env(&c, err, sizeof err)) {
        fprintf(stderr, "asgf-replay: %s\n", err);
        return 2;
    }
    if (record_dir) c.out = record_dir;
    else if (!getenv("ASGF_OUT")) c.out = "./replay-out";
    struct stat rst;
    if (c.out && !stat(c.out, &rst) && !S_ISDIR(rst.st_mode)) {
        /* Else every record would fail and the run would look clean. */
        fprintf(stderr, "asgf-replay: %s %s: exists and is not a directory\n", record_dir ? "--record-dir" : "ASGF_OUT",
                c.out);
        return 2;
    }
    if (!getenv("ASGF_WARMUP_MS")) c.warmup_ms = 1000; /* closer to a fuzzer's long-running, compiled JVM */
    /* Each attempt at a crash wants a fresh interrupt point of the worker:
     * in a held batch, all of them would start from the same one. */
    if (!getenv("ASGF_BATCH")) c.batch = 1;
    c.keep_going = 1;
    c.mode_override = mode;
    if (harness_start(&c, err, sizeof err)) {
        fprintf(stderr, "asgf-replay: %s\n", err);
        return 3;
    }
    int any_fault = 0, never_ran = 0;
    static struct harness_result r;
    static struct tally t;
    for (int k = 0; k < ninputs; k++) {
        memset(&t, 0, sizeof t);
        t.runs = (int)runs;
        struct case_prog prog;
        for (long n = 0; n < runs; n++) {
            enum harness_rc rc = harness_run(inputs[k].bytes, inputs[k].len, &r);
            prog = r.prog;
            if (verbose)
                printf("  run %ld: %s outcome %s raw %d (%s) frames %d%s\n", n + 1,
                       rc == HARNESS_NOT_RUN ? "not run," : "", exec_fw_name(r.out.fw), r.out.raw,
                       harness_raw_name(r.out.raw), r.out.frames, rc == HARNESS_FAULT ? " FAULT" : "");
            if (rc == HARNESS_NOT_RUN) continue;
            t.ran++;
            /* The case's handshake ops run at the target's next queue
             * handler: the run is over when they are. */
            int hs = harness_await_handshake(&r, HANDSHAKE_WAIT_MS);
            if (hs < 0) {
                t.handshake_missed++;
            } else if (hs > 0) {
                t.handshakes++;
                if (hs == 2 && rc != HARNESS_FAULT) {
                    t.handshake_faults++;
                    rc = HARNESS_FAULT;
                }
            }
            t.outcome[feedback_class(r.prog.entry, &r.out)]++;
            t.frames_sum += r.out.frames;
            if (r.out.frames > t.frames_max) t.frames_max = r.out.frames;
            if (rc == HARNESS_FAULT && !t.faults++) t.first_fault = r;
            if (t.faults && until_fault) {
                t.runs = (int)n + 1;
                break;
            }
        }
        print_case(&inputs[k], &t, &prog);
        fflush(stdout);
        any_fault |= t.faults > 0;
        never_ran |= t.ran == 0;
    }
    /* the totals: faults caught outside the cases too (queue handlers, thread start and end) */
    harness_stats(verbose ? 1 : 2);
    if (never_ran) return 4;
    return fail_on_fault && any_fault ? 1 : 0;
}
