// SPDX-License-Identifier: GPL-2.0
/*
 * sys.c: PID-1 plumbing of the jlbench agent: console output, mounts, the
 * loopback interface, child processes with bounded waits, power-off.
 * Every system call is checked; failures come back as a one-line reason.
 */
#define _GNU_SOURCE
#include "agent.h"
#include "perturb.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/random.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/reboot.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SYSLOG_ACTION_CONSOLE_LEVEL 8

/*
 * The children's environment; its slot before the NULL holds the pad of
 * set_env_pad(), when there is one.
 */
static char *child_env[] = {
	"PATH=/usr/bin:/bin:/usr/sbin:/sbin", "HOME=/tmp", "LANG=C",
	"TERM=dumb", NULL, NULL,
};
#define ENV_PAD_SLOT 4
#define ENV_PAD_NAME "JLBENCH_PAD="

void set_env_pad(unsigned int bytes)
{
	static char pad[sizeof(ENV_PAD_NAME) + JLB_MAX_ENVPAD];

	if (bytes == 0 || bytes > JLB_MAX_ENVPAD) {
		child_env[ENV_PAD_SLOT] = NULL;
		return;
	}
	memcpy(pad, ENV_PAD_NAME, sizeof(ENV_PAD_NAME) - 1);
	memset(pad + sizeof(ENV_PAD_NAME) - 1, 'x', bytes);
	pad[sizeof(ENV_PAD_NAME) - 1 + bytes] = '\0';
	child_env[ENV_PAD_SLOT] = pad;
}

/* write_all: write the whole buffer, retrying on EINTR and short writes. */
void write_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;	/* nowhere left to report it */
		buf += n;
		len -= (size_t)n;
	}
}

/* say: one progress line "jlbench: ..." on the console. */
void say(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n = snprintf(line, sizeof(line), "jlbench: ");

	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	n = (int)strlen(line);
	line[n++] = '\n';
	write_all(1, line, (size_t)n);
}

/* sleep_ms: nanosleep that resumes after signals. */
static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

double uptime_s(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_BOOTTIME, &ts) < 0)
		return -1;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int read_file(const char *path, char *buf, size_t len, char *err)
{
	size_t got = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(err, JLB_ERR_LEN, "open %s: %s", path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (got + 1 >= len) {
			close(fd);
			snprintf(err, JLB_ERR_LEN, "%s is larger than %zu bytes",
				 path, len - 1);
			return -1;
		}
		n = read(fd, buf + got, len - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, JLB_ERR_LEN, "read %s: %s", path,
				 strerror(errno));
			close(fd);
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	if (close(fd) < 0) {
		snprintf(err, JLB_ERR_LEN, "close %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int mount_fs(const char *src, const char *dir, const char *type,
	     unsigned long flags, char *err)
{
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		snprintf(err, JLB_ERR_LEN, "mkdir %s: %s", dir, strerror(errno));
		return -1;
	}
	if (mount(src, dir, type, flags, NULL) < 0) {
		snprintf(err, JLB_ERR_LEN, "mount %s on %s: %s", type, dir,
			 strerror(errno));
		return -1;
	}
	return 0;
}

/* ensure_console: give fds 0-2 the console if the kernel could not. */
int ensure_console(char *err)
{
	int fd, i;

	if (fcntl(1, F_GETFD) >= 0)
		return 0;
	fd = open("/dev/console", O_RDWR | O_NOCTTY);
	if (fd < 0) {
		snprintf(err, JLB_ERR_LEN, "open /dev/console: %s",
			 strerror(errno));
		return -1;
	}
	for (i = 0; i < 3; i++)
		if (fd != i && dup2(fd, i) < 0) {
			snprintf(err, JLB_ERR_LEN, "dup2 console: %s",
				 strerror(errno));
			return -1;
		}
	if (fd > 2)
		close(fd);
	return 0;
}

/* loopback_up: set IFF_UP on lo; the kernel then adds 127.0.0.1/8. */
int loopback_up(char *err)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (s < 0) {
		snprintf(err, JLB_ERR_LEN, "socket: %s", strerror(errno));
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0) {
		snprintf(err, JLB_ERR_LEN, "SIOCGIFFLAGS lo: %s", strerror(errno));
		close(s);
		return -1;
	}
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0) {
		snprintf(err, JLB_ERR_LEN, "SIOCSIFFLAGS lo: %s", strerror(errno));
		close(s);
		return -1;
	}
	close(s);
	return 0;
}

/* spawn: fork and exec argv[0] in its own process group, stdin from
 * /dev/null, stdout and stderr to outfd.
 * An exec failure is reported here, through a close-on-exec pipe. */
pid_t spawn(char *const argv[], int outfd, char *err)
{
	int p[2], e = 0, nul;
	ssize_t n;
	pid_t pid;
	sigset_t none;

	if (pipe2(p, O_CLOEXEC) < 0) {
		snprintf(err, JLB_ERR_LEN, "pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(err, JLB_ERR_LEN, "fork for %s: %s", argv[0],
			 strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		sigemptyset(&none);
		if (signal(SIGALRM, SIG_DFL) == SIG_ERR ||
		    sigprocmask(SIG_SETMASK, &none, NULL) < 0 ||
		    setpgid(0, 0) < 0)
			goto child_fail;
		nul = open("/dev/null", O_RDONLY);
		if (nul < 0 || dup2(nul, 0) < 0)
			goto child_fail;
		if (dup2(outfd, 1) < 0 || dup2(outfd, 2) < 0)
			goto child_fail;
		execve(argv[0], argv, child_env);
child_fail:
		e = errno;
		write_all(p[1], (const char *)&e, sizeof(e));
		_exit(127);
	}
	close(p[1]);
	do
		n = read(p[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(p[0]);
	if (n != 0) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		snprintf(err, JLB_ERR_LEN, "cannot run %s: %s", argv[0],
			 n == sizeof(e) ? strerror(e) : "exec status lost");
		return -1;
	}
	return pid;
}

void describe_status(int status, const char *what, char *err)
{
	if (WIFEXITED(status))
		snprintf(err, JLB_ERR_LEN, "%s exited with status %d", what,
			 WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(err, JLB_ERR_LEN, "%s was killed by signal %d (%s)",
			 what, WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		snprintf(err, JLB_ERR_LEN, "%s stopped (status 0x%x)", what,
			 status);
}

/*
 * wait_exit: reap pid within timeout_s. It blocks on the process's pidfd,
 * so that the agent does nothing while a workload runs (no wake-ups inside
 * the window); without pidfds (before Linux 5.3) it looks every 10 ms.
 */
int wait_exit(pid_t pid, double timeout_s, int *status, char *err)
{
	double left, end = uptime_s() + timeout_s;
	struct pollfd pfd = { .events = POLLIN };
	pid_t r;

	pfd.fd = (int)syscall(SYS_pidfd_open, pid, 0);
	for (;;) {
		r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			snprintf(err, JLB_ERR_LEN, "waitpid %d: %s", (int)pid,
				 strerror(errno));
			break;
		}
		left = end - uptime_s();
		if (left < 0) {
			snprintf(err, JLB_ERR_LEN, "pid %d did not exit within "
				 "%.0f s", (int)pid, timeout_s);
			r = -1;
			break;
		}
		if (pfd.fd >= 0)
			poll(&pfd, 1, (int)(left * 1000) + 1);
		else
			sleep_ms(10);
	}
	if (pfd.fd >= 0)
		close(pfd.fd);
	return r == pid ? 0 : -1;
}

/*
 * seed_rng: credit the kernel's RNG with the 256 bits jlb_rng_seed()
 * derives from seed, so that its crng is ready, and check that it is. A
 * guest without an entropy source (no RDRAND under TCG, no virtio-rng,
 * few interrupts under icount) otherwise never initialises it, and every
 * get_random_u32() extracts from the input pool with BLAKE2s.
 */
int seed_rng(uint32_t seed, char *err)
{
	struct {
		struct rand_pool_info info;
		unsigned char bytes[JLB_RNG_SEED_LEN];
	} s;
	char probe;
	int fd, r;

	s.info.entropy_count = JLB_RNG_SEED_LEN * 8;
	s.info.buf_size = JLB_RNG_SEED_LEN;
	jlb_rng_seed(seed, s.bytes);
	fd = open("/dev/urandom", O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, JLB_ERR_LEN, "open /dev/urandom: %s",
			 strerror(errno));
		return -1;
	}
	r = ioctl(fd, RNDADDENTROPY, &s);
	if (r < 0)
		snprintf(err, JLB_ERR_LEN, "RNDADDENTROPY: %s", strerror(errno));
	close(fd);
	if (r < 0)
		return -1;
	if (getrandom(&probe, 1, GRND_NONBLOCK) != 1) {
		snprintf(err, JLB_ERR_LEN, "the kernel's RNG is not ready after "
			 "%d bits were credited: %s", JLB_RNG_SEED_LEN * 8,
			 strerror(errno));
		return -1;
	}
	return 0;
}

int wait_port(unsigned short port, double timeout_s, pid_t watch, char *err)
{
	struct sockaddr_in a;
	double end = uptime_s() + timeout_s;
	int s, status, r;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons(port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (;;) {
		s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (s < 0) {
			snprintf(err, JLB_ERR_LEN, "socket: %s", strerror(errno));
			return -1;
		}
		r = connect(s, (struct sockaddr *)&a, sizeof(a));
		close(s);
		if (r == 0)
			return 0;
		if (errno != ECONNREFUSED && errno != EINTR) {
			snprintf(err, JLB_ERR_LEN, "connect 127.0.0.1:%u: %s",
				 port, strerror(errno));
			return -1;
		}
		if (waitpid(watch, &status, WNOHANG) == watch) {
			describe_status(status, "tbench_srv", err);
			return -1;
		}
		if (uptime_s() > end) {
			snprintf(err, JLB_ERR_LEN, "port %u did not accept within "
				 "%.0f s", port, timeout_s);
			return -1;
		}
		sleep_ms(20);
	}
}

/* stop_child: SIGTERM, then SIGKILL, to a child's process group; reap it. */
void stop_child(pid_t pid, const char *what)
{
	char err[JLB_ERR_LEN];
	int status;

	if (kill(-pid, SIGTERM) < 0 && errno != ESRCH)
		say("kill %s: %s", what, strerror(errno));
	if (wait_exit(pid, 5, &status, err) == 0)
		return;
	say("%s ignored SIGTERM: %s; sending SIGKILL", what, err);
	if (kill(-pid, SIGKILL) < 0 && errno != ESRCH)
		say("kill %s: %s", what, strerror(errno));
	if (wait_exit(pid, 5, &status, err) < 0)
		say("%s: %s", what, err);
}

/* console_quiet: keep kernel messages off the console while the result
 * block is printed, so no printk splits a line of it. */
void console_quiet(void)
{
	if (klogctl(SYSLOG_ACTION_CONSOLE_LEVEL, NULL, 1) < 0)
		say("cannot lower the console log level: %s", strerror(errno));
}

/* power_off: end the boot; async-signal-safe (the watchdog calls it).
 * With ACPI the kernel can power off; without it a power-off request only
 * halts, so reboot instead (QEMU runs with -no-reboot and exits). */
void power_off(void)
{
	static const char m1[] = "jlbench: reboot(RB_POWER_OFF) failed\n";
	static const char m2[] = "jlbench: reboot(RB_AUTOBOOT) failed; "
				 "exiting PID 1 to panic\n";

	sync();
	if (access("/sys/firmware/acpi", F_OK) == 0) {
		reboot(RB_POWER_OFF);
		write_all(1, m1, sizeof(m1) - 1);
	}
	reboot(RB_AUTOBOOT);
	write_all(1, m2, sizeof(m2) - 1);
	_exit(1);	/* kernels run with panic=-1: the panic reboots */
}
