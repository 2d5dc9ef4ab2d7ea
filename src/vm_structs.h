/*
 * HotSpot's serviceability tables (gHotSpotVMStructs): the field offsets
 * and static field addresses the VM exports for debuggers. The mutators use
 * them to aim at places no JVMTI event names, e.g. the pc a Java call
 * returns to in the call stub: a frame whose pc is there is an entry frame,
 * and the walker takes its JavaCallWrapper pointer from the stack.
 */
#ifndef ASGF_VM_STRUCTS_H
#define ASGF_VM_STRUCTS_H

#include <stdint.h>

/* Not handler-safe. Looks the table up in the running process (0), or
 * says why not (-1): a VM without the table, e.g. not a HotSpot. */
int vm_structs_attach(const char **why);

/* Not handler-safe. The address of static field type::field, or NULL. */
void *vm_structs_static_address(const char *type, const char *field);

/* [handler-safe] The pc after the call stub's call into Java (HotSpot's
 * StubRoutines::_call_stub_return_address), or 0 while unknown: the
 * table is absent or the VM has not generated its stubs yet. */
uintptr_t vm_structs_call_stub_return(void);

#endif
