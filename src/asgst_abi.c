/*
 * The prototype's struct layout on LP64 Linux (x86_64 and aarch64 agree),
 * written down as numbers and checked against our declarations at compile
 * time. A wrong field type in asgst.h (idnum as jlong, say) stops the
 * build here instead of making the framework read padding from the VM.
 * The numbers come from the prototype header's field types under the
 * System V / AAPCS64 rules: int and jint 4-aligned, pointers and jlong
 * 8-aligned, struct size rounded up to the largest member alignment.
 */
#include "asgst.h"

#define ASGST_LAYOUT(F, S)                                                                                  \
    S(ASGST_Frame, 48)                                                                                    \
    F(ASGST_Frame, type, 0, 1) F(ASGST_Frame, comp_level, 4, 4) F(ASGST_Frame, bci, 8, 4)                 \
    F(ASGST_Frame, method, 16, 8) F(ASGST_Frame, pc, 24, 8) F(ASGST_Frame, sp, 32, 8)                     \
    F(ASGST_Frame, fp, 40, 8)                                                                             \
    S(ASGST_MethodInfo, 72)                                                                               \
    F(ASGST_MethodInfo, klass, 0, 8) F(ASGST_MethodInfo, method_name, 8, 8)                               \
    F(ASGST_MethodInfo, method_name_length, 16, 4) F(ASGST_MethodInfo, signature, 24, 8)                  \
    F(ASGST_MethodInfo, signature_length, 32, 4) F(ASGST_MethodInfo, generic_signature, 40, 8)            \
    F(ASGST_MethodInfo, generic_signature_length, 48, 4) F(ASGST_MethodInfo, modifiers, 52, 4)            \
    F(ASGST_MethodInfo, idnum, 56, 4) F(ASGST_MethodInfo, class_idnum, 64, 8)                             \
    S(ASGST_ClassInfo, 40)                                                                                \
    F(ASGST_ClassInfo, class_name, 0, 8) F(ASGST_ClassInfo, class_name_length, 8, 4)                      \
    F(ASGST_ClassInfo, generic_class_name, 16, 8) F(ASGST_ClassInfo, generic_class_name_length, 24, 4)    \
    F(ASGST_ClassInfo, modifiers, 28, 4) F(ASGST_ClassInfo, idnum, 32, 8)                                 \
    S(ASGST_MethodLineNumberEntry, 8)                                                                     \
    F(ASGST_MethodLineNumberEntry, start_bci, 0, 4) F(ASGST_MethodLineNumberEntry, line_number, 4, 4)     \
    S(ASGST_QueueElement, 32)                                                                             \
    F(ASGST_QueueElement, pc, 0, 8) F(ASGST_QueueElement, fp, 8, 8) F(ASGST_QueueElement, sp, 16, 8)      \
    F(ASGST_QueueElement, arg, 24, 8)                                                                     \
    S(ASGST_QueueSizeInfo, 12)                                                                            \
    F(ASGST_QueueSizeInfo, size, 0, 4) F(ASGST_QueueSizeInfo, capacity, 4, 4)                             \
    F(ASGST_QueueSizeInfo, attempts, 8, 4)

#if defined(__LP64__)
#define CHECK_FIELD(t, f, off, sz)                                                                        \
    _Static_assert(offsetof(t, f) == (off) && sizeof(((t *)0)->f) == (sz), #t "." #f " differs from the prototype");
#define CHECK_SIZE(t, sz) _Static_assert(sizeof(t) == (sz), "sizeof " #t " differs from the prototype");
ASGST_LAYOUT(CHECK_FIELD, CHECK_SIZE)
#else
#error "asgst_abi.c: the layout table is written for LP64 targets"
#endif

#define ROW_FIELD(t, f, off, sz) {#t, #f, off, sz},
#define ROW_SIZE(t, sz) {#t, NULL, 0, sz},
const struct asgst_layout_row asgst_layout[] = {ASGST_LAYOUT(ROW_FIELD, ROW_SIZE)};
const int asgst_layout_rows = (int)(sizeof asgst_layout / sizeof asgst_layout[0]);
