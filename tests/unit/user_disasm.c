// SPDX-License-Identifier: GPL-2.0
/*
 * user_disasm.c - capstone wrapper, see user_disasm.h.
 */
#include <capstone/capstone.h>
#include "user_disasm.h"

int user_disasm(const void *code, size_t len, bool with_off, char *buf,
		size_t bufsz)
{
	csh h;
	cs_insn *insn;
	size_t n, i, pos = 0, done = 0;

	if (bufsz)
		buf[0] = 0;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return -1;
	n = cs_disasm(h, code, len, 0, 0, &insn);
	for (i = 0; i < n; i++) {
		const char *sep = insn[i].op_str[0] ? " " : "";

		if (with_off)
			pos += snprintf(buf + pos, pos < bufsz ? bufsz - pos : 0,
					"0x%04llx: ",
					(unsigned long long)insn[i].address);
		pos += snprintf(buf + pos, pos < bufsz ? bufsz - pos : 0,
				"%s%s%s\n", insn[i].mnemonic, sep,
				insn[i].op_str);
		done += insn[i].size;
	}
	if (n)
		cs_free(insn, n);
	cs_close(&h);
	return done == len ? (int)n : -1;
}

int user_disasm_count(const char *text, const char *mnemonic)
{
	size_t ml = strlen(mnemonic);
	int n = 0;

	while (*text) {
		const char *nl = strchr(text, '\n');

		if (!strncmp(text, mnemonic, ml) &&
		    (text[ml] == ' ' || text[ml] == '\n'))
			n++;
		if (!nl)
			break;
		text = nl + 1;
	}
	return n;
}
