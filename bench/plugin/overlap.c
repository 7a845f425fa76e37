// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * overlap.c: the first-order overlap rule of an out-of-order core. See
 * overlap.h.
 */
#include <stdio.h>
#include <string.h>

#include "overlap.h"

int ooo_init(struct ooo *o, const struct ooo_params *p,
	     char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	if (p->rob < 1 || p->rob > OOO_MAX_ROB || p->width < 1 ||
	    p->width > p->rob) {
		snprintf(err, errlen,
			 "rob %u, width %u: want 1 <= width <= rob <= %d",
			 p->rob, p->width, OOO_MAX_ROB);
		return -1;
	}
	o->p = *p;
	return 0;
}

/* exposed() - what the window does not hide of latency lat. */
static uint32_t exposed(const struct ooo *o, uint32_t lat)
{
	uint32_t hide = o->p.rob / o->p.width;

	return lat > hide ? lat - hide : 0;
}

void ooo_add(struct ooo *o, const struct ooo_event *e)
{
	o->cost.inorder += e->latency;
	if (e->kind != OOO_DMISS || e->feeds) {
		o->cost.overlapped += e->latency;	/* rules 1 and 2 */
		return;
	}
	if (!o->open || e->insn >= o->group_end) {	/* rule 3 */
		o->open = true;
		o->group_end = e->insn + o->p.rob;
		o->group_lat = 0;
	}
	if (e->latency > o->group_lat) {
		o->cost.overlapped += exposed(o, e->latency) -
				      exposed(o, o->group_lat);
		o->group_lat = e->latency;
	}
}

int ooo_cost(const struct ooo_params *p, const struct ooo_event *ev,
	     size_t n, struct ooo_cost *out, char *err, size_t errlen)
{
	struct ooo o;
	size_t i;

	if (ooo_init(&o, p, err, errlen) != 0)
		return -1;
	for (i = 0; i < n; i++)
		ooo_add(&o, &ev[i]);
	*out = o.cost;
	return 0;
}

int ooo_stream_init(struct ooo_stream *s, uint32_t rob,
		    struct ooo_counts *out, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	if (rob < 1 || rob > OOO_MAX_ROB) {
		snprintf(err, errlen, "rob %u: want 1..%d", rob, OOO_MAX_ROB);
		return -1;
	}
	s->rob = rob;
	s->out = out;
	return 0;
}

/* join() - rule 3: an independent miss joins the open group or opens one. */
static void join(struct ooo_stream *s, uint64_t insn, bool mem, int mode)
{
	if (!s->open || insn >= s->group_end) {
		s->open = true;
		s->group_mem = false;
		s->group_end = insn + s->rob;
		s->out->l1d_groups[mode]++;
	}
	if (mem && !s->group_mem) {
		s->group_mem = true;
		s->out->l2d_groups[mode]++;
	}
}

void ooo_dmiss(struct ooo_stream *s, uint64_t insn, bool mem, int mode,
	       bool held)
{
	if (!held || s->held == OOO_MAX_HELD) {
		join(s, insn, mem, mode);
		return;
	}
	s->hold[s->held].insn = insn;
	s->hold[s->held].mem = mem;
	s->hold[s->held].mode = (uint8_t)mode;
	s->held++;
}

void ooo_resolve(struct ooo_stream *s, bool mispredicted)
{
	uint32_t i;

	for (i = 0; i < s->held; i++) {
		int m = s->hold[i].mode;

		if (mispredicted) {
			s->out->l1d_fed[m]++;	/* rule 2 */
			s->out->l2d_fed[m] += s->hold[i].mem;
		} else {
			join(s, s->hold[i].insn, s->hold[i].mem, m);
		}
	}
	s->held = 0;
}

/* cut() - max(0, lat - hide). */
static uint64_t cut(uint64_t lat, uint32_t hide)
{
	return lat > hide ? lat - hide : 0;
}

uint64_t ooo_counts_cycles(const struct ooo_counts *c, uint32_t l1d_miss,
			   uint32_t l2_miss, uint32_t hide)
{
	uint64_t fed = 0, fed_mem = 0, groups = 0, groups_mem = 0;
	int m;

	for (m = 0; m < 2; m++) {
		fed += c->l1d_fed[m];
		fed_mem += c->l2d_fed[m];
		groups += c->l1d_groups[m];
		groups_mem += c->l2d_groups[m];
	}
	return fed * l1d_miss + fed_mem * l2_miss +
	       groups * cut(l1d_miss, hide) +
	       groups_mem * (cut((uint64_t)l1d_miss + l2_miss, hide) -
			     cut(l1d_miss, hide));
}
