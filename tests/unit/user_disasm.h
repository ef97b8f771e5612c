/* SPDX-License-Identifier: GPL-2.0 */
/*
 * user_disasm.h - capstone disassembly of JIT images, for the JIT's unit
 * tests (shape assertions) and jit/gtp-ax --disasm.
 */
#ifndef GTP_USER_DISASM_H
#define GTP_USER_DISASM_H

#include "compat.h"

/*
 * Disassemble @len bytes at @code (as if loaded at @addr) into @buf, one
 * instruction per line: "mnemonic operands" (Intel syntax), prefixed by
 * "0xOFFSET: " when @with_off.  Returns the number of instructions, or
 * -1 if capstone fails or stops before @len (undecodable bytes).
 */
int user_disasm(const void *code, size_t len, bool with_off, char *buf,
		size_t bufsz);

/* Number of lines of @text (from user_disasm()) starting with @mnemonic. */
int user_disasm_count(const char *text, const char *mnemonic);

#endif /* GTP_USER_DISASM_H */
