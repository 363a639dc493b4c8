// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: SMB Direct fragmentation and reassembly (smbdirect/frag.c),
 * MS-SMBD 3.1.5.4 and 3.1.5.8: fragment counts and fields at every size
 * boundary, the MaxFragmentedSendSize limit, empty messages, reassembly
 * consistency rules, fragment + encode + decode + reassemble round trips
 * over many sizes with real payload bytes, a randomized reassembler fuzz,
 * and the safe max fragmented receive size.
 *
 * Pure: no device, no sleeping.
 */

#include <kunit/test.h>
#include <smbdirect/ns.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include <smbdirect/pdu.h>
#include "frag.h"

MODULE_IMPORT_NS(SMBDX_NS_NAME(EXPORTED_FOR_KUNIT_TESTING));

KUNIT_DEFINE_ACTION_WRAPPER(frag_vfree, vfree, const void *);

static void *test_vmalloc(struct kunit *test, size_t size)
{
	void *p = vmalloc(size);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, frag_vfree, p));
	return p;
}

/* ---- fragmenter ------------------------------------------------------ */

struct init_case {
	const char *name;
	u32 len, max_send, max_frag;
	enum smbdx_verdict want;
};

static const struct init_case init_cases[] = {
	{ "len 0", 0, 1364, 131072, SMBDX_OK },
	{ "len = max frag", 131072, 1364, 131072, SMBDX_OK },
	{ "len = max frag + 1", 131073, 1364, 131072, SMBDX_ERR_MSG_TOO_BIG },
	{ "len 1 max frag 0", 1, 1364, 0, SMBDX_ERR_MSG_TOO_BIG },
	{ "len 0 max frag 0", 0, 1364, 0, SMBDX_OK },
	{ "len ffffffff", 0xffffffff, 1364, 0xffffffff, SMBDX_OK },
	{ "len ffffffff max frag - 1", 0xffffffff, 1364, 0xfffffffe,
	  SMBDX_ERR_MSG_TOO_BIG },
	{ "max send 24", 1, 24, 131072, SMBDX_ERR_INVALID },
	{ "max send 25", 1, 25, 131072, SMBDX_OK },
	{ "max send 0", 1, 0, 131072, SMBDX_ERR_INVALID },
};

KUNIT_ARRAY_PARAM_DESC(init, init_cases, name);

static void frag_init_rules(struct kunit *test)
{
	const struct init_case *c = test->param_value;
	struct smbdx_frag f;

	KUNIT_EXPECT_EQ(test, smbdx_frag_init(&f, c->len, c->max_send,
					      c->max_frag), c->want);
}

struct count_case {
	const char *name;
	u32 len, max_send, count;
};

/* 1364 - 24 = 1340 payload bytes per fragment; 128 - 24 = 104. */
static const struct count_case count_cases[] = {
	{ "0", 0, 1364, 1 },
	{ "1", 1, 1364, 1 },
	{ "1339", 1339, 1364, 1 },
	{ "1340", 1340, 1364, 1 },
	{ "1341", 1341, 1364, 2 },
	{ "2680", 2680, 1364, 2 },
	{ "2681", 2681, 1364, 3 },
	{ "131072 by 1340", 131072, 1364, 98 },
	{ "131072 by 104", 131072, 128, 1261 },
	{ "104 by 104", 104, 128, 1 },
	{ "105 by 104", 105, 128, 2 },
	{ "1 MiB by 8168", 1048576, 8192, 129 },
	{ "ffffffff by 1", 0xffffffff, 25, 0xffffffff },
	{ "ffffffff by 1340", 0xffffffff, 1364, 3205200 },
	{ "64 KiB by 1000 (4.3)", 65536, 1024, 66 },
};

KUNIT_ARRAY_PARAM_DESC(count, count_cases, name);

static void frag_count(struct kunit *test)
{
	const struct count_case *c = test->param_value;
	struct smbdx_frag f;

	KUNIT_ASSERT_EQ(test, smbdx_frag_init(&f, c->len, c->max_send,
					      0xffffffff), SMBDX_OK);
	KUNIT_EXPECT_EQ(test, smbdx_frag_count(&f), c->count);
}

static void frag_empty_message(struct kunit *test)
{
	struct smbdx_data_info di;
	struct smbdx_frag f;
	u32 off = 99;

	KUNIT_ASSERT_EQ(test, smbdx_frag_init(&f, 0, 1364, 131072), SMBDX_OK);
	KUNIT_EXPECT_EQ(test, smbdx_frag_count(&f), 1);
	KUNIT_EXPECT_FALSE(test, smbdx_frag_done(&f));
	memset(&di, 0xff, sizeof(di));
	KUNIT_ASSERT_TRUE(test, smbdx_frag_next(&f, &di, &off));
	/* 3.1.5.4: an empty buffer is one message without payload. */
	KUNIT_EXPECT_EQ(test, di.remaining_data_length, 0);
	KUNIT_EXPECT_EQ(test, di.data_offset, 0);
	KUNIT_EXPECT_EQ(test, di.data_length, 0);
	KUNIT_EXPECT_EQ(test, off, 0);
	/* The credit fields are the credit engine's, left alone. */
	KUNIT_EXPECT_EQ(test, di.credits_granted, 0xffff);
	KUNIT_EXPECT_EQ(test, smbdx_data_wire_len(&di), 20);
	KUNIT_EXPECT_TRUE(test, smbdx_frag_done(&f));
	KUNIT_EXPECT_FALSE(test, smbdx_frag_next(&f, &di, &off));
}

/* MS-SMBD 4.3: 64 KiB with MaxSendSize 1024, 1000 bytes per fragment. */
static void frag_example_64k(struct kunit *test)
{
	struct smbdx_data_info di;
	struct smbdx_frag f;
	u32 off, n = 0;

	KUNIT_ASSERT_EQ(test, smbdx_frag_init(&f, 65536, 1024, 131072), SMBDX_OK);
	while (smbdx_frag_next(&f, &di, &off)) {
		n++;
		KUNIT_EXPECT_EQ(test, di.data_offset, 24);
		if (n == 1) {
			KUNIT_EXPECT_EQ(test, di.data_length, 1000);
			KUNIT_EXPECT_EQ(test, di.remaining_data_length, 64536);
		}
	}
	KUNIT_EXPECT_EQ(test, n, 66);
	KUNIT_EXPECT_EQ(test, di.data_length, 536);
	KUNIT_EXPECT_EQ(test, di.remaining_data_length, 0);
	KUNIT_EXPECT_EQ(test, off, 65000);
}

/* Every fragment's fields for a size; returns the number of fragments. */
static u32 check_fragments(struct kunit *test, u32 len, u32 max_send)
{
	struct smbdx_data_info di;
	struct smbdx_frag f;
	u32 off, expect_off = 0, n = 0;

	KUNIT_ASSERT_EQ(test, smbdx_frag_init(&f, len, max_send, 0xffffffff),
			SMBDX_OK);
	while (smbdx_frag_next(&f, &di, &off)) {
		n++;
		KUNIT_ASSERT_EQ(test, off, expect_off);
		if (!len) {
			KUNIT_ASSERT_EQ(test, di.data_length, 0);
			KUNIT_ASSERT_EQ(test, di.data_offset, 0);
			continue;
		}
		KUNIT_ASSERT_EQ(test, di.data_offset, SMBDX_DATA_PAYLOAD_OFFSET);
		KUNIT_ASSERT_GT(test, di.data_length, 0);
		KUNIT_ASSERT_LE(test, di.data_offset + di.data_length, max_send);
		expect_off += di.data_length;
		KUNIT_ASSERT_EQ(test, di.remaining_data_length, len - expect_off);
		/* Only the last fragment may be short. */
		if (di.remaining_data_length)
			KUNIT_ASSERT_EQ(test, di.data_length, max_send - 24);
	}
	KUNIT_EXPECT_EQ(test, expect_off, len);
	KUNIT_EXPECT_EQ(test, n, smbdx_frag_count(&f));
	KUNIT_EXPECT_TRUE(test, smbdx_frag_done(&f));
	return n;
}

static void frag_fields_many_sizes(struct kunit *test)
{
	static const u32 sends[] = { 25, 128, 129, 1364, 8192 };
	unsigned int i;
	u32 len;

	for (i = 0; i < ARRAY_SIZE(sends); i++) {
		u32 p = sends[i] - 24;

		for (len = 0; len < 3 * p + 3; len++)
			check_fragments(test, len, sends[i]);
	}
	KUNIT_EXPECT_EQ(test, check_fragments(test, 131072, 1364), 98);
	KUNIT_EXPECT_EQ(test, check_fragments(test, 1048576, 8192), 129);
}

/* ---- reassembler ----------------------------------------------------- */

static struct smbdx_data_info frag_di(u32 len, u32 remaining)
{
	struct smbdx_data_info di = {
		.credits_requested = 1,
		.data_offset = len ? 24 : 0,
		.data_length = len,
		.remaining_data_length = remaining,
	};
	return di;
}

static void expect_reasm_eq(struct kunit *test, const struct smbdx_reasm *a,
			    const struct smbdx_reasm *b)
{
	KUNIT_EXPECT_EQ(test, a->max_size, b->max_size);
	KUNIT_EXPECT_EQ(test, a->total, b->total);
	KUNIT_EXPECT_EQ(test, a->received, b->received);
	KUNIT_EXPECT_EQ(test, a->remaining, b->remaining);
	KUNIT_EXPECT_EQ(test, a->active, b->active);
}

static enum smbdx_verdict add(struct smbdx_reasm *r, u32 len, u32 rem,
			      struct smbdx_reasm_place *pl)
{
	struct smbdx_data_info di = frag_di(len, rem);

	return smbdx_reasm_add(r, &di, pl);
}

static void reasm_single(struct kunit *test)
{
	struct smbdx_reasm_place pl;
	struct smbdx_reasm r;

	smbdx_reasm_init(&r, 131072);
	KUNIT_ASSERT_EQ(test, add(&r, 500, 0, &pl), SMBDX_OK);
	KUNIT_EXPECT_EQ(test, pl.state, SMBDX_REASM_COMPLETE);
	KUNIT_EXPECT_TRUE(test, pl.first);
	KUNIT_EXPECT_EQ(test, pl.offset, 0);
	KUNIT_EXPECT_EQ(test, pl.length, 500);
	KUNIT_EXPECT_EQ(test, pl.total, 500);
	KUNIT_EXPECT_FALSE(test, smbdx_reasm_active(&r));
	/* The next one is a new message. */
	KUNIT_ASSERT_EQ(test, add(&r, 7, 0, &pl), SMBDX_OK);
	KUNIT_EXPECT_TRUE(test, pl.first);
	KUNIT_EXPECT_EQ(test, pl.total, 7);
}

static void reasm_fragmented(struct kunit *test)
{
	struct smbdx_reasm_place pl;
	struct smbdx_reasm r;

	smbdx_reasm_init(&r, 131072);
	KUNIT_ASSERT_EQ(test, add(&r, 1000, 2500, &pl), SMBDX_OK);
	KUNIT_EXPECT_EQ(test, pl.state, SMBDX_REASM_PARTIAL);
	KUNIT_EXPECT_TRUE(test, pl.first);
	KUNIT_EXPECT_EQ(test, pl.total, 3500);
	KUNIT_EXPECT_TRUE(test, smbdx_reasm_active(&r));
	KUNIT_ASSERT_EQ(test, add(&r, 1000, 1500, &pl), SMBDX_OK);
	KUNIT_EXPECT_EQ(test, pl.state, SMBDX_REASM_PARTIAL);
	KUNIT_EXPECT_FALSE(test, pl.first);
	KUNIT_EXPECT_EQ(test, pl.offset, 1000);
	KUNIT_ASSERT_EQ(test, add(&r, 1500, 0, &pl), SMBDX_OK);
	KUNIT_EXPECT_EQ(test, pl.state, SMBDX_REASM_COMPLETE);
	KUNIT_EXPECT_EQ(test, pl.offset, 2000);
	KUNIT_EXPECT_EQ(test, pl.length, 1500);
	KUNIT_EXPECT_EQ(test, pl.total, 3500);
	KUNIT_EXPECT_FALSE(test, smbdx_reasm_active(&r));
}

struct reasm_bad_case {
	const char *name;
	u32 len2, rem2;
	enum smbdx_verdict want;
};

/* After a first fragment of 1000 bytes with 2500 remaining. */
static const struct reasm_bad_case reasm_bad_cases[] = {
	{ "exact decrease", 1000, 1500, SMBDX_OK },
	{ "exact end", 2500, 0, SMBDX_OK },
	{ "remaining not reduced", 1000, 2500, SMBDX_ERR_REASM_MISMATCH },
	{ "remaining reduced by one less", 1000, 1501, SMBDX_ERR_REASM_MISMATCH },
	{ "remaining reduced by one more", 1000, 1499, SMBDX_ERR_REASM_MISMATCH },
	{ "remaining grows", 1000, 5000, SMBDX_ERR_REASM_MISMATCH },
	{ "ends early", 1000, 0, SMBDX_ERR_REASM_MISMATCH },
	{ "overshoots", 2501, 0, SMBDX_ERR_REASM_MISMATCH },
	{ "overshoot wraps", 0xffffffff, 2501, SMBDX_ERR_REASM_MISMATCH },
	{ "new message mid-way", 2500, 0xfffff000, SMBDX_ERR_REASM_MISMATCH },
};

KUNIT_ARRAY_PARAM_DESC(reasm_bad, reasm_bad_cases, name);

static void reasm_consistency(struct kunit *test)
{
	const struct reasm_bad_case *c = test->param_value;
	struct smbdx_reasm_place pl;
	struct smbdx_reasm r, saved;

	smbdx_reasm_init(&r, 0xffffffff);
	KUNIT_ASSERT_EQ(test, add(&r, 1000, 2500, &pl), SMBDX_OK);
	saved = r;
	KUNIT_EXPECT_EQ(test, add(&r, c->len2, c->rem2, &pl), c->want);
	if (c->want != SMBDX_OK)	/* state untouched on error */
		expect_reasm_eq(test, &r, &saved);
}

struct reasm_first_case {
	const char *name;
	u32 max, len, rem;
	enum smbdx_verdict want;
};

static const struct reasm_first_case reasm_first_cases[] = {
	{ "total = max", 131072, 1000, 130072, SMBDX_OK },
	{ "total = max + 1", 131072, 1000, 130073, SMBDX_ERR_DATA_TOO_BIG },
	{ "single = max", 131072, 131072, 0, SMBDX_OK },
	{ "single = max + 1", 131072, 131073, 0, SMBDX_ERR_DATA_TOO_BIG },
	{ "sum wraps u32", 0xffffffff, 2, 0xffffffff, SMBDX_ERR_DATA_TOO_BIG },
};

KUNIT_ARRAY_PARAM_DESC(reasm_first, reasm_first_cases, name);

static void reasm_first_limit(struct kunit *test)
{
	const struct reasm_first_case *c = test->param_value;
	struct smbdx_reasm_place pl;
	struct smbdx_reasm r;

	smbdx_reasm_init(&r, c->max);
	KUNIT_EXPECT_EQ(test, add(&r, c->len, c->rem, &pl), c->want);
	if (c->want != SMBDX_OK)
		KUNIT_EXPECT_FALSE(test, smbdx_reasm_active(&r));
}

/*
 * Messages without payload (credits, keepalives) never touch reassembly,
 * even between two fragments of one message, whatever their
 * RemainingDataLength says (our decision; see frag.c).
 */
static void reasm_empty_between_fragments(struct kunit *test)
{
	static const u32 rems[] = { 0, 1, 1500, 2500, 0xffffffff };
	struct smbdx_reasm_place pl;
	struct smbdx_reasm r, saved;
	unsigned int i;

	smbdx_reasm_init(&r, 131072);
	KUNIT_ASSERT_EQ(test, add(&r, 0, 0, &pl), SMBDX_OK);
	KUNIT_EXPECT_EQ(test, pl.state, SMBDX_REASM_EMPTY);
	KUNIT_EXPECT_FALSE(test, smbdx_reasm_active(&r));

	KUNIT_ASSERT_EQ(test, add(&r, 1000, 1500, &pl), SMBDX_OK);
	saved = r;
	for (i = 0; i < ARRAY_SIZE(rems); i++) {
		KUNIT_ASSERT_EQ(test, add(&r, 0, rems[i], &pl), SMBDX_OK);
		KUNIT_EXPECT_EQ(test, pl.state, SMBDX_REASM_EMPTY);
		KUNIT_EXPECT_EQ(test, pl.length, 0);
		expect_reasm_eq(test, &r, &saved);
	}
	KUNIT_ASSERT_EQ(test, add(&r, 1500, 0, &pl), SMBDX_OK);
	KUNIT_EXPECT_EQ(test, pl.state, SMBDX_REASM_COMPLETE);
	KUNIT_EXPECT_EQ(test, pl.offset, 1000);
	KUNIT_EXPECT_EQ(test, pl.total, 2500);
}

/*
 * Fragment, encode, decode, reassemble, with real payload bytes: what comes
 * out is what went in, for many sizes and send sizes.
 */
static void frag_round_trip(struct kunit *test, u8 *msg, u8 *out, u8 *wire,
			    u32 len, u32 max_send, u32 max_frag)
{
	struct smbdx_reasm_place pl;
	struct smbdx_data_info di, rx;
	struct smbdx_reasm r;
	struct smbdx_frag f;
	u32 off, n = 0;
	bool complete = false;

	memset(out, 0, len);
	smbdx_reasm_init(&r, max_frag);
	KUNIT_ASSERT_EQ(test, smbdx_frag_init(&f, len, max_send, max_frag),
			SMBDX_OK);
	while (smbdx_frag_next(&f, &di, &off)) {
		u32 wire_len = smbdx_data_wire_len(&di);

		n++;
		KUNIT_ASSERT_FALSE(test, complete);
		di.credits_requested = 255;
		di.credits_granted = n & 3;
		KUNIT_ASSERT_LE(test, wire_len, max(max_send, 20U));
		KUNIT_ASSERT_EQ(test, smbdx_data_encode(wire, max_send, &di),
				SMBDX_OK);
		memcpy(wire + di.data_offset, msg + off, di.data_length);

		KUNIT_ASSERT_EQ(test, smbdx_data_decode(wire, wire_len, max_frag,
							&rx), SMBDX_OK);
		KUNIT_ASSERT_EQ(test, smbdx_reasm_add(&r, &rx, &pl), SMBDX_OK);
		if (!len) {
			KUNIT_ASSERT_EQ(test, pl.state, SMBDX_REASM_EMPTY);
			complete = true;
			continue;
		}
		KUNIT_ASSERT_EQ(test, pl.total, len);
		KUNIT_ASSERT_EQ(test, pl.first, n == 1);
		KUNIT_ASSERT_LE(test, (u64)pl.offset + pl.length, (u64)len);
		memcpy(out + pl.offset, wire + rx.data_offset, pl.length);
		complete = pl.state == SMBDX_REASM_COMPLETE;
	}
	KUNIT_ASSERT_TRUE(test, complete);
	KUNIT_ASSERT_EQ(test, n, smbdx_frag_count(&f));
	KUNIT_ASSERT_FALSE(test, smbdx_reasm_active(&r));
	KUNIT_ASSERT_EQ(test, memcmp(msg, out, len), 0);
}

static void frag_round_trips(struct kunit *test)
{
	static const u32 sends[] = { 128, 129, 136, 1364, 8192 };
	u32 max_frag = 1048576;
	u8 *msg = test_vmalloc(test, max_frag);
	u8 *out = test_vmalloc(test, max_frag);
	u8 *wire = kunit_kmalloc(test, 8192, GFP_KERNEL);
	u64 seed = 88172645463325252ULL;
	unsigned int i, k;
	u32 len;

	KUNIT_ASSERT_NOT_NULL(test, wire);
	for (len = 0; len < max_frag; len++)
		msg[len] = (u8)(len * 7 + (len >> 8));
	for (i = 0; i < ARRAY_SIZE(sends); i++) {
		u32 p = sends[i] - 24;
		u32 edges[] = { 0, 1, p - 1, p, p + 1, 2 * p - 1, 2 * p,
				2 * p + 1, 131071, 131072, max_frag - 1,
				max_frag };

		for (k = 0; k < ARRAY_SIZE(edges); k++)
			frag_round_trip(test, msg, out, wire, edges[k],
					sends[i], max_frag);
		for (k = 0; k < 40; k++) {
			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			len = seed % (k < 37 ? 20000 : max_frag + 1);
			frag_round_trip(test, msg, out, wire, len, sends[i],
					max_frag);
		}
	}
	/* One byte over the limit is a local error (3.1.4.2). */
	for (i = 0; i < ARRAY_SIZE(sends); i++) {
		struct smbdx_frag f;

		KUNIT_EXPECT_EQ(test, smbdx_frag_init(&f, max_frag + 1, sends[i],
						      max_frag),
				SMBDX_ERR_MSG_TOO_BIG);
	}
}

/* Random fragment sequences: the reassembler's promises always hold. */
static void reasm_fuzz(struct kunit *test)
{
	u64 seed = 0xdeadbeefcafef00dULL;
	struct smbdx_reasm_place pl;
	struct smbdx_data_info di;
	struct smbdx_reasm r;
	u32 got = 0, total = 0;
	unsigned int iter, completes = 0, errors = 0;

	smbdx_reasm_init(&r, 65536);
	for (iter = 0; iter < 50000; iter++) {
		enum smbdx_verdict v;
		u32 len, rem;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		len = seed % 4 ? (u32)(seed >> 8) % 3000 : 0;
		if (smbdx_reasm_active(&r) && seed % 8) {
			/* usually a consistent continuation */
			u32 left = r.remaining;

			len = min(len, left);
			rem = left - len;
		} else {
			rem = seed % 3 ? (u32)(seed >> 20) % 70000 : 0;
		}
		di = frag_di(len, rem);
		v = smbdx_reasm_add(&r, &di, &pl);
		KUNIT_ASSERT_LT(test, (unsigned int)v, SMBDX_VERDICT_COUNT);
		if (v != SMBDX_OK) {
			errors++;
			/* the transport would disconnect; start over */
			smbdx_reasm_init(&r, 65536);
			got = 0;
			continue;
		}
		if (pl.state == SMBDX_REASM_EMPTY)
			continue;
		if (pl.first) {
			got = 0;
			total = pl.total;
		}
		KUNIT_ASSERT_LE(test, total, 65536U);
		KUNIT_ASSERT_EQ(test, pl.total, total);
		KUNIT_ASSERT_EQ(test, pl.offset, got);
		got += pl.length;
		KUNIT_ASSERT_LE(test, got, total);
		if (pl.state == SMBDX_REASM_COMPLETE) {
			KUNIT_ASSERT_EQ(test, got, total);
			KUNIT_ASSERT_FALSE(test, smbdx_reasm_active(&r));
			completes++;
		} else {
			KUNIT_ASSERT_LT(test, got, total);
			KUNIT_ASSERT_EQ(test, r.remaining, total - got);
		}
	}
	KUNIT_EXPECT_GT(test, completes, 1000);
	KUNIT_EXPECT_GT(test, errors, 100);
}

/* ---- safe MaxFragmentedRecvSize ------------------------------------ */

struct safe_case {
	const char *name;
	u16 credits;
	u32 recv_size;
	u32 size;
	enum smbdx_verdict want;
};

static const struct safe_case safe_cases[] = {
	{ "defaults 255 x 1364", 255, 1364, 170180, SMBDX_OK },
	{ "255 x 8192", 255, 8192, 127 * 8168, SMBDX_OK },
	{ "196 x 1364", 196, 1364, 131320, SMBDX_OK },
	{ "195 x 1364", 195, 1364, 129980, SMBDX_ERR_FRAG_CONFIG },
	{ "256 x 1048 exactly 131072", 256, 1048, 131072, SMBDX_OK },
	{ "255 x 1048", 255, 1048, 130048, SMBDX_ERR_FRAG_CONFIG },
	{ "10 x 1364", 10, 1364, 6700, SMBDX_ERR_FRAG_CONFIG },
	{ "1 credit", 1, 1364, 0, SMBDX_ERR_FRAG_CONFIG },
	{ "recv size 24", 255, 24, 0, SMBDX_ERR_FRAG_CONFIG },
	{ "recv size 0", 255, 0, 0, SMBDX_ERR_FRAG_CONFIG },
	{ "clamped to u32", 65535, 0xffffffff, 0xffffffff, SMBDX_OK },
};

KUNIT_ARRAY_PARAM_DESC(safe, safe_cases, name);

static void frag_safe_size(struct kunit *test)
{
	const struct safe_case *c = test->param_value;
	u32 size = 1;

	KUNIT_EXPECT_EQ(test, smbdx_frag_safe_max_recv_size(c->credits,
							    c->recv_size, &size),
			c->want);
	KUNIT_EXPECT_EQ(test, size, c->size);
}

/*
 * LESSONS: 1 MiB with 255 receives of 1364 bytes lets one message hold
 * every receive buffer. The safe size never needs more than half of them.
 */
static void frag_safe_size_holds_half(struct kunit *test)
{
	static const u32 recv_sizes[] = { 128, 1364, 4096, 8192 };
	unsigned int i;
	u16 n;
	u32 size;
	struct smbdx_frag f;

	KUNIT_ASSERT_EQ(test, smbdx_frag_init(&f, 1048576, 1364, 1048576),
			SMBDX_OK);
	KUNIT_EXPECT_GT(test, smbdx_frag_count(&f), 255);

	for (i = 0; i < ARRAY_SIZE(recv_sizes); i++) {
		for (n = 2; n <= 512; n++) {
			smbdx_frag_safe_max_recv_size(n, recv_sizes[i], &size);
			KUNIT_ASSERT_EQ(test, smbdx_frag_init(&f, size,
							      recv_sizes[i],
							     size), SMBDX_OK);
			KUNIT_ASSERT_LE(test, smbdx_frag_count(&f) - !size,
					n / 2U);
		}
	}
}

static struct kunit_case frag_cases[] = {
	KUNIT_CASE_PARAM(frag_init_rules, init_gen_params),
	KUNIT_CASE_PARAM(frag_count, count_gen_params),
	KUNIT_CASE(frag_empty_message),
	KUNIT_CASE(frag_example_64k),
	KUNIT_CASE(frag_fields_many_sizes),
	KUNIT_CASE(reasm_single),
	KUNIT_CASE(reasm_fragmented),
	KUNIT_CASE_PARAM(reasm_consistency, reasm_bad_gen_params),
	KUNIT_CASE_PARAM(reasm_first_limit, reasm_first_gen_params),
	KUNIT_CASE(reasm_empty_between_fragments),
	KUNIT_CASE(frag_round_trips),
	KUNIT_CASE(reasm_fuzz),
	KUNIT_CASE_PARAM(frag_safe_size, safe_gen_params),
	KUNIT_CASE(frag_safe_size_holds_half),
	{}
};

static struct kunit_suite frag_suite = {
	.name = "smbdirect_frag",
	.test_cases = frag_cases,
};

kunit_test_suite(frag_suite);

MODULE_DESCRIPTION("KUnit tests for SMB Direct fragmentation and reassembly");
MODULE_LICENSE("GPL");
