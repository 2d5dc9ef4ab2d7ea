/*
 * The GNU build-id in a run of ELF notes: a file's note section, or a
 * loaded object's PT_NOTE segment in memory. Pure: reads only the bytes it
 * is given.
 */
#ifndef ASGF_ELF_NOTE_H
#define ASGF_ELF_NOTE_H

#include <stddef.h>

/* Writes the first "GNU" NT_GNU_BUILD_ID note's descriptor, at most 64
 * bytes, as lower-case hex to hex (hexlen bytes, room for the NUL); returns
 * its length in characters, 0 (and "") if there is none or it does not
 * fit. Entries are padded to align (4, or 8 for an 8-aligned segment). */
size_t elf_note_build_id(const unsigned char *notes, size_t len, size_t align, char *hex, size_t hexlen);

#endif
