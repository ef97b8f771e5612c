// SPDX-License-Identifier: GPL-2.0
/*
 * frame.c - a simple frame store: one byte ring under one lock.
 *
 * Records are [u32 len][len bytes of frame][pad to 4], appended at @tail
 * and consumed (circular mode only) at @head.  A record never straddles
 * the end of the buffer: when it does not fit there, a WRAP marker (or
 * nothing, if fewer than 4 bytes remain) fills the end and the record goes
 * to offset 0.  @used counts record bytes plus that wasted end, so
 * "size - used" is what tstatus reports as free.
 *
 *	 0                 head                 tail              size
 *	 |....free.........|rec|rec|rec|rec.....|.....free.........|
 *
 * Writers hold the host's frame lock (irqsave; trylock in NMI) from
 * reserve to commit, so frames are in commit order across CPUs.  Readers
 * run only after gtp_frames_stop(), which a writer observes under the same
 * lock, so nothing moves under a reader and reads need no lock.
 *
 * The per-CPU lock-free ring (ring.h) is meant to replace this behind the
 * same frame.h interface.
 */
#include "frame.h"
#include "host.h"

#define REC_HDR		4
#define REC_WRAP	0xffffffffu

static struct {
	u8 *buf;
	u64 size;
	bool circular;
	bool accepting;		/* writes allowed (under the lock) */
	u64 head, tail, used;
	u64 nframes, created, dropped;
	u64 cache_idx, cache_off;	/* reader: where frame cache_idx is */
	bool cache_valid;
} fs;

static u64 rec_size(u32 len)
{
	return REC_HDR + (((u64)len + 3) & ~3ull);
}

/**
 * gtp_frames_setup - (re)allocate the store, empty
 * @size:	bytes of storage (rounded down to a multiple of 4)
 * @circular:	when full, drop the oldest frames instead of new ones
 *
 * Only while no writer can run.  Keeps the old buffer if @size is the same.
 */
int gtp_frames_setup(u64 size, bool circular)
{
	size &= ~3ull;
	if (size < 64)
		return -EINVAL;
	if (!fs.buf || fs.size != size) {
		u8 *buf = gtp_vzalloc(size);

		if (!buf)
			return -ENOMEM;
		gtp_vfree(fs.buf);
		fs.buf = buf;
		fs.size = size;
	}
	fs.circular = circular;
	gtp_frames_clear();
	return 0;
}

void gtp_frames_release(void)
{
	gtp_vfree(fs.buf);
	memset(&fs, 0, sizeof(fs));
}

/* Drop every frame (QTinit, QTStart).  No writer may be running. */
void gtp_frames_clear(void)
{
	fs.head = fs.tail = fs.used = 0;
	fs.nframes = fs.created = fs.dropped = 0;
	fs.cache_valid = false;
}

static void set_accepting(bool on)
{
	unsigned long flags;

	/* Spins until we get it: we are never in NMI here. */
	while (!gtp_host_frame_lock(&flags))
		;
	fs.accepting = on;
	fs.cache_valid = false;
	gtp_host_frame_unlock(flags);
}

void gtp_frames_start(void)
{
	set_accepting(fs.buf != NULL);
}

/* After this returns no frame is being written or will be. */
void gtp_frames_stop(void)
{
	set_accepting(false);
}

void gtp_frames_stats(struct gtp_frame_stats *st)
{
	st->size = fs.size;
	st->free = fs.size - fs.used;
	st->frames = fs.nframes;
	st->created = fs.created;
	st->dropped = fs.dropped;
	st->circular = fs.circular;
}

static u32 rec_len_at(u64 off)
{
	u32 len;

	memcpy(&len, fs.buf + off, sizeof(len));
	return len;
}

/* Drop the oldest record (circular mode).  False if the store is empty. */
static bool drop_oldest(void)
{
	u32 len;

	if (!fs.used)
		return false;
	if (fs.head == fs.size || fs.size - fs.head < REC_HDR) {
		fs.used -= fs.size - fs.head;
		fs.head = 0;
		return true;
	}
	len = rec_len_at(fs.head);
	if (len == REC_WRAP) {
		fs.used -= fs.size - fs.head;
		fs.head = 0;
		return true;
	}
	fs.used -= rec_size(len);
	fs.head += rec_size(len);
	/* As for tail: place() would take head == size for free space. */
	if (fs.head == fs.size)
		fs.head = 0;
	fs.nframes--;
	if (!fs.used)
		fs.head = fs.tail = 0;
	return true;
}

/* Offset where a record of @rec bytes goes, wrapping if needed; or -1. */
static s64 place(u64 rec)
{
	if (!fs.used)
		fs.head = fs.tail = 0;
	if (fs.tail > fs.head || !fs.used) {
		if (fs.size - fs.tail >= rec)
			return fs.tail;
		if (fs.head < rec)
			return -1;
		/* Waste the end of the buffer and start again at 0. */
		if (fs.size - fs.tail >= REC_HDR) {
			u32 wrap = REC_WRAP;

			memcpy(fs.buf + fs.tail, &wrap, sizeof(wrap));
		}
		fs.used += fs.size - fs.tail;
		fs.tail = 0;
		return 0;
	}
	if (fs.tail < fs.head && fs.head - fs.tail >= rec)
		return fs.tail;
	return -1;		/* tail == head with data: full */
}

/**
 * gtp_frame_reserve - room for one frame of @len bytes
 *
 * Returns where to write the frame, or NULL if it was dropped; then
 * @slot->err says why: -ENOSPC (full and not circular, or too big),
 * -EAGAIN (the store is stopped), -EBUSY (lock unavailable in NMI).  Must be paired with
 * gtp_frame_commit() unless NULL is returned.  Any context; never sleeps.
 */
void *gtp_frame_reserve(struct gtp_frame_slot *slot, u32 len)
{
	u64 rec = rec_size(len);
	s64 off;

	if (!gtp_host_frame_lock(&slot->flags)) {
		slot->err = -EBUSY;
		return NULL;
	}
	slot->err = -EAGAIN;
	if (!fs.accepting)
		goto fail;
	slot->err = -ENOSPC;
	if (rec > fs.size) {
		fs.dropped++;
		goto fail;
	}
	while ((off = place(rec)) < 0) {
		if (!fs.circular || !drop_oldest()) {
			fs.dropped++;
			goto fail;
		}
	}
	slot->err = 0;
	memcpy(fs.buf + off, &len, sizeof(len));
	fs.tail = off + rec;
	if (fs.tail == fs.size)
		fs.tail = 0;
	fs.used += rec;
	slot->data = fs.buf + off + REC_HDR;
	slot->len = len;
	return slot->data;
fail:
	gtp_host_frame_unlock(slot->flags);
	return NULL;
}

void gtp_frame_commit(struct gtp_frame_slot *slot)
{
	fs.nframes++;
	fs.created++;
	gtp_host_frame_unlock(slot->flags);
}

/* Frames held (meaningful for readers after gtp_frames_stop()). */
u64 gtp_frames_count(void)
{
	return fs.nframes;
}

/* Advance a reader offset past the record at @off (skipping wraps). */
static u64 next_rec(u64 off)
{
	off += rec_size(rec_len_at(off));
	if (off == fs.size)
		off = 0;
	return off;
}

static u64 skip_wrap(u64 off)
{
	if (off == fs.size || fs.size - off < REC_HDR ||
	    rec_len_at(off) == REC_WRAP)
		return 0;
	return off;
}

/**
 * gtp_frame_get - frame @idx, oldest first (after gtp_frames_stop())
 * @len: set to the frame's length in bytes
 *
 * Sequential access is O(1): the position of the last frame is cached.
 */
const u8 *gtp_frame_get(u64 idx, u32 *len)
{
	u64 i, off;

	if (idx >= fs.nframes)
		return NULL;
	if (fs.cache_valid && fs.cache_idx <= idx) {
		i = fs.cache_idx;
		off = fs.cache_off;
	} else {
		i = 0;
		off = fs.head;
	}
	off = skip_wrap(off);
	while (i < idx) {
		off = skip_wrap(next_rec(off));
		i++;
	}
	fs.cache_idx = idx;
	fs.cache_off = off;
	fs.cache_valid = true;
	*len = rec_len_at(off);
	return fs.buf + off + REC_HDR;
}
