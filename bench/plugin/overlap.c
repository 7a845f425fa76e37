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
