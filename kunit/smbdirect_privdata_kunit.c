// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: capabilities in RDMA CM private data (smbdirect/privdata.c).
 * The blob's layout and identifier; the encoder byte for byte, with its
 * size limit; the parser on hand vectors (DIGEST 3.4's, carried over to
 * our identifier: after an IRD/ORD header, unaligned, truncated, unknown
 * version, reserved bits, foreign blobs); DIGEST 3.4's own vectors through
 * the generic scanner with RFC 8797's identifier; DIGEST 3.5's IRD/ORD
 * vectors and what may be sent where (never the blob on iWARP, the 56- and
 * 196-octet IB limits); random round trips and random builds; and a fuzzed
 * parser: every length from 0 to 512, the identifier at every offset
 * (including one that ends at the last byte), random bytes with planted
 * identifier prefixes and decoys around it, fixed seeds.
 *
 * Pure: no device, no sleeping other than allocation. Every input the
 * parser sees is either a kmalloc'ed buffer of exactly its length (KASAN
 * reports a read one byte too far on the debug kernel) or placed at the
 * very end of a vmalloc'ed page (the guard page faults on any kernel).
 */

#include <kunit/test.h>
#include <smbdirect/ns.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include <linux/vmalloc.h>

#include <smbdirect/pdu.h>
#include "privdata.h"

MODULE_IMPORT_NS(SMBDX_NS_NAME(EXPORTED_FOR_KUNIT_TESTING));

KUNIT_DEFINE_ACTION_WRAPPER(pd_vfree, vfree, const void *);

#define RFC8797_ID	0xf6ab0e18
#define FUZZ_MAX	SMBDX_PD_MPA_MAX

static const u8 id_bytes[4] = { 0x25, 0x09, 0xc3, 0x90 };

/* A page whose end is followed by the vmalloc guard page. */
static u8 *guard_page(struct kunit *test)
{
	u8 *page = vmalloc(PAGE_SIZE);

	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, pd_vfree, page));
	return page;
}

/* @len bytes of @src at the page's end. */
static u8 *at_page_end(u8 *page, const void *src, u32 len)
{
	u8 *p = page + PAGE_SIZE - len;

	memcpy(p, src, len);
	return p;
}

static u32 rnd(struct rnd_state *rs, u32 n)
{
	return n ? prandom_u32_state(rs) % n : 0;
}

/* ---- layout and identifier ---------------------------------------------- */

static void privdata_layout(struct kunit *test)
{
	u8 b[4];
	u32 k;

	KUNIT_EXPECT_EQ(test, sizeof(struct smbdx_caps_v1), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_caps_v1, version), 4);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_caps_v1, flags), 5);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_caps_v1, push_ird), 6);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_caps_v1, reserved), 7);
	KUNIT_EXPECT_EQ(test, SMBDX_CAPS_KNOWN, 0x07);
	KUNIT_EXPECT_EQ(test, SMBDX_PD_IB_REQ_MAX, 56);
	KUNIT_EXPECT_EQ(test, SMBDX_PD_IB_REP_MAX, 196);
	/* An IRD/ORD header and the blob fit in a connect request. */
	KUNIT_EXPECT_LE(test, SMBDX_IRD_ORD_LEN + SMBDX_CAPS_V1_LEN,
			SMBDX_PD_IB_REQ_MAX);

	/* The properties design.rst gives for the identifier's choice. */
	put_unaligned_be32(SMBDX_CAPS_ID, b);
	KUNIT_EXPECT_MEMEQ(test, b, id_bytes, 4);
	KUNIT_EXPECT_NE(test, SMBDX_CAPS_ID, RFC8797_ID);
	for (k = 0; k < 4; k++) {
		/* No 00 (zero fill, IRD/ORD high octets), no ff (erased). */
		KUNIT_EXPECT_NE(test, b[k], 0x00);
		KUNIT_EXPECT_NE(test, b[k], 0xff);
	}
	/* No border: two occurrences can never overlap. */
	for (k = 1; k < 4; k++)
		KUNIT_EXPECT_NE_MSG(test, memcmp(b, b + k, 4 - k), 0,
				    "shift %u", k);
}

/* ---- encoder --------------------------------------------------------- */

struct enc_case {
	const char *name;
	u8 flags;
	u8 push_ird;
	u8 want[8];
};

static const struct enc_case enc_cases[] = {
	{ "all three, 16", 0x07, 16, { 0x25, 0x09, 0xc3, 0x90, 1, 0x07, 16, 0 } },
	{ "flush global, 4", SMBDX_CAP_FLUSH_GLOBAL, 4,
	  { 0x25, 0x09, 0xc3, 0x90, 1, 0x01, 4, 0 } },
	{ "flush persistent, 1", SMBDX_CAP_FLUSH_PERSISTENT, 1,
	  { 0x25, 0x09, 0xc3, 0x90, 1, 0x02, 1, 0 } },
	{ "atomic write, 255", SMBDX_CAP_ATOMIC_WRITE, 255,
	  { 0x25, 0x09, 0xc3, 0x90, 1, 0x04, 255, 0 } },
	{ "reserved bits not sent", 0xff, 128,
	  { 0x25, 0x09, 0xc3, 0x90, 1, 0x07, 128, 0 } },
	{ "only reserved bits: nothing, 0 resources", 0xf8, 9,
	  { 0x25, 0x09, 0xc3, 0x90, 1, 0, 0, 0 } },
	{ "none", 0, 0, { 0x25, 0x09, 0xc3, 0x90, 1, 0, 0, 0 } },
	{ "resources without a flag: 0", 0, 200,
	  { 0x25, 0x09, 0xc3, 0x90, 1, 0, 0, 0 } },
};

KUNIT_ARRAY_PARAM_DESC(enc, enc_cases, name);

static void privdata_encode_vectors(struct kunit *test)
{
	const struct enc_case *c = test->param_value;
	struct smbdx_caps caps = { .flags = c->flags, .push_ird = c->push_ird };
	u8 *page = guard_page(test);
	u8 *p = page + PAGE_SIZE - SMBDX_CAPS_V1_LEN;
	struct smbdx_caps back;
	u32 off;

	memset(p, 0xa5, SMBDX_CAPS_V1_LEN);
	KUNIT_ASSERT_EQ(test, smbdx_caps_encode(&caps, p, SMBDX_CAPS_V1_LEN),
			SMBDX_CAPS_V1_LEN);
	KUNIT_EXPECT_MEMEQ(test, p, c->want, SMBDX_CAPS_V1_LEN);
	/* And back. */
	KUNIT_EXPECT_EQ(test, smbdx_caps_parse(p, SMBDX_CAPS_V1_LEN, &back,
					       &off), SMBDX_PD_FOUND);
	KUNIT_EXPECT_EQ(test, off, 0);
	KUNIT_EXPECT_EQ(test, back.flags, c->want[5]);
	KUNIT_EXPECT_EQ(test, back.push_ird, c->want[6]);
}

static void privdata_encode_size(struct kunit *test)
{
	struct smbdx_caps caps = { .flags = 0x07, .push_ird = 16 };
	u8 *page = guard_page(test);
	u8 buf[64], canary[64];
	u32 size;

	memset(canary, 0x5a, sizeof(canary));
	for (size = 0; size < SMBDX_CAPS_V1_LEN; size++) {
		u8 *p = page + PAGE_SIZE - size;

		memset(p, 0x5a, size);
		KUNIT_EXPECT_EQ_MSG(test, smbdx_caps_encode(&caps, p, size),
				    -ENOSPC, "size %u", size);
		KUNIT_EXPECT_MEMEQ(test, p, canary, size);
	}
	/* A larger buffer: 8 octets written, nothing after them. */
	memset(buf, 0x5a, sizeof(buf));
	KUNIT_EXPECT_EQ(test, smbdx_caps_encode(&caps, buf + 3, 50), 8);
	KUNIT_EXPECT_MEMEQ(test, buf, canary, 3);
	KUNIT_EXPECT_MEMEQ(test, buf + 11, canary, sizeof(buf) - 11);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(buf + 3), SMBDX_CAPS_ID);
}

/* ---- parser on hand vectors --------------------------------------------- */

struct parse_case {
	const char *name;
	u32 len;
	u8 pd[SMBDX_PD_IB_REP_MAX];
	enum smbdx_pd_result want;
	u32 off;
	u8 flags;
	u8 push_ird;
};

static const struct parse_case parse_cases[] = {
	/* DIGEST 3.4's vectors, with our identifier. */
	{ "v1, all flags", 8, { 0x25, 0x09, 0xc3, 0x90, 1, 0x07, 16, 0 },
	  SMBDX_PD_FOUND, 0, 0x07, 16 },
	{ "v1, flush global only", 8, { 0x25, 0x09, 0xc3, 0x90, 1, 0x01, 4, 0 },
	  SMBDX_PD_FOUND, 0, 0x01, 4 },
	{ "after a big-endian IRD/ORD header", 16,
	  { 0, 0, 0, 0x10, 0, 0, 0, 0x10, 0x25, 0x09, 0xc3, 0x90, 1, 0x03, 8, 0 },
	  SMBDX_PD_FOUND, 8, 0x03, 8 },
	{ "after a little-endian IRD/ORD header", 16,
	  { 0x10, 0, 0, 0, 0x10, 0, 0, 0, 0x25, 0x09, 0xc3, 0x90, 1, 0x04, 2, 0 },
	  SMBDX_PD_FOUND, 8, 0x04, 2 },
	{ "unaligned, ends at the last byte", 9,
	  { 0xaa, 0x25, 0x09, 0xc3, 0x90, 1, 0x01, 1, 0 },
	  SMBDX_PD_FOUND, 1, 0x01, 1 },
	{ "unaligned, offset 3", 13,
	  { 1, 2, 3, 0x25, 0x09, 0xc3, 0x90, 1, 0x02, 7, 0, 9, 9 },
	  SMBDX_PD_FOUND, 3, 0x02, 7 },
	{ "truncated to 6", 6, { 0x25, 0x09, 0xc3, 0x90, 1, 0x07 },
	  SMBDX_PD_TRUNCATED, 0 },
	{ "truncated to 7", 7, { 0x25, 0x09, 0xc3, 0x90, 1, 0x07, 16 },
	  SMBDX_PD_TRUNCATED, 0 },
	{ "identifier alone", 4, { 0x25, 0x09, 0xc3, 0x90 }, SMBDX_PD_TRUNCATED, 0 },
	{ "identifier ends at the last byte", 8,
	  { 0, 0, 0, 0, 0x25, 0x09, 0xc3, 0x90 },
	  SMBDX_PD_TRUNCATED, 4 },
	{ "blob one byte short after IRD/ORD", 15,
	  { 0, 0, 0, 0x10, 0, 0, 0, 0x10, 0x25, 0x09, 0xc3, 0x90, 1, 0x07, 16 },
	  SMBDX_PD_TRUNCATED, 8 },
	{ "version 2", 8, { 0x25, 0x09, 0xc3, 0x90, 2, 0x07, 16, 0 },
	  SMBDX_PD_BAD_VERSION, 0 },
	{ "version 0", 8, { 0x25, 0x09, 0xc3, 0x90, 0, 0x07, 16, 0 },
	  SMBDX_PD_BAD_VERSION, 0 },
	{ "version 255", 8, { 0x25, 0x09, 0xc3, 0x90, 255, 0x07, 16, 0 },
	  SMBDX_PD_BAD_VERSION, 0 },
	/* Reserved bits and octet: ignored (P4). */
	{ "flags 0xff", 8, { 0x25, 0x09, 0xc3, 0x90, 1, 0xff, 32, 0xff },
	  SMBDX_PD_FOUND, 0, 0x07, 32 },
	{ "only reserved flags", 8, { 0x25, 0x09, 0xc3, 0x90, 1, 0xf8, 32, 0 },
	  SMBDX_PD_FOUND, 0, 0, 0 },
	{ "resources without a flag", 8, { 0x25, 0x09, 0xc3, 0x90, 1, 0, 200, 0 },
	  SMBDX_PD_FOUND, 0, 0, 0 },
	/* More than one occurrence. */
	{ "later version first, then v1", 20,
	  { 0x25, 0x09, 0xc3, 0x90, 2, 0x07, 16, 0, 1, 2, 3, 4,
	    0x25, 0x09, 0xc3, 0x90, 1, 0x05, 3, 0 },
	  SMBDX_PD_FOUND, 12, 0x05, 3 },
	{ "v1 first, then a later version", 20,
	  { 0x25, 0x09, 0xc3, 0x90, 1, 0x01, 5, 0,
	    0x25, 0x09, 0xc3, 0x90, 2, 0x07, 16, 0, 0, 0, 0, 0 },
	  SMBDX_PD_FOUND, 0, 0x01, 5 },
	{ "bad version, then truncated: first reason", 13,
	  { 0x25, 0x09, 0xc3, 0x90, 3, 0, 0, 0, 0x25, 0x09, 0xc3, 0x90, 1 },
	  SMBDX_PD_BAD_VERSION, 0 },
	{ "truncated identifier after a bad version", 11,
	  { 0x25, 0x09, 0xc3, 0x90, 3, 0, 0, 0, 0x25, 0x09, 0xc3 },
	  SMBDX_PD_BAD_VERSION, 0 },
	/* Absent. */
	{ "empty", 0, {}, SMBDX_PD_ABSENT, 0 },
	{ "three bytes of the identifier", 3, { 0x25, 0x09, 0xc3 },
	  SMBDX_PD_ABSENT, 0 },
	{ "prefix at the end", 8, { 0, 0, 0, 0, 0, 0x25, 0x09, 0xc3 },
	  SMBDX_PD_ABSENT, 0 },
	{ "byte-swapped identifier", 8, { 0x90, 0xc3, 0x09, 0x25, 1, 7, 16, 0 },
	  SMBDX_PD_ABSENT, 0 },
	{ "IRD/ORD header alone", 8, { 0, 0, 0, 0x10, 0, 0, 0, 0x10 },
	  SMBDX_PD_ABSENT, 0 },
	{ "RFC 8797 blob", 8, { 0xf6, 0xab, 0x0e, 0x18, 1, 1, 3, 3 },
	  SMBDX_PD_ABSENT, 0 },
	{ "RFC 8797 blob, then ours", 16,
	  { 0xf6, 0xab, 0x0e, 0x18, 1, 1, 3, 3,
	    0x25, 0x09, 0xc3, 0x90, 1, 0x07, 64, 0 },
	  SMBDX_PD_FOUND, 8, 0x07, 64 },
	{ "56 zero octets (an IB request without ours)", 56, {},
	  SMBDX_PD_ABSENT, 0 },
	/* Whole IB areas as the CM reports them, zero-filled. */
	{ "IB request area", 56, { 0x25, 0x09, 0xc3, 0x90, 1, 0x07, 16, 0 },
	  SMBDX_PD_FOUND, 0, 0x07, 16 },
	{ "IB accept area, after IRD/ORD", 196,
	  { 0, 0, 0, 0x10, 0, 0, 0, 0x10, 0x25, 0x09, 0xc3, 0x90, 1, 0x06, 12, 0 },
	  SMBDX_PD_FOUND, 8, 0x06, 12 },
	{ "IB accept area, at its last 8 octets", 196,
	  { [188] = 0x25, 0x09, 0xc3, 0x90, 1, 0x01, 2, 0 },
	  SMBDX_PD_FOUND, 188, 0x01, 2 },
	{ "IB accept area, identifier at its last 4", 196,
	  { [192] = 0x25, 0x09, 0xc3, 0x90 }, SMBDX_PD_TRUNCATED, 192 },
};

KUNIT_ARRAY_PARAM_DESC(parse, parse_cases, name);

static void privdata_parse_vectors(struct kunit *test)
{
	const struct parse_case *c = test->param_value;
	u8 *p = at_page_end(guard_page(test), c->pd, c->len);
	struct smbdx_caps caps = { .flags = 0xee, .push_ird = 0xee };
	u32 off = 0xdead;

	KUNIT_EXPECT_EQ(test, smbdx_caps_parse(p, c->len, &caps, &off),
			c->want);
	KUNIT_EXPECT_EQ(test, off, c->off);
	KUNIT_EXPECT_EQ(test, caps.flags, c->flags);
	KUNIT_EXPECT_EQ(test, caps.push_ird, c->push_ird);
	/* Same answer without an offset, and none without data. */
	KUNIT_EXPECT_EQ(test, smbdx_caps_parse(p, c->len, &caps, NULL),
			c->want);
	KUNIT_EXPECT_EQ(test, smbdx_caps_parse(NULL, c->len, &caps, &off),
			SMBDX_PD_ABSENT);
	KUNIT_EXPECT_EQ(test, off, 0);
	KUNIT_EXPECT_EQ(test, caps.flags, 0);
	KUNIT_EXPECT_EQ(test, caps.push_ird, 0);
}

/*
 * DIGEST 3.4's vectors as written, RFC 8797's own format, through the
 * generic scanner; the fields are decoded here with RFC 8797's formula to
 * show each vector says what DIGEST says. (Its encoder edge cases are
 * about the Send/Receive Size fields, which our blob does not have: SMB
 * Direct negotiates sizes in band, DIGEST 3.5.)
 */
struct rfc_case {
	const char *name;
	u32 len;
	u8 pd[16];
	enum smbdx_pd_result want;
	u32 off;
	bool r;
	u32 send, recv;
};

static const struct rfc_case rfc_cases[] = {
	{ "R=1 4096/4096", 8, { 0xf6, 0xab, 0x0e, 0x18, 1, 1, 3, 3 },
	  SMBDX_PD_FOUND, 0, true, 4096, 4096 },
	{ "R=0 262144/1024", 8, { 0xf6, 0xab, 0x0e, 0x18, 1, 0, 0xff, 0 },
	  SMBDX_PD_FOUND, 0, false, 262144, 1024 },
	{ "after IRD/ORD, 8192/8192", 16,
	  { 0, 0, 0, 0x10, 0, 0, 0, 0x10, 0xf6, 0xab, 0x0e, 0x18, 1, 0, 7, 7 },
	  SMBDX_PD_FOUND, 8, false, 8192, 8192 },
	{ "unaligned at 1", 9, { 0xaa, 0xf6, 0xab, 0x0e, 0x18, 1, 1, 0, 0 },
	  SMBDX_PD_FOUND, 1, true, 1024, 1024 },
	{ "truncated: defaults", 6, { 0xf6, 0xab, 0x0e, 0x18, 1, 1 },
	  SMBDX_PD_TRUNCATED, 0, false, 1024, 1024 },
	{ "unknown version: defaults", 8, { 0xf6, 0xab, 0x0e, 0x18, 2, 1, 3, 3 },
	  SMBDX_PD_BAD_VERSION, 0, false, 1024, 1024 },
};

KUNIT_ARRAY_PARAM_DESC(rfc, rfc_cases, name);

static void privdata_rfc8797_vectors(struct kunit *test)
{
	const struct rfc_case *c = test->param_value;
	u8 *p = at_page_end(guard_page(test), c->pd, c->len);
	enum smbdx_pd_result r;
	struct smbdx_caps caps;
	bool rbit = false;
	u32 send = 1024, recv = 1024;
	u32 off;

	r = smbdx_pd_find(p, c->len, RFC8797_ID, 1, 8, &off);
	KUNIT_EXPECT_EQ(test, r, c->want);
	KUNIT_EXPECT_EQ(test, off, c->off);
	if (r == SMBDX_PD_FOUND) {
		rbit = p[off + 5] & 0x01;
		send = (p[off + 6] + 1) << 10;
		recv = (p[off + 7] + 1) << 10;
	}
	KUNIT_EXPECT_EQ(test, rbit, c->r);
	KUNIT_EXPECT_EQ(test, send, c->send);
	KUNIT_EXPECT_EQ(test, recv, c->recv);
	/* Foreign content: no capabilities of ours. */
	KUNIT_EXPECT_EQ(test, smbdx_caps_parse(p, c->len, &caps, NULL),
			SMBDX_PD_ABSENT);
}

static void privdata_find_args(struct kunit *test)
{
	static const u8 v[8] = { 0x25, 0x09, 0xc3, 0x90, 1, 0, 0, 0 };
	u32 off = 7;

	/* A blob shorter than identifier + version finds nothing. */
	KUNIT_EXPECT_EQ(test, smbdx_pd_find(v, 8, SMBDX_CAPS_ID, 1, 4, &off),
			SMBDX_PD_ABSENT);
	KUNIT_EXPECT_EQ(test, off, 0);
	KUNIT_EXPECT_EQ(test, smbdx_pd_find(v, 8, SMBDX_CAPS_ID, 1, 5, &off),
			SMBDX_PD_FOUND);
	KUNIT_EXPECT_EQ(test, smbdx_pd_find(v, 8, SMBDX_CAPS_ID, 1, 8, NULL),
			SMBDX_PD_FOUND);
	KUNIT_EXPECT_EQ(test, smbdx_pd_find(v, 8, SMBDX_CAPS_ID, 1, 9, &off),
			SMBDX_PD_TRUNCATED);
	/* Huge blob lengths do not wrap. */
	KUNIT_EXPECT_EQ(test, smbdx_pd_find(v, 8, SMBDX_CAPS_ID, 1, U32_MAX,
					    &off), SMBDX_PD_TRUNCATED);
	KUNIT_EXPECT_EQ(test, smbdx_pd_find(v, 8, SMBDX_CAPS_ID, 2, 8, &off),
			SMBDX_PD_BAD_VERSION);
}

/* ---- what is sent where (DIGEST 3.5) ------------------------------------ */

static void privdata_ird_ord_vectors(struct kunit *test)
{
	static const u8 be16[8] = { 0, 0, 0, 0x10, 0, 0, 0, 0x10 };
	static const u8 le16[8] = { 0x10, 0, 0, 0, 0x10, 0, 0, 0 };
	static const u8 ours[8] = { 0x25, 0x09, 0xc3, 0x90, 1, 0x07, 16, 0 };
	struct smbdx_ird_ord v = { .ird = 16, .ord = 16 };
	struct smbdx_caps caps = { .flags = 0x07, .push_ird = 16 };
	struct smbdx_ird_ord cm, peer, local = { 32, 32 }, out;
	struct smbdx_caps got;
	u8 buf[SMBDX_PD_MPA_MAX];
	u32 off;

	/* iWARP: exactly the 8-octet header, whatever the room and caps. */
	memset(buf, 0xa5, sizeof(buf));
	KUNIT_EXPECT_EQ(test, smbdx_privdata_build(true, false, &v, &caps, buf,
						   SMBDX_PD_MPA_MAX), 8);
	KUNIT_EXPECT_MEMEQ(test, buf, be16, 8);
	KUNIT_EXPECT_EQ(test, buf[8], 0xa5);
	KUNIT_EXPECT_EQ(test, smbdx_privdata_build(true, false, &v, &caps, buf,
						   SMBDX_PD_IB_REQ_MAX), 8);
	KUNIT_EXPECT_EQ(test, smbdx_privdata_build(true, false, NULL, &caps, buf,
						   SMBDX_PD_MPA_MAX), 0);
	/*
	 * iWARP by agreement (cm_caps_iwarp, or a request that carried a
	 * blob): the blob after the header, 16 octets, which no reader takes
	 * for an IRD/ORD header; never the blob alone, which every reader
	 * would.
	 */
	memset(buf, 0xa5, sizeof(buf));
	KUNIT_EXPECT_EQ(test, smbdx_privdata_build(true, true, &v, &caps, buf,
						   SMBDX_PD_MPA_MAX), 16);
	KUNIT_EXPECT_MEMEQ(test, buf, be16, 8);
	KUNIT_EXPECT_MEMEQ(test, buf + 8, ours, 8);
	KUNIT_EXPECT_EQ(test, buf[16], 0xa5);
	cm = v;
	KUNIT_EXPECT_EQ(test, smbdx_ird_ord_parse(true, buf, 16, &cm, &peer),
			SMBDX_IRD_ORD_ABSENT);
	KUNIT_EXPECT_EQ(test, smbdx_caps_parse(buf, 16, &got, &off),
			SMBDX_PD_FOUND);
	KUNIT_EXPECT_EQ(test, off, 8U);
	KUNIT_EXPECT_EQ(test, smbdx_privdata_build(true, true, NULL, &caps, buf,
						   SMBDX_PD_MPA_MAX), 0);
	KUNIT_EXPECT_EQ(test, smbdx_privdata_build(true, true, &v, &caps, buf,
						   15), 8);
	/* ... which Linux's legacy detection still sees: MPA v2 match ... */
	cm = v;
	KUNIT_EXPECT_EQ(test, smbdx_ird_ord_parse(true, buf, 8, &cm, &peer),
			SMBDX_IRD_ORD_MATCH);
	/* ... or a legacy peer's 16/16. */
	cm.ird = 4;
	cm.ord = 4;
	KUNIT_EXPECT_EQ(test, smbdx_ird_ord_parse(true, buf, 8, &cm, &peer),
			SMBDX_IRD_ORD_LEGACY);
	KUNIT_EXPECT_EQ(test, peer.ird, 16);
	KUNIT_EXPECT_EQ(test, peer.ord, 16);
	KUNIT_EXPECT_EQ(test, smbdx_caps_parse(buf, 8, &got, NULL),
			SMBDX_PD_ABSENT);

	/* Little-endian legacy header (old cifs.ko): 0x10000000 repaired. */
	KUNIT_EXPECT_EQ(test, smbdx_ird_ord_parse(true, le16, 8, &cm, &peer),
			SMBDX_IRD_ORD_LEGACY);
	KUNIT_EXPECT_EQ(test, peer.ird, 16);
	KUNIT_EXPECT_EQ(test, peer.ord, 16);
	KUNIT_EXPECT_EQ(test, smbdx_ird_ord_negotiate(&local, &peer, &out),
			SMBDX_OK);
	KUNIT_EXPECT_EQ(test, out.ird, 16);
	KUNIT_EXPECT_EQ(test, out.ord, 16);

	/*
	 * Why never on iWARP: the header with the blob after it is 16 octets,
	 * and a peer that looks for exactly 8 no longer sees the header.
	 */
	memcpy(buf, be16, 8);
	memcpy(buf + 8, ours, 8);
	KUNIT_EXPECT_EQ(test, smbdx_ird_ord_parse(true, buf, 16, &cm, &peer),
			SMBDX_IRD_ORD_ABSENT);
	KUNIT_EXPECT_EQ(test, peer.ird, 4);
	KUNIT_EXPECT_EQ(test, smbdx_caps_parse(buf, 16, &got, &off),
			SMBDX_PD_FOUND);
	KUNIT_EXPECT_EQ(test, off, 8);

	/* IB/RoCE: the blob alone, or after a header a caller put first. */
	memset(buf, 0, sizeof(buf));
	KUNIT_EXPECT_EQ(test, smbdx_privdata_build(false, false, NULL, &caps, buf,
						   SMBDX_PD_IB_REQ_MAX), 8);
	KUNIT_EXPECT_MEMEQ(test, buf, ours, 8);
	/* The CM reports the whole zero-filled area. */
	KUNIT_EXPECT_EQ(test, smbdx_caps_parse(buf, SMBDX_PD_IB_REQ_MAX, &got,
					       &off), SMBDX_PD_FOUND);
	KUNIT_EXPECT_EQ(test, off, 0);
	KUNIT_EXPECT_EQ(test, got.flags, 0x07);
	KUNIT_EXPECT_EQ(test, got.push_ird, 16);
	KUNIT_EXPECT_EQ(test, smbdx_ird_ord_parse(false, buf,
						  SMBDX_PD_IB_REQ_MAX, &cm,
						  &peer), SMBDX_IRD_ORD_ABSENT);

	memset(buf, 0, sizeof(buf));
	KUNIT_EXPECT_EQ(test, smbdx_privdata_build(false, false, &v, &caps, buf,
						   SMBDX_PD_IB_REP_MAX), 16);
	KUNIT_EXPECT_MEMEQ(test, buf, be16, 8);
	KUNIT_EXPECT_MEMEQ(test, buf + 8, ours, 8);
	KUNIT_EXPECT_EQ(test, smbdx_caps_parse(buf, SMBDX_PD_IB_REP_MAX, &got,
					       &off), SMBDX_PD_FOUND);
	KUNIT_EXPECT_EQ(test, off, 8);

	/* Room: the blob is left out, never an error; the header is not. */
	memset(buf, 0xa5, sizeof(buf));
	KUNIT_EXPECT_EQ(test, smbdx_privdata_build(false, false, &v, &caps, buf, 15),
			8);
	KUNIT_EXPECT_EQ(test, buf[8], 0xa5);
	KUNIT_EXPECT_EQ(test, smbdx_privdata_build(false, false, &v, &caps, buf, 16),
			16);
	KUNIT_EXPECT_EQ(test, smbdx_privdata_build(false, false, NULL, &caps, buf, 7),
			0);
	memset(buf, 0xa5, sizeof(buf));
	KUNIT_EXPECT_EQ(test, smbdx_privdata_build(false, false, &v, &caps, buf, 7),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, smbdx_privdata_build(true, false, &v, NULL, buf, 0),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, buf[0], 0xa5);
	KUNIT_EXPECT_EQ(test, smbdx_privdata_build(false, false, NULL, NULL, buf, 56),
			0);
}

/* Random builds: the length rule, nothing written past it or the size. */
static void privdata_build_random(struct kunit *test)
{
	u8 *page = guard_page(test);
	struct rnd_state rs;
	int i;

	prandom_seed_state(&rs, 0x8797c4b5);
	for (i = 0; i < 20000; i++) {
		u32 size = rnd(&rs, SMBDX_PD_MPA_MAX + 1);
		bool iwarp = rnd(&rs, 2), iwarp_ok = rnd(&rs, 2);
		bool has_io = rnd(&rs, 2), has_caps = rnd(&rs, 2);
		struct smbdx_ird_ord v = { prandom_u32_state(&rs),
					   prandom_u32_state(&rs) };
		struct smbdx_caps caps = { rnd(&rs, 256), rnd(&rs, 256) };
		struct smbdx_caps got;
		u8 *p = page + PAGE_SIZE - size;
		int want = 0, n;
		u32 off, k, hdr = has_io ? SMBDX_IRD_ORD_LEN : 0;
		bool sent;

		/*
		 * The header must fit; the blob goes off iWARP, or on iWARP by
		 * agreement after a header, if it fits.
		 */
		sent = has_caps && (!iwarp || (iwarp_ok && has_io)) &&
		       size >= hdr + SMBDX_CAPS_V1_LEN;
		if (size < hdr)
			want = -ENOSPC;
		else
			want = hdr + (sent ? SMBDX_CAPS_V1_LEN : 0);
		memset(page, 0xa5, PAGE_SIZE);
		n = smbdx_privdata_build(iwarp, iwarp_ok, has_io ? &v : NULL,
					 has_caps ? &caps : NULL, p, size);
		KUNIT_ASSERT_EQ_MSG(test, n, want, "case %d size %u", i, size);
		for (k = n > 0 ? n : 0; k < size; k++)
			KUNIT_ASSERT_EQ_MSG(test, p[k], 0xa5, "case %d", i);
		if (n < 0)
			continue;
		if (has_io) {
			KUNIT_ASSERT_EQ(test, get_unaligned_be32(p), v.ird);
			KUNIT_ASSERT_EQ(test, get_unaligned_be32(p + 4), v.ord);
		}
		KUNIT_ASSERT_EQ_MSG(test, smbdx_caps_parse(p, n, &got, &off),
				    sent ? SMBDX_PD_FOUND : SMBDX_PD_ABSENT,
				    "case %d", i);
		if (sent) {
			KUNIT_ASSERT_EQ(test, off, hdr);
			KUNIT_ASSERT_EQ(test, got.flags,
					caps.flags & SMBDX_CAPS_KNOWN);
			KUNIT_ASSERT_EQ(test, got.push_ird,
					got.flags ? caps.push_ird : 0);
		}
	}
}

/* ---- fuzzed parser ------------------------------------------------------ */

/* Random bytes, with prefixes of the identifier strewn about. */
static void fill(struct rnd_state *rs, u8 *b, u32 len)
{
	u32 n, k, at, plen;

	prandom_bytes_state(rs, b, len);
	n = len ? rnd(rs, 4) : 0;
	for (k = 0; k < n; k++) {
		plen = 1 + rnd(rs, 3);
		at = rnd(rs, len);
		memcpy(b + at, id_bytes, min(plen, len - at));
	}
}

/*
 * Break every whole identifier in @b by flipping its last octet's low bit.
 * The identifier has no border, so this cannot make a new one.
 */
static void scrub(u8 *b, u32 len)
{
	u32 w;

	for (w = 0; w + 4 <= len; w++)
		if (b[w] == id_bytes[0] && !memcmp(b + w, id_bytes, 4))
			b[w + 3] ^= 0x01;
}

/* What the parser must answer for a candidate at @o in @b. */
static enum smbdx_pd_result expect_at(const u8 *b, u32 len, u32 o)
{
	if (len - o < 5)
		return SMBDX_PD_TRUNCATED;
	if (b[o + 4] != SMBDX_CAPS_VERSION_1)
		return SMBDX_PD_BAD_VERSION;
	if (len - o < SMBDX_CAPS_V1_LEN)
		return SMBDX_PD_TRUNCATED;
	return SMBDX_PD_FOUND;
}

static void check_parse(struct kunit *test, u8 *page, const u8 *b, u32 len,
			enum smbdx_pd_result want, u32 want_off)
{
	struct smbdx_caps caps;
	u8 flags = 0, ird = 0;
	u32 off;

	if (want == SMBDX_PD_FOUND) {
		flags = b[want_off + 5] & SMBDX_CAPS_KNOWN;
		ird = flags ? b[want_off + 6] : 0;
	}
	KUNIT_ASSERT_EQ_MSG(test, smbdx_caps_parse(b, len, &caps, &off), want,
			    "len %u at %u", len, want_off);
	KUNIT_ASSERT_EQ_MSG(test, off, want_off, "len %u", len);
	KUNIT_ASSERT_EQ(test, caps.flags, flags);
	KUNIT_ASSERT_EQ(test, caps.push_ird, ird);
	/* The same bytes ending at the guard page. */
	KUNIT_ASSERT_EQ_MSG(test, smbdx_caps_parse(at_page_end(page, b, len),
						   len, &caps, &off), want,
			    "page end, len %u at %u", len, want_off);
	KUNIT_ASSERT_EQ(test, off, want_off);
}

static void privdata_fuzz(struct kunit *test)
{
	u8 *page = guard_page(test);
	u8 *orig = kunit_kmalloc(test, FUZZ_MAX, GFP_KERNEL);
	struct rnd_state rs;
	u32 len, o;

	KUNIT_ASSERT_NOT_NULL(test, orig);
	prandom_seed_state(&rs, 0xc0ffee30);
	for (len = 0; len <= FUZZ_MAX; len++) {
		/* Exactly @len bytes: KASAN sees a read one byte too far. */
		u8 *b = kunit_kmalloc(test, len, GFP_KERNEL);

		KUNIT_ASSERT_FALSE(test, ZERO_OR_NULL_PTR(b) && len);
		KUNIT_ASSERT_NOT_NULL(test, b);

		/* No identifier at all. */
		fill(&rs, b, len);
		scrub(b, len);
		check_parse(test, page, b, len, SMBDX_PD_ABSENT, 0);

		/* The identifier at every offset, the last one included. */
		for (o = 0; o + 4 <= len; o++) {
			enum smbdx_pd_result want;
			u32 want_off = o;

			/* Fresh random bytes every 16 offsets. */
			if (!(o % 16)) {
				fill(&rs, orig, len);
				scrub(orig, len);
			}
			memcpy(b, orig, len);
			memcpy(b + o, id_bytes, 4);
			if (o + 4 < len)
				b[o + 4] = rnd(&rs, 8) ? SMBDX_CAPS_VERSION_1 :
					   prandom_u32_state(&rs);
			want = expect_at(b, len, o);
			/*
			 * Sometimes a decoy of another version before it:
			 * skipped when the planted one is valid, its reason
			 * reported when not.
			 */
			if (o >= 5 && !rnd(&rs, 4)) {
				u32 d = rnd(&rs, o - 4);

				memcpy(b + d, id_bytes, 4);
				b[d + 4] = 2 + rnd(&rs, 254);
				if (want != SMBDX_PD_FOUND) {
					want = SMBDX_PD_BAD_VERSION;
					want_off = d;
				}
			}
			check_parse(test, page, b, len, want, want_off);
		}
		kunit_kfree(test, b);
	}
}

/* Random capabilities anywhere in random private data come back intact. */
static void privdata_round_trip(struct kunit *test)
{
	u8 *page = guard_page(test);
	u8 buf[SMBDX_PD_IB_REP_MAX];
	struct rnd_state rs;
	int i;

	prandom_seed_state(&rs, 0x2509c390);
	for (i = 0; i < 20000; i++) {
		u32 len = SMBDX_CAPS_V1_LEN + rnd(&rs, sizeof(buf) - 7);
		u32 o = rnd(&rs, len - SMBDX_CAPS_V1_LEN + 1);
		struct smbdx_caps in = { rnd(&rs, 256), rnd(&rs, 256) }, out;
		u8 flags = in.flags & SMBDX_CAPS_KNOWN;
		u32 off;

		fill(&rs, buf, len);
		scrub(buf, len);
		KUNIT_ASSERT_EQ(test, smbdx_caps_encode(&in, buf + o, len - o),
				SMBDX_CAPS_V1_LEN);
		KUNIT_ASSERT_EQ_MSG(test,
				    smbdx_caps_parse(at_page_end(page, buf, len),
						     len, &out, &off),
				    SMBDX_PD_FOUND, "case %d", i);
		KUNIT_ASSERT_EQ(test, off, o);
		KUNIT_ASSERT_EQ(test, out.flags, flags);
		KUNIT_ASSERT_EQ(test, out.push_ird, flags ? in.push_ird : 0);
	}
}

static struct kunit_case privdata_cases[] = {
	KUNIT_CASE(privdata_layout),
	KUNIT_CASE_PARAM(privdata_encode_vectors, enc_gen_params),
	KUNIT_CASE(privdata_encode_size),
	KUNIT_CASE_PARAM(privdata_parse_vectors, parse_gen_params),
	KUNIT_CASE_PARAM(privdata_rfc8797_vectors, rfc_gen_params),
	KUNIT_CASE(privdata_find_args),
	KUNIT_CASE(privdata_ird_ord_vectors),
	KUNIT_CASE(privdata_build_random),
	KUNIT_CASE(privdata_fuzz),
	KUNIT_CASE(privdata_round_trip),
	{}
};

static struct kunit_suite privdata_suite = {
	.name = "smbdirect_privdata",
	.test_cases = privdata_cases,
};

kunit_test_suite(privdata_suite);

MODULE_DESCRIPTION("KUnit tests for capabilities in RDMA CM private data");
MODULE_LICENSE("GPL");
