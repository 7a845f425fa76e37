// SPDX-License-Identifier: GPL-2.0
/*
 * test_kmsg.c: tests of kmsg.c (/dev/kmsg records, figure lines).
 */
#include "test_parse.h"
#include "kmsg.h"

#include <string.h>

void test_kmsg(void)
{
	static const char rec[] = "6,339,5140900,-;NET: Registered\n"
				  " SUBSYSTEM=net\n";
	char key[32], value[32];
	struct jlb_kmsg k;
	const char *pre = "test_static_keys: ";

	CHECK(jlb_parse_kmsg(rec, sizeof(rec) - 1, &k) == 0);
	CHECK(k.level == 6 && k.seq == 339);
	CHECK(k.textlen == 15 && memcmp(k.text, "NET: Registered", 15) == 0);
	CHECK(jlb_parse_kmsg("11,2,3,c;x", 10, &k) == 0 && k.level == 3);
	CHECK(jlb_parse_kmsg("abc", 3, &k) < 0);
	CHECK(jlb_parse_kmsg("6;x", 3, &k) < 0);
	CHECK(jlb_parse_kmsg("x,1,2,-;t", 9, &k) < 0);
	CHECK(jlb_parse_kmsg("6,,2,-;t", 8, &k) < 0);

	CHECK(jlb_figure("test_static_keys: loop-ns=12", 28, pre, key,
			 sizeof(key), value, sizeof(value)) == 1);
	CHECK_STR(key, "loop_ns");
	CHECK_STR(value, "12");
	CHECK(jlb_figure("test_static_keys: hello", 23, pre, key, sizeof(key),
			 value, sizeof(value)) == 0);
	CHECK(jlb_figure("other: a=b", 10, pre, key, sizeof(key), value,
			 sizeof(value)) == 0);
	CHECK(jlb_figure("test_static_keys: =b", 20, pre, key, sizeof(key),
			 value, sizeof(value)) == 0);
	CHECK(jlb_figure("test_static_keys: a b=c", 23, pre, key, sizeof(key),
			 value, sizeof(value)) == 0);
	CHECK(jlb_figure("test_static_keys: a=", 20, pre, key, sizeof(key),
			 value, sizeof(value)) == 0);
}
