/* SPDX-License-Identifier: GPL-2.0 */
/*
 * agent.h: what the PID-1 parts of the agent share (sys.c, block.c,
 * selftest.c, agent.c). The parsers live apart (parse.h lists them).
 */
#ifndef JLB_AGENT_H
#define JLB_AGENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cmdline.h"

/*
 * The version of the guest protocol (PROTOCOL.md): protocol=JLB_PROTOCOL
 * opens every result block. The host's copy is lib/format/console.py's
 * PROTOCOL, which refuses a block of another version;
 * tests/test_agent_unit.py fails when the two differ.
 */
#define JLB_PROTOCOL "1"

/* sys.c: console output and system plumbing. Functions that can fail
 * return 0 or -1 with a one-line reason in err (JLB_ERR_LEN bytes). */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void write_all(int fd, const char *buf, size_t len);
double uptime_s(void);
int read_file(const char *path, char *buf, size_t len, char *err);
int mount_fs(const char *src, const char *dir, const char *type,
	     unsigned long flags, char *err);
int ensure_console(char *err);
int loopback_up(char *err);
pid_t spawn(char *const argv[], int outfd, char *err);
/*
 * Give spawn()'s children JLBENCH_PAD=<bytes x's> (jlbench.envpad; 0:
 * none), so that their stacks start lower, as a larger environment would.
 */
void set_env_pad(unsigned int bytes);
int wait_port(unsigned short port, double timeout_s, pid_t watch, char *err);
int wait_exit(pid_t pid, double timeout_s, int *status, char *err);
void describe_status(int status, const char *what, char *err);
int seed_rng(uint32_t seed, char *err);
void stop_child(pid_t pid, const char *what);
void console_quiet(void);
void power_off(void) __attribute__((noreturn));

/* block.c: the result block and the watchdog. */
void kv(const char *key, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void kv_header(const char *key, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void watchdog_arm(unsigned int seconds);
void finish(const char *reason) __attribute__((noreturn));
void fail_now(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

/* selftest.c */
void run_selftest(const struct jlb_params *p);

#endif
