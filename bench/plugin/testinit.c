// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * testinit.c: a tiny PID 1 for testing and costing the branches plugin.
 * Built static by mkinitramfs-test into an initramfs of its own; it does not
 * replace the real agent (guest-image/agent).
 *
 * Kernel command line parameters:
 *   jlbtest.loop=N      user-space loop of exactly N conditional branches
 *                       (one dec + jnz per iteration), between the window
 *                       markers (default 1000000)
 *   jlbtest.syscalls=M  then, still inside the window, M rounds of a pipe
 *                       write + read and a getppid() (kernel-heavy work, for
 *                       costing; default 0)
 *   jlbtest.regions=1   after the window, region markers with known counts
 *                       (regions(): closed, nested, unbalanced; default 0)
 * It prints "jlbtest: ..." lines on the console and reboots; QEMU runs with
 * -no-reboot, so the reboot ends QEMU. The symbol jlbtest_jnz is the address
 * of the loop's jnz (tests pass it to the plugin as a site).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <unistd.h>

#define MARK_START ".byte 0x66,0x0f,0x1f,0x84,0x00,0x4a,0x4c,0x42,0x31\n\t"
#define MARK_END ".byte 0x66,0x0f,0x1f,0x84,0x00,0x4a,0x4c,0x42,0x32\n\t"

/* The window, case 1: start marker, N x (dec; jnz), end marker. */
static __attribute__((noinline)) void loop_window(unsigned long n)
{
	__asm__ volatile(MARK_START
			 "1: dec %0\n\t"
			 ".globl jlbtest_jnz\n"
			 "jlbtest_jnz: jnz 1b\n\t"
			 MARK_END
			 : "+r"(n) : : "cc", "memory");
}

/* The window, case 2: the loop, then kernel-heavy syscalls. */
static __attribute__((noinline)) int syscall_window(unsigned long n,
						    unsigned long m)
{
	char buf[64];
	int fd[2];
	unsigned long i;

	if (pipe(fd) != 0)
		return -1;
	memset(buf, 'x', sizeof(buf));
	__asm__ volatile(MARK_START ::: "memory");
	__asm__ volatile("1: dec %0\n\t"
			 "jnz 1b\n\t"
			 : "+r"(n) : : "cc");
	for (i = 0; i < m; i++) {
		if (write(fd[1], buf, sizeof(buf)) != (ssize_t)sizeof(buf) ||
		    read(fd[0], buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return -1;
		(void)getppid();
	}
	__asm__ volatile(MARK_END ::: "memory");
	close(fd[0]);
	close(fd[1]);
	return 0;
}

/* Region markers: 66 0f 1f 84 00 'J' 'L' 'R'|'r' <id>, id a byte. */
#define REGION(kind, id) ".byte 0x66,0x0f,0x1f,0x84,0x00,0x4a,0x4c," \
	kind "," #id "\n\t"
#define BEGIN(id) REGION("0x52", id)
#define END(id) REGION("0x72", id)

/*
 * regions() - in user mode, counted with count=insn (begin marker inside,
 * end marker outside, as for the window):
 *   7:  n x (dec; jnz)                       2n + 1 insns, n branches
 *   8:  begin 9, n x (dec; jnz), end 9, n x (dec; jnz)
 *                                            4n + 3 insns, 2n branches
 *   9:  nested in 8: n x (dec; jnz)          2n + 1 insns, n branches
 *   0, 255: begin, end                       1 insn each
 *   10: an end without a begin               unbalanced 1, closed 0
 *   11: begin, begin, end                    unbalanced 1, closed 1, 2 insns
 *   12: a begin never closed                 unbalanced 1, closed 0
 */
static __attribute__((noinline)) void regions(unsigned long n)
{
	unsigned long a = n, b = n, c = n;

	__asm__ volatile(BEGIN(7)
			 "1: dec %0\n\t"
			 "jnz 1b\n\t"
			 END(7)
			 BEGIN(8)
			 BEGIN(9)
			 "2: dec %1\n\t"
			 "jnz 2b\n\t"
			 END(9)
			 "3: dec %2\n\t"
			 "jnz 3b\n\t"
			 END(8)
			 BEGIN(0) END(0)
			 BEGIN(255) END(255)
			 END(10)
			 BEGIN(11) BEGIN(11) END(11)
			 BEGIN(12)
			 : "+r"(a), "+r"(b), "+r"(c) : : "cc", "memory");
}

/* param() - value of "key=" on the command line, or def. */
static unsigned long param(const char *cmdline, const char *key,
			   unsigned long def)
{
	const char *p = cmdline;
	size_t k = strlen(key);

	while ((p = strstr(p, key)) != NULL) {
		if ((p == cmdline || p[-1] == ' ') && p[k] == '=')
			return strtoul(p + k + 1, NULL, 0);
		p += k;
	}
	return def;
}

static void finish(void)
{
	fflush(stdout);
	sync();
	reboot(RB_AUTOBOOT);
	printf("jlbtest: reboot failed: %s\n", strerror(errno));
	for (;;)
		pause();
}

int main(void)
{
	char cmdline[4096] = "";
	unsigned long n, m, r;
	int fd;

	mkdir("/dev", 0755);
	mkdir("/proc", 0755);
	if (mount("devtmpfs", "/dev", "devtmpfs", 0, NULL) == 0) {
		fd = open("/dev/console", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
	}
	if (mount("proc", "/proc", "proc", 0, NULL) != 0) {
		printf("jlbtest: mount /proc: %s\n", strerror(errno));
		finish();
	}
	fd = open("/proc/cmdline", O_RDONLY);
	if (fd >= 0) {
		ssize_t r = read(fd, cmdline, sizeof(cmdline) - 1);

		cmdline[r > 0 ? r : 0] = '\0';
		close(fd);
	}
	n = param(cmdline, "jlbtest.loop", 1000000);
	m = param(cmdline, "jlbtest.syscalls", 0);
	r = param(cmdline, "jlbtest.regions", 0);
	if (n == 0) {
		printf("jlbtest: jlbtest.loop must be at least 1\n");
		finish();
	}
	printf("jlbtest: loop=%lu syscalls=%lu regions=%lu\n", n, m, r);
	fflush(stdout);
	if (m == 0)
		loop_window(n);
	else if (syscall_window(n, m) != 0)
		printf("jlbtest: syscall loop failed: %s\n", strerror(errno));
	if (r)
		regions(n);
	printf("jlbtest: done\n");
	finish();
	return 0;
}
