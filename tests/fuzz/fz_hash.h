/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fz_hash.h - the input hash the libFuzzer harnesses seed their random
 * choices from (FNV-1a): the same input always draws the same choices, so
 * every input replays exactly.
 */
#ifndef GTP_FZ_HASH_H
#define GTP_FZ_HASH_H

#include <stddef.h>

static inline u64 fz_hash(const u8 *data, size_t size)
{
	u64 h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < size; i++)
		h = (h ^ data[i]) * 0x100000001b3ull;
	return h;
}

#endif /* GTP_FZ_HASH_H */
