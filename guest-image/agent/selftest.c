// SPDX-License-Identifier: GPL-2.0
/*
 * selftest.c: jlbench.mode=selftest. Loads the kernel modules the image
 * lists for this kernel, in the listed order, with finit_module(2), and
 * reports selftest.<module>=PASS|FAIL from the return value and from the
 * module's kernel log lines. Like modprobe, it passes each module the
 * options the kernel command line has for it ("<module>.<param>=<value>";
 * the kernel itself ignores them for loadable modules).
 *
 * The image holds /lib/modules/jlbench/<variant>/: the *.ko files,
 * modules.list (one file name a line, dependencies first) and proc_version
 * (the /proc/version of the kernel they were built with). A module's log
 * lines are those starting with "<name>: " (pr_fmt's convention). A line
 * of the form "<name>: key=value" becomes the figure
 * selftest.<name>.<key>=value; a line at level err or worse makes it FAIL.
 */
#define _GNU_SOURCE
#include "agent.h"
#include "kmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MODDIR "/lib/modules/jlbench"
#define MAX_MODULES 64

/* drain_kmsg: read new kernel log records; note figures and errors of
 * module `name`. Returns the number of its err-or-worse lines. */
static int drain_kmsg(int fd, const char *name)
{
	char rec[8192], prefix[80], key[64], value[256], full[160];
	struct jlb_kmsg k;
	ssize_t n;
	int errors = 0;

	snprintf(prefix, sizeof(prefix), "%s: ", name);
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && (errno == EINTR || errno == EPIPE))
			continue;	/* EPIPE: records were overwritten */
		if (n < 0 && errno == EAGAIN)
			return errors;
		if (n < 0)
			fail_now("read /dev/kmsg: %m");
		if (n == 0)
			return errors;
		if (jlb_parse_kmsg(rec, (size_t)n, &k) < 0)
			continue;
		if (k.textlen < strlen(prefix) ||
		    memcmp(k.text, prefix, strlen(prefix)) != 0)
			continue;
		if (k.level <= 3)
			errors++;
		if (jlb_figure(k.text, k.textlen, prefix, key, sizeof(key),
			       value, sizeof(value))) {
			snprintf(full, sizeof(full), "selftest.%s.%s", name, key);
			kv(full, "%s", value);
		}
	}
}

/* module_name: "test-foo.ko" -> "test_foo" (KBUILD_MODNAME). */
static int module_name(const char *file, char *name, size_t len)
{
	size_t n = strlen(file), i;

	if (n < 4 || strcmp(file + n - 3, ".ko") != 0 || n - 3 >= len)
		return -1;
	for (i = 0; i < n - 3; i++) {
		char c = file[i];

		if (c == '-')
			c = '_';
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '_'))
			return -1;
		name[i] = c;
	}
	name[i] = '\0';
	return 0;
}

void run_selftest(const struct jlb_params *p)
{
	static char list[8192], want[1024], have[1024], cmdline[4096];
	char err[JLB_ERR_LEN], path[256], name[64], key[96], opts[512];
	char *line, *save = NULL;
	int kfd, fd, ret, e, errors, nmod = 0, nfail = 0;

	if (strcmp(p->variant, "unknown") == 0)
		fail_now("selftest needs jlbench.variant= to find its modules");
	snprintf(path, sizeof(path), MODDIR "/%s/proc_version", p->variant);
	if (read_file(path, want, sizeof(want), err) < 0)
		fail_now("no modules for variant %s in the image: %s",
			 p->variant, err);
	if (read_file("/proc/version", have, sizeof(have), err) < 0)
		fail_now("%s", err);
	if (strcmp(want, have) != 0)
		fail_now("the image's modules for %s were built for another "
			 "kernel (%.*s)", p->variant, 60, want);
	if (read_file("/proc/cmdline", cmdline, sizeof(cmdline), err) < 0)
		fail_now("%s", err);
	snprintf(path, sizeof(path), MODDIR "/%s/modules.list", p->variant);
	if (read_file(path, list, sizeof(list), err) < 0)
		fail_now("%s", err);

	kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kfd < 0)
		fail_now("open /dev/kmsg: %m");
	if (lseek(kfd, 0, SEEK_END) < 0)
		fail_now("seek /dev/kmsg: %m");

	for (line = strtok_r(list, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (module_name(line, name, sizeof(name)) < 0)
			fail_now("modules.list: bad entry '%.60s'", line);
		if (++nmod > MAX_MODULES)
			fail_now("modules.list: more than %d modules",
				 MAX_MODULES);
		snprintf(path, sizeof(path), MODDIR "/%s/%s", p->variant, line);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			fail_now("open %s: %m", path);
		if (jlb_module_options(cmdline, name, opts, sizeof(opts), err,
				       sizeof(err)) < 0)
			fail_now("%s", err);
		say("selftest: loading %s%s%s", line, opts[0] ? " with " : "",
		    opts);
		ret = (int)syscall(SYS_finit_module, fd, opts, 0);
		e = ret < 0 ? errno : 0;
		snprintf(key, sizeof(key), "selftest.%s.errno", name);
		kv(key, "%d", e);
		if (close(fd) < 0)
			fail_now("close %s: %m", path);
		errors = drain_kmsg(kfd, name);
		snprintf(key, sizeof(key), "selftest.%s", name);
		kv(key, "%s", ret == 0 && errors == 0 ? "PASS" : "FAIL");
		if (ret != 0 || errors != 0) {
			nfail++;
			say("selftest: %s FAIL (finit_module %s, %d error lines)",
			    name, ret == 0 ? "ok" : strerror(e), errors);
		} else {
			say("selftest: %s PASS", name);
		}
	}
	if (nmod == 0)
		fail_now("modules.list for %s is empty", p->variant);
	kv("selftest.modules", "%d", nmod);
	kv("selftest.failed", "%d", nfail);
	close(kfd);
}
