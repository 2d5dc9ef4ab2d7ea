/*
 * The stand-in provider (tests/jvm/fake_proto.c) behaves as the prototype
 * does where the framework relies on it (docs/asgst-prototype.md): Enqueue's
 * -5/-6/-7, ResizeQueue dropping queued elements, GetQueueElement's index
 * range, GetEnqueuableElement's answers, the walker's own codes at and
 * below -16, and the NULL checks it does not make (the call faults in a
 * child process). Usage: fake_proto_test path/to/libfake_proto.so
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include "asgst.h"
#include "tap.h"

static void *lib;
static void *fn(const char *name)
{
    char full[96];
    snprintf(full, sizeof full, "ASGST_%s", name);
    void *p = dlsym(lib, full);
    if (!p) {
        printf("Bail out! %s missing\n", full);
        exit(1);
    }
    return p;
}
#define F(type, name) ((type)fn(name))

typedef ASGST_Queue *(*register_fn)(JNIEnv *, int, int, ASGST_QueueHandler, void *);
typedef int (*enqueue_fn)(ASGST_Queue *, void *, void *);
typedef ASGST_QueueSizeInfo (*size_info_fn)(ASGST_Queue *);
typedef void (*resize_fn)(ASGST_Queue *, int);
typedef ASGST_QueueElement *(*element_fn)(ASGST_Queue *, int);
typedef int (*enqueuable_fn)(void *, ASGST_QueueElement *);
typedef int (*run_fn)(void *, int32_t, ASGST_IteratorHandler, void *);
typedef int (*next_fn)(ASGST_Iterator *, ASGST_Frame *);
typedef void (*info_fn)(ASGST_Method, ASGST_MethodInfo *);

static _Atomic int handled, inner_rc = 99;
static ASGST_Queue *queue;

static void on_element(ASGST_Iterator *it, void *qarg, void *earg)
{
    (void)it, (void)qarg, (void)earg;
    static ucontext_t uc;
    getcontext(&uc);
    if (atomic_fetch_add(&handled, 1) == 0) atomic_store(&inner_rc, F(enqueue_fn, "Enqueue")(queue, &uc, NULL));
}

static void sleep_ms(int ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

static int faults_in_child(void (*body)(void))
{
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGSEGV, SIG_DFL);
        body();
        _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV;
}
static void null_size_info(void) { (void)F(size_info_fn, "GetQueueSizeInfo")(NULL); }
static void null_method_info(void)
{
    ASGST_MethodInfo mi;
    memset(&mi, 0, sizeof mi);
    F(info_fn, "GetMethodInfo")(NULL, &mi);
}
static void null_resize(void) { F(resize_fn, "ResizeQueue")(NULL, 4); }

static int walk_rc;
static void walk(ASGST_Iterator *it, void *arg)
{
    (void)arg;
    ASGST_Frame f;
    walk_rc = F(next_fn, "NextFrame")(it, &f);
}

int main(int argc, char **argv)
{
    if (argc < 2 || !(lib = dlopen(argv[1], RTLD_NOW))) {
        printf("Bail out! cannot load %s\n", argc > 1 ? argv[1] : "(no path)");
        return 1;
    }
    ucontext_t uc;
    getcontext(&uc);
    CHECK(F(enqueue_fn, "Enqueue")(NULL, &uc, NULL) == ASGST_ENQUEUE_NO_QUEUE, "Enqueue(NULL queue) is -5");

    queue = F(register_fn, "RegisterQueue")(NULL, 2, 0, on_element, NULL);
    CHECK(queue != NULL, "RegisterQueue(size 2)");
    /* Fill it and resize before the processor runs: the queued elements are
     * dropped unprocessed. Both enqueues and the resize happen within a
     * millisecond of each other, the processor's period; retried if the
     * processor got in between. */
    int dropped = 0;
    for (int attempt = 0; attempt < 20 && !dropped; attempt++) {
        atomic_store(&handled, 0);
        int a = F(enqueue_fn, "Enqueue")(queue, &uc, NULL), b = F(enqueue_fn, "Enqueue")(queue, &uc, NULL);
        int c = F(enqueue_fn, "Enqueue")(queue, &uc, NULL);
        F(resize_fn, "ResizeQueue")(queue, 3);
        if (a == 1 && b == 1 && c == ASGST_ENQUEUE_FULL_QUEUE && atomic_load(&handled) == 0) {
            ASGST_QueueElement *oldest = F(element_fn, "GetQueueElement")(queue, 0);
            ASGST_QueueElement *youngest = F(element_fn, "GetQueueElement")(queue, -1);
            CHECK(oldest && youngest && oldest != youngest && !F(element_fn, "GetQueueElement")(queue, 2) &&
                      !F(element_fn, "GetQueueElement")(queue, -3),
                  "GetQueueElement: 0 oldest, -1 youngest, NULL out of range");
            ASGST_QueueSizeInfo si = F(size_info_fn, "GetQueueSizeInfo")(queue);
            CHECK(si.size == 2 && si.capacity == 2 && si.attempts == 1, "full queue: -6, size 2 of 2, 1 attempt (%d %d %d)",
                  si.size, si.capacity, si.attempts);
            sleep_ms(20);
            si = F(size_info_fn, "GetQueueSizeInfo")(queue);
            dropped = 1;
            CHECK(atomic_load(&handled) == 0 && si.size == 0 && si.capacity == 3,
                  "ResizeQueue dropped the two queued elements unprocessed and took effect (handled %d, size %d of %d)",
                  atomic_load(&handled), si.size, si.capacity);
        }
        sleep_ms(5);
    }
    CHECK(dropped, "the resize window was hit within 20 attempts");

    F(enqueue_fn, "Enqueue")(queue, &uc, NULL);
    for (int i = 0; i < 200 && atomic_load(&handled) == 0; i++) sleep_ms(1);
    sleep_ms(5);
    CHECK(atomic_load(&handled) >= 1, "the queue handler ran for an enqueued element");
    CHECK(atomic_load(&inner_rc) == ASGST_ENQUEUE_OTHER_ERROR, "Enqueue during the queue's own processing is -7 (got %d)",
          atomic_load(&inner_rc));

    ASGST_QueueElement e;
    ucontext_t odd = uc;
#if defined(__x86_64__)
    odd.uc_mcontext.gregs[REG_RIP] = 0;
#elif defined(__aarch64__)
    odd.uc_mcontext.pc = 0;
#endif
    CHECK(F(enqueuable_fn, "GetEnqueuableElement")(&uc, &e) == 1, "GetEnqueuableElement: 1 on a good context");
    CHECK(F(enqueuable_fn, "GetEnqueuableElement")(&odd, &e) == ASGST_NON_JAVA_TRACE,
          "GetEnqueuableElement: 2 when the top is not Java");
    ucontext_t bad = uc;
#if defined(__x86_64__)
    bad.uc_mcontext.gregs[REG_RSP] = 0x1008;
#elif defined(__aarch64__)
    bad.uc_mcontext.sp = 0x1008;
#endif
    int rc = F(run_fn, "RunWithIterator")(&bad, 0, walk, NULL);
    CHECK(rc == ASGST_JAVA_TRACE && walk_rc == ASGST_WALKER_BAD_JAVA_FRAME,
          "an undecipherable Java frame: the walker's own -17 from NextFrame (run %d, next %d)", rc, walk_rc);
    CHECK(faults_in_child(null_size_info), "GetQueueSizeInfo(NULL) faults: no NULL check, as in the prototype");
    CHECK(faults_in_child(null_resize), "ResizeQueue(NULL) faults: no NULL check");
    CHECK(faults_in_child(null_method_info), "GetMethodInfo(NULL) faults: the method is not validated");
    return TAP_DONE();
}
