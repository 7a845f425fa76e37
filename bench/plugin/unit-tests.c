// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * unit-tests.c: host unit tests of the plugin's instruction classifier
 * (x86class.c), sites parser (sites.c) and hardware model (model.c), with
 * known answers. Built and run by
 * tests/test_plugin.py. Prints one "ok"/"not ok" line per check (TAP) and
 * exits 1 if any check failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sites.h"
#include "unit-tests.h"
#include "x86class.h"

static int failures, checks;

void check(int ok, const char *what)
{
	checks++;
	if (!ok)
		failures++;
	printf("%s %d - %s\n", ok ? "ok" : "not ok", checks, what);
}

struct insn_case {
	const char *what;
	size_t len;
	uint8_t bytes[X86_MAX_INSN];
	enum x86_kind want;
};

static const struct insn_case insn_cases[] = {
	/* conditional branches */
	{ "jo rel8", 2, { 0x70, 0x10 }, X86_JCC },
	{ "jne rel8", 2, { 0x75, 0xfe }, X86_JCC },
	{ "jg rel8", 2, { 0x7f, 0x00 }, X86_JCC },
	{ "je rel32", 6, { 0x0f, 0x84, 1, 2, 3, 4 }, X86_JCC },
	{ "jo rel32", 6, { 0x0f, 0x80, 1, 2, 3, 4 }, X86_JCC },
	{ "jg rel32", 6, { 0x0f, 0x8f, 1, 2, 3, 4 }, X86_JCC },
	{ "jne rel8, hint not-taken (2e)", 3, { 0x2e, 0x75, 0x05 }, X86_JCC },
	{ "je rel8, hint taken (3e)", 3, { 0x3e, 0x74, 0x05 }, X86_JCC },
	{ "je rel32, hint (3e)", 7, { 0x3e, 0x0f, 0x84, 1, 2, 3, 4 }, X86_JCC },
	{ "jne rel16, 66 prefix", 5, { 0x66, 0x0f, 0x85, 1, 2 }, X86_JCC },
	{ "je rel32, bnd (f2)", 7, { 0xf2, 0x0f, 0x84, 1, 2, 3, 4 }, X86_JCC },
	{ "jne rel8, REX.W", 3, { 0x48, 0x75, 0x05 }, X86_JCC },
	{ "jne rel32, REX + hint", 8, { 0x3e, 0x41, 0x0f, 0x85, 1, 2, 3, 4 },
	  X86_JCC },
	{ "jrcxz", 2, { 0xe3, 0x10 }, X86_JCXZ },
	{ "jecxz (67)", 3, { 0x67, 0xe3, 0x10 }, X86_JCXZ },
	{ "loopne", 2, { 0xe0, 0xfe }, X86_LOOP },
	{ "loope", 2, { 0xe1, 0xfe }, X86_LOOP },
	{ "loop", 2, { 0xe2, 0xfe }, X86_LOOP },
	{ "loop, 67 prefix", 3, { 0x67, 0xe2, 0xfe }, X86_LOOP },
	/* not conditional branches */
	{ "jmp rel8", 2, { 0xeb, 0x05 }, X86_OTHER },
	{ "jmp rel32", 5, { 0xe9, 1, 2, 3, 4 }, X86_OTHER },
	{ "call rel32", 5, { 0xe8, 1, 2, 3, 4 }, X86_OTHER },
	{ "ret", 1, { 0xc3 }, X86_OTHER },
	{ "jmp *%rax", 2, { 0xff, 0xe0 }, X86_OTHER },
	{ "in al, imm8 (e4 next to e3)", 2, { 0xe4, 0x60 }, X86_OTHER },
	{ "jmp far (ea)", 7, { 0xea, 1, 2, 3, 4, 5, 6 }, X86_OTHER },
	{ "nop", 1, { 0x90 }, X86_OTHER },
	{ "pause", 2, { 0xf3, 0x90 }, X86_OTHER },
	{ "2-byte nop 66 90", 2, { 0x66, 0x90 }, X86_OTHER },
	{ "5-byte nopl (jump label)", 5, { 0x0f, 0x1f, 0x44, 0x00, 0x00 },
	  X86_OTHER },
	{ "8-byte nopw", 8, { 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0 }, X86_OTHER },
	{ "9-byte nopw, zero disp", 9,
	  { 0x66, 0x0f, 0x1f, 0x84, 0x00, 0, 0, 0, 0 }, X86_OTHER },
	{ "setne %al (0f 95)", 3, { 0x0f, 0x95, 0xc0 }, X86_OTHER },
	{ "cmovne (0f 45)", 4, { 0x48, 0x0f, 0x45, 0xc1 }, X86_OTHER },
	{ "jo-like byte as ModRM: mov %esi,0x70(%rax)", 3, { 0x89, 0x70, 0x70 },
	  X86_OTHER },
	{ "test %eax,%eax", 2, { 0x85, 0xc0 }, X86_OTHER },
	{ "32-bit inc %eax (40) is not REX", 1, { 0x40 }, X86_OTHER },
	{ "32-bit inc %ax (66 40)", 2, { 0x66, 0x40 }, X86_OTHER },
	{ "REX then 0f 80-8f? no: rex.w imul (0f af)", 4,
	  { 0x48, 0x0f, 0xaf, 0xc1 }, X86_OTHER },
	{ "lock cmpxchg16b", 5, { 0xf0, 0x48, 0x0f, 0xc7, 0x0e }, X86_OTHER },
	{ "empty", 0, { 0 }, X86_OTHER },
	/* window markers */
	{ "marker start", 9, { 0x66, 0x0f, 0x1f, 0x84, 0x00, 'J', 'L', 'B', '1' },
	  X86_MARK_START },
	{ "marker end", 9, { 0x66, 0x0f, 0x1f, 0x84, 0x00, 'J', 'L', 'B', '2' },
	  X86_MARK_END },
	{ "marker with other digit", 9,
	  { 0x66, 0x0f, 0x1f, 0x84, 0x00, 'J', 'L', 'B', '3' }, X86_OTHER },
	{ "marker bytes without 66", 8,
	  { 0x0f, 0x1f, 0x84, 0x00, 'J', 'L', 'B', '1' }, X86_OTHER },
	/* region markers */
	{ "region 1 begin", 9, { 0x66, 0x0f, 0x1f, 0x84, 0x00, 'J', 'L', 'R', 1 },
	  X86_MARK_REGION_BEGIN },
	{ "region 1 end", 9, { 0x66, 0x0f, 0x1f, 0x84, 0x00, 'J', 'L', 'r', 1 },
	  X86_MARK_REGION_END },
	{ "region 0 begin", 9, { 0x66, 0x0f, 0x1f, 0x84, 0x00, 'J', 'L', 'R', 0 },
	  X86_MARK_REGION_BEGIN },
	{ "region 255 end", 9,
	  { 0x66, 0x0f, 0x1f, 0x84, 0x00, 'J', 'L', 'r', 0xff },
	  X86_MARK_REGION_END },
	{ "region marker, other kind letter (S)", 9,
	  { 0x66, 0x0f, 0x1f, 0x84, 0x00, 'J', 'L', 'S', 1 }, X86_OTHER },
	{ "region marker with jlR (not JL)", 9,
	  { 0x66, 0x0f, 0x1f, 0x84, 0x00, 'j', 'L', 'R', 1 }, X86_OTHER },
	{ "region bytes in a 10-byte insn (cs prefix)", 10,
	  { 0x2e, 0x66, 0x0f, 0x1f, 0x84, 0x00, 'J', 'L', 'R', 1 }, X86_OTHER },
	{ "region bytes, 8-byte nopl (no 66)", 8,
	  { 0x0f, 0x1f, 0x84, 0x00, 'J', 'L', 'R', 1 }, X86_OTHER },
};

struct region_case {
	const char *what;
	size_t len;
	uint8_t bytes[X86_MAX_INSN];
	int want;
};

static const struct region_case region_cases[] = {
	{ "begin 1", 9, { 0x66, 0x0f, 0x1f, 0x84, 0x00, 'J', 'L', 'R', 1 }, 1 },
	{ "end 6", 9, { 0x66, 0x0f, 0x1f, 0x84, 0x00, 'J', 'L', 'r', 6 }, 6 },
	{ "begin 0", 9, { 0x66, 0x0f, 0x1f, 0x84, 0x00, 'J', 'L', 'R', 0 }, 0 },
	{ "end 255", 9, { 0x66, 0x0f, 0x1f, 0x84, 0x00, 'J', 'L', 'r', 0xff },
	  255 },
	{ "id 0x31 ('1') is a region id", 9,
	  { 0x66, 0x0f, 0x1f, 0x84, 0x00, 'J', 'L', 'R', '1' }, '1' },
	{ "window start is no region", 9,
	  { 0x66, 0x0f, 0x1f, 0x84, 0x00, 'J', 'L', 'B', '1' }, -1 },
	{ "other kind letter", 9,
	  { 0x66, 0x0f, 0x1f, 0x84, 0x00, 'J', 'L', 'S', 1 }, -1 },
	{ "too long", 10,
	  { 0x2e, 0x66, 0x0f, 0x1f, 0x84, 0x00, 'J', 'L', 'R', 1 }, -1 },
	{ "jcc", 2, { 0x75, 0x05 }, -1 },
	{ "empty", 0, { 0 }, -1 },
};

static void test_classify(void)
{
	size_t i;
	char what[160];

	for (i = 0; i < sizeof(insn_cases) / sizeof(insn_cases[0]); i++) {
		const struct insn_case *c = &insn_cases[i];
		enum x86_kind got = x86_classify(c->bytes, c->len);

		snprintf(what, sizeof(what), "classify %s: want %s, got %s",
			 c->what, x86_kind_name(c->want), x86_kind_name(got));
		check(got == c->want, what);
	}
	check(x86_is_cond_branch(X86_JCC) && x86_is_cond_branch(X86_JCXZ) &&
	      x86_is_cond_branch(X86_LOOP), "jcc, jcxz, loop are branches");
	check(!x86_is_cond_branch(X86_OTHER) &&
	      !x86_is_cond_branch(X86_MARK_START) &&
	      !x86_is_cond_branch(X86_MARK_END) &&
	      !x86_is_cond_branch(X86_MARK_REGION_BEGIN) &&
	      !x86_is_cond_branch(X86_MARK_REGION_END),
	      "others are not branches");
	for (i = 0; i < sizeof(region_cases) / sizeof(region_cases[0]); i++) {
		const struct region_case *c = &region_cases[i];
		int got = x86_region_id(c->bytes, c->len);

		snprintf(what, sizeof(what), "region id of %s: want %d, got %d",
			 c->what, c->want, got);
		check(got == c->want, what);
	}
	check(x86_is_kernel_addr(0xffffffff81000000ULL), "kernel text is kernel");
	check(x86_is_kernel_addr(0xffff800000000000ULL), "kernel half start");
	check(!x86_is_kernel_addr(0x00007fffffffffffULL), "user half end");
	check(!x86_is_kernel_addr(0x401000ULL), "user text is user");
	check(!x86_is_kernel_addr(0xf0000ULL), "BIOS is not kernel");
}

struct target_case {
	const char *what;
	size_t len;
	uint8_t bytes[X86_MAX_INSN];
	uint64_t vaddr;
	int ok;
	uint64_t want;
};

static const struct target_case target_cases[] = {
	{ "jne rel8 forward", 2, { 0x75, 0x05 }, 0x1000, 1, 0x1007 },
	{ "jne rel8 to itself (-2)", 2, { 0x75, 0xfe }, 0x1000, 1, 0x1000 },
	{ "jo rel8 -128", 2, { 0x70, 0x80 }, 0x1000, 1, 0x1002 - 128 },
	{ "je rel32 forward", 6, { 0x0f, 0x84, 0x00, 0x01, 0x00, 0x00 },
	  0xffffffff81000000ULL, 1, 0xffffffff81000106ULL },
	{ "je rel32 backward", 6, { 0x0f, 0x84, 0xfa, 0xff, 0xff, 0xff },
	  0xffffffff81000000ULL, 1, 0xffffffff81000000ULL },
	{ "jg rel32 -0x80000000", 6, { 0x0f, 0x8f, 0, 0, 0, 0x80 },
	  0xffffffff81000000ULL, 1, 0xffffffff01000006ULL },
	{ "je rel32 with hint and REX", 8,
	  { 0x3e, 0x41, 0x0f, 0x84, 0x10, 0, 0, 0 }, 0x400000, 1, 0x400018 },
	{ "jne rel8 with hint", 3, { 0x2e, 0x75, 0x10 }, 0x400000, 1,
	  0x400013 },
	{ "jne rel16 (66), cut to 16 bits", 5, { 0x66, 0x0f, 0x85, 0x00, 0x10 },
	  0x12345, 1, 0x334a },
	{ "jrcxz", 2, { 0xe3, 0x10 }, 0x2000, 1, 0x2012 },
	{ "jecxz (67)", 3, { 0x67, 0xe3, 0xf0 }, 0x2000, 1, 0x2003 - 0x10 },
	{ "loop back", 2, { 0xe2, 0xfc }, 0x3000, 1, 0x2ffe },
	{ "wraps at 2^64", 2, { 0x75, 0x10 }, UINT64_MAX - 1, 1, 0x10 },
	{ "jmp rel8 is not a conditional branch", 2, { 0xeb, 0x05 }, 0x1000,
	  0, 0 },
	{ "call is not", 5, { 0xe8, 1, 2, 3, 4 }, 0x1000, 0, 0 },
	{ "marker is not", 9, { 0x66, 0x0f, 0x1f, 0x84, 0x00, 'J', 'L', 'B', '1' },
	  0x1000, 0, 0 },
	{ "jcc with a 3-byte displacement (bad length)", 5,
	  { 0x0f, 0x84, 1, 2, 3 }, 0x1000, 0, 0 },
};

static void test_targets(void)
{
	size_t i;
	char what[160];

	for (i = 0; i < sizeof(target_cases) / sizeof(target_cases[0]); i++) {
		const struct target_case *c = &target_cases[i];
		uint64_t got = 0xdead;
		bool ok = x86_branch_target(c->bytes, c->len, c->vaddr, &got);

		snprintf(what, sizeof(what),
			 "target of %s: want %d %#llx, got %d %#llx", c->what,
			 c->ok, (unsigned long long)c->want, ok,
			 (unsigned long long)got);
		check(ok == !!c->ok && (ok ? got == c->want : got == 0xdead),
		      what);
	}
}

static int parse(struct sites *s, const char *text, char *err, size_t n)
{
	return sites_parse(s, text, strlen(text), err, n);
}

static void test_sites(void)
{
	struct sites s;
	char err[256];
	int rc;

	rc = parse(&s, "# jump table sites\n"
		   "ffffffff81000010\n"
		   "0xffffffff81000020  # with 0x\n"
		   "\n"
		   "  FFFFFFFF81001000-ffffffff81001100\n"
		   "ffffffff81001080-ffffffff81001200\n"
		   "ffffffff81000010\n", err, sizeof(err));
	check(rc == 0, "sites: parse a mixed file");
	check(s.entries == 5, "sites: five entries");
	check(s.n == 3, "sites: duplicates and overlaps merged to three ranges");
	check(sites_contains(&s, 0xffffffff81000010ULL), "sites: exact address");
	check(!sites_contains(&s, 0xffffffff81000011ULL),
	      "sites: byte after an address is outside");
	check(!sites_contains(&s, 0xffffffff8100000fULL),
	      "sites: byte before an address is outside");
	check(sites_contains(&s, 0xffffffff81000020ULL), "sites: 0x form");
	check(sites_contains(&s, 0xffffffff81001000ULL), "sites: range start");
	check(sites_contains(&s, 0xffffffff810011ffULL),
	      "sites: merged range, last byte");
	check(!sites_contains(&s, 0xffffffff81001200ULL),
	      "sites: range end is exclusive");
	check(!sites_contains(&s, 0), "sites: zero is outside");
	check(!sites_contains(&s, UINT64_MAX), "sites: max is outside");
	sites_free(&s);

	rc = parse(&s, "", err, sizeof(err));
	check(rc == 0 && s.n == 0 && !sites_contains(&s, 5), "sites: empty file");
	sites_free(&s);

	rc = parse(&s, "ffffffff81000010\nnot-hex\n", err, sizeof(err));
	check(rc != 0 && strstr(err, "line 2") != NULL,
	      "sites: bad line is an error naming the line");
	rc = parse(&s, "20-10\n", err, sizeof(err));
	check(rc != 0, "sites: START >= END is an error");
	rc = parse(&s, "10 20\n", err, sizeof(err));
	check(rc != 0, "sites: two words is an error");
	rc = parse(&s, "12345678123456789\n", err, sizeof(err));
	check(rc != 0, "sites: more than 64 bits is an error");
	rc = parse(&s, "1000-1010\n2000\n", err, sizeof(err));
	check(rc == 0, "sites: key-word file");
	check(sites_overlaps(&s, 0x1000, 8), "overlap: at the range start");
	check(sites_overlaps(&s, 0xffc, 8), "overlap: straddles the start");
	check(sites_overlaps(&s, 0x100f, 1), "overlap: last byte");
	check(!sites_overlaps(&s, 0x1010, 8), "overlap: end is exclusive");
	check(!sites_overlaps(&s, 0xff8, 8), "overlap: ends just before");
	check(sites_overlaps(&s, 0x1ff9, 8), "overlap: last byte on an address");
	check(!sites_overlaps(&s, 0x1ff8, 8), "overlap: one short of it");
	check(sites_overlaps(&s, 0x0, 0x3000), "overlap: covering both");
	check(!sites_overlaps(&s, UINT64_MAX - 3, 8),
	      "overlap: wraps at 2^64 without matching low ranges");
	sites_free(&s);

	rc = sites_load(&s, "/nonexistent/sites", err, sizeof(err));
	check(rc != 0 && strstr(err, "/nonexistent/sites") != NULL,
	      "sites: missing file is an error naming it");
}

int main(void)
{
	test_classify();
	test_targets();
	test_sites();
	test_model();
	test_core();
	test_overlap();
	test_tage();
	test_profile();
	printf("1..%d\n# %d checks, %d failed\n", checks, checks, failures);
	return failures ? 1 : 0;
}
