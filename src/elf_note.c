/* GNU build-id out of ELF notes (see elf_note.h). */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "elf_note.h"

size_t elf_note_build_id(const unsigned char *notes, size_t len, size_t align, char *hex, size_t hexlen)
{
    size_t at = 0, pad = align == 8 ? 7 : 3;
    if (hexlen) hex[0] = 0;
    while (at + 12 <= len) {
        uint32_t namesz, descsz, type;
        memcpy(&namesz, notes + at, 4), memcpy(&descsz, notes + at + 4, 4), memcpy(&type, notes + at + 8, 4);
        size_t name_at = at + 12, desc_at = (name_at + namesz + pad) & ~pad;
        at = (desc_at + descsz + pad) & ~pad;
        if (at > len) break;
        if (type != NT_GNU_BUILD_ID || namesz != 4 || memcmp(notes + name_at, "GNU", 4) || !descsz || descsz > 64)
            continue;
        if (2 * (size_t)descsz + 1 > hexlen) return 0;
        for (uint32_t k = 0; k < descsz; k++) snprintf(hex + 2 * k, 3, "%02x", notes[desc_at + k]);
        return 2 * (size_t)descsz;
    }
    return 0;
}
