/*
 * ring.pml - Spin model of the per-CPU ring buffer in ring.c / ring_read.c.
 *
 * One CPU's buffer: NSB slots of SB units, NSB + 1 pages.  On the writer
 * CPU three contexts nest like task / IRQ / NMI: `top` names the context
 * that runs; an interrupt may fire between any two steps of the context
 * below it and runs to completion before that context resumes.  A reader
 * on another CPU interleaves freely with all of them.  Every step below is
 * one atomic memory operation of the C code (a read, a store, a local
 * cmpxchg/add, or an SMP cmpxchg), labelled with the C code point.
 *
 *   proctype / inline      mirrors (C)
 *   rb_write()             ring_reserve() -> __rb_reserve() (A, B, C),
 *                          the payload stores, ring_commit()
 *   rb_check_enter()       rb_check_enter()                  (B)
 *   rb_claim()             rb_claim_slot(), __rb_claim_slot()   (D)
 *   rb_push()              rb_push_reader()
 *   rb_commit()            __rb_commit() (E) + rb_deliver() (F)
 *   task/irq/nmi           writers of the owning CPU (probe, IRQ, NMI)
 *   reader                 ring_get_subbuf() (R1, R2), ring_subbuf_next(),
 *                          ring_put_subbuf() (R3)
 *   final                  the accounting identity of ring_get_stats() /
 *                          ring_count_resident() once everything stopped
 *
 * Safety properties (assertions; run with spin -a, cc -DSAFETY, ./pan):
 *   1. no record is handed to the reader while uncommitted, nor a stale
 *      one from an older lap (reader checks every unit of its page);
 *   2. reserved slots never overlap (a unit being written is never
 *      reserved by another writer);
 *   3. the reader's page is never written while it holds it;
 *   4. records are not torn or delivered twice;
 *   5. counts balance: attempts == written + dropped, and
 *      written == consumed + overwritten + resident at the end.
 * Build with -DOVERWRITE=1 for flight-recorder mode (ring.mk checks both).
 */

#ifndef OVERWRITE
#define OVERWRITE 0
#endif

#define SB	2			/* units per sub-buffer (2^m) */
#define NSB	2			/* slots (2^n) */
#define BUF	4			/* SB * NSB */
#define NPG	3			/* NSB + the reader's spare */
#define NONE	255

#define SLOT(p)		(((p) / SB) % NSB)
#define LAP(p)		((p) / BUF)
#define OFF(p)		((p) % SB)
#define TRUNC(p)	((p) - (p) % SB)

/* ring state (ring_internal.h: struct rb_cpu) */
byte offset;				/* local_t offset */
byte consumed;				/* atomic_long_t consumed */
byte cc[NSB];				/* local_t cc[] */
byte wlap[NSB];				/* slot word: lap tag ... */
bool wnoref[NSB];			/* ... NOREF ... */
byte wid[NSB];				/* ... page id */
byte prec[NPG];				/* rb_page.records */
byte rsb = 2;				/* reader's spare page */
byte written, lost_full, lost_wrap, overwritten, read_records;

/* the writer CPU: which context runs (0 task, 1 irq, 2 nmi) */
byte top;
byte wdone;				/* writer contexts finished */
bool rstop, rfin;			/* reader: asked to stop, stopped */

/* ghost state for the properties */
byte cell[NPG * SB];			/* head: id; tail: 128 + id; pad: 0 */
byte cst[NPG * SB];			/* 0 idle, 1 being written,
					   2 + lap: committed in that lap */
byte rsize[8];				/* record id -> units */
bit delivered[8];
byte held = NONE;			/* page held by the reader */
byte attempts;

#define S(stmt)	atomic { top == me -> stmt }

inline rb_push(me, pos)
{
	S(c = consumed);
	do
	:: TRUNC(pos) - c >= BUF ->
		S(if
		  :: consumed == c -> consumed = c + SB; c = c + SB
		  :: else -> c = consumed
		  fi)
	:: else -> break
	od
}

/* D: returns the page in pg */
inline rb_claim(me, pos, pg)
{
	S(wl = wlap[SLOT(pos)]; wn = wnoref[SLOT(pos)]; wi = wid[SLOT(pos)]);
	if
	:: wl == LAP(pos) && !wn -> pg = wi	/* fast path */
	:: else ->
		if
		:: OVERWRITE -> rb_push(me, pos)
		:: else
		fi;
		do
		:: wl == LAP(pos) && !wn -> pg = wi; break
		:: else ->
			assert(wl < LAP(pos));
			S(n = prec[wi]);
			S(if
			  :: wlap[SLOT(pos)] == wl && wnoref[SLOT(pos)] == wn &&
			     wid[SLOT(pos)] == wi ->
				wlap[SLOT(pos)] = LAP(pos);
				wnoref[SLOT(pos)] = 0;
				ok = 1
			  :: else ->
				wl = wlap[SLOT(pos)]; wn = wnoref[SLOT(pos)];
				wi = wid[SLOT(pos)];
				ok = 0
			  fi);
			if
			:: ok ->
				/* overwritten is read only by final: one step */
				S(overwritten = overwritten + n;
				  prec[wi] = prec[wi] - n);
				pg = wi;
				break
			:: else
			fi
		od
	fi
}

/* E + F: commit sz units at pos in page pg */
inline rb_commit(me, pos, sz, pg)
{
	S(cst[pg * SB + OFF(pos)] = 2 + LAP(pos);
	  if
	  :: sz == 2 -> cst[pg * SB + OFF(pos) + 1] = 2 + LAP(pos)
	  :: else
	  fi;
	  cc[SLOT(pos)] = cc[SLOT(pos)] + sz;
	  isfull = (cc[SLOT(pos)] == (LAP(pos) + 1) * SB));
	if
	:: isfull ->
		S(if			/* F: rb_deliver() */
		  :: wlap[SLOT(pos)] == LAP(pos) && !wnoref[SLOT(pos)] &&
		     wid[SLOT(pos)] == pg -> wnoref[SLOT(pos)] = 1
		  :: else
		  fi)
	:: else
	fi
}

/* store one unit (the payload bytes) */
inline rb_store(me, pg, o, v)
{
	S(assert(pg != held);			/* 3 */
	  assert(cst[pg * SB + o] != 1);	/* 2 */
	  cst[pg * SB + o] = 1;
	  cell[pg * SB + o] = v)
}

/* B */
inline rb_check_enter(me, b)
{
	S(c = consumed);
	if
	:: !OVERWRITE && b - c >= BUF -> S(lost_full++); ret = 1
	:: else ->
		S(n = cc[SLOT(b)]);
		if
		:: n < LAP(b) * SB -> S(lost_wrap++); ret = 2
		:: else -> ret = 0
		fi
	fi
}

inline rb_write(me, id, sz)
{
	S(rsize[id] = sz; attempts++);	/* ghost */
	do
	:: /*A*/
		S(old = offset;
		  begin = old;
		  pad = 0;
		  if
		  :: OFF(old) + sz > SB -> pad = SB - OFF(old); begin = old + pad
		  :: else
		  fi;
		  ret = 0);
		/*B*/
		if
		:: OFF(begin) == 0 -> rb_check_enter(me, begin)
		:: else
		fi;
		if
		:: ret != 0 -> break
		:: else
		fi;
		/*C*/
		S(if
		  :: offset == old -> offset = begin + sz; ok = 1
		  :: else -> ok = 0
		  fi);
		if
		:: ok -> break
		:: else
		fi
	od;
	if
	:: ret == 0 ->
		if
		:: pad > 0 ->
			rb_claim(me, old, pg);
			rb_store(me, pg, OFF(old), 0);
			rb_commit(me, old, 1, pg)
		:: else
		fi;
		rb_claim(me, begin, pg);
		rb_store(me, pg, OFF(begin), id);
		if
		:: sz == 2 -> rb_store(me, pg, OFF(begin) + 1, 128 + id)
		:: else
		fi;
		S(prec[pg]++; written++);	/* written: final only */
		rb_commit(me, begin, sz, pg)
	:: else
	fi
}

#define WRITER_LOCALS \
	byte old, begin, pad, ret, wl, wi, pg, n, c, sz; \
	bool ok, wn, isfull

proctype task()
{
	byte me = 0;
	WRITER_LOCALS;

	if :: sz = 1 :: sz = 2 fi;
	rb_write(me, 1, sz);
	if :: sz = 1 :: sz = 2 fi;
	rb_write(me, 2, sz);
	S(wdone++)
}

proctype irq()
{
	byte me = 1;
	WRITER_LOCALS;

	atomic { top == 0 -> top = 1 };		/* fires at any point */
	if :: sz = 1 :: sz = 2 fi;
	rb_write(me, 3, sz);
	atomic { wdone++; top = 0 }
}

proctype nmi()
{
	byte me = 2, saved;
	WRITER_LOCALS;

	atomic { top <= 1 -> saved = top; top = 2 };
	rb_write(me, 4, 2);
	atomic { wdone++; top = saved }
}

proctype reader()
{
	byte c, s, l, wl, wi, n, u, id, cnt;
	bool wn, ok;

	do
	:: rstop -> break
	:: /*R1*/
		atomic { c = consumed; s = SLOT(c); l = LAP(c) };
		atomic { wl = wlap[s]; wn = wnoref[s]; wi = wid[s] };
		if
		:: wl == l && wn ->
			prec[rsb] = 0;
			/*R2*/
			atomic {
				if
				:: wlap[s] == wl && wnoref[s] == wn &&
				   wid[s] == wi ->
					wlap[s] = l; wnoref[s] = 0;
					wid[s] = rsb; ok = 1; held = wi
				:: else -> ok = 0
				fi
			};
			if
			:: ok -> d_step {
				/*
				 * One step: property 3 (asserted at every
				 * writer store) guarantees that nothing
				 * changes this page while it is held, so
				 * reading it unit by unit adds no behaviour.
				 */
				rsb = wi;
				n = prec[wi];
				read_records = read_records + n;
				cnt = 0;
				u = 0;
				do	/* ring_subbuf_next(), one unit per step */
				:: u < SB ->
					/* 1: committed, in the lap asked for */
					assert(cst[wi * SB + u] == 2 + l);
					id = cell[wi * SB + u];
					if
					:: id > 0 && id < 128 ->
						assert(!delivered[id]);		/* 4 */
						delivered[id] = 1;
						cnt++;
						if
						:: rsize[id] == 2 ->
							assert(u + 1 < SB &&
							       cell[wi * SB + u + 1] == 128 + id);
							u++
						:: else
						fi
					:: else ->
						assert(id == 0)	/* a tail without head: torn */
					fi;
					u++
				:: else -> break
				od;
				assert(cnt == n);
				held = NONE;
				id = 0; u = 0; cnt = 0; n = 0
				};
				/*R3*/
				atomic {
					if
					:: consumed == c -> consumed = c + SB
					:: else
					fi
				}
			:: else
			fi
		:: else
		fi
	od;
	rfin = 1
}

/* all writers and the reader stopped: counts balance (property 5) */
proctype final()
{
	byte pos, resident;

	wdone == 3;
	rstop = 1;
	rfin;
	pos = TRUNC(consumed);
	do
	:: pos < offset ->
		if
		:: wlap[SLOT(pos)] == LAP(pos) -> resident = resident + prec[wid[SLOT(pos)]]
		:: else -> assert(false)	/* a live position not mapped */
		fi;
		pos = pos + SB
	:: else -> break
	od;
	assert(attempts == written + lost_full + lost_wrap);
	assert(written == read_records + overwritten + resident);
	if
	:: !OVERWRITE -> assert(overwritten == 0)
	:: else
	fi
}

init
{
	atomic {
		wid[0] = 0; wid[1] = 1;
		run task(); run irq(); run nmi(); run reader(); run final()
	}
}
