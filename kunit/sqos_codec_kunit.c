// SPDX-License-Identifier: GPL-2.0
/*
 * sqos_codec_kunit.c - KUnit suite for qos/codec.c: wire layout of
 * STORAGE_QOS_CONTROL_REQUEST/RESPONSE against the MS-SQOS section 4
 * examples, GUID byte order, response validation, the name and policy-field
 * rules of 3.2.5.1.2 at their boundaries, and I/O size normalization.
 *
 * Locking: pure functions on stack buffers; nothing shared.
 */
#include <kunit/test.h>
#include <linux/string.h>
#include <smbdirect/ns.h>
#include "sqos_internal.h"
#include "sqos_test_vectors.h"

/* A1: the Microsoft GUID layout is guid_t's, both ways */
static void sqos_codec_guid_layout(struct kunit *test)
{
	guid_t parsed, want = SQT_FLOW_ID;
	char str[UUID_STRING_LEN + 1];

	KUNIT_ASSERT_EQ(test, guid_parse("b13a32e4-e2ad-5db2-a4f8-5cd3be9d696e",
					 &parsed), 0);
	KUNIT_EXPECT_MEMEQ(test, &parsed, sqt_flow_bytes,
			   sizeof(sqt_flow_bytes));
	KUNIT_EXPECT_TRUE(test, guid_equal(&parsed, &want));
	snprintf(str, sizeof(str), "%pUl", &want);
	KUNIT_EXPECT_STREQ(test, str, "b13a32e4-e2ad-5db2-a4f8-5cd3be9d696e");
}

/* The 4.3 request decodes to the annotated values */
static void sqos_codec_decode_43(struct kunit *test)
{
	guid_t flow = SQT_FLOW_ID, pol = SQT_POLICY_ID, ini = SQT_INITIATOR_ID;
	struct sqos_request r;

	KUNIT_ASSERT_EQ(test, sizeof(sqt_43_req), (size_t)112);
	KUNIT_ASSERT_EQ(test, sqos_request_decode(sqt_43_req,
						  sizeof(sqt_43_req), &r), 0);
	KUNIT_EXPECT_EQ(test, r.version, 0x0100);
	KUNIT_EXPECT_EQ(test, r.options, 0x1cU);
	KUNIT_EXPECT_TRUE(test, guid_equal(&r.flow_id, &flow));
	KUNIT_EXPECT_TRUE(test, guid_equal(&r.policy_id, &pol));
	KUNIT_EXPECT_TRUE(test, guid_equal(&r.initiator_id, &ini));
	KUNIT_EXPECT_EQ(test, r.limit, 0ULL);
	KUNIT_EXPECT_EQ(test, r.reservation, 0ULL);
	KUNIT_EXPECT_EQ(test, r.name_off, 0);
	KUNIT_EXPECT_EQ(test, r.name_len, 0);
	KUNIT_EXPECT_EQ(test, r.io_count, 399ULL);
	KUNIT_EXPECT_EQ(test, r.norm_io_count, 399ULL);
	KUNIT_EXPECT_EQ(test, r.latency, 38223584ULL);
	KUNIT_EXPECT_EQ(test, r.lower_latency, 38223584ULL);
}

/* The 4.2(b) request (self-consistent variant) decodes name fields */
static void sqos_codec_decode_42b(struct kunit *test)
{
	struct sqos_request r;

	KUNIT_ASSERT_EQ(test, sizeof(sqt_42b), (size_t)198);
	KUNIT_ASSERT_EQ(test, sqos_request_decode(sqt_42b, sizeof(sqt_42b),
						  &r), 0);
	KUNIT_EXPECT_EQ(test, r.options, 0x2U);
	KUNIT_EXPECT_EQ(test, r.name_off, 112);
	KUNIT_EXPECT_EQ(test, r.name_len, 14);
	KUNIT_EXPECT_EQ(test, r.node_name_off, 126);
	KUNIT_EXPECT_EQ(test, r.node_name_len, 72);
	KUNIT_EXPECT_MEMEQ(test, sqt_42b + r.name_off, sqt_name, r.name_len);
	KUNIT_EXPECT_MEMEQ(test, sqt_42b + r.node_name_off, sqt_node_name,
			   r.node_name_len);
	KUNIT_EXPECT_EQ(test, sqos_check_name(r.name_off, r.name_len, 198), 0);
	KUNIT_EXPECT_EQ(test, sqos_check_name(r.node_name_off,
					      r.node_name_len, 198), 0);
}

/* Encoding the 4.3 values gives the 4.3 bytes; Reserved goes out as 0 */
static void sqos_codec_encode_request(struct kunit *test)
{
	struct sqos_request r;
	u8 buf[SQOS_REQUEST_FIXED_SIZE + 8];

	KUNIT_ASSERT_EQ(test, sqos_request_decode(sqt_43_req,
						  sizeof(sqt_43_req), &r), 0);
	memset(buf, 0xa5, sizeof(buf));
	KUNIT_ASSERT_EQ(test, sqos_request_encode(&r, buf, sizeof(buf)), 112);
	KUNIT_EXPECT_MEMEQ(test, buf, sqt_43_req, sizeof(sqt_43_req));
	KUNIT_EXPECT_EQ(test, buf[112], 0xa5);
	KUNIT_EXPECT_EQ(test, sqos_request_encode(&r, buf, 111), -EMSGSIZE);
}

/* A2: Reserved = 0xffff is not an error and changes no field */
static void sqos_codec_reserved_ignored(struct kunit *test)
{
	u8 buf[sizeof(sqt_43_req)];
	struct sqos_request a, b;

	memcpy(buf, sqt_43_req, sizeof(buf));
	buf[2] = 0xff;
	buf[3] = 0xff;
	KUNIT_ASSERT_EQ(test, sqos_request_decode(sqt_43_req, 112, &a), 0);
	KUNIT_ASSERT_EQ(test, sqos_request_decode(buf, 112, &b), 0);
	KUNIT_EXPECT_MEMEQ(test, &a, &b, sizeof(a));
}

/* G7 at codec level: a request shorter than 112 bytes is not decoded */
static void sqos_codec_decode_short(struct kunit *test)
{
	struct sqos_request r;

	KUNIT_EXPECT_EQ(test, sqos_request_decode(sqt_42a_printed,
						  sizeof(sqt_42a_printed), &r),
			-EMSGSIZE);
	KUNIT_EXPECT_EQ(test, sqos_request_decode(sqt_43_req, 111, &r),
			-EMSGSIZE);
	KUNIT_EXPECT_EQ(test, sqos_request_decode(NULL, 112, &r), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, sqos_request_decode(sqt_42a, 112, &r), 0);
}

/* A4: the 4.3 response, byte for byte */
static void sqos_codec_encode_response_43(struct kunit *test)
{
	struct sqos_response rsp = {
		.version = 0x0100,
		.flow_id = SQT_FLOW_ID,
		.policy_id = SQT_POLICY_ID,
		.initiator_id = SQT_INITIATOR_ID,
		.ttl_ms = 3981,
		.status = SQOS_FLOW_STATUS_OK,
		.max_rate = 100,
		.min_rate = 0,
		.base_io_size = 8192,
	};
	u8 buf[SQOS_RESPONSE_SIZE];

	KUNIT_ASSERT_EQ(test, sizeof(sqt_43_rsp), (size_t)88);
	memset(buf, 0xa5, sizeof(buf));
	KUNIT_ASSERT_EQ(test, sqos_response_encode(&rsp, buf, sizeof(buf)), 88);
	KUNIT_EXPECT_MEMEQ(test, buf, sqt_43_rsp, sizeof(buf));
	KUNIT_EXPECT_EQ(test, sqos_response_encode(&rsp, buf, 87), -EMSGSIZE);
}

static void sqos_codec_decode_response_43(struct kunit *test)
{
	guid_t flow = SQT_FLOW_ID;
	struct sqos_response r;

	KUNIT_ASSERT_EQ(test, sqos_response_decode(sqt_43_rsp, 88, &r), 0);
	KUNIT_EXPECT_TRUE(test, guid_equal(&r.flow_id, &flow));
	KUNIT_EXPECT_EQ(test, r.ttl_ms, 3981U);
	KUNIT_EXPECT_EQ(test, r.status, 0U);
	KUNIT_EXPECT_EQ(test, r.max_rate, 100ULL);
	KUNIT_EXPECT_EQ(test, r.min_rate, 0ULL);
	KUNIT_EXPECT_EQ(test, r.base_io_size, 8192U);
}

struct sqos_rsp_bad {
	const char *what;
	unsigned int off;	/* byte to change */
	u8 val;
	size_t len;
	int want;
};

static const struct sqos_rsp_bad sqos_rsp_bad_cases[] = {
	{ "length 87", 0, 0x00, 87, -EMSGSIZE },
	{ "length 0", 0, 0x00, 0, -EMSGSIZE },
	{ "version 0x0101", 0, 0x01, 88, -EPROTO },
	{ "status 3", 60, 0x03, 88, -EPROTO },
	{ "status 6", 60, 0x06, 88, -EPROTO },
	{ "base io size 0", 81, 0x00, 88, -EPROTO },
	{ "reserved(2) set", 2, 0xff, 88, 0 },
	{ "options set", 4, 0xff, 88, 0 },
	{ "reserved(4) set", 84, 0xff, 88, 0 },
	{ "status 5", 60, 0x05, 88, 0 },
	{ "longer buffer", 0, 0x00, 89, 0 },
};

static void sqos_rsp_bad_desc(const struct sqos_rsp_bad *c, char *desc)
{
	strscpy(desc, c->what, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sqos_rsp_bad, sqos_rsp_bad_cases, sqos_rsp_bad_desc);

/* Client side: a hostile response is refused before use */
static void sqos_codec_decode_response_checks(struct kunit *test)
{
	const struct sqos_rsp_bad *c = test->param_value;
	u8 buf[96];
	struct sqos_response r;

	memset(buf, 0, sizeof(buf));
	memcpy(buf, sqt_43_rsp, sizeof(sqt_43_rsp));
	if (c->off || c->val)
		buf[c->off] = c->val;
	KUNIT_EXPECT_EQ(test, sqos_response_decode(buf, c->len, &r), c->want);
}

struct sqos_norm_case {
	u64 bytes;
	u32 base;
	u64 want;
};

static const struct sqos_norm_case sqos_norm_cases[] = {
	{ 0, 8192, 1 },		/* decision: an empty I/O counts once */
	{ 1, 8192, 1 },
	{ 512, 8192, 1 },
	{ 4096, 8192, 1 },
	{ 8191, 8192, 1 },
	{ 8192, 8192, 1 },
	{ 8193, 8192, 2 },
	{ 12288, 8192, 2 },
	{ 16384, 8192, 2 },
	{ 65536, 8192, 8 },
	{ 1048576, 8192, 128 },
	{ 4294967295ULL, 8192, 524288 },
	{ 4294967296ULL, 8192, 524288 },
	{ U64_MAX, 8192, (U64_MAX / 8192) + 1 },
	{ U64_MAX, 1, U64_MAX },
	{ 65536, 0, 8 },	/* BaseIoSize 0 is taken as 8192 */
	{ 65536, 4096, 16 },
	{ 1, 0xffffffff, 1 },
	{ 0x1fffffffeULL, 0xffffffff, 2 },
	{ 0x1ffffffffULL, 0xffffffff, 3 },
};

static void sqos_norm_desc(const struct sqos_norm_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%llu bytes / %u", c->bytes,
		 c->base);
}

KUNIT_ARRAY_PARAM(sqos_norm, sqos_norm_cases, sqos_norm_desc);

/* 4.1 table and its edges */
static void sqos_codec_normalize(struct kunit *test)
{
	const struct sqos_norm_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, sqos_normalize(c->bytes, c->base), c->want);
}

struct sqos_name_case {
	const char *what;
	u16 off;
	u16 len;
	u32 size;
	int want;
};

static const struct sqos_name_case sqos_name_cases[] = {
	{ "len 0 any offset", 0xffff, 0, 112, 0 },
	{ "len 0 offset 0", 0, 0, 0, 0 },
	{ "len 0x200", 112, 0x200, 112 + 0x200, 0 },
	{ "len 0x201", 112, 0x201, 112 + 0x202, -EINVAL },
	{ "len 0x202", 112, 0x202, 112 + 0x202, -EINVAL },
	{ "offset 103", 103, 2, 200, -EINVAL },
	{ "offset 104 (literal rule)", 104, 2, 200, 0 },
	{ "offset 0", 0, 2, 200, -EINVAL },
	{ "offset 112", 112, 2, 200, 0 },
	{ "end == size", 112, 14, 126, 0 },
	{ "end == size + 1", 112, 14, 125, -EINVAL },
	{ "offset 0xffff overflows 16 bits", 0xffff, 2, 200, -EINVAL },
	{ "offset 0xfffe + 0x200", 0xfffe, 0x200, 0xffff, -EINVAL },
	{ "offset 0xfe00 + 0x200 == 0x10000", 0xfe00, 0x200, 0x10000, 0 },
	{ "offset 0xfe00 + 0x200 > 0xffff", 0xfe00, 0x200, 0xffff, -EINVAL },
	{ "odd length", 112, 13, 200, -EINVAL },
	{ "odd offset, even length", 113, 2, 200, 0 },
};

static void sqos_name_desc(const struct sqos_name_case *c, char *desc)
{
	strscpy(desc, c->what, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sqos_name, sqos_name_cases, sqos_name_desc);

/* I3 boundaries at the checker */
static void sqos_codec_check_name(struct kunit *test)
{
	const struct sqos_name_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, sqos_check_name(c->off, c->len, c->size),
			c->want);
}

struct sqos_pol_case {
	const char *what;
	bool policy;
	u64 limit;
	u64 reservation;
	int want;
};

static const struct sqos_pol_case sqos_pol_cases[] = {
	{ "all zero", false, 0, 0, 0 },
	{ "policy only", true, 0, 0, 0 },
	{ "limit 1e9", false, 1000000000, 0, 0 },
	{ "limit 1e9+1", false, 1000000001, 0, -EINVAL },
	{ "reservation 1e9 no limit", false, 0, 1000000000, 0 },
	{ "reservation 1e9+1", false, 0, 1000000001, -EINVAL },
	{ "limit 10 reservation 10", false, 10, 10, 0 },
	{ "limit 10 reservation 11", false, 10, 11, -EINVAL },
	{ "limit 0 reservation 11", false, 0, 11, 0 },
	{ "policy and limit", true, 1, 0, -EINVAL },
	{ "policy and reservation", true, 0, 1, -EINVAL },
	{ "limit U64_MAX", false, U64_MAX, 0, -EINVAL },
};

static void sqos_pol_desc(const struct sqos_pol_case *c, char *desc)
{
	strscpy(desc, c->what, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sqos_pol, sqos_pol_cases, sqos_pol_desc);

/* I4: the five rules of note <4> */
static void sqos_codec_check_policy(struct kunit *test)
{
	const struct sqos_pol_case *c = test->param_value;
	struct sqos_request r = {
		.limit = c->limit,
		.reservation = c->reservation,
		.initiator_id = SQT_INITIATOR_ID,
	};

	if (c->policy)
		r.policy_id = SQT_POLICY_ID;
	KUNIT_EXPECT_EQ(test, sqos_check_policy_fields(&r), c->want);
}

static void sqos_codec_status_values(struct kunit *test)
{
	u32 v;

	for (v = 0; v < 8; v++)
		KUNIT_EXPECT_EQ_MSG(test, sqos_flow_status_valid(v),
				    v <= 2 || v == 4 || v == 5, "status %u", v);
	KUNIT_EXPECT_FALSE(test, sqos_flow_status_valid(U32_MAX));
}

static struct kunit_case sqos_codec_cases[] = {
	KUNIT_CASE(sqos_codec_guid_layout),
	KUNIT_CASE(sqos_codec_decode_43),
	KUNIT_CASE(sqos_codec_decode_42b),
	KUNIT_CASE(sqos_codec_encode_request),
	KUNIT_CASE(sqos_codec_reserved_ignored),
	KUNIT_CASE(sqos_codec_decode_short),
	KUNIT_CASE(sqos_codec_encode_response_43),
	KUNIT_CASE(sqos_codec_decode_response_43),
	KUNIT_CASE_PARAM(sqos_codec_decode_response_checks,
			 sqos_rsp_bad_gen_params),
	KUNIT_CASE_PARAM(sqos_codec_normalize, sqos_norm_gen_params),
	KUNIT_CASE_PARAM(sqos_codec_check_name, sqos_name_gen_params),
	KUNIT_CASE_PARAM(sqos_codec_check_policy, sqos_pol_gen_params),
	KUNIT_CASE(sqos_codec_status_values),
	{}
};

static struct kunit_suite sqos_codec_suite = {
	.name = "sqos_codec",
	.test_cases = sqos_codec_cases,
};

kunit_test_suite(sqos_codec_suite);

MODULE_DESCRIPTION("KUnit tests for the MS-SQOS codec");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(SMBDX_NS_NAME(EXPORTED_FOR_KUNIT_TESTING));
