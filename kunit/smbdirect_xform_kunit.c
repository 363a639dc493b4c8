// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the MS-SMB2 RDMA transform's codec (smbdirect/xform.c,
 * Documentation/rdma-transform.rst).
 *
 * The wire layouts (MS-SMB2 2.2.3.1.6, 2.2.43, 2.2.43.1) and constants;
 * the SMB2_RDMA_TRANSFORM_CAPABILITIES data both ways on hand vectors,
 * every short length, a zero count, unknown, repeated and NONE IDs, and
 * the client's check of a response against an independent model over
 * every combination of offered sets and short responses; the Signature
 * and Nonce lengths of every cipher and signing algorithm; the channel
 * information both ways on hand vectors written byte by byte (the sizes
 * Microsoft's test suite expects from a Windows server among them), every
 * encoder refusal with nothing written, every decoder verdict on crafted
 * input (short header, zero and huge counts, truncated and oversized
 * Signature and Nonce, unknown and repeated types, inner channels,
 * descriptor offsets and lengths that are empty, partial, misaligned,
 * overlapping, past the end or overflowing), every prefix of valid
 * encodings, random mutations of valid encodings, random round trips;
 * the policy check against an independent model over the whole matrix;
 * and the NTSTATUS of every verdict.
 *
 * Pure: no device. Every input a decoder sees lies at the very end of a
 * vmalloc'ed page, so a read one octet too far faults on any kernel;
 * every encoder writes into a buffer of exactly the size it may use, at
 * the end of such a page. Random cases use fixed seeds.
 */

#include <kunit/test.h>
#include <linux/bitops.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include <linux/vmalloc.h>

#include <smbdirect/smbdirect.h>
#include <smbdirect/xform.h>

MODULE_IMPORT_NS(SMBDX_NS);

KUNIT_DEFINE_ACTION_WRAPPER(xf_vfree, vfree, const void *);

#define CAPS_IDS_MAX	3
#define FUZZ_ROUNDS	4000
#define TRIP_ROUNDS	2000

/* A page whose end is followed by the vmalloc guard page. */
static u8 *guard_page(struct kunit *test)
{
	u8 *page = vmalloc(PAGE_SIZE);

	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, xf_vfree, page));
	return page;
}

/* @len octets of @src (NULL: leave the content) at the page's end. */
static u8 *at_end(u8 *page, const void *src, u32 len)
{
	u8 *p = page + PAGE_SIZE - len;

	if (src)
		memcpy(p, src, len);
	return p;
}

static u32 rnd(struct rnd_state *rs, u32 n)
{
	return n ? prandom_u32_state(rs) % n : 0;
}

/* ---- layouts and constants ------------------------------------------- */

static void xform_layout(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct smbdx_xf_caps_wire), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_xf_caps_wire, reserved1), 2);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_xf_caps_wire, reserved2), 4);

	KUNIT_EXPECT_EQ(test, sizeof(struct smbdx_xf_hdr_wire), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_xf_hdr_wire, desc_length), 2);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_xf_hdr_wire, channel), 4);
	KUNIT_EXPECT_EQ(test,
			offsetof(struct smbdx_xf_hdr_wire, transform_count), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_xf_hdr_wire, reserved1), 10);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_xf_hdr_wire, reserved2), 12);

	KUNIT_EXPECT_EQ(test, sizeof(struct smbdx_xf_crypto_wire), 8);
	KUNIT_EXPECT_EQ(test,
			offsetof(struct smbdx_xf_crypto_wire, signature_length),
			2);
	KUNIT_EXPECT_EQ(test,
			offsetof(struct smbdx_xf_crypto_wire, nonce_length), 4);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_xf_crypto_wire, reserved), 6);

	/* The numbers of 2.2.3.1, 2.2.3.1.6, 2.2.19-2.2.21, 2.2.43.1. */
	KUNIT_EXPECT_EQ(test, SMBDX_XF_CTX_TYPE, 7);
	KUNIT_EXPECT_EQ(test, SMBDX_XF_ID_NONE, 0);
	KUNIT_EXPECT_EQ(test, SMBDX_XF_ID_ENCRYPTION, 1);
	KUNIT_EXPECT_EQ(test, SMBDX_XF_ID_SIGNING, 2);
	KUNIT_EXPECT_EQ(test, SMBDX_XF_TYPE_ENCRYPTION, 1);
	KUNIT_EXPECT_EQ(test, SMBDX_XF_TYPE_SIGNING, 2);
	KUNIT_EXPECT_EQ(test, SMBDX_XF_CHANNEL_TRANSFORM, 3);
	KUNIT_EXPECT_EQ(test, SMBDX_XF_READ_RSP_FLAG, 1);
	/* Bit (ID - 1): the mask and the IDs agree. */
	KUNIT_EXPECT_EQ(test, SMBDX_XF_ENCRYPTION,
			BIT(SMBDX_XF_ID_ENCRYPTION - 1));
	KUNIT_EXPECT_EQ(test, SMBDX_XF_SIGNING, BIT(SMBDX_XF_ID_SIGNING - 1));
	KUNIT_EXPECT_EQ(test, SMBDX_XF_STATUS_AUTH_TAG_MISMATCH, 0xc000a002);
	KUNIT_EXPECT_EQ(test, SMBDX_XF_STATUS_INVALID_SIGNATURE, 0xc000a000);
	KUNIT_EXPECT_EQ(test, SMBDX_XF_STATUS_INVALID_PARAMETER, 0xc000000d);
	KUNIT_EXPECT_EQ(test, SMBDX_XF_MAX_DESCS * SMBDX_BUFFER_DESC_V1_LEN,
			65520);
}

/* ---- negotiate context data: encoder --------------------------------- */

static void xform_caps_encode(struct kunit *test)
{
	static const u8 enc[] = { 1, 0, 0, 0, 0, 0, 0, 0, 1, 0 };
	static const u8 sign[] = { 1, 0, 0, 0, 0, 0, 0, 0, 2, 0 };
	static const u8 both[] = { 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2, 0 };
	static const struct { u8 ids; const u8 *want; u32 len; } v[] = {
		{ SMBDX_XF_ENCRYPTION, enc, sizeof(enc) },
		{ SMBDX_XF_SIGNING, sign, sizeof(sign) },
		{ SMBDX_XF_KNOWN, both, sizeof(both) },
	};
	static const u8 bad[] = { 0, 4, 5, 0x80, 0xff };
	u8 *page = guard_page(test);
	u8 canary[16];
	u32 i, size;

	memset(canary, 0x5a, sizeof(canary));
	for (i = 0; i < ARRAY_SIZE(v); i++) {
		u8 *p = at_end(page, NULL, v[i].len);

		memset(p, 0xa5, v[i].len);
		KUNIT_ASSERT_EQ_MSG(test, smbdx_xf_caps_encode(v[i].ids, p,
							       v[i].len),
				    (int)v[i].len, "ids %#x", v[i].ids);
		KUNIT_EXPECT_MEMEQ(test, p, v[i].want, v[i].len);
		for (size = 0; size < v[i].len; size++) {
			p = at_end(page, canary, size);
			KUNIT_EXPECT_EQ_MSG(test,
					    smbdx_xf_caps_encode(v[i].ids, p,
								 size),
					    -ENOSPC, "ids %#x size %u",
					    v[i].ids, size);
			KUNIT_EXPECT_MEMEQ(test, p, canary, size);
		}
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		u8 *p = at_end(page, canary, 16);

		KUNIT_EXPECT_EQ_MSG(test, smbdx_xf_caps_encode(bad[i], p, 16),
				    -EINVAL, "ids %#x", bad[i]);
		KUNIT_EXPECT_MEMEQ(test, p, canary, 16);
	}
}

/* ---- negotiate context data: decoder ----------------------------------- */

struct caps_case {
	const char *name;
	u32 len;
	u8 data[24];
	enum smbdx_xf_verdict want;
	u8 ids;
	bool none;
	u16 count;
	u16 unknown;
	u16 dups;
};

static const struct caps_case caps_cases[] = {
	{ "empty", 0, {}, SMBDX_XF_SHORT },
	{ "count only", 2, { 1, 0 }, SMBDX_XF_SHORT },
	{ "fixed part less one", 7, { 1, 0, 0, 0, 0, 0, 0 }, SMBDX_XF_SHORT },
	{ "DataLength 2 (the test suite's case)", 2, { 2, 0, 0, 0 },
	  SMBDX_XF_SHORT },
	{ "count 0", 8, {}, SMBDX_XF_NO_TRANSFORM },
	{ "count 0 with IDs after it", 12, { 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2 },
	  SMBDX_XF_NO_TRANSFORM },
	{ "count 1, no ID", 8, { 1 }, SMBDX_XF_SHORT },
	{ "count 1, half an ID", 9, { 1, 0, 0, 0, 0, 0, 0, 0, 1 },
	  SMBDX_XF_SHORT },
	{ "count 2, one ID and a half", 11,
	  { 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2 }, SMBDX_XF_SHORT },
	{ "count 0xffff", 12, { 0xff, 0xff, 0, 0, 0, 0, 0, 0, 1, 0, 2, 0 },
	  SMBDX_XF_SHORT },
	{ "encryption", 10, { 1, 0, 0, 0, 0, 0, 0, 0, 1, 0 }, SMBDX_XF_OK,
	  SMBDX_XF_ENCRYPTION, false, 1 },
	{ "signing", 10, { 1, 0, 0, 0, 0, 0, 0, 0, 2, 0 }, SMBDX_XF_OK,
	  SMBDX_XF_SIGNING, false, 1 },
	{ "both", 12, { 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2, 0 }, SMBDX_XF_OK,
	  SMBDX_XF_KNOWN, false, 2 },
	{ "both, reversed", 12, { 2, 0, 0, 0, 0, 0, 0, 0, 2, 0, 1, 0 },
	  SMBDX_XF_OK, SMBDX_XF_KNOWN, false, 2 },
	{ "reserved fields set: ignored", 10,
	  { 1, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0 }, SMBDX_XF_OK,
	  SMBDX_XF_SIGNING, false, 1 },
	{ "octets after the IDs: ignored", 16,
	  { 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee },
	  SMBDX_XF_OK, SMBDX_XF_ENCRYPTION, false, 1 },
	{ "NONE", 10, { 1, 0, 0, 0, 0, 0, 0, 0, 0, 0 }, SMBDX_XF_OK, 0, true,
	  1 },
	{ "NONE and signing", 12, { 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0 },
	  SMBDX_XF_OK, SMBDX_XF_SIGNING, true, 2 },
	{ "unknown IDs only", 12, { 2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0xff, 0xff },
	  SMBDX_XF_OK, 0, false, 2, 2 },
	{ "unknown beside known (high octet set)", 14,
	  { 3, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x01, 2, 0, 0x02, 0x80 },
	  SMBDX_XF_OK, SMBDX_XF_SIGNING, false, 3, 2 },
	{ "repeated ID", 14, { 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0 },
	  SMBDX_XF_OK, SMBDX_XF_ENCRYPTION, false, 3, 0, 2 },
	{ "repeated NONE", 12, { 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	  SMBDX_XF_OK, 0, true, 2, 0, 1 },
};

KUNIT_ARRAY_PARAM_DESC(caps, caps_cases, name);

static void xform_caps_decode(struct kunit *test)
{
	const struct caps_case *c = test->param_value;
	u8 *page = guard_page(test);
	struct smbdx_xf_caps got;
	u8 *p = at_end(page, c->data, c->len);

	memset(&got, 0xa5, sizeof(got));
	KUNIT_ASSERT_EQ(test, smbdx_xf_caps_decode(p, c->len, &got), c->want);
	KUNIT_EXPECT_EQ(test, got.ids, c->ids);
	KUNIT_EXPECT_EQ(test, got.none, c->none);
	KUNIT_EXPECT_EQ(test, got.count, c->count);
	KUNIT_EXPECT_EQ(test, got.unknown, c->unknown);
	KUNIT_EXPECT_EQ(test, got.dups, c->dups);
}

static void xform_caps_decode_null(struct kunit *test)
{
	struct smbdx_xf_caps got;

	memset(&got, 0xa5, sizeof(got));
	KUNIT_EXPECT_EQ(test, smbdx_xf_caps_decode(NULL, 100, &got),
			SMBDX_XF_SHORT);
	KUNIT_EXPECT_EQ(test, got.ids, 0);
	KUNIT_EXPECT_EQ(test, got.count, 0);
}

/* Every count against every length: short exactly when the IDs overrun. */
static void xform_caps_decode_lengths(struct kunit *test)
{
	u8 *page = guard_page(test);
	u8 data[2 * 40 + 8];
	struct smbdx_xf_caps got;
	u32 count, len, i;

	for (count = 0; count <= 40; count++) {
		memset(data, 0, sizeof(data));
		put_unaligned_le16(count, data);
		for (i = 0; i < count; i++)
			put_unaligned_le16(1 + i % 2, data + 8 + 2 * i);
		for (len = 0; len <= sizeof(data); len++) {
			enum smbdx_xf_verdict want;

			if (len < 8)
				want = SMBDX_XF_SHORT;
			else if (!count)
				want = SMBDX_XF_NO_TRANSFORM;
			else if (len < 8 + 2 * count)
				want = SMBDX_XF_SHORT;
			else
				want = SMBDX_XF_OK;
			KUNIT_EXPECT_EQ_MSG(test,
					    smbdx_xf_caps_decode(at_end(page,
									data,
									len),
								 len, &got),
					    want, "count %u len %u", count,
					    len);
			if (want == SMBDX_XF_OK) {
				KUNIT_EXPECT_EQ(test, got.count, count);
				KUNIT_EXPECT_EQ(test, got.ids,
						count > 1 ? SMBDX_XF_KNOWN :
						SMBDX_XF_ENCRYPTION);
				KUNIT_EXPECT_EQ(test, got.dups,
						count > 2 ? count - 2 : 0);
			}
		}
	}
}

/* ---- the client's check of the response ---------------------------------- */

/* The model: 3.2.5.2's two rules, written separately from the codec. */
static enum smbdx_xf_verdict model_check_response(const u16 *ids, u32 n,
						  u8 offered, u8 *agreed)
{
	u32 i;
	u8 got = 0;

	*agreed = 0;
	if (!n)
		return SMBDX_XF_NO_TRANSFORM;
	if (n > hweight8(offered))
		return SMBDX_XF_BAD_ID;
	for (i = 0; i < n; i++) {
		if (ids[i] == SMBDX_XF_ID_ENCRYPTION &&
		    (offered & SMBDX_XF_ENCRYPTION))
			got |= SMBDX_XF_ENCRYPTION;
		else if (ids[i] == SMBDX_XF_ID_SIGNING &&
			 (offered & SMBDX_XF_SIGNING))
			got |= SMBDX_XF_SIGNING;
		else
			return SMBDX_XF_BAD_ID;
	}
	*agreed = got;
	return SMBDX_XF_OK;
}

static void xform_caps_check_response(struct kunit *test)
{
	static const u16 pool[] = { 0, 1, 2, 3, 0x100, 0xffff };
	const u32 np = ARRAY_SIZE(pool);
	u8 *page = guard_page(test);
	u8 data[8 + 2 * CAPS_IDS_MAX];
	u32 offered, n, combo, combos, i, cases = 0;

	for (offered = 1; offered <= SMBDX_XF_KNOWN; offered++) {
		for (n = 0; n <= CAPS_IDS_MAX; n++) {
			combos = 1;
			for (i = 0; i < n; i++)
				combos *= np;
			for (combo = 0; combo < combos; combo++) {
				u16 ids[CAPS_IDS_MAX];
				u32 k = combo, len = 8 + 2 * n;
				enum smbdx_xf_verdict want, got;
				u8 w_agreed, g_agreed = 0xa5;

				memset(data, 0, sizeof(data));
				put_unaligned_le16(n, data);
				for (i = 0; i < n; i++) {
					ids[i] = pool[k % np];
					k /= np;
					put_unaligned_le16(ids[i],
							   data + 8 + 2 * i);
				}
				want = model_check_response(ids, n, offered,
							    &w_agreed);
				got = smbdx_xf_caps_check_response(at_end(page,
									  data,
									  len),
								   len,
								   offered,
								   &g_agreed);
				KUNIT_EXPECT_EQ_MSG(test, got, want,
						    "offered %#x n %u combo %u",
						    offered, n, combo);
				KUNIT_EXPECT_EQ_MSG(test, g_agreed, w_agreed,
						    "offered %#x n %u combo %u",
						    offered, n, combo);
				cases++;
			}
		}
	}
	KUNIT_EXPECT_EQ(test, cases, 3 * (1 + 6 + 36 + 216));
}

static void xform_caps_check_response_short(struct kunit *test)
{
	static const u8 both[] = { 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2, 0 };
	u8 *page = guard_page(test);
	u8 agreed;
	u32 len;

	for (len = 0; len < sizeof(both); len++) {
		agreed = 0xa5;
		KUNIT_EXPECT_EQ_MSG(test,
				    smbdx_xf_caps_check_response(at_end(page,
									both,
									len),
								 len,
								 SMBDX_XF_KNOWN,
								 &agreed),
				    SMBDX_XF_SHORT, "len %u", len);
		KUNIT_EXPECT_EQ(test, agreed, 0);
	}
	/* Unknown bits of the offered set are not offers. */
	KUNIT_EXPECT_EQ(test,
			smbdx_xf_caps_check_response(at_end(page, both, 12),
						     12, 0xff, &agreed),
			SMBDX_XF_OK);
	KUNIT_EXPECT_EQ(test, agreed, SMBDX_XF_KNOWN);
	KUNIT_EXPECT_EQ(test,
			smbdx_xf_caps_check_response(at_end(page, both, 12),
						     12, 0xfd, &agreed),
			SMBDX_XF_BAD_ID);
}

/* ---- Signature and Nonce lengths ---------------------------------------- */

static void xform_lengths(struct kunit *test)
{
	static const struct {
		u16 type, alg;
		int rc;
		u8 sig, nonce;
	} v[] = {
		{ SMBDX_XF_TYPE_ENCRYPTION, SMBDX_XF_AES128_CCM, 0, 16, 11 },
		{ SMBDX_XF_TYPE_ENCRYPTION, SMBDX_XF_AES128_GCM, 0, 16, 12 },
		{ SMBDX_XF_TYPE_ENCRYPTION, SMBDX_XF_AES256_CCM, 0, 16, 11 },
		{ SMBDX_XF_TYPE_ENCRYPTION, SMBDX_XF_AES256_GCM, 0, 16, 12 },
		{ SMBDX_XF_TYPE_ENCRYPTION, 0, -EOPNOTSUPP },
		{ SMBDX_XF_TYPE_ENCRYPTION, 5, -EOPNOTSUPP },
		{ SMBDX_XF_TYPE_ENCRYPTION, 0xffff, -EOPNOTSUPP },
		{ SMBDX_XF_TYPE_SIGNING, SMBDX_XF_HMAC_SHA256, -EOPNOTSUPP },
		{ SMBDX_XF_TYPE_SIGNING, SMBDX_XF_AES_CMAC, 0, 16, 0 },
		{ SMBDX_XF_TYPE_SIGNING, SMBDX_XF_AES_GMAC, 0, 16, 12 },
		{ SMBDX_XF_TYPE_SIGNING, 3, -EOPNOTSUPP },
		{ SMBDX_XF_TYPE_SIGNING, 0xffff, -EOPNOTSUPP },
		{ 0, SMBDX_XF_AES_CMAC, -EINVAL },
		{ 3, SMBDX_XF_AES128_CCM, -EINVAL },
		{ 0xffff, SMBDX_XF_AES128_GCM, -EINVAL },
	};
	u32 i;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		u8 sig = 0xa5, nonce = 0xa5;

		KUNIT_EXPECT_EQ_MSG(test, smbdx_xf_lengths(v[i].type, v[i].alg,
							   &sig, &nonce),
				    v[i].rc, "case %u", i);
		KUNIT_EXPECT_EQ_MSG(test, sig, v[i].sig, "case %u", i);
		KUNIT_EXPECT_EQ_MSG(test, nonce, v[i].nonce, "case %u", i);
	}
}

static void xform_crypto_prepare(struct kunit *test)
{
	static const u8 zero[SMBDX_XF_NONCE_MAX];
	struct smbdx_xf_crypto a, b;

	KUNIT_ASSERT_EQ(test, smbdx_xf_crypto_prepare(&a,
						      SMBDX_XF_TYPE_ENCRYPTION,
						      SMBDX_XF_AES128_CCM), 0);
	KUNIT_EXPECT_EQ(test, a.type, SMBDX_XF_TYPE_ENCRYPTION);
	KUNIT_EXPECT_EQ(test, a.sig_len, 16);
	KUNIT_EXPECT_EQ(test, a.nonce_len, 11);
	KUNIT_EXPECT_MEMEQ(test, a.sig, zero, SMBDX_XF_SIG_MAX);
	KUNIT_EXPECT_MEMEQ(test, a.nonce + 11, zero, SMBDX_XF_NONCE_MAX - 11);
	KUNIT_ASSERT_EQ(test, smbdx_xf_crypto_prepare(&b,
						      SMBDX_XF_TYPE_ENCRYPTION,
						      SMBDX_XF_AES128_CCM), 0);
	/* 88 random bits twice alike: 2^-88. */
	KUNIT_EXPECT_MEMNEQ(test, a.nonce, b.nonce, 11);

	KUNIT_ASSERT_EQ(test, smbdx_xf_crypto_prepare(&a,
						      SMBDX_XF_TYPE_ENCRYPTION,
						      SMBDX_XF_AES256_GCM), 0);
	KUNIT_EXPECT_EQ(test, a.nonce_len, 12);
	KUNIT_EXPECT_MEMEQ(test, a.nonce + 12, zero, SMBDX_XF_NONCE_MAX - 12);

	KUNIT_ASSERT_EQ(test, smbdx_xf_crypto_prepare(&a, SMBDX_XF_TYPE_SIGNING,
						      SMBDX_XF_AES_CMAC), 0);
	KUNIT_EXPECT_EQ(test, a.type, SMBDX_XF_TYPE_SIGNING);
	KUNIT_EXPECT_EQ(test, a.sig_len, 16);
	KUNIT_EXPECT_EQ(test, a.nonce_len, 0);
	KUNIT_EXPECT_MEMEQ(test, a.nonce, zero, SMBDX_XF_NONCE_MAX);

	/* GMAC (nonce rule open), HMAC-SHA256, unknown: refused, all zero. */
	memset(&a, 0xa5, sizeof(a));
	KUNIT_EXPECT_EQ(test, smbdx_xf_crypto_prepare(&a, SMBDX_XF_TYPE_SIGNING,
						      SMBDX_XF_AES_GMAC),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, a.type, 0);
	KUNIT_EXPECT_EQ(test, a.nonce_len, 0);
	KUNIT_EXPECT_EQ(test, smbdx_xf_crypto_prepare(&a, SMBDX_XF_TYPE_SIGNING,
						      SMBDX_XF_HMAC_SHA256),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, smbdx_xf_crypto_prepare(&a,
						      SMBDX_XF_TYPE_ENCRYPTION,
						      9), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, smbdx_xf_crypto_prepare(&a, 0,
						      SMBDX_XF_AES_CMAC),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, a.sig_len, 0);
}

/* ---- channel information: hand vectors ----------------------------------- */

static const struct smbdx_buffer_desc_v1 desc_a = {
	.offset = cpu_to_le64(0x1122334455667788ULL),
	.token = cpu_to_le32(0xdeadbeef),
	.length = cpu_to_le32(0x00100000),
};

static const struct smbdx_buffer_desc_v1 desc_b = {
	.offset = cpu_to_le64(0x0000000000001000ULL),
	.token = cpu_to_le32(0x00000042),
	.length = cpu_to_le32(0x00001000),
};

/* A WRITE signed with AES-CMAC, remote invalidation, one descriptor. */
static const u8 vec_write_cmac[56] = {
	0x28, 0x00, 0x10, 0x00,  0x02, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x00, 0x00,  0x00, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x10, 0x00,  0x00, 0x00, 0x00, 0x00,
	0xa0, 0xa1, 0xa2, 0xa3,  0xa4, 0xa5, 0xa6, 0xa7,
	0xa8, 0xa9, 0xaa, 0xab,  0xac, 0xad, 0xae, 0xaf,
	0x88, 0x77, 0x66, 0x55,  0x44, 0x33, 0x22, 0x11,
	0xef, 0xbe, 0xad, 0xde,  0x00, 0x00, 0x10, 0x00,
};

/* A READ response signed with AES-GMAC: no descriptors, padded to 56. */
static const u8 vec_read_gmac[56] = {
	0x00, 0x00, 0x00, 0x00,  0x00, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x00, 0x00,  0x00, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x10, 0x00,  0x0c, 0x00, 0x00, 0x00,
	0x10, 0x11, 0x12, 0x13,  0x14, 0x15, 0x16, 0x17,
	0x18, 0x19, 0x1a, 0x1b,  0x1c, 0x1d, 0x1e, 0x1f,
	0x20, 0x21, 0x22, 0x23,  0x24, 0x25, 0x26, 0x27,
	0x28, 0x29, 0x2a, 0x2b,  0x00, 0x00, 0x00, 0x00,
};

/* A WRITE encrypted with AES-CCM, two descriptors, 5 octets of padding. */
static const u8 vec_write_ccm[88] = {
	0x38, 0x00, 0x20, 0x00,  0x01, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x00, 0x00,  0x00, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x10, 0x00,  0x0b, 0x00, 0x00, 0x00,
	0x30, 0x31, 0x32, 0x33,  0x34, 0x35, 0x36, 0x37,
	0x38, 0x39, 0x3a, 0x3b,  0x3c, 0x3d, 0x3e, 0x3f,
	0x40, 0x41, 0x42, 0x43,  0x44, 0x45, 0x46, 0x47,
	0x48, 0x49, 0x4a, 0x00,  0x00, 0x00, 0x00, 0x00,
	0x88, 0x77, 0x66, 0x55,  0x44, 0x33, 0x22, 0x11,
	0xef, 0xbe, 0xad, 0xde,  0x00, 0x00, 0x10, 0x00,
	0x00, 0x10, 0x00, 0x00,  0x00, 0x00, 0x00, 0x00,
	0x42, 0x00, 0x00, 0x00,  0x00, 0x10, 0x00, 0x00,
};

/* A READ response signed with AES-CMAC: 40 octets. */
static const u8 vec_read_cmac[40] = {
	0x00, 0x00, 0x00, 0x00,  0x00, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x00, 0x00,  0x00, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x10, 0x00,  0x00, 0x00, 0x00, 0x00,
	0x50, 0x51, 0x52, 0x53,  0x54, 0x55, 0x56, 0x57,
	0x58, 0x59, 0x5a, 0x5b,  0x5c, 0x5d, 0x5e, 0x5f,
};

static void fill_seq(u8 *p, u32 n, u8 first)
{
	u32 i;

	for (i = 0; i < n; i++)
		p[i] = first + i;
}

struct vec {
	const char *name;
	const u8 *bytes;
	u32 len;
	u16 type;
	u8 sig_len, nonce_len, sig_first, nonce_first;
	u32 channel;
	const struct smbdx_buffer_desc_v1 *descs[2];
	u32 ndescs;
	u32 unpadded;	/* end of the crypto transform without padding */
};

static const struct vec vecs[] = {
	{ "write, AES-CMAC, 1 desc", vec_write_cmac, sizeof(vec_write_cmac),
	  SMBDX_XF_TYPE_SIGNING, 16, 0, 0xa0, 0, SMBDX_XF_CHANNEL_RDMA_V1_INV,
	  { &desc_a }, 1, 40 },
	{ "read rsp, AES-GMAC", vec_read_gmac, sizeof(vec_read_gmac),
	  SMBDX_XF_TYPE_SIGNING, 16, 12, 0x10, 0x20, SMBDX_XF_CHANNEL_NONE,
	  {}, 0, 52 },
	{ "write, AES-CCM, 2 descs", vec_write_ccm, sizeof(vec_write_ccm),
	  SMBDX_XF_TYPE_ENCRYPTION, 16, 11, 0x30, 0x40,
	  SMBDX_XF_CHANNEL_RDMA_V1, { &desc_a, &desc_b }, 2, 51 },
	{ "read rsp, AES-CMAC", vec_read_cmac, sizeof(vec_read_cmac),
	  SMBDX_XF_TYPE_SIGNING, 16, 0, 0x50, 0, SMBDX_XF_CHANNEL_NONE,
	  {}, 0, 40 },
};

KUNIT_ARRAY_PARAM_DESC(vec, vecs, name);

static void vec_crypto(const struct vec *v, struct smbdx_xf_crypto *cr)
{
	memset(cr, 0, sizeof(*cr));
	cr->type = v->type;
	cr->sig_len = v->sig_len;
	cr->nonce_len = v->nonce_len;
	fill_seq(cr->sig, v->sig_len, v->sig_first);
	fill_seq(cr->nonce, v->nonce_len, v->nonce_first);
}

static void vec_descs(const struct vec *v, struct smbdx_buffer_desc_v1 *d)
{
	u32 i;

	for (i = 0; i < v->ndescs; i++)
		d[i] = *v->descs[i];
}

static void xform_info_encode_vectors(struct kunit *test)
{
	const struct vec *v = test->param_value;
	struct smbdx_buffer_desc_v1 d[2];
	struct smbdx_xf_crypto cr;
	u8 *page = guard_page(test);
	u8 canary[128];
	u8 *p;
	u32 size;

	vec_crypto(v, &cr);
	vec_descs(v, d);
	KUNIT_EXPECT_EQ(test, smbdx_xf_info_len(v->sig_len, v->nonce_len,
						v->ndescs), v->len);
	p = at_end(page, NULL, v->len);
	memset(p, 0xa5, v->len);
	KUNIT_ASSERT_EQ(test, smbdx_xf_info_encode(&cr, v->channel,
						   v->ndescs ? d : NULL,
						   v->ndescs, p, v->len),
			(int)v->len);
	KUNIT_EXPECT_MEMEQ(test, p, v->bytes, v->len);

	/* Too small by any amount: -ENOSPC, nothing written. */
	memset(canary, 0x5a, sizeof(canary));
	for (size = 0; size < v->len; size++) {
		p = at_end(page, canary, size);
		KUNIT_EXPECT_EQ_MSG(test,
				    smbdx_xf_info_encode(&cr, v->channel,
							 v->ndescs ? d : NULL,
							 v->ndescs, p, size),
				    -ENOSPC, "size %u", size);
		KUNIT_EXPECT_MEMEQ(test, p, canary, size);
	}
}

static void xform_info_decode_vectors(struct kunit *test)
{
	const struct vec *v = test->param_value;
	struct smbdx_xf_crypto cr;
	struct smbdx_xf_info xi;
	u8 *page = guard_page(test);
	u8 *p = at_end(page, v->bytes, v->len);
	u32 len;

	vec_crypto(v, &cr);
	memset(&xi, 0xa5, sizeof(xi));
	KUNIT_ASSERT_EQ(test, smbdx_xf_info_decode(p, v->len, v->ndescs > 0,
						   &xi), SMBDX_XF_OK);
	KUNIT_EXPECT_EQ(test, xi.crypto.type, cr.type);
	KUNIT_EXPECT_EQ(test, xi.crypto.sig_len, cr.sig_len);
	KUNIT_EXPECT_EQ(test, xi.crypto.nonce_len, cr.nonce_len);
	KUNIT_EXPECT_MEMEQ(test, xi.crypto.sig, cr.sig, SMBDX_XF_SIG_MAX);
	KUNIT_EXPECT_MEMEQ(test, xi.crypto.nonce, cr.nonce, SMBDX_XF_NONCE_MAX);
	KUNIT_EXPECT_EQ(test, xi.channel, v->channel);
	KUNIT_EXPECT_EQ(test, xi.ndescs, v->ndescs);
	KUNIT_EXPECT_EQ(test, xi.len, ALIGN(v->unpadded, 8));
	if (v->ndescs) {
		KUNIT_EXPECT_EQ(test, xi.desc_off, ALIGN(v->unpadded, 8));
		KUNIT_EXPECT_EQ(test, xi.desc_len, 16 * v->ndescs);
		KUNIT_EXPECT_MEMEQ(test, p + xi.desc_off, v->descs[0], 16);
		if (v->ndescs > 1)
			KUNIT_EXPECT_MEMEQ(test, p + xi.desc_off + 16,
					   v->descs[1], 16);
	}

	/*
	 * Every prefix: a WRITE's needs all of it (the descriptors end it);
	 * a READ response's only loses the optional padding from its end.
	 */
	for (len = 0; len < v->len; len++) {
		enum smbdx_xf_verdict want = SMBDX_XF_SHORT, got;

		if (len >= 16 && v->ndescs && len >= v->unpadded)
			want = SMBDX_XF_BAD_DESC;
		if (!v->ndescs && len >= v->unpadded)
			want = SMBDX_XF_OK;
		got = smbdx_xf_info_decode(at_end(page, v->bytes, len), len,
					   v->ndescs > 0, &xi);
		KUNIT_EXPECT_EQ_MSG(test, got, want, "len %u", len);
		if (got == SMBDX_XF_OK)
			KUNIT_EXPECT_EQ(test, xi.len, v->unpadded);
		else
			KUNIT_EXPECT_EQ(test, xi.crypto.type, 0);
	}
	/* A READ response's layout as a WRITE's: no descriptors there. */
	if (!v->ndescs)
		KUNIT_EXPECT_EQ(test,
				smbdx_xf_info_decode(at_end(page, v->bytes,
							    v->len),
						     v->len, true, &xi),
				SMBDX_XF_BAD_CHANNEL);
}

static void xform_info_encode_refusals(struct kunit *test)
{
	struct smbdx_buffer_desc_v1 d[2] = { desc_a, desc_b };
	struct smbdx_xf_crypto cr, ok;
	u8 *page = guard_page(test);
	u8 canary[128];
	u8 *p;
	u32 i;
	static const struct {
		u16 type;
		u8 sig_len, nonce_len;
		u32 channel, ndescs;
		bool null_descs;
	} bad[] = {
		{ 0, 16, 0, SMBDX_XF_CHANNEL_NONE, 0 },
		{ 3, 16, 0, SMBDX_XF_CHANNEL_NONE, 0 },
		{ 0xffff, 16, 0, SMBDX_XF_CHANNEL_RDMA_V1, 1 },
		{ SMBDX_XF_TYPE_SIGNING, 17, 0, SMBDX_XF_CHANNEL_NONE, 0 },
		{ SMBDX_XF_TYPE_SIGNING, 255, 0, SMBDX_XF_CHANNEL_NONE, 0 },
		{ SMBDX_XF_TYPE_ENCRYPTION, 16, 17, SMBDX_XF_CHANNEL_NONE, 0 },
		{ SMBDX_XF_TYPE_ENCRYPTION, 16, 11, SMBDX_XF_CHANNEL_NONE, 1 },
		{ SMBDX_XF_TYPE_ENCRYPTION, 16, 11,
		  SMBDX_XF_CHANNEL_TRANSFORM, 1 },
		{ SMBDX_XF_TYPE_ENCRYPTION, 16, 11, 0x80000001, 1 },
		{ SMBDX_XF_TYPE_ENCRYPTION, 16, 11, SMBDX_XF_CHANNEL_RDMA_V1, 0 },
		{ SMBDX_XF_TYPE_ENCRYPTION, 16, 11,
		  SMBDX_XF_CHANNEL_RDMA_V1_INV, 0 },
		{ SMBDX_XF_TYPE_ENCRYPTION, 16, 11,
		  SMBDX_XF_CHANNEL_TRANSFORM, 0 },
		{ SMBDX_XF_TYPE_SIGNING, 16, 0, SMBDX_XF_CHANNEL_RDMA_V1, 1,
		  true },
		{ SMBDX_XF_TYPE_SIGNING, 16, 0, SMBDX_XF_CHANNEL_RDMA_V1,
		  SMBDX_XF_MAX_DESCS + 1 },
		{ SMBDX_XF_TYPE_SIGNING, 16, 0, SMBDX_XF_CHANNEL_RDMA_V1,
		  0xffffffff },
	};

	memset(canary, 0x5a, sizeof(canary));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		memset(&cr, 0, sizeof(cr));
		cr.type = bad[i].type;
		cr.sig_len = bad[i].sig_len;
		cr.nonce_len = bad[i].nonce_len;
		p = at_end(page, canary, sizeof(canary));
		KUNIT_EXPECT_EQ_MSG(test,
				    smbdx_xf_info_encode(&cr, bad[i].channel,
							 bad[i].null_descs ?
							 NULL : d,
							 bad[i].ndescs, p,
							 sizeof(canary)),
				    -EINVAL, "case %u", i);
		KUNIT_EXPECT_MEMEQ(test, p, canary, sizeof(canary));
	}

	/* The limits themselves are accepted. */
	memset(&ok, 0, sizeof(ok));
	ok.type = SMBDX_XF_TYPE_ENCRYPTION;
	ok.sig_len = SMBDX_XF_SIG_MAX;
	ok.nonce_len = SMBDX_XF_NONCE_MAX;
	p = at_end(page, NULL, 56);
	KUNIT_EXPECT_EQ(test, smbdx_xf_info_encode(&ok, SMBDX_XF_CHANNEL_NONE,
						   NULL, 0, p, 56), 56);
	/* A descriptor array of the largest size still fits the fields. */
	KUNIT_EXPECT_EQ(test, smbdx_xf_info_len(16, 16, SMBDX_XF_MAX_DESCS),
			16 + 40 + 65520);
	KUNIT_EXPECT_EQ(test, smbdx_xf_info_len(16, 16, 0xffffffff),
			16 + 40 + 65520);
}

static void xform_info_encode_max_descs(struct kunit *test)
{
	u32 n = SMBDX_XF_MAX_DESCS, len = smbdx_xf_info_len(16, 0, n), i;
	struct smbdx_buffer_desc_v1 *d;
	struct smbdx_xf_crypto cr;
	struct smbdx_xf_info xi;
	u8 *buf;

	d = kunit_kcalloc(test, n, sizeof(*d), GFP_KERNEL);
	buf = kunit_kmalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < n; i++)
		d[i].token = cpu_to_le32(i);
	KUNIT_ASSERT_EQ(test, smbdx_xf_crypto_prepare(&cr, SMBDX_XF_TYPE_SIGNING,
						      SMBDX_XF_AES_CMAC), 0);
	KUNIT_ASSERT_EQ(test, smbdx_xf_info_encode(&cr,
						   SMBDX_XF_CHANNEL_RDMA_V1,
						   d, n, buf, len), (int)len);
	KUNIT_EXPECT_EQ(test, get_unaligned_le16(buf + 2), 65520);
	KUNIT_ASSERT_EQ(test, smbdx_xf_info_decode(buf, len, true, &xi),
			SMBDX_XF_OK);
	KUNIT_EXPECT_EQ(test, xi.ndescs, n);
	KUNIT_EXPECT_EQ(test,
			get_unaligned_le32(buf + xi.desc_off + 16 * (n - 1) + 8),
			n - 1);
}

/* ---- channel information: crafted input --------------------------------- */

/*
 * Build a WRITE's channel information by hand: header fields, one crypto
 * transform of the given lengths at 16, descriptors wherever asked.
 */
struct craft {
	u16 desc_off, desc_len;
	u32 channel;
	u16 count;
	u16 type, sig_len, nonce_len;
};

static u32 craft(u8 *b, u32 size, const struct craft *c)
{
	u32 end = 16 + 8 + c->sig_len + c->nonce_len;

	memset(b, 0, size);
	put_unaligned_le16(c->desc_off, b);
	put_unaligned_le16(c->desc_len, b + 2);
	put_unaligned_le32(c->channel, b + 4);
	put_unaligned_le16(c->count, b + 8);
	if (size >= 24) {
		put_unaligned_le16(c->type, b + 16);
		put_unaligned_le16(c->sig_len, b + 18);
		put_unaligned_le16(c->nonce_len, b + 20);
	}
	return end;
}

struct crafted {
	const char *name;
	struct craft c;
	u32 len;		/* 0: the end of the descriptors */
	bool descs;
	enum smbdx_xf_verdict want;
};

#define WR(off, dlen, ch, cnt, ty, s, n) \
	{ off, dlen, ch, cnt, ty, s, n }
#define V1	SMBDX_XF_CHANNEL_RDMA_V1
#define V1I	SMBDX_XF_CHANNEL_RDMA_V1_INV
#define ENC	SMBDX_XF_TYPE_ENCRYPTION
#define SIG	SMBDX_XF_TYPE_SIGNING

static const struct crafted crafted[] = {
	{ "good: CMAC, desc right after", WR(40, 16, V1, 1, SIG, 16, 0), 0,
	  true, SMBDX_XF_OK },
	{ "good: CCM, desc after padding", WR(56, 16, V1I, 1, ENC, 16, 11), 0,
	  true, SMBDX_XF_OK },
	{ "good: gap before the descs", WR(64, 32, V1, 1, ENC, 16, 12), 0,
	  true, SMBDX_XF_OK },
	{ "good: zero-length signature", WR(24, 16, V1, 1, SIG, 0, 0), 0,
	  true, SMBDX_XF_OK },
	{ "count 0", WR(40, 16, V1, 0, SIG, 16, 0), 0, true,
	  SMBDX_XF_NO_TRANSFORM },
	{ "count 2, one present", WR(40, 16, V1, 2, SIG, 16, 0), 44, true,
	  SMBDX_XF_SHORT },
	{ "count 0xffff", WR(40, 16, V1, 0xffff, SIG, 16, 0), 44, true,
	  SMBDX_XF_SHORT },
	{ "count 2, zeros after the first", WR(40, 16, V1, 2, SIG, 16, 0), 56,
	  true, SMBDX_XF_BAD_TYPE },
	{ "crypto fixed part cut", WR(40, 16, V1, 1, SIG, 16, 0), 23, true,
	  SMBDX_XF_SHORT },
	{ "signature runs past the end", WR(40, 16, V1, 1, SIG, 16, 0), 39,
	  true, SMBDX_XF_SHORT },
	{ "huge signature length", WR(40, 16, V1, 1, SIG, 0xffff, 0), 56, true,
	  SMBDX_XF_SHORT },
	{ "huge nonce length", WR(40, 16, V1, 1, ENC, 16, 0xffff), 72, true,
	  SMBDX_XF_SHORT },
	{ "type 0", WR(40, 16, V1, 1, 0, 16, 0), 0, true, SMBDX_XF_BAD_TYPE },
	{ "type 3", WR(40, 16, V1, 1, 3, 16, 0), 0, true, SMBDX_XF_BAD_TYPE },
	{ "type 0xffff", WR(40, 16, V1, 1, 0xffff, 16, 0), 0, true,
	  SMBDX_XF_BAD_TYPE },
	{ "signature 17 (the test suite's)", WR(48, 16, V1, 1, ENC, 17, 11), 0,
	  true, SMBDX_XF_BAD_SIG_LEN },
	{ "nonce 17", WR(48, 16, V1, 1, ENC, 16, 17), 0, true,
	  SMBDX_XF_BAD_NONCE_LEN },
	{ "inner channel NONE", WR(40, 16, 0, 1, SIG, 16, 0), 0, true,
	  SMBDX_XF_BAD_CHANNEL },
	{ "inner channel TRANSFORM", WR(40, 16, 3, 1, SIG, 16, 0), 0, true,
	  SMBDX_XF_BAD_CHANNEL },
	{ "inner channel 0x80000001", WR(40, 16, 0x80000001, 1, SIG, 16, 0),
	  0, true, SMBDX_XF_BAD_CHANNEL },
	{ "no descriptors", WR(40, 0, V1, 1, SIG, 16, 0), 56, true,
	  SMBDX_XF_BAD_DESC },
	{ "descriptor length 15", WR(40, 15, V1, 1, SIG, 16, 0), 56, true,
	  SMBDX_XF_BAD_DESC },
	{ "descriptor length 17", WR(40, 17, V1, 1, SIG, 16, 0), 0, true,
	  SMBDX_XF_BAD_DESC },
	{ "descriptors unaligned (unpadded CCM)",
	  WR(51, 16, V1, 1, ENC, 16, 11), 0, true, SMBDX_XF_BAD_DESC },
	{ "descriptors over the header", WR(0, 16, V1, 1, SIG, 16, 0), 56,
	  true, SMBDX_XF_BAD_DESC },
	{ "descriptors over the crypto transform",
	  WR(32, 16, V1, 1, SIG, 16, 0), 56, true, SMBDX_XF_BAD_DESC },
	{ "descriptors over the nonce", WR(48, 16, V1, 1, ENC, 16, 11), 64,
	  true, SMBDX_XF_BAD_DESC },
	{ "descriptors one octet past the end", WR(40, 16, V1, 1, SIG, 16, 0),
	  55, true, SMBDX_XF_BAD_DESC },
	{ "descriptors at the 16-bit limit", WR(0xfff8, 16, V1, 1, SIG, 16, 0),
	  56, true, SMBDX_XF_BAD_DESC },
	{ "descriptor length at the 16-bit limit",
	  WR(40, 0xfff0, V1, 1, SIG, 16, 0), 56, true, SMBDX_XF_BAD_DESC },
	{ "response: channel and descs ignored",
	  WR(0x1234, 0x5678, 0x9abcdef0, 1, SIG, 16, 0), 40, false,
	  SMBDX_XF_OK },
	{ "response: count 0", WR(0, 0, 0, 0, SIG, 16, 0), 40, false,
	  SMBDX_XF_NO_TRANSFORM },
};

KUNIT_ARRAY_PARAM_DESC(crafted, crafted, name);

static void xform_info_decode_crafted(struct kunit *test)
{
	const struct crafted *c = test->param_value;
	u8 *page = guard_page(test);
	struct smbdx_xf_info xi;
	u8 b[256];
	u32 len;

	craft(b, sizeof(b), &c->c);
	len = c->len ? c->len : c->c.desc_off + c->c.desc_len;
	KUNIT_ASSERT_LE(test, len, sizeof(b));
	memset(&xi, 0xa5, sizeof(xi));
	KUNIT_EXPECT_EQ(test,
			smbdx_xf_info_decode(at_end(page, b, len), len,
					     c->descs, &xi), c->want);
	if (c->want == SMBDX_XF_OK) {
		KUNIT_EXPECT_EQ(test, xi.crypto.type, c->c.type);
		KUNIT_EXPECT_EQ(test, xi.ndescs,
				c->descs ? c->c.desc_len / 16 : 0);
		KUNIT_EXPECT_LE(test, (u64)xi.desc_off + xi.desc_len,
				(u64)(c->descs ? len : 0xffffffff));
	} else {
		KUNIT_EXPECT_EQ(test, xi.crypto.type, 0);
		KUNIT_EXPECT_EQ(test, xi.ndescs, 0);
	}
}

/* Two crypto transforms: whatever their types, never accepted. */
static void xform_info_decode_two(struct kunit *test)
{
	static const u16 types[] = { ENC, SIG };
	u8 *page = guard_page(test);
	struct smbdx_xf_info xi;
	u8 b[128];
	u32 i, j;

	for (i = 0; i < 2; i++) {
		for (j = 0; j < 2; j++) {
			/* 16 + 40 (CCM-sized) + 40, then one descriptor. */
			struct craft c = WR(96, 16, V1, 2, types[i], 16, 11);
			u32 len = 112;

			craft(b, sizeof(b), &c);
			put_unaligned_le16(types[j], b + 56);
			put_unaligned_le16(16, b + 58);
			put_unaligned_le16(11, b + 60);
			KUNIT_EXPECT_EQ_MSG(test,
					    smbdx_xf_info_decode(at_end(page, b,
									len),
								 len, true,
								 &xi),
					    SMBDX_XF_DUP_TYPE, "%u then %u",
					    types[i], types[j]);
			/* The second one cut short: short, not duplicate. */
			KUNIT_EXPECT_EQ(test,
					smbdx_xf_info_decode(at_end(page, b, 60),
							     60, true, &xi),
					SMBDX_XF_SHORT);
		}
	}
	/* A bad second type is reported as such. */
	put_unaligned_le16(9, b + 56);
	KUNIT_EXPECT_EQ(test, smbdx_xf_info_decode(at_end(page, b, 112), 112,
						   true, &xi),
			SMBDX_XF_BAD_TYPE);
}

static void xform_info_decode_short_header(struct kunit *test)
{
	u8 *page = guard_page(test);
	struct smbdx_xf_info xi;
	u32 len;

	for (len = 0; len < 16; len++) {
		KUNIT_EXPECT_EQ_MSG(test,
				    smbdx_xf_info_decode(at_end(page,
								vec_write_cmac,
								len),
							 len, true, &xi),
				    SMBDX_XF_SHORT, "len %u", len);
		KUNIT_EXPECT_EQ_MSG(test,
				    smbdx_xf_info_decode(at_end(page,
								vec_read_cmac,
								len),
							 len, false, &xi),
				    SMBDX_XF_SHORT, "len %u", len);
	}
	KUNIT_EXPECT_EQ(test, smbdx_xf_info_decode(NULL, 56, true, &xi),
			SMBDX_XF_SHORT);
}

/* Reserved fields and padding are ignored. */
static void xform_info_decode_reserved(struct kunit *test)
{
	u8 *page = guard_page(test);
	struct smbdx_xf_info xi;
	u8 b[88];

	memcpy(b, vec_write_ccm, sizeof(b));
	memset(b + 10, 0xff, 6);		/* Reserved1, Reserved2 */
	memset(b + 22, 0xff, 2);		/* the crypto transform's */
	memset(b + 51, 0xff, 5);		/* padding */
	KUNIT_ASSERT_EQ(test, smbdx_xf_info_decode(at_end(page, b, 88), 88,
						   true, &xi), SMBDX_XF_OK);
	KUNIT_EXPECT_EQ(test, xi.crypto.type, ENC);
	KUNIT_EXPECT_EQ(test, xi.ndescs, 2);
}

/* ---- random mutations and round trips ----------------------------------- */

/* What any accepted transform satisfies, whatever the input was. */
static void check_invariants(struct kunit *test, const u8 *b, u32 len,
			     bool descs, const struct smbdx_xf_info *xi)
{
	u64 end = 16 + 8 + xi->crypto.sig_len + xi->crypto.nonce_len;

	KUNIT_EXPECT_LE(test, end, (u64)len);
	KUNIT_EXPECT_TRUE(test, xi->crypto.type == ENC ||
			  xi->crypto.type == SIG);
	KUNIT_EXPECT_LE(test, xi->crypto.sig_len, SMBDX_XF_SIG_MAX);
	KUNIT_EXPECT_LE(test, xi->crypto.nonce_len, SMBDX_XF_NONCE_MAX);
	KUNIT_EXPECT_EQ(test, get_unaligned_le16(b + 8), 1);
	KUNIT_EXPECT_MEMEQ(test, xi->crypto.sig, b + 24, xi->crypto.sig_len);
	KUNIT_EXPECT_MEMEQ(test, xi->crypto.nonce, b + 24 + xi->crypto.sig_len,
			   xi->crypto.nonce_len);
	if (descs) {
		KUNIT_EXPECT_GT(test, xi->ndescs, 0);
		KUNIT_EXPECT_EQ(test, xi->desc_len, 16 * xi->ndescs);
		KUNIT_EXPECT_EQ(test, xi->desc_off % 8, 0);
		KUNIT_EXPECT_GE(test, (u64)xi->desc_off, end);
		KUNIT_EXPECT_LE(test, (u64)xi->desc_off + xi->desc_len,
				(u64)len);
		KUNIT_EXPECT_TRUE(test, xi->channel == V1 || xi->channel == V1I);
	} else {
		KUNIT_EXPECT_EQ(test, xi->ndescs, 0);
	}
}

static void xform_info_fuzz(struct kunit *test)
{
	const struct vec *srcs[] = { &vecs[0], &vecs[1], &vecs[2], &vecs[3] };
	struct rnd_state rs;
	u8 *page = guard_page(test);
	u8 b[96];
	u32 round, ok = 0;

	prandom_seed_state(&rs, 0x31f0f0a5ULL);
	for (round = 0; round < FUZZ_ROUNDS; round++) {
		const struct vec *v = srcs[rnd(&rs, ARRAY_SIZE(srcs))];
		u32 len = v->len, flips = 1 + rnd(&rs, 4), i;
		bool descs = rnd(&rs, 4) ? v->ndescs > 0 : rnd(&rs, 2);
		struct smbdx_xf_info xi;
		u8 *p;

		memcpy(b, v->bytes, v->len);
		for (i = 0; i < flips; i++) {
			u32 at = rnd(&rs, v->len);

			/* Mostly the header fields, sometimes anywhere. */
			if (rnd(&rs, 2))
				at = rnd(&rs, 24);
			b[at] = rnd(&rs, 3) ? prandom_u32_state(&rs) :
				(rnd(&rs, 2) ? 0 : 0xff);
		}
		if (!rnd(&rs, 4))
			len = rnd(&rs, v->len + 1);
		p = at_end(page, b, len);
		if (smbdx_xf_info_decode(p, len, descs, &xi) == SMBDX_XF_OK) {
			check_invariants(test, p, len, descs, &xi);
			ok++;
		}
	}
	/* Some mutations leave it valid (signature octets, say). */
	KUNIT_EXPECT_GT(test, ok, 0);
	KUNIT_EXPECT_LT(test, ok, FUZZ_ROUNDS);
}

static void xform_info_round_trip(struct kunit *test)
{
	struct smbdx_buffer_desc_v1 d[8];
	struct smbdx_xf_crypto cr;
	struct smbdx_xf_info xi;
	struct rnd_state rs;
	u8 *page = guard_page(test);
	u32 round;

	prandom_seed_state(&rs, 0x2b43a11ULL);
	for (round = 0; round < TRIP_ROUNDS; round++) {
		u32 ndescs = rnd(&rs, 9), len, channel;
		u8 *p;

		memset(&cr, 0, sizeof(cr));
		cr.type = rnd(&rs, 2) ? ENC : SIG;
		cr.sig_len = rnd(&rs, SMBDX_XF_SIG_MAX + 1);
		cr.nonce_len = rnd(&rs, SMBDX_XF_NONCE_MAX + 1);
		prandom_bytes_state(&rs, cr.sig, cr.sig_len);
		prandom_bytes_state(&rs, cr.nonce, cr.nonce_len);
		prandom_bytes_state(&rs, d, sizeof(d));
		channel = !ndescs ? SMBDX_XF_CHANNEL_NONE :
			  rnd(&rs, 2) ? V1 : V1I;
		len = smbdx_xf_info_len(cr.sig_len, cr.nonce_len, ndescs);
		p = at_end(page, NULL, len);
		KUNIT_ASSERT_EQ(test, smbdx_xf_info_encode(&cr, channel, d,
							   ndescs, p, len),
				(int)len);
		KUNIT_ASSERT_EQ_MSG(test, smbdx_xf_info_decode(p, len,
							       ndescs > 0,
							       &xi),
				    SMBDX_XF_OK, "round %u", round);
		KUNIT_EXPECT_EQ(test, xi.crypto.type, cr.type);
		KUNIT_EXPECT_EQ(test, xi.crypto.sig_len, cr.sig_len);
		KUNIT_EXPECT_EQ(test, xi.crypto.nonce_len, cr.nonce_len);
		KUNIT_EXPECT_MEMEQ(test, xi.crypto.sig, cr.sig,
				   SMBDX_XF_SIG_MAX);
		KUNIT_EXPECT_MEMEQ(test, xi.crypto.nonce, cr.nonce,
				   SMBDX_XF_NONCE_MAX);
		KUNIT_EXPECT_EQ(test, xi.channel, channel);
		KUNIT_EXPECT_EQ(test, xi.ndescs, ndescs);
		KUNIT_EXPECT_EQ(test, xi.len,
				16 + ALIGN(8 + cr.sig_len + cr.nonce_len, 8));
		if (ndescs)
			KUNIT_EXPECT_MEMEQ(test, p + xi.desc_off, d,
					   16 * ndescs);
		check_invariants(test, p, len, ndescs > 0, &xi);
	}
}

/* ---- policy ----------------------------------------------------------------- */

/* The model: the rules of rdma-transform.rst's table, in that order. */
static enum smbdx_xf_verdict model_check(u16 type, u8 sig, u8 nonce,
					 const struct smbdx_xf_policy *pol)
{
	u8 bit = type == ENC ? SMBDX_XF_ENCRYPTION :
		 type == SIG ? SMBDX_XF_SIGNING : 0;
	u8 want_sig = 16, want_nonce;

	if (!bit)
		return SMBDX_XF_BAD_TYPE;
	if (!(pol->negotiated & bit))
		return SMBDX_XF_NOT_NEGOTIATED;
	if (type == ENC && !pol->encrypted)
		return SMBDX_XF_WRONG_TYPE;
	if (type == SIG && (pol->encrypted || !pol->signed_msg))
		return SMBDX_XF_WRONG_TYPE;
	if (type == ENC) {
		if (pol->sealed_cipher == 1 || pol->sealed_cipher == 3)
			want_nonce = 11;
		else if (pol->sealed_cipher == 2 || pol->sealed_cipher == 4)
			want_nonce = 12;
		else
			return SMBDX_XF_UNSUPPORTED;
	} else {
		if (pol->sign_alg == 1)
			want_nonce = 0;
		else if (pol->sign_alg == 2)
			want_nonce = 12;
		else
			return SMBDX_XF_UNSUPPORTED;
	}
	if (sig != want_sig)
		return SMBDX_XF_BAD_SIG_LEN;
	if (nonce != want_nonce)
		return SMBDX_XF_BAD_NONCE_LEN;
	return SMBDX_XF_OK;
}

static void xform_info_check_matrix(struct kunit *test)
{
	static const u16 types[] = { 0, ENC, SIG, 3 };
	static const u8 sigs[] = { 0, 15, 16 };
	static const u8 nonces[] = { 0, 10, 11, 12, 13, 16 };
	const u32 nt = ARRAY_SIZE(types), ns = ARRAY_SIZE(sigs);
	const u32 nn = ARRAY_SIZE(nonces), total = nt * 4 * 4 * 6 * ns * nn;
	u32 i;

	/* Every type x negotiated set x protection x algorithm x lengths. */
	for (i = 0; i < total; i++) {
		u32 k = i, t, neg, flags, alg, s, n;
		struct smbdx_xf_policy pol = {};
		struct smbdx_xf_info xi = {};

		t = k % nt;
		k /= nt;
		neg = k % 4;
		k /= 4;
		flags = k % 4;
		k /= 4;
		alg = k % 6;
		k /= 6;
		s = k % ns;
		n = k / ns;
		pol.negotiated = neg;
		pol.encrypted = flags & 1;
		pol.signed_msg = flags & 2;
		pol.sealed_cipher = alg;
		pol.sign_alg = alg;
		xi.crypto.type = types[t];
		xi.crypto.sig_len = sigs[s];
		xi.crypto.nonce_len = nonces[n];
		KUNIT_EXPECT_EQ_MSG(test, smbdx_xf_info_check(&xi, &pol),
				    model_check(types[t], sigs[s], nonces[n],
						&pol),
				    "type %u neg %u flags %u alg %u sig %u nonce %u",
				    types[t], neg, flags, alg, sigs[s],
				    nonces[n]);
	}
}

/* The test suite's failing WRITEs, as rdma-transform.rst lists them. */
static void xform_info_check_suite_cases(struct kunit *test)
{
	struct smbdx_xf_policy signed_cmac = {
		.negotiated = SMBDX_XF_SIGNING, .signed_msg = true,
		.sign_alg = SMBDX_XF_AES_CMAC,
	};
	struct smbdx_xf_policy sealed_ccm = {
		.negotiated = SMBDX_XF_ENCRYPTION, .encrypted = true,
		.sealed_cipher = SMBDX_XF_AES128_CCM,
	};
	struct smbdx_xf_policy p;
	struct smbdx_xf_info xi = {};
	enum smbdx_xf_verdict v;

	/* Signing transform, FLAGS_SIGNED not set: invalid parameter. */
	xi.crypto.type = SIG;
	xi.crypto.sig_len = 16;
	p = signed_cmac;
	p.signed_msg = false;
	v = smbdx_xf_info_check(&xi, &p);
	KUNIT_EXPECT_EQ(test, v, SMBDX_XF_WRONG_TYPE);
	KUNIT_EXPECT_EQ(test, smbdx_xf_status(v, SIG), 0xc000000d);
	/* Signing transform, only encryption negotiated. */
	p = signed_cmac;
	p.negotiated = SMBDX_XF_ENCRYPTION;
	v = smbdx_xf_info_check(&xi, &p);
	KUNIT_EXPECT_EQ(test, v, SMBDX_XF_NOT_NEGOTIATED);
	KUNIT_EXPECT_EQ(test, smbdx_xf_status(v, SIG), 0xc000000d);
	/* Nothing negotiated at all. */
	p.negotiated = 0;
	KUNIT_EXPECT_EQ(test, smbdx_xf_info_check(&xi, &p),
			SMBDX_XF_NOT_NEGOTIATED);
	/* The good one. */
	KUNIT_EXPECT_EQ(test, smbdx_xf_info_check(&xi, &signed_cmac),
			SMBDX_XF_OK);

	/* Encryption, AES-128-CCM, nonce 10 or 12: auth tag mismatch. */
	xi.crypto.type = ENC;
	xi.crypto.nonce_len = 10;
	v = smbdx_xf_info_check(&xi, &sealed_ccm);
	KUNIT_EXPECT_EQ(test, v, SMBDX_XF_BAD_NONCE_LEN);
	KUNIT_EXPECT_EQ(test, smbdx_xf_status(v, ENC), 0xc000a002);
	xi.crypto.nonce_len = 12;
	KUNIT_EXPECT_EQ(test, smbdx_xf_info_check(&xi, &sealed_ccm),
			SMBDX_XF_BAD_NONCE_LEN);
	xi.crypto.nonce_len = 11;
	KUNIT_EXPECT_EQ(test, smbdx_xf_info_check(&xi, &sealed_ccm),
			SMBDX_XF_OK);
	/* An encryption transform in a message that was not encrypted. */
	p = sealed_ccm;
	p.encrypted = false;
	p.signed_msg = true;
	KUNIT_EXPECT_EQ(test, smbdx_xf_info_check(&xi, &p),
			SMBDX_XF_WRONG_TYPE);
	/* A signing transform in an encrypted message. */
	p = signed_cmac;
	p.encrypted = true;
	xi.crypto.type = SIG;
	xi.crypto.nonce_len = 0;
	KUNIT_EXPECT_EQ(test, smbdx_xf_info_check(&xi, &p),
			SMBDX_XF_WRONG_TYPE);
	/* HMAC-SHA256 signing has no transform. */
	p = signed_cmac;
	p.sign_alg = SMBDX_XF_HMAC_SHA256;
	KUNIT_EXPECT_EQ(test, smbdx_xf_info_check(&xi, &p),
			SMBDX_XF_UNSUPPORTED);
}

static void xform_status(struct kunit *test)
{
	static const u16 types[] = { 0, ENC, SIG, 3 };
	enum smbdx_xf_verdict v;
	u32 t;

	for (t = 0; t < ARRAY_SIZE(types); t++) {
		for (v = SMBDX_XF_OK; v <= SMBDX_XF_MISMATCH; v++) {
			u32 want;

			if (v == SMBDX_XF_OK)
				want = 0;
			else if ((v == SMBDX_XF_BAD_SIG_LEN ||
				  v == SMBDX_XF_BAD_NONCE_LEN ||
				  v == SMBDX_XF_MISMATCH) && types[t] == ENC)
				want = 0xc000a002;
			else if ((v == SMBDX_XF_BAD_SIG_LEN ||
				  v == SMBDX_XF_BAD_NONCE_LEN ||
				  v == SMBDX_XF_MISMATCH) && types[t] == SIG)
				want = 0xc000a000;
			else
				want = 0xc000000d;
			KUNIT_EXPECT_EQ_MSG(test, smbdx_xf_status(v, types[t]),
					    want, "verdict %d type %u", v,
					    types[t]);
		}
	}
}

static struct kunit_case xform_cases[] = {
	KUNIT_CASE(xform_layout),
	KUNIT_CASE(xform_caps_encode),
	KUNIT_CASE_PARAM(xform_caps_decode, caps_gen_params),
	KUNIT_CASE(xform_caps_decode_null),
	KUNIT_CASE(xform_caps_decode_lengths),
	KUNIT_CASE(xform_caps_check_response),
	KUNIT_CASE(xform_caps_check_response_short),
	KUNIT_CASE(xform_lengths),
	KUNIT_CASE(xform_crypto_prepare),
	KUNIT_CASE_PARAM(xform_info_encode_vectors, vec_gen_params),
	KUNIT_CASE_PARAM(xform_info_decode_vectors, vec_gen_params),
	KUNIT_CASE(xform_info_encode_refusals),
	KUNIT_CASE(xform_info_encode_max_descs),
	KUNIT_CASE_PARAM(xform_info_decode_crafted, crafted_gen_params),
	KUNIT_CASE(xform_info_decode_two),
	KUNIT_CASE(xform_info_decode_short_header),
	KUNIT_CASE(xform_info_decode_reserved),
	KUNIT_CASE(xform_info_fuzz),
	KUNIT_CASE(xform_info_round_trip),
	KUNIT_CASE(xform_info_check_matrix),
	KUNIT_CASE(xform_info_check_suite_cases),
	KUNIT_CASE(xform_status),
	{}
};

static struct kunit_suite xform_suite = {
	.name = "smbdirect_xform",
	.test_cases = xform_cases,
};

kunit_test_suite(xform_suite);

MODULE_DESCRIPTION("KUnit tests for the MS-SMB2 RDMA transform codec");
MODULE_LICENSE("GPL");
