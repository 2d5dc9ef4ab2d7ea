#include "placement.h"

#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sigsafe.h"
#include "target.h"

/* Windows: long enough that a libFuzzer corpus's mix of slow and fast
 * cases averages out, short enough that a machine that turns busy is
 * noticed within seconds. A trial must beat the rate it is compared with
 * by WIN_MARGIN, so that noise does not flip the placement back and forth:
 * the two cases that matter differ by 2x (alone, spread wins) and 8x (busy,
 * together wins), while a short campaign job's own rate moved by 1.2x
 * between windows and made it move four times in 14 s at a margin of 1.2. */
#define FIRST_GAP_NS 1000000000LL
/* The first window is longer: a run's first seconds are slow (its walker
 * breakpoints fire, the JIT still compiles), and a trial measured after
 * them would win against them whatever the placement. */
#define START_GAP_NS 3000000000LL
#define MAX_GAP_NS 32000000000LL
#define TRIAL_NS 250000000LL
#define SETTLE_NS 20000000LL
#define WIN_MARGIN 1.5

static struct {
    enum placement_mode mode;     /* AUTO, or the placement forced */
    enum placement_mode now;      /* SPREAD or TOGETHER */
    int trial;                    /* the window running is a trial of `now` */
    long long spread_spin_ns;
    long long together_gap_ns;
    long long together_hold_ns;
    cpu_set_t allowed;            /* the mask the process started with */
    long long window_from;        /* after the settling time */
    unsigned long long window_cases;
    double rate_before;           /* cases/s of the placement a trial is measured against */
    long long gap_ns;             /* measuring time before the next trial */
    unsigned long long cases[2];  /* cases run spread, together */
    unsigned trials, moves;
} pl = {.mode = PLACEMENT_OFF};

int placement_parse(const char *s)
{
    if (!strcmp(s, "auto")) return PLACEMENT_AUTO;
    if (!strcmp(s, "spread")) return PLACEMENT_SPREAD;
    if (!strcmp(s, "together")) return PLACEMENT_TOGETHER;
    return -1;
}

/* Every thread of the process, the JVM's included, gets `set`: a JIT or GC
 * thread left on the other core would keep waking work there. */
static void set_all_threads(const cpu_set_t *set)
{
    DIR *d = opendir("/proc/self/task");
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') sched_setaffinity(atoi(e->d_name), sizeof *set, set);
    closedir(d);
}

static void apply(enum placement_mode where)
{
    target_release(); /* no worker held in its handler while it moves */
    if (where == PLACEMENT_TOGETHER) {
        cpu_set_t one;
        int cpu = sched_getcpu();
        if (cpu < 0 || !CPU_ISSET(cpu, &pl.allowed)) {
            for (cpu = 0; cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &pl.allowed); cpu++) {
            }
        }
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        target_set_spin(0);
        target_set_shared_cpu(pl.together_gap_ns, pl.together_hold_ns);
        set_all_threads(&one);
    } else {
        set_all_threads(&pl.allowed);
        target_set_spin(pl.spread_spin_ns);
        target_set_shared_cpu(0, 0);
    }
    pl.now = where;
}

static void open_window(long long now_ns)
{
    pl.window_from = now_ns + SETTLE_NS;
    pl.window_cases = 0;
}

void placement_start(enum placement_mode m, long long spread_spin_ns, long long together_gap_ns,
                     long long together_hold_ns)
{
    pl.spread_spin_ns = spread_spin_ns;
    pl.together_gap_ns = together_gap_ns;
    pl.together_hold_ns = together_hold_ns;
    if (sched_getaffinity(0, sizeof pl.allowed, &pl.allowed) || CPU_COUNT(&pl.allowed) < 2) {
        pl.mode = PLACEMENT_OFF;
        return;
    }
    pl.mode = m;
    pl.gap_ns = START_GAP_NS;
    apply(m == PLACEMENT_TOGETHER ? PLACEMENT_TOGETHER : PLACEMENT_SPREAD);
    pl.window_from = 0; /* the first case opens it: start-up and warm-up run no cases */
}

static enum placement_mode other(enum placement_mode p)
{
    return p == PLACEMENT_SPREAD ? PLACEMENT_TOGETHER : PLACEMENT_SPREAD;
}

void placement_tick(void)
{
    if (pl.mode == PLACEMENT_OFF) return;
    pl.cases[pl.now == PLACEMENT_TOGETHER]++;
    if (pl.mode != PLACEMENT_AUTO) return;
    long long now = sigsafe_now_ns();
    if (!pl.window_from) {
        open_window(now);
        return;
    }
    if (now < pl.window_from) return; /* settling after a move */
    pl.window_cases++;
    long long span = now - pl.window_from;
    if (span < (pl.trial ? TRIAL_NS : pl.gap_ns)) return;
    double rate = (double)pl.window_cases * 1e9 / (double)span;
    if (!pl.trial) {
        pl.rate_before = rate;
        pl.trial = 1;
        pl.trials++;
        apply(other(pl.now));
    } else if (rate > WIN_MARGIN * pl.rate_before) {
        pl.trial = 0;
        pl.moves++;
        pl.gap_ns = FIRST_GAP_NS; /* the machine changed: look again soon */
    } else {
        pl.trial = 0;
        apply(other(pl.now));
        pl.gap_ns = pl.gap_ns * 2 < MAX_GAP_NS ? pl.gap_ns * 2 : MAX_GAP_NS;
        if (pl.gap_ns < 2 * FIRST_GAP_NS) pl.gap_ns = 2 * FIRST_GAP_NS;
    }
    open_window(sigsafe_now_ns());
}

static const char *const names[] = {"auto", "spread", "together", "off (fewer than 2 CPUs allowed, or ASGF_PIN)"};

const char *placement_name(void) { return names[pl.mode]; }

void placement_describe(char *buf, size_t len)
{
    if (pl.mode == PLACEMENT_OFF) {
        snprintf(buf, len, "%s", names[PLACEMENT_OFF]);
        return;
    }
    unsigned long long all = pl.cases[0] + pl.cases[1];
    snprintf(buf, len, "%s, %s now; %u trials, %u moves; cases spread %.0f %%, together %.0f %%", names[pl.mode],
             names[pl.now], pl.trials, pl.moves, all ? 100.0 * (double)pl.cases[0] / (double)all : 0.0,
             all ? 100.0 * (double)pl.cases[1] / (double)all : 0.0);
}
