/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The static branch interface of Linux 2.6.39 (commit d430d3d7e646, "jump
 * label: Introduce static_branch() interface") on top of the static key API
 * of Linux 6.1:
 *
 *	2011				6.1
 *	struct jump_label_key		struct static_key_false (wrapped)
 *	JUMP_LABEL_INIT			STATIC_KEY_FALSE_INIT
 *	static_branch(&key)		static_branch_unlikely()
 *	jump_label_inc(&key)		static_branch_inc()
 *	jump_label_dec(&key)		static_branch_dec()
 *	jump_label_enabled(&key)	static_key_enabled()
 *
 * A 2011 key always started disabled and its check was laid out for the
 * disabled case: a NOP that becomes a JMP to the out-of-line block while the
 * count is above zero, or, without jump labels, a test of the count. A
 * default-false key tested with static_branch_unlikely() is exactly that.
 * The key is wrapped in a struct of its own so that the 2011 names take
 * only 2011 keys, as they did.
 */
#ifndef _JUMP_LABEL_2011_H
#define _JUMP_LABEL_2011_H

#include <linux/jump_label.h>

struct jump_label_key {
	struct static_key_false key;
};

#define JUMP_LABEL_INIT { .key = STATIC_KEY_FALSE_INIT }

/* true while the key's count is above zero; a NOP when jump labels are on */
static __always_inline bool static_branch(struct jump_label_key *key)
{
	return static_branch_unlikely(&key->key);
}

static inline void jump_label_inc(struct jump_label_key *key)
{
	static_branch_inc(&key->key);
}

static inline void jump_label_dec(struct jump_label_key *key)
{
	static_branch_dec(&key->key);
}

/*
 * 6.1 keeps the 2011 name as a macro for static_key_enabled(), which takes
 * 6.1 keys only; replace it with the 2011 signature.
 */
#undef jump_label_enabled
static inline bool jump_label_enabled(struct jump_label_key *key)
{
	return static_key_enabled(&key->key);
}

/* The key's count, for checks; not part of the 2011 interface. */
static inline int jump_label_key_count(struct jump_label_key *key)
{
	return static_key_count(&key->key.key);
}

#endif /* _JUMP_LABEL_2011_H */
