// SPDX-License-Identifier: GPL-2.0
/*
 * block.c: the JLBENCH result block (PROTOCOL.md) and the agent watchdog.
 *
 * Keys go into two lists: the header (keys present on every outcome: mode,
 * variant, kernel, ...) and the results (figures, printed only when the
 * run succeeded). finish() prints the block once and powers off. The
 * watchdog is SIGALRM with a handler that writes a prepared error block,
 * so a hang anywhere still ends in status=error and a power-off.
 */
#define _GNU_SOURCE
#include "agent.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define HEADER_LEN 16384
#define RESULTS_LEN 262144

static char header[HEADER_LEN];
static size_t header_len;
static char results[RESULTS_LEN];
static size_t results_len;
static char wd_block[HEADER_LEN + 512];
static size_t wd_len;
static volatile sig_atomic_t block_started;

/* append: "key=value\n" into buf; values lose any CR/LF. Over-long
 * blocks are an agent bug: report it instead of truncating silently. */
static void append(char *buf, size_t cap, size_t *len, const char *key,
		   const char *fmt, va_list ap)
{
	char value[RESULTS_LEN / 2];
	size_t kl = strlen(key), vl, i;

	vsnprintf(value, sizeof(value), fmt, ap);
	vl = strlen(value);
	for (i = 0; i < vl; i++)
		if (value[i] == '\n' || value[i] == '\r')
			value[i] = ' ';
	if (*len + kl + vl + 2 >= cap)
		fail_now("internal: result block overflow at key %s", key);
	memcpy(buf + *len, key, kl);
	buf[*len + kl] = '=';
	memcpy(buf + *len + kl + 1, value, vl);
	buf[*len + kl + 1 + vl] = '\n';
	*len += kl + vl + 2;
}

void kv(const char *key, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	append(results, sizeof(results), &results_len, key, fmt, ap);
	va_end(ap);
}

void kv_header(const char *key, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	append(header, sizeof(header), &header_len, key, fmt, ap);
	va_end(ap);
}

/* on_alarm: the watchdog fired; print the prepared block, power off. */
static void on_alarm(int sig)
{
	(void)sig;
	if (!block_started) {
		block_started = 1;
		write_all(1, wd_block, wd_len);
	}
	power_off();
}

void watchdog_arm(unsigned int seconds)
{
	struct sigaction sa;
	sigset_t set, old;
	int n;

	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	if (sigprocmask(SIG_BLOCK, &set, &old) < 0)
		fail_now("sigprocmask: %m");
	n = snprintf(wd_block, sizeof(wd_block),
		     "\nJLBENCH-BEGIN\nprotocol=" JLB_PROTOCOL "\nstatus=error\n"
		     "reason=agent watchdog: no result within %u s\n%.*s"
		     "JLBENCH-END\n", seconds, (int)header_len, header);
	wd_len = n > 0 && (size_t)n < sizeof(wd_block) ? (size_t)n : 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigfillset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) < 0)
		fail_now("sigaction SIGALRM: %m");
	alarm(seconds);
	if (sigprocmask(SIG_SETMASK, &old, NULL) < 0)
		fail_now("sigprocmask: %m");
}

void finish(const char *reason)
{
	static const char begin[] =
		"JLBENCH-BEGIN\nprotocol=" JLB_PROTOCOL "\n";
	static const char end[] = "JLBENCH-END\n";
	char line[JLB_ERR_LEN + 64];
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	sigprocmask(SIG_BLOCK, &set, NULL);	/* no watchdog block now */
	if (!block_started) {
		block_started = 1;
		console_quiet();
		write_all(1, "\n", 1);
		write_all(1, begin, sizeof(begin) - 1);
		if (reason)
			snprintf(line, sizeof(line), "status=error\nreason=%s\n",
				 reason);
		else
			snprintf(line, sizeof(line), "status=ok\n");
		write_all(1, line, strlen(line));
		write_all(1, header, header_len);
		if (!reason)
			write_all(1, results, results_len);
		write_all(1, end, sizeof(end) - 1);
	}
	sigprocmask(SIG_UNBLOCK, &set, NULL);	/* watchdog stays armed */
	power_off();
}

void fail_now(const char *fmt, ...)
{
	char reason[JLB_ERR_LEN];
	va_list ap;
	size_t i;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	for (i = 0; reason[i]; i++)
		if (reason[i] == '\n' || reason[i] == '\r')
			reason[i] = ' ';
	say("error: %s", reason);
	finish(reason);
}
