// SPDX-License-Identifier: GPL-2.0
/*
 * agent.c: PID 1 of a jlbench guest (guest-image/PROTOCOL.md).
 *
 * Steps, in this order:
 *   1. mount devtmpfs on /dev, make sure fds 0-2 are the console
 *   2. arm the watchdog; mount proc, sysfs, tmpfs on /tmp
 *   3. read /proc/cmdline and parse the jlbench.* parameters
 *   4. seed the kernel's RNG from the run's seed; bring up lo
 *   5. run the mode: tbench (tbench_srv, wait for port 7003, optional
 *      perturbation spin, tbench under perf stat, parse), pipe (optional
 *      perturbation spin, perf bench sched pipe under perf stat, parse),
 *      run (optional perturbation spin, the host's command under perf
 *      stat, its exit status), selftest, shell; a workload's output is
 *      echoed and parsed after its window has closed
 *   6. print the result block, power off
 * Any failure prints status=error with a reason and powers off.
 */
#define _GNU_SOURCE
#include "agent.h"
#include "cpustat.h"
#include "markers.h"
#include "perf.h"
#include "perturb.h"
#include "pipe.h"
#include "tbench.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#define TBENCH_PORT 7003
#define PORT_WAIT_S 30
#define EXIT_WAIT_S 30
#define PERF_OUT "/tmp/perf.csv"
/* What the workload prints, on tmpfs until its window has closed. */
#define WORKLOAD_OUT "/tmp/workload.out"
#define SRV_LOG "/tmp/tbench_srv.log"
/* Watchdog slack beyond tbench's own deadline: port wait, exit waits,
 * stopping tbench_srv, printing the block. */
#define WATCHDOG_SLACK_S (PORT_WAIT_S + EXIT_WAIT_S + 30)
/* pipe mode allows perf bench this long per 1000 round trips beyond
 * jlbench.timeout (a round trip takes tens of us of guest time). */
#define PIPE_S_PER_KLOOP 1

static struct jlb_tbench tb;
static struct jlb_pipe pb;
/* run mode: the workload's name, for its echoed output lines. */
static const char *run_name;

/* read_cpustat: the cpu line of /proc/stat. */
static void read_cpustat(struct jlb_cpustat *s)
{
	static char buf[65536];
	char err[JLB_ERR_LEN];

	if (read_file("/proc/stat", buf, sizeof(buf), err) < 0 ||
	    jlb_parse_stat(buf, s, err, sizeof(err)) < 0)
		fail_now("%s", err);
}

/* srv_log_tail: "; log: <last line of tbench_srv's output>" or "". */
static const char *srv_log_tail(void)
{
	static char buf[4096], out[160];
	char err[JLB_ERR_LEN], *last;
	size_t n;

	if (read_file(SRV_LOG, buf, sizeof(buf), err) < 0)
		return "";
	n = strlen(buf);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '^'))
		buf[--n] = '\0';
	last = strrchr(buf, '\n');
	last = last ? last + 1 : buf;
	if (!*last)
		return "";
	snprintf(out, sizeof(out), "; its output ends: %.120s", last);
	return out;
}

/* tbench_line: echo one output line and feed it to the parser. */
static int tbench_line(char *line, char *err)
{
	size_t n = strlen(line);
	int kind;

	while (n > 0 && line[n - 1] == '\r')
		line[--n] = '\0';
	say("tbench: %s", line);
	kind = jlb_tbench_line(&tb, line, err, JLB_ERR_LEN);
	if (kind < 0)
		return -1;
	if (kind == JLB_TB_FAILED) {
		snprintf(err, JLB_ERR_LEN, "tbench: %.200s", line);
		return -1;
	}
	return 0;
}

/* pipe_line: echo one line of perf bench and feed it to the parser. */
static int pipe_line(char *line, char *err)
{
	size_t n = strlen(line);

	while (n > 0 && line[n - 1] == '\r')
		line[--n] = '\0';
	say("pipe: %s", line);
	return jlb_pipe_line(&pb, line, err, JLB_ERR_LEN) < 0 ? -1 : 0;
}

/* run_line: echo one line of a run-mode workload; the host checks it. */
static int run_line(char *line, char *err)
{
	size_t n = strlen(line);

	(void)err;
	while (n > 0 && line[n - 1] == '\r')
		line[--n] = '\0';
	say("%s: %s", run_name, line);
	return 0;
}

/* A workload's output handler: one line, without its newline. */
typedef int (*line_fn)(char *line, char *err);

/*
 * replay: feed each line of the output file a workload wrote to fn, once
 * the window has closed, so that nothing the harness prints reaches the
 * console while the workload runs.
 */
static int replay(const char *path, line_fn fn, char *err)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int r = 0;

	if (!f) {
		snprintf(err, JLB_ERR_LEN, "open %s: %s", path, strerror(errno));
		return -1;
	}
	while (r == 0 && (n = getline(&line, &cap, f)) >= 0) {
		if (n > 0 && line[n - 1] == '\n')
			line[n - 1] = '\0';
		r = fn(line, err);
	}
	free(line);
	fclose(f);
	return r;
}

/* join: a comma list of n figures. */
static const char *join(char (*v)[JLB_NUM_LEN], unsigned int n)
{
	static char out[JLB_MAX_SAMPLES * JLB_NUM_LEN];
	size_t len = 0, l;
	unsigned int i;

	out[0] = '\0';
	for (i = 0; i < n; i++) {
		l = strlen(v[i]);
		if (i)
			out[len++] = ',';
		memcpy(out + len, v[i], l + 1);
		len += l;
	}
	return out;
}

/* report_perf: perf.<event> figures from perf stat's output file. */
static void report_perf(const struct jlb_params *p)
{
	static char text[65536];
	struct jlb_perf_value v[JLB_MAX_EVENTS];
	char err[JLB_ERR_LEN], key[JLB_EVENT_LEN + 8];
	unsigned int i;

	if (read_file(PERF_OUT, text, sizeof(text), err) < 0 ||
	    jlb_parse_perf(text, p, v, err, sizeof(err)) < 0)
		fail_now("%s", err);
	for (i = 0; i < p->nevents; i++) {
		memcpy(key, "perf.", 5);
		jlb_event_key(p->events[i], key + 5, sizeof(key) - 5);
		kv(key, "%s", v[i].value);
	}
}

/* The measured frame of a workload (PROTOCOL.md, "Window markers"). */
struct frame {
	double t0, t1;			/* uptime at its start and end */
	struct jlb_cpustat s0, s1;	/* /proc/stat at its start and end */
	int status;			/* the workload's wait status */
};

/*
 * measure: the perturbation spin, then argv between the window markers,
 * its output into WORKLOAD_OUT and fed to fn once the window has closed;
 * at most limit s. what names the workload in reasons, running says what
 * runs. Inside the window the agent only waits. Any failure ends the run.
 */
static void measure(const struct jlb_params *p, char *const argv[],
		    const char *what, const char *running, unsigned int limit,
		    line_fn fn, struct frame *f)
{
	char err[JLB_ERR_LEN], ignored[JLB_ERR_LEN];
	int out, waited;
	pid_t pid;

	/* The seeded spin of jlbench.perturb (perturb.h). */
	say("perturb: seed %u, %llu spin loops", (unsigned int)p->perturb,
	    (unsigned long long)jlb_perturb_spin(p->perturb));
	out = open(WORKLOAD_OUT, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		   0644);
	if (out < 0)
		fail_now("open " WORKLOAD_OUT ": %m");
	read_cpustat(&f->s0);
	f->t0 = uptime_s();
	say("running %s", running);
	jlb_marker_start();
	pid = spawn(argv, out, err);
	if (pid < 0) {
		jlb_marker_end();
		fail_now("%s", err);
	}
	waited = wait_exit(pid, limit, &f->status, err);
	jlb_marker_end();
	f->t1 = uptime_s();
	if (close(out) < 0)
		fail_now("close " WORKLOAD_OUT ": %m");
	if (waited < 0) {
		if (kill(-pid, SIGKILL) < 0 && errno != ESRCH)
			say("kill %s: %s", what, strerror(errno));
		replay(WORKLOAD_OUT, fn, ignored);
		fail_now("%s did not finish within %u s (%s)", what, limit,
			 err);
	}
	read_cpustat(&f->s1);
	if (replay(WORKLOAD_OUT, fn, err) < 0)
		fail_now("%s", err);
}

/* report_stat: the stat.<field>_ticks deltas across the frame. */
static void report_stat(const struct frame *f)
{
	struct jlb_cpustat d;
	char err[JLB_ERR_LEN];
	int i;

	if (jlb_stat_delta(&f->s0, &f->s1, &d, err, sizeof(err)) < 0)
		fail_now("%s", err);
	for (i = 0; i < JLB_STAT_FIELDS; i++) {
		char key[32];

		snprintf(key, sizeof(key), "stat.%s_ticks", jlb_stat_names[i]);
		kv(key, "%llu", d.v[i]);
	}
}

/* env_pad: jlbench.envpad for the workload's processes. */
static void env_pad(const struct jlb_params *p, const char *whom)
{
	if (p->envpad) {
		set_env_pad(p->envpad);
		say("envpad: %u bytes in the environment of %s", p->envpad,
		    whom);
	}
}

static void run_tbench(const struct jlb_params *p)
{
	char err[JLB_ERR_LEN], secs[16], clients[16], events[sizeof(p->perf)];
	char running[sizeof(events) + 96];
	char *srv_argv[] = { "/usr/bin/tbench_srv", NULL };
	char *tb_argv[] = { "/usr/bin/tbench", "-t", secs, clients,
			    "127.0.0.1", NULL };
	char *perf_argv[] = { "/usr/bin/perf", "stat", "-a", "-x,", "-o",
			      PERF_OUT, "-e", events, "--", "/usr/bin/tbench",
			      "-t", secs, clients, "127.0.0.1", NULL };
	struct frame f;
	int log;
	pid_t srv;

	snprintf(secs, sizeof(secs), "%u", p->seconds);
	snprintf(clients, sizeof(clients), "%u", p->clients);
	strcpy(events, p->perf);

	env_pad(p, "tbench and perf");
	/* tbench_srv prints a '^' per connection: keep it off the console. */
	log = open(SRV_LOG, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (log < 0)
		fail_now("open " SRV_LOG ": %m");
	srv = spawn(srv_argv, log, err);
	if (srv < 0)
		fail_now("%s", err);
	if (close(log) < 0)
		fail_now("close " SRV_LOG ": %m");
	if (wait_port(TBENCH_PORT, PORT_WAIT_S, srv, err) < 0)
		fail_now("tbench_srv: %s%s", err, srv_log_tail());
	say("tbench_srv (pid %d) accepts on port %d", (int)srv, TBENCH_PORT);

	snprintf(running, sizeof(running), "tbench -t %s %s 127.0.0.1%s%s",
		 secs, clients, p->nevents ? " under perf stat -e " : "",
		 p->nevents ? events : "");
	measure(p, p->nevents ? perf_argv : tb_argv, "tbench", running,
		p->seconds + p->timeout, tbench_line, &f);
	stop_child(srv, "tbench_srv");

	if (f.status != 0) {
		describe_status(f.status, p->nevents ? "perf stat (tbench)" :
				"tbench", err);
		fail_now("%s", err);
	}
	if (jlb_tbench_finish(&tb, p->clients, err, sizeof(err)) < 0)
		fail_now("%s", err);

	kv("uptime_tbench_start_s", "%.3f", f.t0);
	kv("uptime_tbench_end_s", "%.3f", f.t1);
	kv("throughput_mbps", "%s", tb.throughput);
	kv("max_latency_ms", "%s", tb.max_latency);
	kv("ops", "%llu", tb.ops);
	kv("procs", "%u", tb.procs);
	kv("samples_mbps", "%s", join(tb.samples, tb.nsamples));
	kv("warmup_samples_mbps", "%s", join(tb.warmup, tb.nwarmup));
	report_stat(&f);
	if (p->nevents)
		report_perf(p);
}

/* pipe_limit: the seconds pipe mode allows perf bench. */
static unsigned int pipe_limit(const struct jlb_params *p)
{
	return p->loops / 1000 * PIPE_S_PER_KLOOP + 1 + p->timeout;
}

/* run_pipe: perf bench sched pipe -l <loops>, the workload of the perf
 * stat table in the kernel's Documentation/staging/static-keys.rst. */
static void run_pipe(const struct jlb_params *p)
{
	char err[JLB_ERR_LEN], loops[16], events[sizeof(p->perf)];
	char running[sizeof(events) + 96];
	char *bench_argv[] = { "/usr/bin/perf", "bench", "sched", "pipe",
			       "-l", loops, NULL };
	char *perf_argv[] = { "/usr/bin/perf", "stat", "-a", "-x,", "-o",
			      PERF_OUT, "-e", events, "--", "/usr/bin/perf",
			      "bench", "sched", "pipe", "-l", loops, NULL };
	struct frame f;

	snprintf(loops, sizeof(loops), "%u", p->loops);
	strcpy(events, p->perf);
	env_pad(p, "perf");
	jlb_pipe_init(&pb);
	snprintf(running, sizeof(running), "perf bench sched pipe -l %s%s%s",
		 loops, p->nevents ? " under perf stat -e " : "",
		 p->nevents ? events : "");
	measure(p, p->nevents ? perf_argv : bench_argv, "perf bench", running,
		pipe_limit(p), pipe_line, &f);
	if (f.status != 0) {
		describe_status(f.status, p->nevents ?
				"perf stat (perf bench sched pipe)" :
				"perf bench sched pipe", err);
		fail_now("%s", err);
	}
	if (jlb_pipe_finish(&pb, p->loops, err, sizeof(err)) < 0)
		fail_now("%s", err);

	kv("uptime_pipe_start_s", "%.3f", f.t0);
	kv("uptime_pipe_end_s", "%.3f", f.t1);
	kv("ops", "%llu", pb.loops);
	kv("pipe_tasks", "%s", pb.tasks);
	kv("pipe_total_s", "%s", pb.total);
	kv("pipe_usecs_per_op", "%s", pb.usecs);
	kv("pipe_ops_per_s", "%s", pb.rate);
	report_stat(&f);
	if (p->nevents)
		report_perf(p);
}

/* run_command: mode run, the host's command for workload p->workload
 * (lib/workloads.py): a fixed amount of work, done when it exits 0. */
static void run_command(const struct jlb_params *p)
{
	char err[JLB_ERR_LEN], events[sizeof(p->perf)];
	char running[sizeof(events) + JLB_CMD_LEN + 64];
	char *perf_argv[JLB_MAX_ARGS + 10] = { "/usr/bin/perf", "stat", "-a",
					       "-x,", "-o", PERF_OUT, "-e",
					       events, "--" };
	size_t len = 0;
	unsigned int i;
	struct frame f;

	strcpy(events, p->perf);
	for (i = 0; i < p->nargs; i++) {
		perf_argv[9 + i] = p->argv[i];
		len += (size_t)snprintf(running + len, sizeof(running) - len,
					"%s%s", i ? " " : "", p->argv[i]);
	}
	if (p->nevents)
		snprintf(running + len, sizeof(running) - len,
			 " under perf stat -e %s", events);
	run_name = p->workload;
	env_pad(p, p->workload);
	measure(p, p->nevents ? perf_argv : p->argv, p->workload, running,
		p->timeout, run_line, &f);
	if (f.status != 0) {
		describe_status(f.status, p->argv[0], err);
		fail_now("%s", err);
	}
	kv("uptime_run_start_s", "%.3f", f.t0);
	kv("uptime_run_end_s", "%.3f", f.t1);
	kv("workload_s", "%.6f", f.t1 - f.t0);
	kv("ops", "%llu", p->ops);
	report_stat(&f);
	if (p->nevents)
		report_perf(p);
}

static void run_shell(void)
{
	char *argv[] = { "/bin/sh", NULL };
	char *envp[] = { "PATH=/usr/bin:/bin:/usr/sbin:/sbin", "HOME=/tmp",
			 "TERM=vt100", NULL };

	if (access("/bin/sh", X_OK) < 0)
		fail_now("jlbench.mode=shell: no /bin/sh in this image");
	say("mode shell: exec /bin/sh");
	alarm(0);
	execve(argv[0], argv, envp);
	fail_now("exec /bin/sh: %m");
}

int main(void)
{
	static char cmdline[4096], version[1024];
	struct jlb_params p;
	struct utsname u;
	char err[JLB_ERR_LEN];
	double start = uptime_s();
	size_t n;

	if (getpid() != 1) {
		fprintf(stderr, "jlbench agent: refusing to run: it must be "
			"PID 1 of a jlbench guest (it mounts and powers off)\n");
		return 2;
	}
	umask(022);
	if (mount_fs("devtmpfs", "/dev", "devtmpfs", 0, err) < 0 ||
	    ensure_console(err) < 0)
		fail_now("%s", err);
	say("agent started at %.3f s (protocol " JLB_PROTOCOL ")", start);
	if (uname(&u) < 0)
		fail_now("uname: %m");
	kv_header("kernel", "%s", u.release);
	watchdog_arm(60);
	if (mount_fs("proc", "/proc", "proc", 0, err) < 0 ||
	    mount_fs("sysfs", "/sys", "sysfs", 0, err) < 0 ||
	    mount_fs("tmpfs", "/tmp", "tmpfs", 0, err) < 0)
		fail_now("%s", err);
	if (read_file("/proc/version", version, sizeof(version), err) < 0 ||
	    read_file("/proc/cmdline", cmdline, sizeof(cmdline), err) < 0)
		fail_now("%s", err);
	n = strlen(version);
	if (n && version[n - 1] == '\n')
		version[n - 1] = '\0';
	n = strlen(cmdline);
	if (n && cmdline[n - 1] == '\n')
		cmdline[n - 1] = '\0';
	kv_header("proc_version", "%s", version);
	kv_header("cmdline", "%s", cmdline);
	kv_header("uptime_agent_start_s", "%.3f", start);
	watchdog_arm(60);

	if (jlb_parse_cmdline(cmdline, &p, err, sizeof(err)) < 0)
		fail_now("bad kernel command line: %s", err);
	kv_header("mode", "%s", p.mode);
	kv_header("variant", "%s", p.variant);
	if (strcmp(p.mode, "tbench") == 0) {
		kv_header("clients", "%u", p.clients);
		kv_header("seconds", "%u", p.seconds);
		kv_header("perturb", "%u", (unsigned int)p.perturb);
		kv_header("perf", "%s", p.perf);
		kv_header("timeout", "%u", p.timeout);
		watchdog_arm(p.seconds + p.timeout + WATCHDOG_SLACK_S);
	} else if (strcmp(p.mode, "pipe") == 0) {
		kv_header("loops", "%u", p.loops);
		kv_header("perturb", "%u", (unsigned int)p.perturb);
		kv_header("perf", "%s", p.perf);
		kv_header("timeout", "%u", p.timeout);
		watchdog_arm(pipe_limit(&p) + WATCHDOG_SLACK_S);
	} else if (strcmp(p.mode, "run") == 0) {
		kv_header("workload", "%s", p.workload);
		kv_header("ops", "%llu", p.ops);
		kv_header("perturb", "%u", (unsigned int)p.perturb);
		kv_header("perf", "%s", p.perf);
		kv_header("timeout", "%u", p.timeout);
		watchdog_arm(p.timeout + WATCHDOG_SLACK_S);
	} else {
		watchdog_arm(300);
	}
	if (seed_rng(p.perturb, err) < 0)
		fail_now("seeding the kernel's RNG: %s", err);
	say("rng: the kernel's crng is ready: %d bits credited from seed %u",
	    JLB_RNG_SEED_LEN * 8, (unsigned int)p.perturb);
	if (loopback_up(err) < 0)
		fail_now("%s", err);

	if (strcmp(p.mode, "tbench") == 0)
		run_tbench(&p);
	else if (strcmp(p.mode, "pipe") == 0)
		run_pipe(&p);
	else if (strcmp(p.mode, "run") == 0)
		run_command(&p);
	else if (strcmp(p.mode, "selftest") == 0)
		run_selftest(&p);
	else
		run_shell();
	finish(NULL);
}
