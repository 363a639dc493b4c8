// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: push mode's message-level path, the pure part
 * (smbdirect/pushmsg.c). The control message's layout; the codec on hand
 * vectors both ways (every type, byte for byte); every bad length,
 * version, type, flag combination, stray field and status from the wire;
 * every byte of every vector replaced by several values and judged
 * against a reference model written apart from the decoder; the Data
 * Transfer framing and the Flags bit; range validation (0, 1, the region's
 * end, offset + length past 2^64, exhaustively for small regions); the
 * commit check (access, range, atomic alignment and size); the push mode
 * two CM blobs give; request numbering and the bound on outstanding
 * requests (with wrap-around); the revoke state machines of a region and
 * of a target, every state against every event.
 *
 * Pure: no device. Every body the decoder reads is a kmalloc'ed buffer of
 * exactly its length, so a read one byte too far is a KASAN report on the
 * debug kernel.
 */

#include <kunit/test.h>
#include <smbdirect/ns.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/unaligned.h>

#include <smbdirect/pdu.h>
#include "privdata.h"
#include "pushmsg.h"

MODULE_IMPORT_NS(SMBDX_NS_NAME(EXPORTED_FOR_KUNIT_TESTING));

#define LEN	SMBDX_PUSHMSG_LEN

/* A copy of @src in a buffer of exactly @len bytes, freed with the test. */
static u64 rnd64(struct rnd_state *rs)
{
	return ((u64)prandom_u32_state(rs) << 32) | prandom_u32_state(rs);
}

static u8 *exact(struct kunit *test, const void *src, u32 len)
{
	u8 *p = kunit_kmalloc(test, max(len, 1U), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	if (len)
		memcpy(p, src, len);
	return p;
}

/* ---- layout --------------------------------------------------------------- */

static void pushmsg_layout(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct smbdx_pushmsg_wire), 56);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_pushmsg_wire, version), 0);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_pushmsg_wire, type), 1);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_pushmsg_wire, flags), 2);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_pushmsg_wire, seq), 4);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_pushmsg_wire, region), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_pushmsg_wire, token), 12);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_pushmsg_wire, offset), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_pushmsg_wire, length), 24);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_pushmsg_wire, atomic_offset), 32);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_pushmsg_wire, atomic_value), 40);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_pushmsg_wire, status), 48);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_pushmsg_wire, reserved), 52);
	/* The Flags bit is one MS-SMBD reserves, not RESPONSE_REQUESTED. */
	KUNIT_EXPECT_EQ(test, SMBDX_FLAG_PUSH, 0x8000);
	KUNIT_EXPECT_EQ(test, SMBDX_FLAG_PUSH & SMBDX_FLAG_RESPONSE_REQUESTED, 0);
	/* A control message fits the smallest receive MS-SMBD allows. */
	KUNIT_EXPECT_LE(test, SMBDX_DATA_PAYLOAD_OFFSET + LEN,
			SMBDX_PROTO_MIN_RECV_SIZE);
	/* The access bits are the CM blob's. */
	KUNIT_EXPECT_EQ(test, SMBDX_PUSHACC_KNOWN, SMBDX_CAPS_KNOWN);
	KUNIT_EXPECT_LE(test, SMBDX_PUSH_MAX_COMMITS, 255);
}

/* ---- vectors both ways ---------------------------------------------------- */

struct vec_case {
	const char *name;
	struct smbdx_pushmsg m;
	u8 bytes[LEN];
};

static const struct vec_case vec_cases[] = {
	{ "commit: range global+persistent, then atomic",
	  { .type = 1, .flags = 0x000b, .seq = 1, .region = 7,
	    .token = 0x12345678, .offset = 0x1000, .length = 4096,
	    .atomic_offset = 0x2008, .atomic_value = 0x0102030405060708ULL },
	  { 0x01, 0x01, 0x0b, 0x00, 0x01, 0x00, 0x00, 0x00,
	    0x07, 0x00, 0x00, 0x00, 0x78, 0x56, 0x34, 0x12,
	    0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x08, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 } },
	{ "commit: whole region persistent, persistent atomic",
	  { .type = 1, .flags = 0x001e, .seq = 0xfffffffe, .region = 0x01020304,
	    .token = 0xa5a5a5a5, .atomic_offset = 0xfffffffffffffff0ULL,
	    .atomic_value = 0xffffffffffffffffULL },
	  { 0x01, 0x01, 0x1e, 0x00, 0xfe, 0xff, 0xff, 0xff,
	    0x04, 0x03, 0x02, 0x01, 0xa5, 0xa5, 0xa5, 0xa5,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0xf0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 } },
	{ "commit: atomic only",
	  { .type = 1, .flags = 0x0008, .seq = 3, .region = 1, .token = 1,
	    .atomic_value = 0x8000000000000001ULL },
	  { 0x01, 0x01, 0x08, 0x00, 0x03, 0x00, 0x00, 0x00,
	    0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 } },
	{ "commit: global, one byte at the last offset",
	  { .type = 1, .flags = 0x0001, .seq = 9, .region = 2, .token = 3,
	    .offset = 0xfffffffffffffffeULL, .length = 1 },
	  { 0x01, 0x01, 0x01, 0x00, 0x09, 0x00, 0x00, 0x00,
	    0x02, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
	    0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	    0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 } },
	{ "commit response ok",
	  { .type = 2, .seq = 5, .region = 7 },
	  { 0x01, 0x02, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00,
	    0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 } },
	{ "commit response: failed",
	  { .type = 2, .seq = 0x01000000, .region = 0xffffffff, .status = 5 },
	  { 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	    0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 } },
	{ "revoke request",
	  { .type = 3, .seq = 2, .region = 9, .token = 0xdeadbeef },
	  { 0x01, 0x03, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
	    0x09, 0x00, 0x00, 0x00, 0xef, 0xbe, 0xad, 0xde,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 } },
	{ "revoke acknowledgment",
	  { .type = 4, .seq = 2, .region = 9 },
	  { 0x01, 0x04, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
	    0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 } },
};

KUNIT_ARRAY_PARAM_DESC(vec, vec_cases, name);

static void expect_msg_eq(struct kunit *test, const struct smbdx_pushmsg *a,
			  const struct smbdx_pushmsg *b)
{
	KUNIT_EXPECT_EQ(test, a->type, b->type);
	KUNIT_EXPECT_EQ(test, a->flags, b->flags);
	KUNIT_EXPECT_EQ(test, a->seq, b->seq);
	KUNIT_EXPECT_EQ(test, a->region, b->region);
	KUNIT_EXPECT_EQ(test, a->token, b->token);
	KUNIT_EXPECT_EQ(test, a->offset, b->offset);
	KUNIT_EXPECT_EQ(test, a->length, b->length);
	KUNIT_EXPECT_EQ(test, a->atomic_offset, b->atomic_offset);
	KUNIT_EXPECT_EQ(test, a->atomic_value, b->atomic_value);
	KUNIT_EXPECT_EQ(test, a->status, b->status);
}

static void pushmsg_vectors(struct kunit *test)
{
	const struct vec_case *c = test->param_value;
	struct smbdx_pushmsg back;
	u8 buf[LEN + 8];
	u8 *in;

	/* Host to wire: exactly the bytes, nothing past them. */
	memset(buf, 0xcc, sizeof(buf));
	KUNIT_ASSERT_EQ(test, smbdx_pushmsg_encode(&c->m, buf, LEN), LEN);
	KUNIT_EXPECT_MEMEQ(test, buf, c->bytes, LEN);
	KUNIT_EXPECT_EQ(test, buf[LEN], 0xcc);
	/* Wire to host. */
	in = exact(test, c->bytes, LEN);
	KUNIT_ASSERT_EQ(test, smbdx_pushmsg_decode(in, LEN, &back),
			SMBDX_PUSHMSG_OK);
	expect_msg_eq(test, &back, &c->m);
	/* The reserved word is ignored on receipt. */
	put_unaligned_le32(0xffffffff, in + 52);
	KUNIT_EXPECT_EQ(test, smbdx_pushmsg_decode(in, LEN, &back),
			SMBDX_PUSHMSG_OK);
	expect_msg_eq(test, &back, &c->m);
	/* Too small a buffer: nothing written. */
	memset(buf, 0xcc, sizeof(buf));
	KUNIT_EXPECT_EQ(test, smbdx_pushmsg_encode(&c->m, buf, LEN - 1), -ENOSPC);
	KUNIT_EXPECT_EQ(test, buf[0], 0xcc);
}

/* ---- bad messages from the wire ------------------------------------------ */

static void pushmsg_bad_lengths(struct kunit *test)
{
	const u8 *good = vec_cases[0].bytes;
	struct smbdx_pushmsg m;
	u8 big[2 * LEN + 1];
	u32 len;

	memset(big, 0, sizeof(big));
	memcpy(big, good, LEN);
	for (len = 0; len <= sizeof(big); len++) {
		u8 *in = exact(test, big, len);

		memset(&m, 0xa5, sizeof(m));
		KUNIT_EXPECT_EQ_MSG(test, smbdx_pushmsg_decode(in, len, &m),
				    len == LEN ? SMBDX_PUSHMSG_OK :
						 SMBDX_PUSHMSG_E_LENGTH,
				    "length %u", len);
		if (len != LEN)
			KUNIT_EXPECT_EQ(test, m.type, 0);
	}
	KUNIT_EXPECT_EQ(test, smbdx_pushmsg_decode(NULL, LEN, &m),
			SMBDX_PUSHMSG_E_LENGTH);
}

struct bad_case {
	const char *name;
	u32 base;		/* index into vec_cases */
	u32 off;		/* byte to change */
	u32 size;		/* 1, 2, 4 or 8 octets, little-endian */
	u64 value;
	enum smbdx_pushmsg_verdict want;
};

#define VERSION_OFF	0
#define TYPE_OFF	1
#define FLAGS_OFF	2
#define TOKEN_OFF	12
#define OFFSET_OFF	16
#define LENGTH_OFF	24
#define AOFF_OFF	32
#define AVAL_OFF	40
#define STATUS_OFF	48

static const struct bad_case bad_cases[] = {
	{ "version 0", 0, VERSION_OFF, 1, 0, SMBDX_PUSHMSG_E_VERSION },
	{ "version 2", 0, VERSION_OFF, 1, 2, SMBDX_PUSHMSG_E_VERSION },
	{ "version 255", 4, VERSION_OFF, 1, 255, SMBDX_PUSHMSG_E_VERSION },
	{ "type 0", 4, TYPE_OFF, 1, 0, SMBDX_PUSHMSG_E_TYPE },
	{ "type 5", 4, TYPE_OFF, 1, 5, SMBDX_PUSHMSG_E_TYPE },
	{ "type 255", 6, TYPE_OFF, 1, 255, SMBDX_PUSHMSG_E_TYPE },
	{ "commit: unknown flag 0x20", 0, FLAGS_OFF, 2, 0x002b,
	  SMBDX_PUSHMSG_E_FLAGS },
	{ "commit: unknown flag 0x8000", 0, FLAGS_OFF, 2, 0x800b,
	  SMBDX_PUSHMSG_E_FLAGS },
	{ "commit: asks nothing", 2, FLAGS_OFF, 2, 0, SMBDX_PUSHMSG_E_FLAGS },
	{ "commit: region without a flush", 2, FLAGS_OFF, 2, 0x000c,
	  SMBDX_PUSHMSG_E_FLAGS },
	{ "commit: persistent value without a value", 3, FLAGS_OFF, 2, 0x0011,
	  SMBDX_PUSHMSG_E_FLAGS },
	{ "commit: region with an offset", 1, OFFSET_OFF, 8, 1,
	  SMBDX_PUSHMSG_E_FIELDS },
	{ "commit: region with a length", 1, LENGTH_OFF, 8, 4096,
	  SMBDX_PUSHMSG_E_FIELDS },
	{ "commit: empty range", 0, LENGTH_OFF, 8, 0, SMBDX_PUSHMSG_E_FIELDS },
	{ "commit: atomic only, with an offset", 2, OFFSET_OFF, 8, 8,
	  SMBDX_PUSHMSG_E_FIELDS },
	{ "commit: atomic only, with a length", 2, LENGTH_OFF, 8, 8,
	  SMBDX_PUSHMSG_E_FIELDS },
	{ "commit: flush only, with an atomic offset", 3, AOFF_OFF, 8, 8,
	  SMBDX_PUSHMSG_E_FIELDS },
	{ "commit: flush only, with an atomic value", 3, AVAL_OFF, 8, 1,
	  SMBDX_PUSHMSG_E_FIELDS },
	{ "commit: a status", 0, STATUS_OFF, 4, 1, SMBDX_PUSHMSG_E_STATUS },
	{ "response: flags", 4, FLAGS_OFF, 2, 1, SMBDX_PUSHMSG_E_FLAGS },
	{ "response: unknown status", 4, STATUS_OFF, 4, SMBDX_PUSH_ST_COUNT,
	  SMBDX_PUSHMSG_E_STATUS },
	{ "response: status 2^32-1", 4, STATUS_OFF, 4, 0xffffffff,
	  SMBDX_PUSHMSG_E_STATUS },
	{ "response: a token", 4, TOKEN_OFF, 4, 1, SMBDX_PUSHMSG_E_FIELDS },
	{ "response: an offset", 4, OFFSET_OFF, 8, 1, SMBDX_PUSHMSG_E_FIELDS },
	{ "response: a length", 5, LENGTH_OFF, 8, 1ULL << 63,
	  SMBDX_PUSHMSG_E_FIELDS },
	{ "response: an atomic value", 4, AVAL_OFF, 8, 1,
	  SMBDX_PUSHMSG_E_FIELDS },
	{ "revoke: flags", 6, FLAGS_OFF, 2, 0x0001, SMBDX_PUSHMSG_E_FLAGS },
	{ "revoke: a status", 6, STATUS_OFF, 4, 1, SMBDX_PUSHMSG_E_STATUS },
	{ "revoke: an offset", 6, OFFSET_OFF, 8, 1, SMBDX_PUSHMSG_E_FIELDS },
	{ "revoke: an atomic offset", 6, AOFF_OFF, 8, 8, SMBDX_PUSHMSG_E_FIELDS },
	{ "ack: a token", 7, TOKEN_OFF, 4, 9, SMBDX_PUSHMSG_E_FIELDS },
	{ "ack: flags", 7, FLAGS_OFF, 2, 0x8000, SMBDX_PUSHMSG_E_FLAGS },
	{ "ack: a status", 7, STATUS_OFF, 4, 3, SMBDX_PUSHMSG_E_STATUS },
	{ "ack: a length", 7, LENGTH_OFF, 8, 56, SMBDX_PUSHMSG_E_FIELDS },
};

KUNIT_ARRAY_PARAM_DESC(bad, bad_cases, name);

static void put_le(u8 *p, u32 size, u64 v)
{
	u32 i;

	for (i = 0; i < size; i++)
		p[i] = v >> (8 * i);
}

static void pushmsg_bad_fields(struct kunit *test)
{
	const struct bad_case *c = test->param_value;
	struct smbdx_pushmsg m;
	u8 b[LEN];
	u8 *in;

	memcpy(b, vec_cases[c->base].bytes, LEN);
	put_le(b + c->off, c->size, c->value);
	in = exact(test, b, LEN);
	KUNIT_EXPECT_EQ(test, smbdx_pushmsg_decode(in, LEN, &m), c->want);
	/* The encoder refuses what the decoder refuses. */
	if (c->want != SMBDX_PUSHMSG_E_VERSION) {
		struct smbdx_pushmsg h = vec_cases[c->base].m;
		u8 out[LEN];

		switch (c->off) {
		case TYPE_OFF:
			h.type = c->value;
			break;
		case FLAGS_OFF:
			h.flags = c->value;
			break;
		case TOKEN_OFF:
			h.token = c->value;
			break;
		case OFFSET_OFF:
			h.offset = c->value;
			break;
		case LENGTH_OFF:
			h.length = c->value;
			break;
		case AOFF_OFF:
			h.atomic_offset = c->value;
			break;
		case AVAL_OFF:
			h.atomic_value = c->value;
			break;
		case STATUS_OFF:
			h.status = c->value;
			break;
		}
		KUNIT_EXPECT_EQ(test, smbdx_pushmsg_check(&h), c->want);
		KUNIT_EXPECT_EQ(test, smbdx_pushmsg_encode(&h, out, LEN), -EINVAL);
	}
}

/* Every single flag bit of every type. */
static void pushmsg_flag_bits(struct kunit *test)
{
	static const u16 commit_ok[] = { 0x01, 0x02, 0x08 };
	struct smbdx_pushmsg m;
	u32 t, bit, i;

	for (t = 1; t <= 4; t++) {
		for (bit = 0; bit < 16; bit++) {
			memset(&m, 0, sizeof(m));
			m.type = t;
			m.flags = 1U << bit;
			if ((m.flags & SMBDX_PUSHMSG_F_FLUSH) && t == 1)
				m.length = 1;
			if (t != 1) {
				KUNIT_EXPECT_EQ(test, smbdx_pushmsg_check(&m),
						SMBDX_PUSHMSG_E_FLAGS);
				continue;
			}
			for (i = 0; i < ARRAY_SIZE(commit_ok); i++)
				if (m.flags == commit_ok[i])
					break;
			KUNIT_EXPECT_EQ_MSG(test, smbdx_pushmsg_check(&m),
					    i < ARRAY_SIZE(commit_ok) ?
					    SMBDX_PUSHMSG_OK : SMBDX_PUSHMSG_E_FLAGS,
					    "commit flag 0x%x", m.flags);
		}
	}
}

/* Every combination of the five commit flags, against the rules. */
static void pushmsg_commit_flag_combos(struct kunit *test)
{
	struct smbdx_pushmsg m;
	u16 f;

	for (f = 0; f < 32; f++) {
		bool flush = f & SMBDX_PUSHMSG_F_FLUSH;
		bool region = f & SMBDX_PUSHMSG_F_REGION;
		bool atomic = f & SMBDX_PUSHMSG_F_ATOMIC;
		bool apers = f & SMBDX_PUSHMSG_F_ATOMIC_PERSISTENT;
		bool ok = (flush || atomic) && (!region || flush) &&
			  (!apers || atomic);

		memset(&m, 0, sizeof(m));
		m.type = SMBDX_PUSHMSG_COMMIT_REQ;
		m.flags = f;
		if (flush && !region)
			m.length = 16;
		if (atomic)
			m.atomic_value = 42;
		KUNIT_EXPECT_EQ_MSG(test, smbdx_pushmsg_check(&m),
				    ok ? SMBDX_PUSHMSG_OK : SMBDX_PUSHMSG_E_FLAGS,
				    "flags 0x%x", f);
	}
}

/*
 * The reference model: the rules of design.rst, "Push mode", written
 * again from the bytes, field by field, without the decoder's code.
 */
static enum smbdx_pushmsg_verdict ref_decode(const u8 *b)
{
	u16 flags = get_unaligned_le16(b + 2);
	u64 off = get_unaligned_le64(b + 16), len = get_unaligned_le64(b + 24);
	u64 aoff = get_unaligned_le64(b + 32), aval = get_unaligned_le64(b + 40);
	u32 token = get_unaligned_le32(b + 12), status = get_unaligned_le32(b + 48);
	bool flush, region, atomic;

	if (b[0] != 1)
		return SMBDX_PUSHMSG_E_VERSION;
	if (b[1] < 1 || b[1] > 4)
		return SMBDX_PUSHMSG_E_TYPE;
	if (b[1] != 1) {
		if (flags)
			return SMBDX_PUSHMSG_E_FLAGS;
		if (b[1] == 2 ? status > 5 : status != 0)
			return SMBDX_PUSHMSG_E_STATUS;
		if ((b[1] != 3 && token) || off || len || aoff || aval)
			return SMBDX_PUSHMSG_E_FIELDS;
		return SMBDX_PUSHMSG_OK;
	}
	flush = flags & 3;
	region = flags & 4;
	atomic = flags & 8;
	if (flags > 0x1f || !(flush || atomic) || (region && !flush) ||
	    ((flags & 0x10) && !atomic))
		return SMBDX_PUSHMSG_E_FLAGS;
	if (status)
		return SMBDX_PUSHMSG_E_STATUS;
	if ((!flush || region) && (off || len))
		return SMBDX_PUSHMSG_E_FIELDS;
	if (flush && !region && !len)
		return SMBDX_PUSHMSG_E_FIELDS;
	if (!atomic && (aoff || aval))
		return SMBDX_PUSHMSG_E_FIELDS;
	return SMBDX_PUSHMSG_OK;
}

/* Every byte of every vector replaced by several values. */
static void pushmsg_byte_mutations(struct kunit *test)
{
	static const u8 values[] = { 0x00, 0x01, 0x02, 0x05, 0x06, 0x08, 0x10,
				     0x20, 0x7f, 0x80, 0xfe, 0xff };
	struct smbdx_pushmsg m;
	u8 *in = exact(test, vec_cases[0].bytes, LEN);
	u32 c, o, v, checked = 0;

	for (c = 0; c < ARRAY_SIZE(vec_cases); c++) {
		for (o = 0; o < LEN; o++) {
			for (v = 0; v < ARRAY_SIZE(values); v++) {
				enum smbdx_pushmsg_verdict got, want;

				memcpy(in, vec_cases[c].bytes, LEN);
				in[o] = values[v];
				want = ref_decode(in);
				got = smbdx_pushmsg_decode(in, LEN, &m);
				KUNIT_ASSERT_EQ_MSG(test, got, want,
						    "%s: byte %u = 0x%02x",
						    vec_cases[c].name, o,
						    values[v]);
				/* Whatever is accepted encodes back the same. */
				if (got == SMBDX_PUSHMSG_OK) {
					u8 out[LEN];

					KUNIT_ASSERT_EQ(test,
							smbdx_pushmsg_encode(&m, out, LEN),
							LEN);
					KUNIT_ASSERT_MEMEQ(test, out, in, 52);
				}
				checked++;
			}
		}
	}
	KUNIT_EXPECT_EQ(test, checked, ARRAY_SIZE(vec_cases) * LEN *
			ARRAY_SIZE(values));
}

/* Random bodies: the decoder and the model agree on every one. */
static void pushmsg_random_bodies(struct kunit *test)
{
	struct rnd_state rs;
	struct smbdx_pushmsg m;
	u8 *in = exact(test, vec_cases[0].bytes, LEN);
	u32 i, k, ok = 0;

	prandom_seed_state(&rs, 0x70757368);
	for (i = 0; i < 20000; i++) {
		memcpy(in, vec_cases[i % ARRAY_SIZE(vec_cases)].bytes, LEN);
		/* A few random bytes, often in the fields that matter. */
		for (k = 0; k < 1 + prandom_u32_state(&rs) % 4; k++) {
			u32 o = prandom_u32_state(&rs) % LEN;

			in[o] = prandom_u32_state(&rs);
			if (prandom_u32_state(&rs) & 1)
				in[o] &= 0x1f;
		}
		KUNIT_ASSERT_EQ_MSG(test, smbdx_pushmsg_decode(in, LEN, &m),
				    ref_decode(in), "case %u", i);
		ok += ref_decode(in) == SMBDX_PUSHMSG_OK;
	}
	/* Both outcomes were exercised. */
	KUNIT_EXPECT_GT(test, ok, 100U);
	KUNIT_EXPECT_LT(test, ok, 19900U);
}

/* ---- framing -------------------------------------------------------------- */

static void pushmsg_frame(struct kunit *test)
{
	struct smbdx_data_info di = {
		.credits_requested = 1, .data_offset = 24, .data_length = LEN,
	};
	struct smbdx_data_info back;
	u8 hdr[SMBDX_DATA_PAYLOAD_OFFSET + LEN] = {};
	u32 len;

	KUNIT_EXPECT_EQ(test, smbdx_pushmsg_frame(&di), SMBDX_PUSHMSG_OK);
	di.remaining_data_length = 1;
	KUNIT_EXPECT_EQ(test, smbdx_pushmsg_frame(&di), SMBDX_PUSHMSG_E_FRAGMENTED);
	di.remaining_data_length = 0;
	for (len = 0; len <= 2 * LEN; len++) {
		di.data_length = len;
		KUNIT_EXPECT_EQ_MSG(test, smbdx_pushmsg_frame(&di),
				    len == LEN ? SMBDX_PUSHMSG_OK :
						 SMBDX_PUSHMSG_E_LENGTH,
				    "DataLength %u", len);
	}
	di.data_length = U32_MAX;
	KUNIT_EXPECT_EQ(test, smbdx_pushmsg_frame(&di), SMBDX_PUSHMSG_E_LENGTH);

	/* The bit goes on the wire after the MS-SMBD encoder wrote the header. */
	di.data_length = LEN;
	di.flags = SMBDX_FLAG_RESPONSE_REQUESTED;
	KUNIT_ASSERT_EQ(test, smbdx_data_encode(hdr, sizeof(hdr), &di), SMBDX_OK);
	smbdx_pushmsg_mark(hdr);
	KUNIT_EXPECT_EQ(test, hdr[4], 0x01);
	KUNIT_EXPECT_EQ(test, hdr[5], 0x80);
	KUNIT_ASSERT_EQ(test, smbdx_data_decode(hdr, sizeof(hdr), 1 << 20, &back),
			SMBDX_OK);
	KUNIT_EXPECT_EQ(test, back.flags, SMBDX_FLAG_PUSH |
			SMBDX_FLAG_RESPONSE_REQUESTED);
	KUNIT_EXPECT_EQ(test, back.data_length, LEN);
	/* Marking twice changes nothing more. */
	smbdx_pushmsg_mark(hdr);
	KUNIT_EXPECT_EQ(test, get_unaligned_le16(hdr + 4), 0x8001);
}

/* ---- ranges --------------------------------------------------------------- */

struct range_case {
	const char *name;
	u64 region_len, offset, length;
	int want;
};

static const struct range_case range_cases[] = {
	{ "empty range", 4096, 0, 0, -EINVAL },
	{ "empty range at the end", 4096, 4096, 0, -EINVAL },
	{ "empty region", 0, 0, 1, -ERANGE },
	{ "one byte region, one byte", 1, 0, 1, 0 },
	{ "one byte region, at 1", 1, 1, 1, -ERANGE },
	{ "one byte region, two bytes", 1, 0, 2, -ERANGE },
	{ "the whole region", 4096, 0, 4096, 0 },
	{ "last byte", 4096, 4095, 1, 0 },
	{ "one past the end", 4096, 4096, 1, -ERANGE },
	{ "ends one past the end", 4096, 4095, 2, -ERANGE },
	{ "one byte too long", 4096, 0, 4097, -ERANGE },
	{ "offset + length wraps 2^64", 4096, 1, U64_MAX, -ERANGE },
	{ "offset near 2^64, wraps", 4096, U64_MAX, 2, -ERANGE },
	{ "offset 2^64-1", U64_MAX, U64_MAX, 1, -ERANGE },
	{ "last byte of a 2^64-1 region", U64_MAX, U64_MAX - 1, 1, 0 },
	{ "all of a 2^64-1 region", U64_MAX, 0, U64_MAX, 0 },
	{ "2^64-1 region, from 1", U64_MAX, 1, U64_MAX - 1, 0 },
	{ "2^64-1 region, from 1, one too many", U64_MAX, 1, U64_MAX, -ERANGE },
	{ "length 2^63 in a 4 GiB region", 1ULL << 32, 0, 1ULL << 63, -ERANGE },
};

KUNIT_ARRAY_PARAM_DESC(range, range_cases, name);

static void push_range_vectors(struct kunit *test)
{
	const struct range_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, smbdx_push_range_check(c->region_len, c->offset,
						     c->length), c->want);
}

/* Every small range, and random large ones, against plain arithmetic. */
static void push_range_exhaustive(struct kunit *test)
{
	struct rnd_state rs;
	u64 len, off, n, end;
	u32 i;
	int want;

	for (len = 0; len <= 20; len++)
		for (off = 0; off <= 24; off++)
			for (n = 0; n <= 24; n++) {
				want = !n ? -EINVAL :
				       off + n <= len ? 0 : -ERANGE;
				KUNIT_ASSERT_EQ(test,
						smbdx_push_range_check(len, off, n),
						want);
			}
	prandom_seed_state(&rs, 0x72616e67);
	for (i = 0; i < 100000; i++) {
		len = rnd64(&rs) >> (prandom_u32_state(&rs) % 64);
		off = rnd64(&rs) >> (prandom_u32_state(&rs) % 64);
		n = rnd64(&rs) >> (prandom_u32_state(&rs) % 64);
		if (!n)
			want = -EINVAL;
		else if (check_add_overflow(off, n, &end))
			want = -ERANGE;
		else
			want = end <= len ? 0 : -ERANGE;
		KUNIT_ASSERT_EQ_MSG(test, smbdx_push_range_check(len, off, n),
				    want, "len %llu off %llu n %llu", len, off, n);
	}
}

/* ---- commit checks -------------------------------------------------------- */

struct commit_case {
	const char *name;
	u64 region_len;
	u32 access;
	u16 flags;
	u64 offset, length, aoff;
	enum smbdx_push_status want;
};

#define G	SMBDX_PUSHMSG_F_GLOBAL
#define P	SMBDX_PUSHMSG_F_PERSISTENT
#define R	SMBDX_PUSHMSG_F_REGION
#define A	SMBDX_PUSHMSG_F_ATOMIC
#define AP	SMBDX_PUSHMSG_F_ATOMIC_PERSISTENT
#define ALL	SMBDX_PUSHACC_KNOWN

static const struct commit_case commit_cases[] = {
	{ "global range", 4096, ALL, G, 0, 4096, 0, SMBDX_PUSH_ST_OK },
	{ "persistent range + atomic", 4096, ALL, P | A, 0, 8, 8,
	  SMBDX_PUSH_ST_OK },
	{ "whole region, persistent atomic", 4096, ALL, P | R | A | AP, 0, 0,
	  4088, SMBDX_PUSH_ST_OK },
	{ "global on a persistent-only region", 4096, SMBDX_PUSHACC_PERSISTENT,
	  G, 0, 1, 0, SMBDX_PUSH_ST_ACCESS },
	{ "persistent on a global region", 4096, SMBDX_PUSHACC_GLOBAL, P, 0, 1,
	  0, SMBDX_PUSH_ST_ACCESS },
	{ "atomic without atomic access", 4096, SMBDX_PUSHACC_GLOBAL |
	  SMBDX_PUSHACC_PERSISTENT, A, 0, 0, 0, SMBDX_PUSH_ST_ACCESS },
	{ "persistent value on a global region", 4096, SMBDX_PUSHACC_GLOBAL |
	  SMBDX_PUSHACC_ATOMIC, A | AP, 0, 0, 0, SMBDX_PUSH_ST_ACCESS },
	{ "access before range", 4096, SMBDX_PUSHACC_GLOBAL, P, 8192, 1, 0,
	  SMBDX_PUSH_ST_ACCESS },
	{ "range past the end", 4096, ALL, G, 4095, 2, 0, SMBDX_PUSH_ST_RANGE },
	{ "range wraps", 4096, ALL, G, 8, U64_MAX, 0, SMBDX_PUSH_ST_RANGE },
	{ "range before alignment", 4096, ALL, G | A, 4096, 1, 3,
	  SMBDX_PUSH_ST_RANGE },
	{ "atomic misaligned by 1", 4096, ALL, A, 0, 0, 1, SMBDX_PUSH_ST_ALIGN },
	{ "atomic misaligned by 4", 4096, ALL, A, 0, 0, 4, SMBDX_PUSH_ST_ALIGN },
	{ "atomic misaligned by 7", 4096, ALL, A, 0, 0, 4095,
	  SMBDX_PUSH_ST_ALIGN },
	{ "atomic at the last word", 4096, ALL, A, 0, 0, 4088, SMBDX_PUSH_ST_OK },
	{ "atomic at the end", 4096, ALL, A, 0, 0, 4096, SMBDX_PUSH_ST_RANGE },
	{ "atomic straddles the end", 4092, ALL, A, 0, 0, 4088,
	  SMBDX_PUSH_ST_RANGE },
	{ "atomic near 2^64", 4096, ALL, A, 0, 0, U64_MAX - 7,
	  SMBDX_PUSH_ST_RANGE },
	{ "atomic in a 7-byte region", 7, ALL, A, 0, 0, 0, SMBDX_PUSH_ST_RANGE },
	{ "atomic in an 8-byte region", 8, ALL, A, 0, 0, 0, SMBDX_PUSH_ST_OK },
	{ "misaligned and past the end", 8, ALL, A, 0, 0, 12,
	  SMBDX_PUSH_ST_ALIGN },
	{ "whole region needs no range", 1, SMBDX_PUSHACC_GLOBAL, G | R, 0, 0,
	  0, SMBDX_PUSH_ST_OK },
};

KUNIT_ARRAY_PARAM_DESC(commit, commit_cases, name);

static void push_commit_vectors(struct kunit *test)
{
	const struct commit_case *c = test->param_value;
	struct smbdx_pushmsg m = {
		.type = SMBDX_PUSHMSG_COMMIT_REQ, .flags = c->flags, .seq = 1,
		.offset = c->offset, .length = c->length,
		.atomic_offset = c->aoff,
	};

	KUNIT_ASSERT_EQ(test, smbdx_pushmsg_check(&m), SMBDX_PUSHMSG_OK);
	KUNIT_EXPECT_EQ(test, smbdx_push_commit_check(c->region_len, c->access,
						      &m), c->want);
}

/* The atomic target: every offset 0..40 in regions of 0..40 bytes. */
static void push_commit_atomic_exhaustive(struct kunit *test)
{
	struct smbdx_pushmsg m = {
		.type = SMBDX_PUSHMSG_COMMIT_REQ, .flags = SMBDX_PUSHMSG_F_ATOMIC,
	};
	enum smbdx_push_status want;
	u64 len, off;

	for (len = 0; len <= 40; len++)
		for (off = 0; off <= 40; off++) {
			m.atomic_offset = off;
			if (off % 8)
				want = SMBDX_PUSH_ST_ALIGN;
			else if (off + 8 > len)
				want = SMBDX_PUSH_ST_RANGE;
			else
				want = SMBDX_PUSH_ST_OK;
			KUNIT_ASSERT_EQ_MSG(test,
					    smbdx_push_commit_check(len, ALL, &m),
					    want, "len %llu off %llu", len, off);
		}
}

/* Access: every region access against every commit flag combination. */
static void push_commit_access_exhaustive(struct kunit *test)
{
	struct smbdx_pushmsg m;
	u32 acc;
	u16 f;

	for (acc = 0; acc <= ALL; acc++)
		for (f = 0; f < 32; f++) {
			bool need_g = f & G, need_p = (f & P) || (f & AP);
			bool need_a = f & A;
			bool ok;

			memset(&m, 0, sizeof(m));
			m.type = SMBDX_PUSHMSG_COMMIT_REQ;
			m.flags = f;
			if ((f & SMBDX_PUSHMSG_F_FLUSH) && !(f & R))
				m.length = 64;
			if (smbdx_pushmsg_check(&m))
				continue;
			ok = (!need_g || (acc & SMBDX_PUSHACC_GLOBAL)) &&
			     (!need_p || (acc & SMBDX_PUSHACC_PERSISTENT)) &&
			     (!need_a || (acc & SMBDX_PUSHACC_ATOMIC));
			KUNIT_EXPECT_EQ_MSG(test,
					    smbdx_push_commit_check(4096, acc, &m),
					    ok ? SMBDX_PUSH_ST_OK :
						 SMBDX_PUSH_ST_ACCESS,
					    "access 0x%x flags 0x%x", acc, f);
		}
}

static void push_status_errno(struct kunit *test)
{
	int i;

	KUNIT_EXPECT_EQ(test, smbdx_push_status_errno(SMBDX_PUSH_ST_OK), 0);
	KUNIT_EXPECT_EQ(test, smbdx_push_status_errno(SMBDX_PUSH_ST_RANGE), -ERANGE);
	KUNIT_EXPECT_EQ(test, smbdx_push_status_errno(SMBDX_PUSH_ST_ALIGN), -EINVAL);
	KUNIT_EXPECT_EQ(test, smbdx_push_status_errno(SMBDX_PUSH_ST_REVOKED),
			-EKEYREVOKED);
	KUNIT_EXPECT_EQ(test, smbdx_push_status_errno(SMBDX_PUSH_ST_ACCESS),
			-EACCES);
	KUNIT_EXPECT_EQ(test, smbdx_push_status_errno(SMBDX_PUSH_ST_FAILED), -EIO);
	KUNIT_EXPECT_EQ(test, smbdx_push_status_errno(SMBDX_PUSH_ST_COUNT), -EIO);
	KUNIT_EXPECT_STREQ(test, smbdx_pushmsg_verdict_name(SMBDX_PUSHMSG_OK), "ok");
	KUNIT_EXPECT_STREQ(test,
			   smbdx_pushmsg_verdict_name(SMBDX_PUSHMSG_E_UNNEGOTIATED),
			   "unnegotiated");
	KUNIT_EXPECT_STREQ(test,
			   smbdx_pushmsg_verdict_name(SMBDX_PUSHMSG_E_INVALIDATE),
			   "invalidate");
	KUNIT_EXPECT_STREQ(test, smbdx_pushmsg_verdict_name(100), "unknown");
	/* Every verdict has a name. */
	for (i = SMBDX_PUSHMSG_OK; i <= SMBDX_PUSHMSG_E_UNNEGOTIATED; i++)
		KUNIT_EXPECT_STRNEQ(test, smbdx_pushmsg_verdict_name(i), "unknown");
}

/* ---- the push mode of a connection ---------------------------------------- */

struct nego_case {
	const char *name;
	bool sent;
	u8 own_flags, own_ird;
	bool found;
	u8 peer_flags, peer_ird;
	bool active;
	u8 ops, served, commits;
};

static const struct nego_case nego_cases[] = {
	{ "both all", true, 7, 16, true, 7, 16, true, 7, 7, 16 },
	{ "nothing sent", false, 7, 16, true, 7, 16, false, 0, 0, 0 },
	{ "nothing found", true, 7, 16, false, 7, 16, false, 0, 0, 0 },
	{ "we advertise nothing", true, 0, 0, true, 7, 16, false, 0, 0, 0 },
	{ "peer advertises nothing", true, 7, 16, true, 0, 0, false, 0, 0, 0 },
	{ "peer without persistence", true, 7, 16, true, 5, 4, true, 5, 7, 4 },
	{ "we without persistence", true, 5, 16, true, 7, 8, true, 7, 5, 8 },
	{ "peer without resources", true, 7, 16, true, 7, 0, true, 0, 7, 0 },
	{ "peer offers 255", true, 7, 16, true, 7, 255, true, 7, 7, 16 },
	{ "global only both", true, 1, 1, true, 1, 1, true, 1, 1, 1 },
};

KUNIT_ARRAY_PARAM_DESC(nego, nego_cases, name);

static void push_negotiate_vectors(struct kunit *test)
{
	const struct nego_case *c = test->param_value;
	struct smbdx_caps own = { .flags = c->own_flags, .push_ird = c->own_ird };
	struct smbdx_caps peer = { .flags = c->peer_flags,
				   .push_ird = c->peer_ird };
	struct smbdx_push_mode pm;

	memset(&pm, 0xa5, sizeof(pm));
	smbdx_push_negotiate(&own, c->sent, &peer, c->found, &pm);
	KUNIT_EXPECT_EQ(test, pm.active, c->active);
	KUNIT_EXPECT_EQ(test, pm.ops, c->ops);
	KUNIT_EXPECT_EQ(test, pm.served, c->served);
	KUNIT_EXPECT_EQ(test, pm.commits, c->commits);
}

/* ---- request numbering and the outstanding-commit limit ------------------- */

static void push_tx_numbering(struct kunit *test)
{
	struct smbdx_push_tx tx;
	u32 seq, i;

	smbdx_push_tx_init(&tx, SMBDX_PUSH_MAX_COMMITS);
	/* Nothing outstanding: no answer is expected. */
	KUNIT_EXPECT_EQ(test, smbdx_push_tx_answer(&tx, 0), SMBDX_PUSHMSG_E_SEQ);
	KUNIT_EXPECT_EQ(test, smbdx_push_tx_answer(&tx, 1), SMBDX_PUSHMSG_E_SEQ);
	for (i = 1; i <= SMBDX_PUSH_MAX_COMMITS; i++) {
		KUNIT_ASSERT_EQ(test, smbdx_push_tx_begin(&tx, &seq), 0);
		KUNIT_EXPECT_EQ(test, seq, i);
	}
	/* The limit: the 17th waits. */
	seq = 0;
	KUNIT_EXPECT_EQ(test, smbdx_push_tx_begin(&tx, &seq), -EBUSY);
	KUNIT_EXPECT_EQ(test, seq, 0);
	KUNIT_EXPECT_EQ(test, tx.open, SMBDX_PUSH_MAX_COMMITS);
	/* Answers in order only. */
	KUNIT_EXPECT_EQ(test, smbdx_push_tx_answer(&tx, 2), SMBDX_PUSHMSG_E_SEQ);
	KUNIT_EXPECT_EQ(test, smbdx_push_tx_answer(&tx, 17), SMBDX_PUSHMSG_E_SEQ);
	KUNIT_EXPECT_EQ(test, smbdx_push_tx_answer(&tx, 1), SMBDX_PUSHMSG_OK);
	KUNIT_EXPECT_EQ(test, smbdx_push_tx_answer(&tx, 1), SMBDX_PUSHMSG_E_SEQ);
	KUNIT_ASSERT_EQ(test, smbdx_push_tx_begin(&tx, &seq), 0);
	KUNIT_EXPECT_EQ(test, seq, 17);
	for (i = 2; i <= 17; i++)
		KUNIT_EXPECT_EQ(test, smbdx_push_tx_answer(&tx, i),
				SMBDX_PUSHMSG_OK);
	KUNIT_EXPECT_EQ(test, tx.open, 0);
	KUNIT_EXPECT_EQ(test, smbdx_push_tx_answer(&tx, 18), SMBDX_PUSHMSG_E_SEQ);

	/* Wrap-around: numbers go on through 0. */
	smbdx_push_tx_init(&tx, 4);
	tx.next = 0xfffffffe;
	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_EQ(test, smbdx_push_tx_begin(&tx, &seq), 0);
	KUNIT_EXPECT_EQ(test, seq, 1);
	KUNIT_EXPECT_EQ(test, smbdx_push_tx_answer(&tx, 0xfffffffe),
			SMBDX_PUSHMSG_OK);
	KUNIT_EXPECT_EQ(test, smbdx_push_tx_answer(&tx, 0), SMBDX_PUSHMSG_E_SEQ);
	KUNIT_EXPECT_EQ(test, smbdx_push_tx_answer(&tx, 0xffffffff),
			SMBDX_PUSHMSG_OK);
	KUNIT_EXPECT_EQ(test, smbdx_push_tx_answer(&tx, 0), SMBDX_PUSHMSG_OK);
	KUNIT_EXPECT_EQ(test, smbdx_push_tx_answer(&tx, 1), SMBDX_PUSHMSG_OK);

	/* Out-of-order answers (revokes) end one each, never below 0. */
	smbdx_push_tx_init(&tx, 2);
	KUNIT_ASSERT_EQ(test, smbdx_push_tx_begin(&tx, &seq), 0);
	smbdx_push_tx_end(&tx);
	smbdx_push_tx_end(&tx);
	KUNIT_EXPECT_EQ(test, tx.open, 0);
	/* A limit of 0: nothing may be sent. */
	smbdx_push_tx_init(&tx, 0);
	KUNIT_EXPECT_EQ(test, smbdx_push_tx_begin(&tx, &seq), -EBUSY);
}

static void push_rx_limit(struct kunit *test)
{
	struct smbdx_push_rx rx;
	u32 i;

	smbdx_push_rx_init(&rx, SMBDX_PUSH_MAX_COMMITS);
	/* Out of sequence: 0, 2, a repeat. */
	KUNIT_EXPECT_EQ(test, smbdx_push_rx_request(&rx, 0), SMBDX_PUSHMSG_E_SEQ);
	KUNIT_EXPECT_EQ(test, smbdx_push_rx_request(&rx, 2), SMBDX_PUSHMSG_E_SEQ);
	KUNIT_EXPECT_EQ(test, rx.open, 0);
	for (i = 1; i <= SMBDX_PUSH_MAX_COMMITS; i++)
		KUNIT_ASSERT_EQ(test, smbdx_push_rx_request(&rx, i),
				SMBDX_PUSHMSG_OK);
	KUNIT_EXPECT_EQ(test, smbdx_push_rx_request(&rx, 16), SMBDX_PUSHMSG_E_SEQ);
	/* One more than we advertised. */
	KUNIT_EXPECT_EQ(test, smbdx_push_rx_request(&rx, 17),
			SMBDX_PUSHMSG_E_TOO_MANY);
	KUNIT_EXPECT_EQ(test, rx.expect, 17);
	/* Once an answer is posted, the next one fits. */
	smbdx_push_rx_answered(&rx);
	KUNIT_EXPECT_EQ(test, smbdx_push_rx_request(&rx, 17), SMBDX_PUSHMSG_OK);
	KUNIT_EXPECT_EQ(test, smbdx_push_rx_request(&rx, 18),
			SMBDX_PUSHMSG_E_TOO_MANY);
	for (i = 0; i < 20; i++)
		smbdx_push_rx_answered(&rx);
	KUNIT_EXPECT_EQ(test, rx.open, 0);

	/* Wrap-around. */
	smbdx_push_rx_init(&rx, 2);
	rx.expect = 0xffffffff;
	KUNIT_EXPECT_EQ(test, smbdx_push_rx_request(&rx, 0xffffffff),
			SMBDX_PUSHMSG_OK);
	KUNIT_EXPECT_EQ(test, smbdx_push_rx_request(&rx, 0), SMBDX_PUSHMSG_OK);
	smbdx_push_rx_answered(&rx);
	KUNIT_EXPECT_EQ(test, smbdx_push_rx_request(&rx, 1), SMBDX_PUSHMSG_OK);
	/* A limit of 0 (we advertised no resources): every request is too many. */
	smbdx_push_rx_init(&rx, 0);
	KUNIT_EXPECT_EQ(test, smbdx_push_rx_request(&rx, 1),
			SMBDX_PUSHMSG_E_TOO_MANY);
}

/* A requester and a responder kept in step: open counts agree. */
static void push_numbering_in_step(struct kunit *test)
{
	struct smbdx_push_tx tx;
	struct smbdx_push_rx rx;
	struct rnd_state rs;
	u32 seqs[SMBDX_PUSH_MAX_COMMITS], head = 0, n = 0, seq, i;

	smbdx_push_tx_init(&tx, SMBDX_PUSH_MAX_COMMITS);
	smbdx_push_rx_init(&rx, SMBDX_PUSH_MAX_COMMITS);
	prandom_seed_state(&rs, 0x73746570);
	for (i = 0; i < 10000; i++) {
		if (prandom_u32_state(&rs) & 1) {
			if (smbdx_push_tx_begin(&tx, &seq)) {
				KUNIT_ASSERT_EQ(test, n, SMBDX_PUSH_MAX_COMMITS);
				continue;
			}
			KUNIT_ASSERT_EQ(test, smbdx_push_rx_request(&rx, seq),
					SMBDX_PUSHMSG_OK);
			seqs[(head + n++) % SMBDX_PUSH_MAX_COMMITS] = seq;
		} else if (n) {
			smbdx_push_rx_answered(&rx);
			KUNIT_ASSERT_EQ(test, smbdx_push_tx_answer(&tx, seqs[head]),
					SMBDX_PUSHMSG_OK);
			head = (head + 1) % SMBDX_PUSH_MAX_COMMITS;
			n--;
		}
		KUNIT_ASSERT_EQ(test, tx.open, n);
		KUNIT_ASSERT_EQ(test, rx.open, n);
	}
}

/* ---- revoke state machines ------------------------------------------------ */

/* The owner's region: every state against every event. */
static void push_region_states(struct kunit *test)
{
	static const enum smbdx_push_rstate states[] = {
		SMBDX_PUSH_RS_ACTIVE, SMBDX_PUSH_RS_REVOKING,
		SMBDX_PUSH_RS_REVOKED,
	};
	struct smbdx_push_rgn r;
	u32 s;

	for (s = 0; s < ARRAY_SIZE(states); s++) {
		bool active = states[s] == SMBDX_PUSH_RS_ACTIVE;
		bool revoking = states[s] == SMBDX_PUSH_RS_REVOKING;

		/* revoke */
		r.state = states[s];
		r.seq = 5;
		KUNIT_EXPECT_EQ(test, smbdx_push_rgn_revoke(&r, 9),
				active ? 0 : -EALREADY);
		KUNIT_EXPECT_EQ(test, r.state, active ? SMBDX_PUSH_RS_REVOKING :
				states[s]);
		KUNIT_EXPECT_EQ(test, r.seq, active ? 9 : 5);
		/* ack, matching number */
		r.state = states[s];
		r.seq = 5;
		KUNIT_EXPECT_EQ(test, smbdx_push_rgn_ack(&r, 5),
				revoking ? SMBDX_PUSHMSG_OK : SMBDX_PUSHMSG_E_SEQ);
		KUNIT_EXPECT_EQ(test, r.state, revoking ? SMBDX_PUSH_RS_REVOKED :
				states[s]);
		/* ack, another number */
		r.state = states[s];
		KUNIT_EXPECT_EQ(test, smbdx_push_rgn_ack(&r, 6), SMBDX_PUSHMSG_E_SEQ);
		KUNIT_EXPECT_EQ(test, r.state, states[s]);
		/* commit */
		r.state = states[s];
		KUNIT_EXPECT_EQ(test, smbdx_push_rgn_commit(&r),
				states[s] == SMBDX_PUSH_RS_REVOKED ?
				SMBDX_PUSH_ST_REVOKED : SMBDX_PUSH_ST_OK);
	}
}

/* The requester's target: every state and in-flight count against every event. */
static void push_target_states(struct kunit *test)
{
	static const enum smbdx_push_tstate states[] = {
		SMBDX_PUSH_TS_ATTACHED, SMBDX_PUSH_TS_REVOKING,
		SMBDX_PUSH_TS_REVOKED,
	};
	struct smbdx_push_tgt t;
	u32 s, inflight;

	for (s = 0; s < ARRAY_SIZE(states); s++) {
		bool attached = states[s] == SMBDX_PUSH_TS_ATTACHED;

		for (inflight = 0; inflight <= 3; inflight++) {
			bool last;

			/* begin */
			t = (struct smbdx_push_tgt){ states[s], inflight, 4 };
			KUNIT_EXPECT_EQ(test, smbdx_push_tgt_begin(&t),
					attached ? 0 : -EKEYREVOKED);
			KUNIT_EXPECT_EQ(test, t.inflight,
					inflight + (attached ? 1 : 0));
			KUNIT_EXPECT_EQ(test, t.state, states[s]);
			/* end */
			t = (struct smbdx_push_tgt){ states[s], inflight, 4 };
			last = states[s] == SMBDX_PUSH_TS_REVOKING && inflight <= 1;
			KUNIT_EXPECT_EQ_MSG(test, smbdx_push_tgt_end(&t), last,
					    "state %u inflight %u", s, inflight);
			KUNIT_EXPECT_EQ(test, t.inflight, inflight ? inflight - 1 : 0);
			KUNIT_EXPECT_EQ(test, t.state, last ? SMBDX_PUSH_TS_REVOKED :
					states[s]);
			/* revoke request */
			t = (struct smbdx_push_tgt){ states[s], inflight, 4 };
			if (!attached) {
				KUNIT_EXPECT_EQ(test, smbdx_push_tgt_revoke(&t, 8),
						SMBDX_PUSH_ACK_DUP);
				KUNIT_EXPECT_EQ(test, t.state, states[s]);
				KUNIT_EXPECT_EQ(test, t.seq, 4);
				continue;
			}
			KUNIT_EXPECT_EQ(test, smbdx_push_tgt_revoke(&t, 8),
					inflight ? SMBDX_PUSH_ACK_LATER :
						   SMBDX_PUSH_ACK_NOW);
			KUNIT_EXPECT_EQ(test, t.state, inflight ?
					SMBDX_PUSH_TS_REVOKING :
					SMBDX_PUSH_TS_REVOKED);
			KUNIT_EXPECT_EQ(test, t.seq, 8);
		}
	}
}

/* A whole revoke: operations in flight, the request, the last one acks. */
static void push_revoke_sequence(struct kunit *test)
{
	struct smbdx_push_rgn r = { SMBDX_PUSH_RS_ACTIVE, 0 };
	struct smbdx_push_tgt t = { SMBDX_PUSH_TS_ATTACHED, 0, 0 };
	struct smbdx_push_tx otx;	/* the owner's revoke requests */
	struct smbdx_push_rx trx;	/* the requester's view of them */
	u32 seq;

	smbdx_push_tx_init(&otx, SMBDX_PUSH_MAX_REGIONS);
	smbdx_push_rx_init(&trx, SMBDX_PUSH_MAX_REGIONS);
	KUNIT_ASSERT_EQ(test, smbdx_push_tgt_begin(&t), 0);
	KUNIT_ASSERT_EQ(test, smbdx_push_tgt_begin(&t), 0);
	/* The owner asks. */
	KUNIT_ASSERT_EQ(test, smbdx_push_tx_begin(&otx, &seq), 0);
	KUNIT_ASSERT_EQ(test, smbdx_push_rgn_revoke(&r, seq), 0);
	/* Commits sent before the request still get served. */
	KUNIT_EXPECT_EQ(test, smbdx_push_rgn_commit(&r), SMBDX_PUSH_ST_OK);
	/* The requester receives it with two operations in flight. */
	KUNIT_ASSERT_EQ(test, smbdx_push_rx_request(&trx, seq), SMBDX_PUSHMSG_OK);
	KUNIT_EXPECT_EQ(test, smbdx_push_tgt_revoke(&t, seq), SMBDX_PUSH_ACK_LATER);
	KUNIT_EXPECT_EQ(test, smbdx_push_tgt_begin(&t), -EKEYREVOKED);
	KUNIT_EXPECT_FALSE(test, smbdx_push_tgt_end(&t));
	KUNIT_EXPECT_TRUE(test, smbdx_push_tgt_end(&t));
	KUNIT_EXPECT_EQ(test, t.seq, seq);
	/* The ack goes out, the owner takes it. */
	smbdx_push_rx_answered(&trx);
	KUNIT_EXPECT_EQ(test, smbdx_push_rgn_ack(&r, t.seq), SMBDX_PUSHMSG_OK);
	smbdx_push_tx_end(&otx);
	KUNIT_EXPECT_EQ(test, otx.open, 0);
	KUNIT_EXPECT_EQ(test, trx.open, 0);
	/* After it, a commit is refused and a second ack is an error. */
	KUNIT_EXPECT_EQ(test, smbdx_push_rgn_commit(&r), SMBDX_PUSH_ST_REVOKED);
	KUNIT_EXPECT_EQ(test, smbdx_push_rgn_ack(&r, seq), SMBDX_PUSHMSG_E_SEQ);
	KUNIT_EXPECT_EQ(test, smbdx_push_tgt_begin(&t), -EKEYREVOKED);
	KUNIT_EXPECT_EQ(test, smbdx_push_tgt_revoke(&t, seq + 1),
			SMBDX_PUSH_ACK_DUP);
}

static struct kunit_case pushmsg_cases[] = {
	KUNIT_CASE(pushmsg_layout),
	KUNIT_CASE_PARAM(pushmsg_vectors, vec_gen_params),
	KUNIT_CASE(pushmsg_bad_lengths),
	KUNIT_CASE_PARAM(pushmsg_bad_fields, bad_gen_params),
	KUNIT_CASE(pushmsg_flag_bits),
	KUNIT_CASE(pushmsg_commit_flag_combos),
	KUNIT_CASE(pushmsg_byte_mutations),
	KUNIT_CASE(pushmsg_random_bodies),
	KUNIT_CASE(pushmsg_frame),
	KUNIT_CASE_PARAM(push_range_vectors, range_gen_params),
	KUNIT_CASE(push_range_exhaustive),
	KUNIT_CASE_PARAM(push_commit_vectors, commit_gen_params),
	KUNIT_CASE(push_commit_atomic_exhaustive),
	KUNIT_CASE(push_commit_access_exhaustive),
	KUNIT_CASE(push_status_errno),
	KUNIT_CASE_PARAM(push_negotiate_vectors, nego_gen_params),
	KUNIT_CASE(push_tx_numbering),
	KUNIT_CASE(push_rx_limit),
	KUNIT_CASE(push_numbering_in_step),
	KUNIT_CASE(push_region_states),
	KUNIT_CASE(push_target_states),
	KUNIT_CASE(push_revoke_sequence),
	{}
};

static struct kunit_suite pushmsg_suite = {
	.name = "smbdirect_pushmsg",
	.test_cases = pushmsg_cases,
};

kunit_test_suite(pushmsg_suite);

MODULE_DESCRIPTION("KUnit tests for push mode's control messages and engine");
MODULE_LICENSE("GPL");
