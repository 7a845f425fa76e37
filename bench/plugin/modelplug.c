// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * modelplug.c: model=on of the branches plugin. See modelplug.h and
 * bench/plugin/README.md, "Model".
 *
 * L1I: an instruction callback on the first instruction of each run of
 * consecutive instructions of a block on one cache line (of their host
 * addresses, as QEMU's contrib/plugins/cache.c): one access per run gives
 * the misses of one access per instruction, since the others would hit
 * the most recent line and change nothing. L1D: a memory callback per
 * guest access, at the guest physical address (I/O is no cache access).
 * Branches: QEMU ends a block with each conditional branch; the callback of
 * the block's last run makes it pending, and the first run of the next
 * block resolves it by that block's address (target: taken; fall-through:
 * not taken; anything else: an interrupt or exception came first, and it
 * stays unresolved).
 *
 * The options (off unless given): l2= puts one L2 behind both L1s, which
 * sees the L1I's misses at their host address and the L1D's at their
 * guest physical one, so code and data compete for its sets but a line
 * read both as code and as data is two L2 lines; iprefetch=next-line
 * prefetches the next line of each line fetch (model.h); tage= predicts
 * with tage.h instead of gshare. Without them the callbacks do what they
 * did, one test of a flag apart.
 *
 * Overlap (overlap.h): each L1D miss goes to the model's overlap stream
 * at a running index of executed instructions (a block's first run adds
 * the block's instructions; a block left early counts whole), held for
 * the block's conditional branch when it is a load at most OOO_FEED_DIST
 * instructions before it; resolve() then tells the stream whether the
 * branch was mispredicted. The stream's counts are running counters like
 * the others (counters.h), so windows and regions cover them.
 */
#include <stdlib.h>
#include <string.h>

#include "modelplug.h"
#include "report.h"
#include "x86class.h"

static struct model hw;
static struct model_cfg cfg;
static struct counters *live;
static bool on;

/* One run of instructions on one line: its callback's data. */
struct fetch {
	uint64_t haddr;		/* host address of its first instruction */
	uint64_t start;		/* first run: its block's address */
	uint32_t block_n;	/* first run: its block's instructions */
	uint64_t pc, target, next;	/* branch: the block's last insn */
	struct prof_bucket *b;		/* the profile's bucket of the run */
	struct prof_bucket *branch_b;	/* the branch's */
	uint8_t mode;
	uint8_t first;		/* first run of its block */
	uint8_t branch;		/* the block ends with a conditional branch */
};

/* One instruction's memory callback data. */
struct memi {
	struct prof_bucket *b;	/* the profile's bucket of the instruction */
	uint32_t off;		/* its index in its block */
	uint8_t near_branch;	/* ooo_near_branch() of a resolvable branch */
};

/* Running index of executed instructions; its block's first. */
static uint64_t insn_pos, block_base;

/* The branch whose outcome the next block tells. */
static struct {
	uint64_t pc, target, next;
	struct prof_bucket *b;
	uint8_t mode;
	bool valid;
} pending;

int modelplug_setup(const struct model_cfg *c, struct counters *l,
		    char *err, size_t errlen)
{
	if (model_setup(&hw, c, err, errlen) != 0)
		return -1;
	cfg = *c;
	live = l;
	on = c->on;
	if (on)
		model_count_to(&hw, &live->ooo);
	return 0;
}

bool modelplug_on(void)
{
	return on;
}

/* resolve() - a block at start begins: the pending branch's outcome. */
static void resolve(uint64_t start)
{
	bool taken, miss;
	int m = pending.mode;

	if (!pending.valid) {
		model_branch_lost(&hw);
		return;
	}
	pending.valid = false;
	if (start == pending.target) {
		taken = true;
	} else if (start == pending.next) {
		taken = false;
	} else {
		live->unresolved++;
		model_branch_lost(&hw);
		return;
	}
	miss = model_branch(&hw, pending.pc, taken);
	live->mispredicts[m] += miss;
	pending.b->live[PROF_MISPREDICTS] += miss;
	if (taken)
		live->btb_misses[m] += !btb_access(&hw.btb, pending.pc,
						   pending.target);
}

/* fetch_beyond_l1() - f's line fetch with an L2 or prefetch: a miss? */
static bool fetch_beyond_l1(const struct fetch *f)
{
	struct prefetch_ev ev;
	enum level lvl = cache_fetch(&hw.l1i, model_l2(&hw), f->haddr, &ev);

	live->l2i_misses[f->mode] += lvl == LVL_MEM;
	live->l1i_pf_hits[f->mode] += ev.hit;
	live->l1i_pf_fills[f->mode] += ev.fill;
	return lvl != LVL_L1;
}

static void fetch_exec(unsigned int vcpu_index, void *udata)
{
	const struct fetch *f = udata;
	bool miss;

	(void)vcpu_index;
	if (f->first) {
		resolve(f->start);
		block_base = insn_pos;
		insn_pos += f->block_n;
	}
	live->l1i_accesses[f->mode]++;
	if (hw.have_l2 || hw.l1i.next_line)
		miss = fetch_beyond_l1(f);
	else
		miss = !cache_access(&hw.l1i, f->haddr);
	live->l1i_misses[f->mode] += miss;
	f->b->live[PROF_L1I_MISSES] += miss;
	if (f->branch) {
		pending.pc = f->pc;
		pending.b = f->branch_b;
		pending.target = f->target;
		pending.next = f->next;
		pending.mode = f->mode;
		pending.valid = true;
	}
}

static void mem_exec(unsigned int vcpu_index, qemu_plugin_meminfo_t info,
		     uint64_t vaddr, void *udata)
{
	struct qemu_plugin_hwaddr *h = qemu_plugin_get_hwaddr(info, vaddr);
	const struct memi *mi = udata;
	struct prof_bucket *b = mi->b;
	int m = b->kernel ? KERNEL : USER;
	uint64_t addr;
	enum level lvl;
	bool hit;

	(void)vcpu_index;
	if (h && qemu_plugin_hwaddr_is_io(h))
		return;
	addr = h ? qemu_plugin_hwaddr_phys_addr(h) : vaddr;
	lvl = model_data(&hw, addr, block_base + mi->off, m,
			 mi->near_branch && !qemu_plugin_mem_is_store(info));
	live->l2d_misses[m] += lvl == LVL_MEM;
	hit = lvl == LVL_L1;
	live->l1d_accesses[m]++;
	live->l1d_misses[m] += !hit;
	b->live[PROF_L1D_MISSES] += !hit;
	if (hw.have_keys &&
	    sites_overlaps(&hw.keys, vaddr,
			   1ULL << qemu_plugin_mem_size_shift(info))) {
		live->key_accesses++;
		live->key_misses += !hit;
	}
}

/* forever() - size zeroed bytes (at most 4 KiB) that live as long as QEMU. */
static void *forever(size_t size)
{
	enum { CHUNK = 1 << 18 };
	static char *chunk;
	static size_t used = CHUNK;
	void *p;

	size = (size + 15) & ~(size_t)15;
	if (used + size > CHUNK) {
		chunk = calloc(1, CHUNK);
		if (!chunk) {
			fprintf(stderr, "branches: model: out of memory\n");
			abort();
		}
		used = 0;
	}
	p = chunk + used;
	used += size;
	return p;
}

/* new_fetch() - a zeroed struct fetch that lives as long as QEMU. */
static struct fetch *new_fetch(void)
{
	return forever(sizeof(struct fetch));
}

/*
 * ends_with_branch() - the last of tb's n instructions is a conditional
 * branch whose target decodes (set_branch() makes it pending).
 */
static bool ends_with_branch(struct qemu_plugin_tb *tb, size_t n)
{
	struct qemu_plugin_insn *insn;
	uint64_t target;

	if (n == 0)
		return false;
	insn = qemu_plugin_tb_get_insn(tb, n - 1);
	return x86_is_cond_branch(x86_classify(qemu_plugin_insn_data(insn),
					       qemu_plugin_insn_size(insn))) &&
	       x86_branch_target(qemu_plugin_insn_data(insn),
				 qemu_plugin_insn_size(insn),
				 qemu_plugin_insn_vaddr(insn), &target);
}

/*
 * set_branch() - f's run ends its block with the branch insn. False if
 * its target cannot be decoded.
 */
static bool set_branch(struct fetch *f, struct qemu_plugin_insn *insn)
{
	const uint8_t *p = qemu_plugin_insn_data(insn);
	size_t len = qemu_plugin_insn_size(insn);

	f->pc = qemu_plugin_insn_vaddr(insn);
	f->next = f->pc + len;
	f->branch = x86_branch_target(p, len, f->pc, &f->target);
	return f->branch;
}

void modelplug_tb(struct qemu_plugin_tb *tb, enum mode m,
		  struct profile *prof)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	unsigned int shift = hw.l1i.line_shift;
	bool branch_end = ends_with_branch(tb, n);
	struct fetch *f = NULL;

	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t h = (uintptr_t)qemu_plugin_insn_haddr(insn);
		struct prof_bucket *b = profile_bucket(
			prof, qemu_plugin_insn_vaddr(insn), m == KERNEL);
		struct memi *mi = forever(sizeof(*mi));

		if (!f || h >> shift != f->haddr >> shift) {
			f = new_fetch();
			f->b = b;
			f->haddr = h;
			f->mode = (uint8_t)m;
			f->first = i == 0;
			f->start = qemu_plugin_tb_vaddr(tb);
			f->block_n = (uint32_t)n;
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, fetch_exec, QEMU_PLUGIN_CB_NO_REGS, f);
		}
		mi->b = b;
		mi->off = (uint32_t)i;
		mi->near_branch = branch_end && ooo_near_branch(i, n);
		qemu_plugin_register_vcpu_mem_cb(insn, mem_exec,
						 QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, mi);
		if (!x86_is_cond_branch(x86_classify(
			    qemu_plugin_insn_data(insn),
			    qemu_plugin_insn_size(insn))))
			continue;
		/* Not last: never seen, QEMU ends blocks at branches. */
		f->branch_b = b;
		if (i < n - 1 || !set_branch(f, insn))
			qemu_plugin_register_vcpu_insn_exec_inline(
				insn, QEMU_PLUGIN_INLINE_ADD_U64,
				&live->unresolved, 1);
	}
}

/* put_modes() - "kernel_<name>" and "user_<name>" window figures. */
static void put_modes(FILE *f, const char *name, const uint64_t v[2],
		      int valid)
{
	char key[64];

	snprintf(key, sizeof(key), "kernel_%s", name);
	put_window(f, key, v[KERNEL], valid);
	snprintf(key, sizeof(key), "user_%s", name);
	put_window(f, key, v[USER], valid);
}

/* put_geometry() - the parameters in effect. */
static void put_geometry(FILE *f)
{
	fprintf(f, "model=on\n");
	fprintf(f, "model_l1i=%llu:%llu:%llu\n",
		(unsigned long long)cfg.l1i_size,
		(unsigned long long)cfg.l1i_ways, (unsigned long long)cfg.line);
	fprintf(f, "model_l1d=%llu:%llu:%llu\n",
		(unsigned long long)cfg.l1d_size,
		(unsigned long long)cfg.l1d_ways, (unsigned long long)cfg.line);
	if (hw.use_tage)
		fprintf(f, "model_bp=tage:%llu:%llu:%llu:%llu:%llu:%llu\n",
			(unsigned long long)cfg.tage[0],
			(unsigned long long)cfg.tage[1],
			(unsigned long long)cfg.tage[2],
			(unsigned long long)cfg.tage[3],
			(unsigned long long)cfg.tage[4],
			(unsigned long long)cfg.tage[5]);
	else
		fprintf(f, "model_bp=gshare:%llu:%llu\n",
			(unsigned long long)cfg.bp_entries,
			(unsigned long long)cfg.bp_hist);
	fprintf(f, "model_btb=%llu:%llu\n",
		(unsigned long long)cfg.btb_entries,
		(unsigned long long)cfg.btb_ways);
	fprintf(f, "model_rob=%llu\n", (unsigned long long)cfg.rob);
	if (hw.have_l2)
		fprintf(f, "model_l2=%llu:%llu:%llu\n",
			(unsigned long long)cfg.l2_size,
			(unsigned long long)cfg.l2_ways,
			(unsigned long long)cfg.line);
	if (hw.l1i.next_line)
		fprintf(f, "model_iprefetch=next-line\n");
}

static uint64_t both(const uint64_t v[2])
{
	return v[KERNEL] + v[USER];
}

void modelplug_report(FILE *f, const struct counters *win, int valid,
		      const struct counters *l)
{
	if (!on)
		return;
	put_geometry(f);
	put_modes(f, "mispredicts", win->mispredicts, valid);
	put_modes(f, "btb_misses", win->btb_misses, valid);
	put_modes(f, "l1i_accesses", win->l1i_accesses, valid);
	put_modes(f, "l1i_misses", win->l1i_misses, valid);
	put_modes(f, "l1d_accesses", win->l1d_accesses, valid);
	put_modes(f, "l1d_misses", win->l1d_misses, valid);
	put_window(f, "key_accesses", win->key_accesses,
		   valid && hw.have_keys);
	put_window(f, "key_misses", win->key_misses, valid && hw.have_keys);
	put_window(f, "branches_unresolved", win->unresolved, valid);
	if (hw.have_l2) {
		put_modes(f, "l2i_misses", win->l2i_misses, valid);
		put_modes(f, "l2d_misses", win->l2d_misses, valid);
	}
	if (hw.l1i.next_line) {
		put_modes(f, "l1i_pf_hits", win->l1i_pf_hits, valid);
		put_modes(f, "l1i_pf_fills", win->l1i_pf_fills, valid);
	}
	put_modes(f, "l1d_fed", win->ooo.l1d_fed, valid);
	put_modes(f, "l1d_groups", win->ooo.l1d_groups, valid);
	if (hw.have_l2) {
		put_modes(f, "l2d_fed", win->ooo.l2d_fed, valid);
		put_modes(f, "l2d_groups", win->ooo.l2d_groups, valid);
	}
	put_u64(f, "total_l1i_accesses", both(l->l1i_accesses));
	put_u64(f, "total_l1i_misses", both(l->l1i_misses));
	put_u64(f, "total_l1d_accesses", both(l->l1d_accesses));
	put_u64(f, "total_l1d_misses", both(l->l1d_misses));
	put_u64(f, "total_mispredicts", both(l->mispredicts));
}

void modelplug_report_region(FILE *f, int id, const struct counters *s)
{
	if (!on)
		return;
	put_region(f, id, "mispredicts", both(s->mispredicts));
	put_region(f, id, "btb_misses", both(s->btb_misses));
	put_region(f, id, "l1i_accesses", both(s->l1i_accesses));
	put_region(f, id, "l1i_misses", both(s->l1i_misses));
	put_region(f, id, "l1d_accesses", both(s->l1d_accesses));
	put_region(f, id, "l1d_misses", both(s->l1d_misses));
	if (hw.have_l2) {
		put_region(f, id, "l2i_misses", both(s->l2i_misses));
		put_region(f, id, "l2d_misses", both(s->l2d_misses));
	}
	if (hw.l1i.next_line) {
		put_region(f, id, "l1i_pf_hits", both(s->l1i_pf_hits));
		put_region(f, id, "l1i_pf_fills", both(s->l1i_pf_fills));
	}
	put_region(f, id, "l1d_fed", both(s->ooo.l1d_fed));
	put_region(f, id, "l1d_groups", both(s->ooo.l1d_groups));
	if (hw.have_l2) {
		put_region(f, id, "l2d_fed", both(s->ooo.l2d_fed));
		put_region(f, id, "l2d_groups", both(s->ooo.l2d_groups));
	}
}
