/*
 * The case format's code tables, written once; corpus/FORMAT.md explains
 * them. An X-macro list, not an ordinary header: no include guard; each C
 * includer (case.h, case.c, arch_*.c) defines the macros it wants and gets
 * the others as no-ops. crash-triage/ctlib/case.py and corpus/gen/mkdict.py
 * read the same lines at run time. tests/core_case_codes.t fails if a copy
 * (C, Python, dictionary, FORMAT.md) disagrees or a table has a gap.
 *
 * Rules, because saved corpus entries and reproducers depend on them:
 *   - a code never changes meaning: add new values with the next free code,
 *     never renumber, never reuse a removed one;
 *   - codes of each table are dense, 0..n-1 (bits for OPTION and FLAG);
 *   - one entry per line, no line breaks inside an entry, so scripts can
 *     read this file without a C preprocessor.
 */

/* CASE_ENTRY(code, name, C identifier, walks): the API call a case makes.
 * walks = 1: the entry walks a stack, its raw answer is the VM's code;
 * walks = 0: a queue entry, answering an ASGST code without walking. */
#ifndef CASE_ENTRY
#define CASE_ENTRY(code, name, id, walks)
#endif
CASE_ENTRY(0, run_with_iterator, ENTRY_RUN_WITH_ITERATOR, 1)
CASE_ENTRY(1, run_with_iterator_from_frame, ENTRY_RUN_WITH_ITERATOR_FROM_FRAME, 1)
CASE_ENTRY(2, enqueue, ENTRY_ENQUEUE, 0)
CASE_ENTRY(3, get_enqueuable_element, ENTRY_GET_ENQUEUABLE_ELEMENT, 0)

/* CASE_MODE(code, name, C identifier): which thread makes the call. */
#ifndef CASE_MODE
#define CASE_MODE(code, name, id)
#endif
CASE_MODE(0, signal, MODE_SIGNAL)
CASE_MODE(1, thread, MODE_THREAD)
CASE_MODE(2, queue, MODE_QUEUE)

/* CASE_OPTION(bit, name, C identifier): the options byte, ASGST_Options. */
#ifndef CASE_OPTION
#define CASE_OPTION(bit, name, id)
#endif
CASE_OPTION(1, include_non_java_frames, CASE_OPT_INCLUDE_NON_JAVA_FRAMES)
CASE_OPTION(2, end_on_first_java_frame, CASE_OPT_END_ON_FIRST_JAVA_FRAME)

/* CASE_FLAG(bit, name, C identifier): the flags byte. */
#ifndef CASE_FLAG
#define CASE_FLAG(bit, name, id)
#endif
CASE_FLAG(1, rewind, CASE_FLAG_REWIND)
CASE_FLAG(2, method_info, CASE_FLAG_METHOD_INFO)

/* CASE_RECORD(type, name, C identifier, count_byte, max_words): record
 * types (byte 3 of a record head, from format version 2). A record is a
 * 12-byte head, then head[count_byte] 8-byte payload words (at most
 * max_words); count_byte -1: no payload. name is also the record's key in
 * the text form. Each type has its handler in src/case_rec_<name>.c. */
#ifndef CASE_RECORD
#define CASE_RECORD(type, name, id, count_byte, max_words)
#endif
CASE_RECORD(0, mut, CASE_REC_MUT, -1, 0)
CASE_RECORD(1, qop, CASE_REC_QOP, -1, 0)
CASE_RECORD(2, stk, CASE_REC_STK, 0, 16)

/* CASE_QOP(code, name, C identifier, handshake): what a qop record does,
 * after the case's entry call, to the target thread's queue or frame mark.
 * handshake = 0: signal safe, done in the signal handler right after the
 * call; 1: not signal safe, done at the thread's next queue handler (the
 * handshake). The record's value is the op's argument (see FORMAT.md). */
#ifndef CASE_QOP
#define CASE_QOP(code, name, id, handshake)
#endif
CASE_QOP(0, enqueue, QOP_ENQUEUE, 0)
CASE_QOP(1, enqueue_foreign, QOP_ENQUEUE_FOREIGN, 0)
CASE_QOP(2, get_element, QOP_GET_ELEMENT, 0)
CASE_QOP(3, size_info, QOP_SIZE_INFO, 0)
CASE_QOP(4, resize, QOP_RESIZE, 0)
CASE_QOP(5, mark_get_sp, QOP_MARK_GET_SP, 0)
CASE_QOP(6, set_start, QOP_SET_START, 1)
CASE_QOP(7, set_end, QOP_SET_END, 1)
CASE_QOP(8, clear_start, QOP_CLEAR_START, 1)
CASE_QOP(9, clear_end, QOP_CLEAR_END, 1)
CASE_QOP(10, deregister, QOP_DEREGISTER, 1)
CASE_QOP(11, reregister, QOP_REREGISTER, 1)
CASE_QOP(12, mark_register, QOP_MARK_REGISTER, 1)
CASE_QOP(13, mark_move, QOP_MARK_MOVE, 1)
CASE_QOP(14, mark_remove, QOP_MARK_REMOVE, 1)
CASE_QOP(15, past_end, QOP_PAST_END, 1)
CASE_QOP(16, enqueuable, QOP_ENQUEUABLE, 0)
CASE_QOP(17, method_info, QOP_METHOD_INFO, 1)
CASE_QOP(18, walk_from_frame, QOP_WALK_FROM_FRAME, 1)
CASE_QOP(19, resize_in_handler, QOP_RESIZE_IN_HANDLER, 1)

/* CASE_KIND(code, name, C identifier): what a mut record does to its
 * register, and a stk record to each of its stack words. */
#ifndef CASE_KIND
#define CASE_KIND(code, name, id)
#endif
CASE_KIND(0, abs, MUT_ABS)
CASE_KIND(1, delta, MUT_DELTA)
CASE_KIND(2, region, MUT_REGION)

/* CASE_REGION(code, name, C identifier): where a region mut or stk word
 * points. image: into the forged copy of the stack top (a stk case; else
 * the thread's own stack), so saved-fp chains can loop or run backwards;
 * nmethod_entry: the first bytes of a known compiled method (method entry,
 * frame not yet built); code_blob: inside a VM stub or blob the JVM
 * reported (interpreter, deopt and uncommon-trap blobs, adapters, vtable
 * and itable stubs), else the code cache; deopt_handler: exactly the deopt
 * handler of a known compiled method, where frame construction reads the
 * original pc through sp without a check; call_stub_ret: exactly the pc
 * a Java call returns to in the call stub, which makes its frame an entry
 * frame whose JavaCallWrapper pointer the walker reads from the stack;
 * cont_barrier: exactly the continuation return barrier, where a walker
 * turns to the thread's continuation entry for the frame's sp (21 and 25
 * look it up without a check that one exists). */
#ifndef CASE_REGION
#define CASE_REGION(code, name, id)
#endif
CASE_REGION(0, own_stack, REGION_OWN_STACK)
CASE_REGION(1, other_stack, REGION_OTHER_STACK)
CASE_REGION(2, code_cache, REGION_CODE_CACHE)
CASE_REGION(3, libjvm_text, REGION_LIBJVM_TEXT)
CASE_REGION(4, java_heap, REGION_JAVA_HEAP)
CASE_REGION(5, guard_page, REGION_GUARD_PAGE)
CASE_REGION(6, null_page, REGION_NULL_PAGE)
CASE_REGION(7, unmapped, REGION_UNMAPPED)
CASE_REGION(8, misaligned, REGION_MISALIGNED)
CASE_REGION(9, noncanonical, REGION_NONCANONICAL)
CASE_REGION(10, nmethod_tail, REGION_NMETHOD_TAIL)
CASE_REGION(11, image, REGION_IMAGE)
CASE_REGION(12, nmethod_entry, REGION_NMETHOD_ENTRY)
CASE_REGION(13, code_blob, REGION_CODE_BLOB)
CASE_REGION(14, deopt_handler, REGION_DEOPT_HANDLER)
CASE_REGION(15, call_stub_ret, REGION_CALL_STUB_RET)
CASE_REGION(16, cont_barrier, REGION_CONT_BARRIER)

/* CASE_REG_<ARCH>(code, name, alias, slot): logical registers. 0 pc, 1 sp,
 * 2 fp on every architecture; name is what the text form prints, alias
 * ("-": none) is also accepted; slot is the field of mcontext_t. */
#ifndef CASE_REG_X86_64
#define CASE_REG_X86_64(code, name, alias, slot)
#endif
CASE_REG_X86_64(0, pc, rip, gregs[REG_RIP])
CASE_REG_X86_64(1, sp, rsp, gregs[REG_RSP])
CASE_REG_X86_64(2, fp, rbp, gregs[REG_RBP])
CASE_REG_X86_64(3, rax, -, gregs[REG_RAX])
CASE_REG_X86_64(4, rbx, -, gregs[REG_RBX])
CASE_REG_X86_64(5, rcx, -, gregs[REG_RCX])
CASE_REG_X86_64(6, rdx, -, gregs[REG_RDX])
CASE_REG_X86_64(7, rsi, -, gregs[REG_RSI])
CASE_REG_X86_64(8, rdi, -, gregs[REG_RDI])
CASE_REG_X86_64(9, r8, -, gregs[REG_R8])
CASE_REG_X86_64(10, r9, -, gregs[REG_R9])
CASE_REG_X86_64(11, r10, -, gregs[REG_R10])
CASE_REG_X86_64(12, r11, -, gregs[REG_R11])
CASE_REG_X86_64(13, r12, -, gregs[REG_R12])
CASE_REG_X86_64(14, r13, -, gregs[REG_R13])
CASE_REG_X86_64(15, r14, -, gregs[REG_R14])
CASE_REG_X86_64(16, r15, -, gregs[REG_R15])

#ifndef CASE_REG_AARCH64
#define CASE_REG_AARCH64(code, name, alias, slot)
#endif
CASE_REG_AARCH64(0, pc, -, pc)
CASE_REG_AARCH64(1, sp, -, sp)
CASE_REG_AARCH64(2, fp, x29, regs[29])
CASE_REG_AARCH64(3, lr, x30, regs[30])
CASE_REG_AARCH64(4, x0, -, regs[0])
CASE_REG_AARCH64(5, x1, -, regs[1])
CASE_REG_AARCH64(6, x2, -, regs[2])
CASE_REG_AARCH64(7, x3, -, regs[3])
CASE_REG_AARCH64(8, x4, -, regs[4])
CASE_REG_AARCH64(9, x5, -, regs[5])
CASE_REG_AARCH64(10, x6, -, regs[6])
CASE_REG_AARCH64(11, x7, -, regs[7])
CASE_REG_AARCH64(12, x8, -, regs[8])
CASE_REG_AARCH64(13, x9, -, regs[9])
CASE_REG_AARCH64(14, x10, -, regs[10])
CASE_REG_AARCH64(15, x11, -, regs[11])
CASE_REG_AARCH64(16, x12, -, regs[12])
CASE_REG_AARCH64(17, x13, -, regs[13])
CASE_REG_AARCH64(18, x14, -, regs[14])
CASE_REG_AARCH64(19, x15, -, regs[15])
CASE_REG_AARCH64(20, x16, -, regs[16])
CASE_REG_AARCH64(21, x17, -, regs[17])
CASE_REG_AARCH64(22, x18, -, regs[18])
CASE_REG_AARCH64(23, x19, -, regs[19])
CASE_REG_AARCH64(24, x20, -, regs[20])
CASE_REG_AARCH64(25, x21, -, regs[21])
CASE_REG_AARCH64(26, x22, -, regs[22])
CASE_REG_AARCH64(27, x23, -, regs[23])
CASE_REG_AARCH64(28, x24, -, regs[24])
CASE_REG_AARCH64(29, x25, -, regs[25])
CASE_REG_AARCH64(30, x26, -, regs[26])
CASE_REG_AARCH64(31, x27, -, regs[27])
CASE_REG_AARCH64(32, x28, -, regs[28])

#undef CASE_ENTRY
#undef CASE_MODE
#undef CASE_OPTION
#undef CASE_FLAG
#undef CASE_RECORD
#undef CASE_QOP
#undef CASE_KIND
#undef CASE_REGION
#undef CASE_REG_X86_64
#undef CASE_REG_AARCH64
