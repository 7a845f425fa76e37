// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * profile.c: the per-function profile of the branches plugin. See
 * profile.h.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

static const char *const col_names[PROF_COLS] = {
	"insns", "site_execs", "mispredicts", "l1i_misses", "l1d_misses",
};

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p) {
		fprintf(stderr, "branches: profile: out of memory\n");
		abort();
	}
	return p;
}

/* count_lines() - lines of buf[0..len) that are not empty. */
static size_t count_lines(const char *buf, size_t len)
{
	size_t n = 0, i;
	int text = 0;

	for (i = 0; i < len; i++) {
		if (buf[i] == '\n') {
			n += text;
			text = 0;
		} else {
			text = 1;
		}
	}
	return n + text;
}

/*
 * parse_symbol() - the line at line (NUL-terminated, modified) into *start
 * and *name. 0, or -1 if it is not "<hex> <name>".
 */
static int parse_symbol(char *line, uint64_t *start, const char **name)
{
	char *end, *p;

	errno = 0;
	if (!isxdigit((unsigned char)line[0]))
		return -1;
	*start = strtoull(line, &end, 16);
	if (errno || end == line || *end != ' ')
		return -1;
	p = end + 1;
	if (!*p || strchr(p, ' '))
		return -1;
	*name = p;
	return 0;
}

int profile_symbols_parse(struct profile *p, char *buf, size_t len,
			  char *err, size_t errlen)
{
	size_t cap = count_lines(buf, len), n = 0, lineno = 0;
	char *line = buf, *bufend = buf + len;

	p->names = buf;
	p->funcs = xcalloc(cap, sizeof(*p->funcs));
	while (line < bufend) {
		char *nl = memchr(line, '\n', (size_t)(bufend - line));
		uint64_t start;
		const char *name;

		if (nl)
			*nl = '\0';
		lineno++;
		if (*line) {
			if (parse_symbol(line, &start, &name) != 0) {
				snprintf(err, errlen,
					 "symbols line %zu: want '<hex start> <name>'",
					 lineno);
				return -1;
			}
			if (n && start <= p->funcs[n - 1].start) {
				snprintf(err, errlen,
					 "symbols line %zu: %llx is not above the line before",
					 lineno, (unsigned long long)start);
				return -1;
			}
			p->funcs[n].start = start;
			p->funcs[n].name = name;
			p->funcs[n].kernel = 1;
			n++;
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	if (n < 2) {
		snprintf(err, errlen,
			 "symbols: want at least one function and the end line");
		return -1;
	}
	p->nfuncs = n - 1;
	p->end = p->funcs[n - 1].start;
	return 0;
}

int profile_symbols_load(struct profile *p, const char *path,
			 char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long size;

	if (!f) {
		snprintf(err, errlen, "cannot open %s: %s", path,
			 strerror(errno));
		return -1;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0) {
		snprintf(err, errlen, "cannot read %s", path);
		fclose(f);
		return -1;
	}
	buf = xcalloc((size_t)size + 1, 1);
	if (fread(buf, 1, (size_t)size, f) != (size_t)size) {
		snprintf(err, errlen, "cannot read %s", path);
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	if (profile_symbols_parse(p, buf, (size_t)size, err, errlen) != 0) {
		size_t used = strlen(err);

		snprintf(err + used, errlen - used, " (%s)", path);
		return -1;
	}
	return 0;
}

/* find_func() - the function holding addr, or NULL. */
static struct prof_bucket *find_func(struct profile *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nfuncs;

	if (!p->nfuncs || addr < p->funcs[0].start || addr >= p->end)
		return NULL;
	while (hi - lo > 1) {	/* funcs[lo].start <= addr < funcs[hi] */
		size_t mid = lo + (hi - lo) / 2;

		if (p->funcs[mid].start <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return &p->funcs[lo];
}

static size_t hash_of(uint64_t page, size_t size)
{
	return (size_t)((page >> PROF_PAGE_SHIFT) * 0x9e3779b97f4a7c15ULL >>
			32) & (size - 1);
}

/* grow_hash() - double the page hash table (its buckets stay put). */
static void grow_hash(struct profile *p)
{
	size_t size = p->hash_size ? 2 * p->hash_size : 1024, i;
	struct prof_bucket **h = xcalloc(size, sizeof(*h));

	for (i = 0; i < p->npages; i++) {
		struct prof_bucket *b = p->pages[i];
		size_t k = hash_of(b->start, size);

		b->next = h[k];
		h[k] = b;
	}
	free(p->hash);
	p->hash = h;
	p->hash_size = size;
}

static struct prof_bucket *new_page(struct profile *p, uint64_t page,
				    int kernel)
{
	struct prof_bucket *b = xcalloc(1, sizeof(*b));

	if (p->npages == p->pages_cap) {
		p->pages_cap = p->pages_cap ? 2 * p->pages_cap : 256;
		struct prof_bucket **grown = xcalloc(p->pages_cap,
						     sizeof(*grown));

		if (p->npages)
			memcpy(grown, p->pages, p->npages * sizeof(*grown));
		free(p->pages);
		p->pages = grown;
	}
	if (2 * (p->npages + 1) > p->hash_size)
		grow_hash(p);
	b->start = page;
	b->name = kernel ? "[kernel]" : "[user]";
	b->kernel = (uint8_t)kernel;
	b->next = p->hash[hash_of(page, p->hash_size)];
	p->hash[hash_of(page, p->hash_size)] = b;
	p->pages[p->npages++] = b;
	return b;
}

struct prof_bucket *profile_bucket(struct profile *p, uint64_t addr,
				   int kernel)
{
	uint64_t page = addr & ~((1ULL << PROF_PAGE_SHIFT) - 1);
	struct prof_bucket *b;

	if (!p->on) {
		p->sink[!!kernel].kernel = (uint8_t)!!kernel;
		return &p->sink[!!kernel];
	}
	if (kernel) {
		b = find_func(p, addr);
		if (b)
			return b;
	}
	if (p->hash_size)
		for (b = p->hash[hash_of(page, p->hash_size)]; b; b = b->next)
			if (b->start == page)
				return b;
	return new_page(p, page, kernel);
}

/* each_bucket() - fn on every function and page bucket. */
static void each_bucket(struct profile *p, void (*fn)(struct prof_bucket *))
{
	size_t i;

	for (i = 0; i < p->nfuncs; i++)
		fn(&p->funcs[i]);
	for (i = 0; i < p->npages; i++)
		fn(p->pages[i]);
}

static void snapshot(struct prof_bucket *b)
{
	memcpy(b->at_start, b->live, sizeof(b->live));
}

static void close_window(struct prof_bucket *b)
{
	int c;

	for (c = 0; c < PROF_COLS; c++)
		b->win[c] += b->live[c] - b->at_start[c];
}

void profile_window_start(struct profile *p)
{
	each_bucket(p, snapshot);
}

void profile_window_end(struct profile *p)
{
	each_bucket(p, close_window);
}

static int nonzero(const struct prof_bucket *b, int ncols)
{
	int c;

	for (c = 0; c < ncols; c++)
		if (b->win[c])
			return 1;
	return 0;
}

static int by_start(const void *x, const void *y)
{
	const struct prof_bucket *a = *(const struct prof_bucket *const *)x;
	const struct prof_bucket *b = *(const struct prof_bucket *const *)y;

	return a->start < b->start ? -1 : a->start > b->start;
}

int profile_write(const struct profile *p, FILE *f, uint64_t windows,
		  int ncols)
{
	struct prof_bucket **rows;
	size_t n = 0, i;
	int c;

	fprintf(f, "format=1\nwindow=%d\nwindows=%llu\ncolumns=",
		windows > 0, (unsigned long long)windows);
	for (c = 0; c < ncols; c++)
		fprintf(f, "%s%s", c ? "," : "", col_names[c]);
	fprintf(f, "\nfunctions=%zu\n", p->nfuncs);
	if (!windows)
		return 0;
	rows = calloc(p->nfuncs + p->npages + 1, sizeof(*rows));
	if (!rows)
		return -1;
	for (i = 0; i < p->nfuncs; i++)
		if (nonzero(&p->funcs[i], ncols))
			rows[n++] = &p->funcs[i];
	for (i = 0; i < p->npages; i++)
		if (nonzero(p->pages[i], ncols))
			rows[n++] = p->pages[i];
	qsort(rows, n, sizeof(*rows), by_start);
	for (i = 0; i < n; i++) {
		fprintf(f, "%llx %s", (unsigned long long)rows[i]->start,
			rows[i]->name);
		for (c = 0; c < ncols; c++)
			fprintf(f, " %llu", (unsigned long long)rows[i]->win[c]);
		fputc('\n', f);
	}
	free(rows);
	return 0;
}

void profile_free(struct profile *p)
{
	size_t i;

	for (i = 0; i < p->npages; i++)
		free(p->pages[i]);
	free(p->pages);
	free(p->hash);
	free(p->funcs);
	free(p->names);
	memset(p, 0, sizeof(*p));
}
