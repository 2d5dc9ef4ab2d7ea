/* Tiny program for ASan report fixtures: `asan_crash segv ADDR` or `asan_crash uaf`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static long walk_frames(volatile long *fp, int depth) {
    long s = 0;
    for (int i = 0; i < depth; i++) s += fp[i];   /* fp is bogus: SEGV */
    return s;
}

__attribute__((noinline)) static long sample(long addr) {
    return walk_frames((volatile long *)addr, 4) + 1;
}

__attribute__((noinline)) static int use_after_free(void) {
    char *p = malloc(32);
    strcpy(p, "frame");
    free(p);
    return p[3];
}

int main(int argc, char **argv) {
    if (argc > 2 && strcmp(argv[1], "segv") == 0)
        printf("%ld\n", sample(strtol(argv[2], NULL, 0)));
    else if (argc > 1 && strcmp(argv[1], "uaf") == 0)
        printf("%d\n", use_after_free());
    return 0;
}
