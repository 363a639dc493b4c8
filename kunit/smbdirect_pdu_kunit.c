// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the SMB Direct codec (smbdirect/pdu.c). Wire layout against
 * MS-SMBD 2.2, every receive-side rule of 3.1.5.6 - 3.1.5.8 with each
 * boundary on both sides, the sender rules of 3.1.5.2 - 3.1.5.4, the
 * negotiated parameters, Buffer Descriptor V1 and the iWARP IRD/ORD
 * private data, and a fuzz case feeding random bytes to every decoder.
 *
 * Pure: no device, no sleeping. Messages under test are placed at the very
 * end of a vmalloc'ed page so that a decoder reading one byte too far hits
 * the guard page and the run fails loudly, with or without KASAN.
 */

#include <kunit/test.h>
#include <smbdirect/ns.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include <smbdirect/pdu.h>
#include "frag.h"

MODULE_IMPORT_NS(SMBDX_NS_NAME(EXPORTED_FOR_KUNIT_TESTING));

KUNIT_DEFINE_ACTION_WRAPPER(pdu_vfree, vfree, const void *);

/* A page whose end is followed by the vmalloc guard page. */
static u8 *guard_page(struct kunit *test)
{
	u8 *page = vmalloc(PAGE_SIZE);

	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, pdu_vfree, page));
	return page;
}

/* Copy @len bytes of @src (zero-padded past @src_len) to the page's end. */
static u8 *at_page_end(u8 *page, const void *src, u32 src_len, u32 len)
{
	u8 *p = page + PAGE_SIZE - len;

	memset(p, 0, len);
	memcpy(p, src, min(src_len, len));
	return p;
}

static void test_config(struct smbdx_proto_config *cfg)
{
	smbdx_config_init_defaults(cfg);
}

/* ---- layout ---------------------------------------------------------- */

static void pdu_layout(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct smbdx_negotiate_req), 20);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_negotiate_req, credits_requested), 6);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_negotiate_req, preferred_send_size), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_negotiate_req, max_receive_size), 12);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_negotiate_req, max_fragmented_size), 16);

	KUNIT_EXPECT_EQ(test, sizeof(struct smbdx_negotiate_resp), 32);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_negotiate_resp, negotiated_version), 4);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_negotiate_resp, credits_requested), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_negotiate_resp, credits_granted), 10);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_negotiate_resp, status), 12);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_negotiate_resp, max_read_write_size), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_negotiate_resp, preferred_send_size), 20);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_negotiate_resp, max_receive_size), 24);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_negotiate_resp, max_fragmented_size), 28);

	KUNIT_EXPECT_EQ(test, sizeof(struct smbdx_data_transfer), 20);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_data_transfer, flags), 4);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_data_transfer, remaining_data_length), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_data_transfer, data_offset), 12);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_data_transfer, data_length), 16);

	KUNIT_EXPECT_EQ(test, sizeof(struct smbdx_buffer_desc_v1), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_buffer_desc_v1, token), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct smbdx_buffer_desc_v1, length), 12);

	KUNIT_EXPECT_EQ(test, sizeof(struct smbdx_ird_ord_hdr), 8);
}

/* ---- verdicts -------------------------------------------------------- */

static void pdu_verdict_strings(struct kunit *test)
{
	unsigned int v, w;

	KUNIT_EXPECT_STREQ(test, smbdx_verdict_str(SMBDX_OK), "ok");
	for (v = 1; v < SMBDX_VERDICT_COUNT; v++) {
		const char *s = smbdx_verdict_str(v);

		KUNIT_EXPECT_NOT_NULL(test, s);
		KUNIT_EXPECT_STRNEQ(test, s, "unknown verdict");
		KUNIT_EXPECT_STRNEQ(test, s, "ok");
		for (w = 1; w < v; w++)
			KUNIT_EXPECT_STRNEQ(test, s, smbdx_verdict_str(w));
	}
	KUNIT_EXPECT_STREQ(test, smbdx_verdict_str(SMBDX_VERDICT_COUNT),
			   "unknown verdict");
	KUNIT_EXPECT_STREQ(test, smbdx_verdict_str(-1), "unknown verdict");
}

static void pdu_verdict_nt_status(struct kunit *test)
{
	unsigned int v;

	KUNIT_EXPECT_EQ(test, smbdx_verdict_nt_status(SMBDX_ERR_NEG_REQ_VERSION),
			SMBDX_STATUS_NOT_SUPPORTED);
	KUNIT_EXPECT_EQ(test, smbdx_verdict_nt_status(SMBDX_ERR_NEG_NO_RECV_CREDITS),
			SMBDX_STATUS_INSUFFICIENT_RESOURCES);
	/* Severity ERROR, as 3.1.5.6 requires for the credit failure. */
	KUNIT_EXPECT_EQ(test, SMBDX_STATUS_INSUFFICIENT_RESOURCES >> 30, 3);
	for (v = 0; v < SMBDX_VERDICT_COUNT; v++) {
		if (v == SMBDX_ERR_NEG_REQ_VERSION ||
		    v == SMBDX_ERR_NEG_NO_RECV_CREDITS)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, smbdx_verdict_nt_status(v), 0,
				    "verdict %u", v);
	}
}

/* ---- configuration --------------------------------------------------- */

static void pdu_config_defaults(struct kunit *test)
{
	struct smbdx_proto_config cfg;

	smbdx_config_init_defaults(&cfg);
	KUNIT_EXPECT_EQ(test, cfg.recv_credit_max, 255);
	KUNIT_EXPECT_EQ(test, cfg.send_credit_target, 255);
	KUNIT_EXPECT_EQ(test, cfg.max_send_size, 1364);
	KUNIT_EXPECT_EQ(test, cfg.max_receive_size, 1364);
	KUNIT_EXPECT_EQ(test, cfg.max_fragmented_recv_size, 127 * 1340);
	KUNIT_EXPECT_EQ(test, cfg.max_read_write_size, 8 * 1024 * 1024);
	KUNIT_EXPECT_EQ(test, cfg.keepalive_interval, 120);
	KUNIT_EXPECT_EQ(test, smbdx_config_validate(&cfg), SMBDX_OK);
}

struct config_case {
	const char *name;
	u16 recv_credit_max;
	u16 send_credit_target;
	u32 max_send_size;
	u32 max_receive_size;
	u32 max_frag;
	enum smbdx_verdict want;
};

static const struct config_case config_cases[] = {
	{ "defaults", 255, 255, 1364, 1364, 170180, SMBDX_OK },
	{ "recv credit max 1", 1, 255, 1364, 1364, 170180, SMBDX_ERR_INVALID },
	{ "recv credit max 2", 2, 255, 1364, 1364, 170180, SMBDX_OK },
	{ "recv credit max 0", 0, 255, 1364, 1364, 170180, SMBDX_ERR_INVALID },
	{ "send credit target 0", 255, 0, 1364, 1364, 170180, SMBDX_ERR_INVALID },
	{ "send credit target 1", 255, 1, 1364, 1364, 170180, SMBDX_OK },
	{ "max send 127", 255, 255, 127, 1364, 170180, SMBDX_ERR_INVALID },
	{ "max send 128", 255, 255, 128, 1364, 170180, SMBDX_OK },
	{ "max recv 127", 255, 255, 1364, 127, 170180, SMBDX_ERR_INVALID },
	{ "max recv 128", 255, 255, 1364, 128, 170180, SMBDX_OK },
	{ "max frag 131071", 255, 255, 1364, 1364, 131071, SMBDX_ERR_INVALID },
	{ "max frag 131072", 255, 255, 1364, 1364, 131072, SMBDX_OK },
};

KUNIT_ARRAY_PARAM_DESC(config, config_cases, name);

static void pdu_config_validate(struct kunit *test)
{
	const struct config_case *c = test->param_value;
	struct smbdx_proto_config cfg;

	smbdx_config_init_defaults(&cfg);
	cfg.recv_credit_max = c->recv_credit_max;
	cfg.send_credit_target = c->send_credit_target;
	cfg.max_send_size = c->max_send_size;
	cfg.max_receive_size = c->max_receive_size;
	cfg.max_fragmented_recv_size = c->max_frag;
	KUNIT_EXPECT_EQ(test, smbdx_config_validate(&cfg), c->want);
}

/* ---- Negotiate Request ----------------------------------------------- */

/* MS-SMBD 4.1: the example Negotiate Request, byte for byte. */
static const u8 example_req[20] = {
	0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x0a, 0x00,
	0x00, 0x04, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00,
	0x00, 0x00, 0x02, 0x00,
};

static void example_config(struct smbdx_proto_config *cfg)
{
	smbdx_config_init_defaults(cfg);
	cfg->send_credit_target = 10;
	cfg->recv_credit_max = 10;
	cfg->max_send_size = 1024;
	cfg->max_receive_size = 1024;
	cfg->max_fragmented_recv_size = 128 * 1024;
	cfg->max_read_write_size = 1024 * 1024;
}

static void pdu_neg_req_encode(struct kunit *test)
{
	struct smbdx_proto_config cfg;
	struct smbdx_negotiate_req req;

	example_config(&cfg);
	memset(&req, 0xa5, sizeof(req));
	smbdx_negotiate_req_encode(&cfg, &req);
	KUNIT_EXPECT_MEMEQ(test, &req, example_req, sizeof(example_req));
}

static void pdu_neg_req_example_decode(struct kunit *test)
{
	struct smbdx_neg_req_info info;
	u8 *page = guard_page(test);
	u8 *p = at_page_end(page, example_req, 20, 20);

	KUNIT_ASSERT_EQ(test, smbdx_negotiate_req_decode(p, 20, &info), SMBDX_OK);
	KUNIT_EXPECT_EQ(test, info.min_version, 0x0100);
	KUNIT_EXPECT_EQ(test, info.max_version, 0x0100);
	KUNIT_EXPECT_EQ(test, info.credits_requested, 10);
	KUNIT_EXPECT_EQ(test, info.preferred_send_size, 1024);
	KUNIT_EXPECT_EQ(test, info.max_receive_size, 1024);
	KUNIT_EXPECT_EQ(test, info.max_fragmented_size, 131072);
}

struct neg_req_case {
	const char *name;
	u32 len;
	u16 min_ver, max_ver, reserved, credits;
	u32 pref, max_recv, max_frag;
	enum smbdx_verdict want;
};

#define REQ(n, l, mi, ma, cr, pr, mr, mf, w) \
	{ n, l, mi, ma, 0, cr, pr, mr, mf, w }
#define REQ_OK(n, l, w) REQ(n, l, 0x0100, 0x0100, 255, 1364, 1364, 1048576, w)

static const struct neg_req_case neg_req_cases[] = {
	REQ_OK("valid", 20, SMBDX_OK),
	REQ_OK("len 0", 0, SMBDX_ERR_NEG_REQ_SHORT),
	REQ_OK("len 19", 19, SMBDX_ERR_NEG_REQ_SHORT),
	REQ_OK("len 21", 21, SMBDX_OK),
	REQ_OK("len 512", 512, SMBDX_OK),
	{ "reserved ignored", 20, 0x0100, 0x0100, 0xffff, 255, 1364, 1364,
	  1048576, SMBDX_OK },
	REQ("versions 0100-0200", 20, 0x0100, 0x0200, 1, 1364, 1364, 131072,
	    SMBDX_OK),
	REQ("versions 0001-0100", 20, 0x0001, 0x0100, 1, 1364, 1364, 131072,
	    SMBDX_OK),
	REQ("versions 0000-ffff", 20, 0x0000, 0xffff, 1, 1364, 1364, 131072,
	    SMBDX_OK),
	REQ("versions 0001-00ff", 20, 0x0001, 0x00ff, 1, 1364, 1364, 131072,
	    SMBDX_ERR_NEG_REQ_VERSION),
	REQ("versions 0101-0200", 20, 0x0101, 0x0200, 1, 1364, 1364, 131072,
	    SMBDX_ERR_NEG_REQ_VERSION),
	REQ("versions 0200-0100 reversed", 20, 0x0200, 0x0100, 1, 1364, 1364,
	    131072, SMBDX_ERR_NEG_REQ_VERSION),
	REQ("versions 0100-00ff reversed", 20, 0x0100, 0x00ff, 1, 1364, 1364,
	    131072, SMBDX_ERR_NEG_REQ_VERSION),
	REQ("versions 0000-0000", 20, 0, 0, 1, 1364, 1364, 131072,
	    SMBDX_ERR_NEG_REQ_VERSION),
	REQ("versions ffff-ffff", 20, 0xffff, 0xffff, 1, 1364, 1364, 131072,
	    SMBDX_ERR_NEG_REQ_VERSION),
	REQ("credits 0", 20, 0x0100, 0x0100, 0, 1364, 1364, 131072,
	    SMBDX_ERR_NEG_REQ_CREDITS),
	REQ("credits 1", 20, 0x0100, 0x0100, 1, 1364, 1364, 131072, SMBDX_OK),
	REQ("credits ffff", 20, 0x0100, 0x0100, 0xffff, 1364, 1364, 131072,
	    SMBDX_OK),
	REQ("max recv 0", 20, 0x0100, 0x0100, 1, 1364, 0, 131072,
	    SMBDX_ERR_NEG_REQ_MAX_RECV),
	REQ("max recv 127", 20, 0x0100, 0x0100, 1, 1364, 127, 131072,
	    SMBDX_ERR_NEG_REQ_MAX_RECV),
	REQ("max recv 128", 20, 0x0100, 0x0100, 1, 1364, 128, 131072, SMBDX_OK),
	REQ("max recv ffffffff", 20, 0x0100, 0x0100, 1, 1364, 0xffffffff,
	    131072, SMBDX_OK),
	REQ("max frag 0", 20, 0x0100, 0x0100, 1, 1364, 1364, 0,
	    SMBDX_ERR_NEG_REQ_MAX_FRAG),
	REQ("max frag 131071", 20, 0x0100, 0x0100, 1, 1364, 1364, 131071,
	    SMBDX_ERR_NEG_REQ_MAX_FRAG),
	REQ("max frag 131072", 20, 0x0100, 0x0100, 1, 1364, 1364, 131072,
	    SMBDX_OK),
	REQ("max frag ffffffff", 20, 0x0100, 0x0100, 1, 1364, 1364, 0xffffffff,
	    SMBDX_OK),
	REQ("pref send 0", 20, 0x0100, 0x0100, 1, 0, 1364, 131072, SMBDX_OK),
	REQ("pref send 127", 20, 0x0100, 0x0100, 1, 127, 1364, 131072, SMBDX_OK),
	REQ("pref send ffffffff", 20, 0x0100, 0x0100, 1, 0xffffffff, 1364,
	    131072, SMBDX_OK),
	/* The first failed rule, in 3.1.5.6 order, is reported. */
	REQ("version before credits", 20, 0x0200, 0x0200, 0, 1364, 0, 0,
	    SMBDX_ERR_NEG_REQ_VERSION),
	REQ("credits before sizes", 20, 0x0100, 0x0100, 0, 1364, 0, 0,
	    SMBDX_ERR_NEG_REQ_CREDITS),
	REQ("max recv before max frag", 20, 0x0100, 0x0100, 1, 1364, 0, 0,
	    SMBDX_ERR_NEG_REQ_MAX_RECV),
	REQ("length before version", 19, 0x0200, 0x0200, 0, 0, 0, 0,
	    SMBDX_ERR_NEG_REQ_SHORT),
};

KUNIT_ARRAY_PARAM_DESC(neg_req, neg_req_cases, name);

static void pdu_neg_req_decode(struct kunit *test)
{
	const struct neg_req_case *c = test->param_value;
	struct smbdx_negotiate_req req = {
		.min_version = cpu_to_le16(c->min_ver),
		.max_version = cpu_to_le16(c->max_ver),
		.reserved = cpu_to_le16(c->reserved),
		.credits_requested = cpu_to_le16(c->credits),
		.preferred_send_size = cpu_to_le32(c->pref),
		.max_receive_size = cpu_to_le32(c->max_recv),
		.max_fragmented_size = cpu_to_le32(c->max_frag),
	};
	struct smbdx_neg_req_info info;
	u8 *page = guard_page(test);
	u8 *p = at_page_end(page, &req, sizeof(req), c->len);

	KUNIT_EXPECT_EQ(test, smbdx_negotiate_req_decode(p, c->len, &info),
			c->want);
	if (c->len >= SMBDX_NEGOTIATE_REQ_LEN) {
		KUNIT_EXPECT_EQ(test, info.min_version, c->min_ver);
		KUNIT_EXPECT_EQ(test, info.max_version, c->max_ver);
		KUNIT_EXPECT_EQ(test, info.credits_requested, c->credits);
		KUNIT_EXPECT_EQ(test, info.preferred_send_size, c->pref);
		KUNIT_EXPECT_EQ(test, info.max_receive_size, c->max_recv);
		KUNIT_EXPECT_EQ(test, info.max_fragmented_size, c->max_frag);
	} else {
		KUNIT_EXPECT_EQ(test, info.credits_requested, 0);
	}
}

static void pdu_neg_req_null(struct kunit *test)
{
	struct smbdx_neg_req_info info;

	KUNIT_EXPECT_EQ(test, smbdx_negotiate_req_decode(NULL, 20, &info),
			SMBDX_ERR_NEG_REQ_SHORT);
}

/* Passive side, 3.1.5.6: the negotiated sizes. */
struct passive_case {
	const char *name;
	u32 pref;		/* peer's PreferredSendSize */
	u32 peer_max_recv;	/* peer's MaxReceiveSize */
	u32 want_max_recv;	/* our Connection.MaxReceiveSize */
	u32 want_max_send;	/* our Connection.MaxSendSize */
};

static const struct passive_case passive_cases[] = {
	{ "pref 0 -> 128", 0, 1364, 128, 1364 },
	{ "pref 127 -> 128", 127, 1364, 128, 1364 },
	{ "pref 128", 128, 1364, 128, 1364 },
	{ "pref 1000", 1000, 1364, 1000, 1364 },
	{ "pref 1363", 1363, 1364, 1363, 1364 },
	{ "pref 1364", 1364, 1364, 1364, 1364 },
	{ "pref 1365 -> ours", 1365, 1364, 1364, 1364 },
	{ "pref 8192 -> ours", 8192, 1364, 1364, 1364 },
	{ "pref ffffffff -> ours", 0xffffffff, 1364, 1364, 1364 },
	{ "peer max recv 128", 1364, 128, 1364, 128 },
	{ "peer max recv 1363", 1364, 1363, 1364, 1363 },
	{ "peer max recv 1365", 1364, 1365, 1364, 1364 },
	{ "peer max recv ffffffff", 1364, 0xffffffff, 1364, 1364 },
};

KUNIT_ARRAY_PARAM_DESC(passive, passive_cases, name);

static void pdu_params_from_req(struct kunit *test)
{
	const struct passive_case *c = test->param_value;
	struct smbdx_neg_req_info req = {
		.min_version = 0x0100, .max_version = 0x0100,
		.credits_requested = 77,
		.preferred_send_size = c->pref,
		.max_receive_size = c->peer_max_recv,
		.max_fragmented_size = 0x12345678,
	};
	struct smbdx_proto_config cfg;
	struct smbdx_proto_params p;

	test_config(&cfg);
	smbdx_params_from_req(&cfg, &req, &p);
	KUNIT_EXPECT_EQ(test, p.protocol, SMBDX_VERSION_1_0);
	KUNIT_EXPECT_EQ(test, p.max_receive_size, c->want_max_recv);
	KUNIT_EXPECT_EQ(test, p.max_send_size, c->want_max_send);
	KUNIT_EXPECT_EQ(test, p.recv_credit_target, 77);
	KUNIT_EXPECT_EQ(test, p.send_credits, 0);
	KUNIT_EXPECT_EQ(test, p.send_credit_target, cfg.send_credit_target);
	KUNIT_EXPECT_EQ(test, p.recv_credit_max, cfg.recv_credit_max);
	KUNIT_EXPECT_EQ(test, p.max_fragmented_send_size, 0x12345678);
	KUNIT_EXPECT_EQ(test, p.max_fragmented_recv_size,
			cfg.max_fragmented_recv_size);
	KUNIT_EXPECT_EQ(test, p.max_read_write_size, cfg.max_read_write_size);
	KUNIT_EXPECT_EQ(test, p.keepalive_interval, cfg.keepalive_interval);
}

/* ---- Negotiate Response ---------------------------------------------- */

/* MS-SMBD 4.1: the example Negotiate Response, byte for byte. */
static const u8 example_resp[32] = {
	0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00,
	0x0a, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x10, 0x00, 0x00, 0x04, 0x00, 0x00,
	0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00,
};

static void pdu_neg_resp_encode(struct kunit *test)
{
	struct smbdx_proto_config cfg;
	struct smbdx_neg_req_info req;
	struct smbdx_negotiate_resp resp;
	struct smbdx_proto_params p;

	/* The passive peer of example 4.1 answering the example request. */
	example_config(&cfg);
	KUNIT_ASSERT_EQ(test, smbdx_negotiate_req_decode(example_req, 20, &req),
			SMBDX_OK);
	smbdx_params_from_req(&cfg, &req, &p);
	memset(&resp, 0xa5, sizeof(resp));
	smbdx_negotiate_resp_encode(&p, 10, &resp);
	KUNIT_EXPECT_MEMEQ(test, &resp, example_resp, sizeof(example_resp));
}

static void pdu_neg_resp_failure(struct kunit *test)
{
	static const u8 not_supported[32] = {
		0x00, 0x01, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0,
		0xbb, 0x00, 0x00, 0xc0,
	};
	static const u8 no_resources[32] = {
		0x00, 0x01, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0,
		0x9a, 0x00, 0x00, 0xc0,
	};
	struct smbdx_proto_config cfg;
	struct smbdx_negotiate_resp resp;
	struct smbdx_neg_resp_info info;

	u32 status;

	memset(&resp, 0xa5, sizeof(resp));
	status = smbdx_verdict_nt_status(SMBDX_ERR_NEG_REQ_VERSION);
	smbdx_negotiate_resp_encode_failure(status, &resp);
	KUNIT_EXPECT_MEMEQ(test, &resp, not_supported, sizeof(resp));

	memset(&resp, 0xa5, sizeof(resp));
	status = smbdx_verdict_nt_status(SMBDX_ERR_NEG_NO_RECV_CREDITS);
	smbdx_negotiate_resp_encode_failure(status, &resp);
	KUNIT_EXPECT_MEMEQ(test, &resp, no_resources, sizeof(resp));

	/* The active side reports it as a Status failure, not anything else. */
	test_config(&cfg);
	KUNIT_EXPECT_EQ(test, smbdx_negotiate_resp_decode(&resp, 32, &cfg, &info),
			SMBDX_ERR_NEG_RESP_STATUS);
	KUNIT_EXPECT_EQ(test, info.status, SMBDX_STATUS_INSUFFICIENT_RESOURCES);
}

struct neg_resp_case {
	const char *name;
	u32 len;
	u16 negotiated, credits_req, credits_granted;
	u32 status, max_rw, pref, max_recv, max_frag;
	enum smbdx_verdict want;
};

/* Our configuration for these cases: defaults, MaxReceiveSize 1364. */
#define RESP(n, l, nv, cr, cg, st, rw, pr, mr, mf, w) \
	{ n, l, nv, cr, cg, st, rw, pr, mr, mf, w }
#define RESP_OK(n, l, w) \
	RESP(n, l, 0x0100, 255, 255, 0, 1048576, 1364, 1364, 1048576, w)

static const struct neg_resp_case neg_resp_cases[] = {
	RESP_OK("valid", 32, SMBDX_OK),
	RESP_OK("len 0", 0, SMBDX_ERR_NEG_RESP_SHORT),
	RESP_OK("len 20", 20, SMBDX_ERR_NEG_RESP_SHORT),
	RESP_OK("len 31", 31, SMBDX_ERR_NEG_RESP_SHORT),
	RESP_OK("len 33", 33, SMBDX_OK),
	RESP("negotiated 00ff", 32, 0x00ff, 1, 1, 0, 0, 1364, 128, 131072,
	     SMBDX_ERR_NEG_RESP_VERSION),
	RESP("negotiated 0101", 32, 0x0101, 1, 1, 0, 0, 1364, 128, 131072,
	     SMBDX_ERR_NEG_RESP_VERSION),
	RESP("negotiated 0", 32, 0, 1, 1, 0, 0, 1364, 128, 131072,
	     SMBDX_ERR_NEG_RESP_VERSION),
	RESP("status 1", 32, 0x0100, 1, 1, 1, 0, 1364, 128, 131072,
	     SMBDX_ERR_NEG_RESP_STATUS),
	RESP("status not supported", 32, 0x0100, 1, 1, 0xc00000bb, 0, 1364,
	     128, 131072, SMBDX_ERR_NEG_RESP_STATUS),
	RESP("status 80000000", 32, 0x0100, 1, 1, 0x80000000, 0, 1364, 128,
	     131072, SMBDX_ERR_NEG_RESP_STATUS),
	RESP("max recv 127", 32, 0x0100, 1, 1, 0, 0, 1364, 127, 131072,
	     SMBDX_ERR_NEG_RESP_MAX_RECV),
	RESP("max recv 128", 32, 0x0100, 1, 1, 0, 0, 1364, 128, 131072,
	     SMBDX_OK),
	RESP("max frag 131071", 32, 0x0100, 1, 1, 0, 0, 1364, 128, 131071,
	     SMBDX_ERR_NEG_RESP_MAX_FRAG),
	RESP("max frag 131072", 32, 0x0100, 1, 1, 0, 0, 1364, 128, 131072,
	     SMBDX_OK),
	RESP("credits granted 0", 32, 0x0100, 1, 0, 0, 0, 1364, 128, 131072,
	     SMBDX_ERR_NEG_RESP_CREDITS_GRANTED),
	RESP("credits granted 1", 32, 0x0100, 1, 1, 0, 0, 1364, 128, 131072,
	     SMBDX_OK),
	RESP("credits requested 0", 32, 0x0100, 0, 1, 0, 0, 1364, 128, 131072,
	     SMBDX_ERR_NEG_RESP_CREDITS_REQUESTED),
	RESP("credits requested 1", 32, 0x0100, 1, 1, 0, 0, 1364, 128, 131072,
	     SMBDX_OK),
	RESP("pref send = our max recv", 32, 0x0100, 1, 1, 0, 0, 1364, 128,
	     131072, SMBDX_OK),
	RESP("pref send our max recv + 1", 32, 0x0100, 1, 1, 0, 0, 1365, 128,
	     131072, SMBDX_ERR_NEG_RESP_PREF_SEND),
	RESP("pref send ffffffff", 32, 0x0100, 1, 1, 0, 0, 0xffffffff, 128,
	     131072, SMBDX_ERR_NEG_RESP_PREF_SEND),
	RESP("pref send 0", 32, 0x0100, 1, 1, 0, 0, 0, 128, 131072, SMBDX_OK),
	RESP("max rw 0", 32, 0x0100, 1, 1, 0, 0, 1364, 128, 131072, SMBDX_OK),
	/* Order: a failure response is a Status failure first. */
	RESP("all zero but status", 32, 0, 0, 0, 0xc000009a, 0, 0, 0, 0,
	     SMBDX_ERR_NEG_RESP_STATUS),
	RESP("all zero", 32, 0, 0, 0, 0, 0, 0, 0, 0,
	     SMBDX_ERR_NEG_RESP_VERSION),
};

KUNIT_ARRAY_PARAM_DESC(neg_resp, neg_resp_cases, name);

static void fill_resp(struct smbdx_negotiate_resp *r,
		      const struct neg_resp_case *c)
{
	memset(r, 0, sizeof(*r));
	r->min_version = cpu_to_le16(0x0100);
	r->max_version = cpu_to_le16(0x0100);
	r->negotiated_version = cpu_to_le16(c->negotiated);
	r->credits_requested = cpu_to_le16(c->credits_req);
	r->credits_granted = cpu_to_le16(c->credits_granted);
	r->status = cpu_to_le32(c->status);
	r->max_read_write_size = cpu_to_le32(c->max_rw);
	r->preferred_send_size = cpu_to_le32(c->pref);
	r->max_receive_size = cpu_to_le32(c->max_recv);
	r->max_fragmented_size = cpu_to_le32(c->max_frag);
}

static void pdu_neg_resp_decode(struct kunit *test)
{
	const struct neg_resp_case *c = test->param_value;
	struct smbdx_negotiate_resp r;
	struct smbdx_proto_config cfg;
	struct smbdx_neg_resp_info info;
	u8 *page = guard_page(test);
	u8 *p;

	test_config(&cfg);
	fill_resp(&r, c);
	p = at_page_end(page, &r, sizeof(r), c->len);
	KUNIT_EXPECT_EQ(test, smbdx_negotiate_resp_decode(p, c->len, &cfg, &info),
			c->want);
	if (c->len >= SMBDX_NEGOTIATE_RESP_LEN) {
		KUNIT_EXPECT_EQ(test, info.negotiated_version, c->negotiated);
		KUNIT_EXPECT_EQ(test, info.status, c->status);
		KUNIT_EXPECT_EQ(test, info.credits_granted, c->credits_granted);
		KUNIT_EXPECT_EQ(test, info.credits_requested, c->credits_req);
		KUNIT_EXPECT_EQ(test, info.max_read_write_size, c->max_rw);
		KUNIT_EXPECT_EQ(test, info.preferred_send_size, c->pref);
		KUNIT_EXPECT_EQ(test, info.max_receive_size, c->max_recv);
		KUNIT_EXPECT_EQ(test, info.max_fragmented_size, c->max_frag);
	}
}

static void pdu_neg_resp_null(struct kunit *test)
{
	struct smbdx_proto_config cfg;
	struct smbdx_neg_resp_info info;

	test_config(&cfg);
	KUNIT_EXPECT_EQ(test, smbdx_negotiate_resp_decode(NULL, 32, &cfg, &info),
			SMBDX_ERR_NEG_RESP_SHORT);
}

/* Active side, 3.1.5.7: the negotiated values. */
struct active_case {
	const char *name;
	u16 granted;
	u32 pref, peer_max_recv, peer_rw;
	u32 want_max_recv, want_max_send, want_rw;
};

static const struct active_case active_cases[] = {
	{ "windows server", 255, 1364, 8192, 8388608, 1364, 1364, 8388608 },
	{ "pref 0 -> 128", 1, 0, 8192, 8388608, 128, 1364, 8388608 },
	{ "pref 127 -> 128", 1, 127, 8192, 8388608, 128, 1364, 8388608 },
	{ "pref 129", 1, 129, 8192, 8388608, 129, 1364, 8388608 },
	{ "peer max recv 128", 1, 1364, 128, 8388608, 1364, 128, 8388608 },
	{ "peer max recv 1363", 1, 1364, 1363, 8388608, 1364, 1363, 8388608 },
	{ "peer rw 0", 1, 1364, 8192, 0, 1364, 1364, 0 },
	{ "peer rw 1 MiB", 1, 1364, 8192, 1048576, 1364, 1364, 1048576 },
	{ "peer rw above ours", 65535, 1364, 8192, 0xffffffff, 1364, 1364,
	  8388608 },
};

KUNIT_ARRAY_PARAM_DESC(active, active_cases, name);

static void pdu_params_from_resp(struct kunit *test)
{
	const struct active_case *c = test->param_value;
	struct smbdx_neg_resp_info resp = {
		.min_version = 0x0100, .max_version = 0x0100,
		.negotiated_version = 0x0100,
		.credits_requested = 33,
		.credits_granted = c->granted,
		.max_read_write_size = c->peer_rw,
		.preferred_send_size = c->pref,
		.max_receive_size = c->peer_max_recv,
		.max_fragmented_size = 0x00abcdef,
	};
	struct smbdx_proto_config cfg;
	struct smbdx_proto_params p;

	test_config(&cfg);
	smbdx_params_from_resp(&cfg, &resp, &p);
	KUNIT_EXPECT_EQ(test, p.protocol, SMBDX_VERSION_1_0);
	KUNIT_EXPECT_EQ(test, p.send_credits, c->granted);
	KUNIT_EXPECT_EQ(test, p.recv_credit_target, 33);
	KUNIT_EXPECT_EQ(test, p.max_receive_size, c->want_max_recv);
	KUNIT_EXPECT_EQ(test, p.max_send_size, c->want_max_send);
	KUNIT_EXPECT_EQ(test, p.max_read_write_size, c->want_rw);
	KUNIT_EXPECT_EQ(test, p.max_fragmented_send_size, 0x00abcdef);
	KUNIT_EXPECT_EQ(test, p.max_fragmented_recv_size,
			cfg.max_fragmented_recv_size);
	KUNIT_EXPECT_EQ(test, p.send_credit_target, cfg.send_credit_target);
	KUNIT_EXPECT_EQ(test, p.recv_credit_max, cfg.recv_credit_max);
}

/*
 * Both sides of a negotiation built from two different configurations:
 * each side's send size fits the other's receive size, and fragmented
 * limits cross over.
 */
static void pdu_negotiate_both_sides(struct kunit *test)
{
	struct smbdx_proto_config act, pas;
	struct smbdx_negotiate_req req;
	struct smbdx_negotiate_resp resp;
	struct smbdx_neg_req_info rq;
	struct smbdx_neg_resp_info rs;
	struct smbdx_proto_params pa, pp;
	static const u32 sizes[] = { 128, 129, 1000, 1364, 8192, 65536 };
	enum smbdx_verdict v;
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		for (j = 0; j < ARRAY_SIZE(sizes); j++) {
			test_config(&act);
			test_config(&pas);
			act.max_send_size = sizes[i];
			act.max_receive_size = sizes[j];
			pas.max_send_size = sizes[j];
			pas.max_receive_size = sizes[i];
			pas.max_read_write_size = 1048576;
			act.send_credit_target = 17;
			pas.send_credit_target = 19;

			smbdx_negotiate_req_encode(&act, &req);
			v = smbdx_negotiate_req_decode(&req, sizeof(req), &rq);
			KUNIT_ASSERT_EQ(test, v, SMBDX_OK);
			smbdx_params_from_req(&pas, &rq, &pp);
			smbdx_negotiate_resp_encode(&pp, 5, &resp);
			v = smbdx_negotiate_resp_decode(&resp, sizeof(resp), &act,
							&rs);
			KUNIT_ASSERT_EQ(test, v, SMBDX_OK);
			smbdx_params_from_resp(&act, &rs, &pa);

			KUNIT_EXPECT_LE(test, pa.max_send_size, pp.max_receive_size);
			KUNIT_EXPECT_LE(test, pp.max_send_size, pa.max_receive_size);
			KUNIT_EXPECT_LE(test, pa.max_receive_size, act.max_receive_size);
			KUNIT_EXPECT_LE(test, pp.max_receive_size, pas.max_receive_size);
			KUNIT_EXPECT_EQ(test, pa.max_fragmented_send_size,
					pp.max_fragmented_recv_size);
			KUNIT_EXPECT_EQ(test, pp.max_fragmented_send_size,
					pa.max_fragmented_recv_size);
			KUNIT_EXPECT_EQ(test, pa.send_credits, 5);
			KUNIT_EXPECT_EQ(test, pa.recv_credit_target, 19);
			KUNIT_EXPECT_EQ(test, pp.recv_credit_target, 17);
			KUNIT_EXPECT_EQ(test, pa.max_read_write_size, 1048576);
		}
	}
}

/* ---- Data Transfer --------------------------------------------------- */

static void expect_di_eq(struct kunit *test, const struct smbdx_data_info *a,
			 const struct smbdx_data_info *b)
{
	KUNIT_EXPECT_EQ(test, a->credits_requested, b->credits_requested);
	KUNIT_EXPECT_EQ(test, a->credits_granted, b->credits_granted);
	KUNIT_EXPECT_EQ(test, a->flags, b->flags);
	KUNIT_EXPECT_EQ(test, a->remaining_data_length, b->remaining_data_length);
	KUNIT_EXPECT_EQ(test, a->data_offset, b->data_offset);
	KUNIT_EXPECT_EQ(test, a->data_length, b->data_length);
}

struct data_case {
	const char *name;
	u32 len;
	u16 credits_req, credits_granted, flags;
	u32 remaining, offset, length;
	u32 max_frag;
	enum smbdx_verdict want;
};

#define MF 131072
#define DATA(n, l, cr, fl, rem, off, dl, mf, w) \
	{ n, l, cr, 3, fl, rem, off, dl, mf, w }

static const struct data_case data_cases[] = {
	DATA("empty 20", 20, 1, 0, 0, 0, 0, MF, SMBDX_OK),
	DATA("len 0", 0, 1, 0, 0, 0, 0, MF, SMBDX_ERR_DATA_SHORT),
	DATA("len 19", 19, 1, 0, 0, 0, 0, MF, SMBDX_ERR_DATA_SHORT),
	DATA("credits requested 0", 20, 0, 0, 0, 0, 0, MF,
	     SMBDX_ERR_DATA_CREDITS_REQUESTED),
	DATA("credits requested 1", 20, 1, 0, 0, 0, 0, MF, SMBDX_OK),
	DATA("credits requested ffff", 20, 0xffff, 0, 0, 0, 0, MF, SMBDX_OK),
	DATA("unknown flags ignored", 20, 1, 0xfffe, 0, 0, 0, MF, SMBDX_OK),
	DATA("response requested", 20, 1, 1, 0, 0, 0, MF, SMBDX_OK),
	DATA("payload at 24", 124, 1, 0, 0, 24, 100, MF, SMBDX_OK),
	DATA("payload at 32", 132, 1, 0, 0, 32, 100, MF, SMBDX_OK),
	DATA("offset 20 unaligned", 124, 1, 0, 0, 20, 100, MF,
	     SMBDX_ERR_DATA_OFFSET_ALIGN),
	DATA("offset 25 unaligned", 125, 1, 0, 0, 25, 100, MF,
	     SMBDX_ERR_DATA_OFFSET_ALIGN),
	DATA("offset 28 unaligned", 128, 1, 0, 0, 28, 100, MF,
	     SMBDX_ERR_DATA_OFFSET_ALIGN),
	DATA("offset 31 unaligned", 131, 1, 0, 0, 31, 100, MF,
	     SMBDX_ERR_DATA_OFFSET_ALIGN),
	DATA("offset 1 no payload", 20, 1, 0, 0, 1, 0, MF,
	     SMBDX_ERR_DATA_OFFSET_ALIGN),
	DATA("offset 0 payload overlaps", 124, 1, 0, 0, 0, 100, MF,
	     SMBDX_ERR_DATA_OFFSET_OVERLAP),
	DATA("offset 8 payload overlaps", 124, 1, 0, 0, 8, 100, MF,
	     SMBDX_ERR_DATA_OFFSET_OVERLAP),
	DATA("offset 16 payload overlaps", 124, 1, 0, 0, 16, 100, MF,
	     SMBDX_ERR_DATA_OFFSET_OVERLAP),
	DATA("offset 24 no payload", 24, 1, 0, 0, 24, 0, MF, SMBDX_OK),
	DATA("offset 24 no payload len 20", 20, 1, 0, 0, 24, 0, MF,
	     SMBDX_ERR_DATA_PAST_END),
	DATA("offset 16 no payload len 20", 20, 1, 0, 0, 16, 0, MF, SMBDX_OK),
	DATA("end = len", 124, 1, 0, 0, 24, 100, MF, SMBDX_OK),
	DATA("end = len + 1", 124, 1, 0, 0, 24, 101, MF,
	     SMBDX_ERR_DATA_PAST_END),
	DATA("end = len - 1 (trailing bytes)", 124, 1, 0, 0, 24, 99, MF,
	     SMBDX_OK),
	DATA("offset past end", 124, 1, 0, 0, 128, 0, MF,
	     SMBDX_ERR_DATA_PAST_END),
	DATA("offset+length wraps to 0", 124, 1, 0, 0, 0xfffffff8, 8, MF,
	     SMBDX_ERR_DATA_OVERFLOW),
	DATA("offset+length wraps past 2^32", 124, 1, 0, 0, 24, 0xfffffff8, MF,
	     SMBDX_ERR_DATA_OVERFLOW),
	DATA("offset+length = ffffffff", 124, 1, 0, 0, 0xfffffff8, 7, MF,
	     SMBDX_ERR_DATA_PAST_END),
	DATA("length ffffffff", 124, 1, 0, 0, 24, 0xffffffff, 0xffffffff,
	     SMBDX_ERR_DATA_OVERFLOW),
	DATA("total = max frag", 124, 1, 0, MF - 100, 24, 100, MF, SMBDX_OK),
	DATA("total = max frag + 1", 124, 1, 0, MF - 99, 24, 100, MF,
	     SMBDX_ERR_DATA_TOO_BIG),
	DATA("remaining = max frag no payload", 20, 1, 0, MF, 0, 0, MF,
	     SMBDX_OK),
	DATA("remaining = max frag + 1 no payload", 20, 1, 0, MF + 1, 0, 0, MF,
	     SMBDX_ERR_DATA_TOO_BIG),
	DATA("length+remaining wraps", 124, 1, 0, 0xffffffff, 24, 100,
	     0xffffffff, SMBDX_ERR_DATA_TOO_BIG),
	DATA("remaining ffffffff", 124, 1, 0, 0xffffffff, 24, 1, MF,
	     SMBDX_ERR_DATA_TOO_BIG),
	DATA("max frag 0 with payload", 124, 1, 0, 0, 24, 1, 0,
	     SMBDX_ERR_DATA_TOO_BIG),
	DATA("max frag 0 empty", 20, 1, 0, 0, 0, 0, 0, SMBDX_OK),
	/* Order of 3.1.5.8: the first failed rule is reported. */
	DATA("credits before alignment", 124, 0, 0, 0, 25, 100, MF,
	     SMBDX_ERR_DATA_CREDITS_REQUESTED),
	DATA("alignment before range", 124, 1, 0, 0, 25, 1000, MF,
	     SMBDX_ERR_DATA_OFFSET_ALIGN),
	DATA("range before total", 124, 1, 0, MF, 24, 1000, MF,
	     SMBDX_ERR_DATA_PAST_END),
	DATA("total before overlap", 124, 1, 0, MF, 0, 100, MF,
	     SMBDX_ERR_DATA_TOO_BIG),
};

KUNIT_ARRAY_PARAM_DESC(data, data_cases, name);

static void pdu_data_decode(struct kunit *test)
{
	const struct data_case *c = test->param_value;
	struct smbdx_data_transfer hdr = {
		.credits_requested = cpu_to_le16(c->credits_req),
		.credits_granted = cpu_to_le16(c->credits_granted),
		.flags = cpu_to_le16(c->flags),
		.reserved = cpu_to_le16(0xbeef),
		.remaining_data_length = cpu_to_le32(c->remaining),
		.data_offset = cpu_to_le32(c->offset),
		.data_length = cpu_to_le32(c->length),
	};
	struct smbdx_data_info di;
	u8 *page = guard_page(test);
	u8 *p = at_page_end(page, &hdr, sizeof(hdr), c->len);
	enum smbdx_verdict v;

	v = smbdx_data_decode(p, c->len, c->max_frag, &di);
	KUNIT_EXPECT_EQ(test, v, c->want);
	if (c->len >= SMBDX_DATA_HDR_LEN) {
		KUNIT_EXPECT_EQ(test, di.credits_requested, c->credits_req);
		KUNIT_EXPECT_EQ(test, di.credits_granted, c->credits_granted);
		KUNIT_EXPECT_EQ(test, di.flags, c->flags);
		KUNIT_EXPECT_EQ(test, di.remaining_data_length, c->remaining);
		KUNIT_EXPECT_EQ(test, di.data_offset, c->offset);
		KUNIT_EXPECT_EQ(test, di.data_length, c->length);
	}
	if (v == SMBDX_OK) {
		/* The payload it describes lies inside the message. */
		KUNIT_EXPECT_LE(test, (u64)di.data_offset + di.data_length,
				(u64)c->len);
		KUNIT_EXPECT_LE(test, (u64)di.data_length +
				di.remaining_data_length, (u64)c->max_frag);
	}
}

static void pdu_data_null(struct kunit *test)
{
	struct smbdx_data_info di;

	KUNIT_EXPECT_EQ(test, smbdx_data_decode(NULL, 100, MF, &di),
			SMBDX_ERR_DATA_SHORT);
}

static void pdu_data_encode_empty(struct kunit *test)
{
	static const u8 want[20] = {
		0x0a, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00,
	};
	struct smbdx_data_info di = {
		.credits_requested = 10, .credits_granted = 1,
		.flags = SMBDX_FLAG_RESPONSE_REQUESTED,
	};
	struct smbdx_data_info back;
	u8 buf[32];

	memset(buf, 0xa5, sizeof(buf));
	KUNIT_ASSERT_EQ(test, smbdx_data_encode(buf, 20, &di), SMBDX_OK);
	KUNIT_EXPECT_MEMEQ(test, buf, want, sizeof(want));
	KUNIT_EXPECT_EQ(test, buf[20], 0xa5);	/* nothing written after it */
	KUNIT_EXPECT_EQ(test, smbdx_data_wire_len(&di), 20);
	KUNIT_EXPECT_EQ(test, smbdx_data_encode(buf, 19, &di),
			SMBDX_ERR_BUF_TOO_SMALL);
	KUNIT_EXPECT_EQ(test, smbdx_data_encode(NULL, 20, &di),
			SMBDX_ERR_BUF_TOO_SMALL);

	KUNIT_ASSERT_EQ(test, smbdx_data_decode(buf, 20, MF, &back), SMBDX_OK);
	expect_di_eq(test, &back, &di);
}

/* MS-SMBD 4.2: 500 bytes of data, byte for byte (header and padding). */
static void pdu_data_encode_example(struct kunit *test)
{
	static const u8 want[24] = {
		0x0a, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00,
		0xf4, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	struct smbdx_data_info di = {
		.credits_requested = 10, .credits_granted = 1,
		.data_offset = 24, .data_length = 500,
	};
	struct smbdx_data_info back;
	u8 *buf = kunit_kmalloc(test, 524, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	memset(buf, 0xa5, 524);
	KUNIT_ASSERT_EQ(test, smbdx_data_encode(buf, 524, &di), SMBDX_OK);
	KUNIT_EXPECT_MEMEQ(test, buf, want, sizeof(want));
	KUNIT_EXPECT_EQ(test, buf[24], 0xa5);	/* payload left alone */
	KUNIT_EXPECT_EQ(test, smbdx_data_wire_len(&di), 524);
	KUNIT_ASSERT_EQ(test, smbdx_data_decode(buf, 524, MF, &back), SMBDX_OK);
	expect_di_eq(test, &back, &di);
	/* Header and padding need 24 bytes; the payload is the caller's. */
	KUNIT_EXPECT_EQ(test, smbdx_data_encode(buf, 23, &di),
			SMBDX_ERR_BUF_TOO_SMALL);
	KUNIT_EXPECT_EQ(test, smbdx_data_encode(buf, 24, &di), SMBDX_OK);
}

static void pdu_data_encode_padding(struct kunit *test)
{
	struct smbdx_data_info di = {
		.credits_requested = 1, .data_offset = 40, .data_length = 1,
	};
	u8 buf[48];
	unsigned int i;

	memset(buf, 0xa5, sizeof(buf));
	KUNIT_ASSERT_EQ(test, smbdx_data_encode(buf, sizeof(buf), &di), SMBDX_OK);
	for (i = 20; i < 40; i++)
		KUNIT_EXPECT_EQ(test, buf[i], 0);
	KUNIT_EXPECT_EQ(test, buf[40], 0xa5);
	KUNIT_EXPECT_EQ(test, smbdx_data_wire_len(&di), 41);
}

struct encode_case {
	const char *name;
	u16 flags;
	u32 remaining, offset, length;
	enum smbdx_verdict want;
};

static const struct encode_case encode_cases[] = {
	{ "empty", 0, 0, 0, 0, SMBDX_OK },
	{ "payload at 24", 0, 0, 24, 10, SMBDX_OK },
	{ "payload at 32", 0, 5, 32, 10, SMBDX_OK },
	{ "flag 0x0002", 2, 0, 0, 0, SMBDX_ERR_INVALID },
	{ "flag 0x8000", 0x8000, 0, 24, 10, SMBDX_ERR_INVALID },
	{ "empty with offset", 0, 0, 24, 0, SMBDX_ERR_INVALID },
	{ "empty with remaining", 0, 7, 0, 0, SMBDX_ERR_INVALID },
	{ "payload at 0", 0, 0, 0, 10, SMBDX_ERR_INVALID },
	{ "payload at 16", 0, 0, 16, 10, SMBDX_ERR_INVALID },
	{ "payload at 20", 0, 0, 20, 10, SMBDX_ERR_INVALID },
	{ "payload at 28", 0, 0, 28, 10, SMBDX_ERR_INVALID },
	{ "payload wraps", 0, 0, 24, 0xfffffff0, SMBDX_ERR_INVALID },
};

KUNIT_ARRAY_PARAM_DESC(encode, encode_cases, name);

static void pdu_data_encode_rules(struct kunit *test)
{
	const struct encode_case *c = test->param_value;
	struct smbdx_data_info di = {
		.credits_requested = 1, .flags = c->flags,
		.remaining_data_length = c->remaining,
		.data_offset = c->offset, .data_length = c->length,
	};
	u8 buf[64];

	KUNIT_EXPECT_EQ(test, smbdx_data_encode(buf, sizeof(buf), &di), c->want);
}

/* ---- Buffer Descriptor V1 -------------------------------------------- */

/* MS-SMBD 4.4: the example descriptor, byte for byte. */
static void pdu_bd_example(struct kunit *test)
{
	static const u8 want[16] = {
		0x12, 0xe0, 0xcd, 0xab, 0x00, 0x00, 0x00, 0x00,
		0x56, 0xbc, 0x00, 0x1a, 0x00, 0x00, 0x10, 0x00,
	};
	struct smbdx_buffer_desc d = {
		.offset = 0xabcde012, .token = 0x1a00bc56, .length = 0x100000,
	};
	struct smbdx_buffer_desc_v1 w;
	struct smbdx_buffer_desc back;
	u64 total;

	smbdx_bd_v1_encode(&d, &w);
	KUNIT_EXPECT_MEMEQ(test, &w, want, sizeof(want));
	KUNIT_ASSERT_EQ(test, smbdx_bd_v1_decode(&w, 16, 0, &back), SMBDX_OK);
	KUNIT_EXPECT_EQ(test, back.offset, d.offset);
	KUNIT_EXPECT_EQ(test, back.token, d.token);
	KUNIT_EXPECT_EQ(test, back.length, d.length);
	KUNIT_EXPECT_EQ(test, smbdx_bd_v1_total(&w, 16, &total), SMBDX_OK);
	KUNIT_EXPECT_EQ(test, total, 0x100000);
}

struct bd_count_case {
	const char *name;
	u32 len;
	u32 count;
	enum smbdx_verdict want;
};

static const struct bd_count_case bd_count_cases[] = {
	{ "0 bytes", 0, 0, SMBDX_ERR_BD_LENGTH },
	{ "1 byte", 1, 0, SMBDX_ERR_BD_LENGTH },
	{ "15 bytes", 15, 0, SMBDX_ERR_BD_LENGTH },
	{ "16 bytes", 16, 1, SMBDX_OK },
	{ "17 bytes", 17, 0, SMBDX_ERR_BD_LENGTH },
	{ "31 bytes", 31, 0, SMBDX_ERR_BD_LENGTH },
	{ "32 bytes", 32, 2, SMBDX_OK },
	{ "fffffff0 bytes", 0xfffffff0, 0x0fffffff, SMBDX_OK },
	{ "ffffffff bytes", 0xffffffff, 0, SMBDX_ERR_BD_LENGTH },
};

KUNIT_ARRAY_PARAM_DESC(bd_count, bd_count_cases, name);

static void pdu_bd_count(struct kunit *test)
{
	const struct bd_count_case *c = test->param_value;
	u32 n = 1234;

	KUNIT_EXPECT_EQ(test, smbdx_bd_v1_count(c->len, &n), c->want);
	KUNIT_EXPECT_EQ(test, n, c->count);
}

static void pdu_bd_array(struct kunit *test)
{
	struct smbdx_buffer_desc d[3] = {
		{ .offset = 0x1000, .token = 1, .length = 4096 },
		{ .offset = U64_MAX - 6, .token = 2, .length = 6 },
		{ .offset = U64_MAX - 5, .token = 3, .length = 6 },
	};
	struct smbdx_buffer_desc_v1 w[3];
	struct smbdx_buffer_desc out;
	u8 *page = guard_page(test);
	u8 *p;
	u64 total;
	int i;

	for (i = 0; i < 3; i++)
		smbdx_bd_v1_encode(&d[i], &w[i]);
	/* Odd alignment, ending at the guard page. */
	p = at_page_end(page, w, sizeof(w), sizeof(w));
	KUNIT_EXPECT_EQ(test, smbdx_bd_v1_decode(p, 48, 0, &out), SMBDX_OK);
	KUNIT_EXPECT_EQ(test, out.length, 4096);
	KUNIT_EXPECT_EQ(test, smbdx_bd_v1_decode(p, 48, 1, &out), SMBDX_OK);
	KUNIT_EXPECT_EQ(test, out.offset, U64_MAX - 6);
	KUNIT_EXPECT_EQ(test, smbdx_bd_v1_decode(p, 48, 2, &out),
			SMBDX_ERR_BD_OVERFLOW);
	KUNIT_EXPECT_EQ(test, out.token, 0);	/* zeroed on failure */
	KUNIT_EXPECT_EQ(test, smbdx_bd_v1_decode(p, 48, 3, &out),
			SMBDX_ERR_BD_LENGTH);
	KUNIT_EXPECT_EQ(test, smbdx_bd_v1_decode(p, 47, 0, &out),
			SMBDX_ERR_BD_LENGTH);
	KUNIT_EXPECT_EQ(test, smbdx_bd_v1_decode(NULL, 48, 0, &out),
			SMBDX_ERR_BD_LENGTH);
	KUNIT_EXPECT_EQ(test, smbdx_bd_v1_total(p, 48, &total),
			SMBDX_ERR_BD_OVERFLOW);
	KUNIT_EXPECT_EQ(test, total, 0);
	p = at_page_end(page, w, 32, 32);
	KUNIT_EXPECT_EQ(test, smbdx_bd_v1_total(p, 32, &total), SMBDX_OK);
	KUNIT_EXPECT_EQ(test, total, 4102);
	p = at_page_end(page, w, 32, 33);
	KUNIT_EXPECT_EQ(test, smbdx_bd_v1_total(p, 33, &total),
			SMBDX_ERR_BD_LENGTH);
}

/* ---- iWARP IRD/ORD private data -------------------------------------- */

static void pdu_ird_ord_encode(struct kunit *test)
{
	static const u8 want16[8] = { 0, 0, 0, 0x10, 0, 0, 0, 0x10 };
	static const u8 want_mixed[8] = { 0x01, 0x02, 0x03, 0x04, 0, 0, 0, 1 };
	struct smbdx_ird_ord v = { .ird = 16, .ord = 16 };
	struct smbdx_ird_ord_hdr h;

	smbdx_ird_ord_encode(&v, &h);
	KUNIT_EXPECT_MEMEQ(test, &h, want16, 8);
	v.ird = 0x01020304;
	v.ord = 1;
	smbdx_ird_ord_encode(&v, &h);
	KUNIT_EXPECT_MEMEQ(test, &h, want_mixed, 8);
}

struct ird_ord_case {
	const char *name;
	bool iwarp;
	u32 len;
	u8 pd[9];
	u32 cm_ird, cm_ord;
	enum smbdx_ird_ord_kind kind;
	u32 ird, ord;
};

static const struct ird_ord_case ird_ord_cases[] = {
	{ "IB ignores header", false, 8, { 0, 0, 0, 1, 0, 0, 0, 1 }, 16, 16,
	  SMBDX_IRD_ORD_ABSENT, 16, 16 },
	{ "no private data", true, 0, {}, 16, 8, SMBDX_IRD_ORD_ABSENT, 16, 8 },
	{ "7 bytes", true, 7, { 0, 0, 0, 1, 0, 0, 0 }, 16, 16,
	  SMBDX_IRD_ORD_ABSENT, 16, 16 },
	{ "9 bytes", true, 9, { 0, 0, 0, 1, 0, 0, 0, 1, 0 }, 16, 16,
	  SMBDX_IRD_ORD_ABSENT, 16, 16 },
	{ "MPA v2 peer, matching", true, 8, { 0, 0, 0, 16, 0, 0, 0, 8 }, 16, 8,
	  SMBDX_IRD_ORD_MATCH, 16, 8 },
	{ "legacy big-endian", true, 8, { 0, 0, 0, 4, 0, 0, 0, 2 }, 16, 16,
	  SMBDX_IRD_ORD_LEGACY, 4, 2 },
	{ "legacy little-endian 16/16", true, 8,
	  { 0x10, 0, 0, 0, 0x10, 0, 0, 0 }, 0, 0, SMBDX_IRD_ORD_LEGACY, 16, 16 },
	{ "old cifs.ko IRD 32 ORD 1 LE", true, 8, { 32, 0, 0, 0, 1, 0, 0, 0 },
	  0, 0, SMBDX_IRD_ORD_LEGACY, 32, 1 },
	{ "legacy 255", true, 8, { 0, 0, 0, 0xff, 0, 0, 0, 0xff }, 0, 0,
	  SMBDX_IRD_ORD_LEGACY, 255, 255 },
	{ "legacy 256 clamps", true, 8, { 0, 0, 1, 0, 0, 0, 1, 0 }, 0, 0,
	  SMBDX_IRD_ORD_LEGACY, 255, 255 },
	{ "legacy garbage clamps", true, 8,
	  { 0x12, 0x34, 0x56, 0x78, 0xff, 0xff, 0xff, 0xff }, 0, 0,
	  SMBDX_IRD_ORD_LEGACY, 255, 255 },
	{ "legacy zeros", true, 8, {}, 16, 16, SMBDX_IRD_ORD_LEGACY, 0, 0 },
};

KUNIT_ARRAY_PARAM_DESC(ird_ord, ird_ord_cases, name);

static void pdu_ird_ord_parse(struct kunit *test)
{
	const struct ird_ord_case *c = test->param_value;
	struct smbdx_ird_ord cm = { .ird = c->cm_ird, .ord = c->cm_ord };
	struct smbdx_ird_ord peer;
	u8 *page = guard_page(test);
	u8 *p = at_page_end(page, c->pd, sizeof(c->pd), c->len);

	KUNIT_EXPECT_EQ(test, smbdx_ird_ord_parse(c->iwarp, c->len ? p : NULL,
						  c->len, &cm, &peer), c->kind);
	KUNIT_EXPECT_EQ(test, peer.ird, c->ird);
	KUNIT_EXPECT_EQ(test, peer.ord, c->ord);
}

struct ird_ord_neg_case {
	const char *name;
	u32 l_ird, l_ord, p_ird, p_ord;
	u32 ird, ord;
	enum smbdx_verdict want;
};

static const struct ird_ord_neg_case ird_ord_neg_cases[] = {
	{ "equal", 16, 16, 16, 16, 16, 16, SMBDX_OK },
	{ "peer smaller", 16, 16, 8, 4, 4, 8, SMBDX_OK },
	{ "peer larger", 16, 8, 255, 255, 16, 8, SMBDX_OK },
	{ "peer zero = not given", 16, 8, 0, 0, 16, 8, SMBDX_OK },
	{ "peer ORD zero only", 16, 8, 4, 0, 16, 4, SMBDX_OK },
	{ "local IRD zero", 0, 8, 4, 4, 0, 4, SMBDX_ERR_IRD_ORD_ZERO },
	{ "local ORD zero", 8, 0, 4, 4, 4, 0, SMBDX_ERR_IRD_ORD_ZERO },
	{ "ones", 1, 1, 1, 1, 1, 1, SMBDX_OK },
};

KUNIT_ARRAY_PARAM_DESC(ird_ord_neg, ird_ord_neg_cases, name);

static void pdu_ird_ord_negotiate(struct kunit *test)
{
	const struct ird_ord_neg_case *c = test->param_value;
	struct smbdx_ird_ord l = { .ird = c->l_ird, .ord = c->l_ord };
	struct smbdx_ird_ord p = { .ird = c->p_ird, .ord = c->p_ord };
	struct smbdx_ird_ord out;

	KUNIT_EXPECT_EQ(test, smbdx_ird_ord_negotiate(&l, &p, &out), c->want);
	KUNIT_EXPECT_EQ(test, out.ird, c->ird);
	KUNIT_EXPECT_EQ(test, out.ord, c->ord);
}

/* The accept of a legacy peer echoes our negotiated values back to it. */
static void pdu_ird_ord_legacy_round_trip(struct kunit *test)
{
	static const u8 old_cifs[8] = { 32, 0, 0, 0, 1, 0, 0, 0 };
	struct smbdx_ird_ord cm = { .ird = 32, .ord = 1 };
	struct smbdx_ird_ord local = { .ird = 16, .ord = 16 };
	struct smbdx_ird_ord peer, ours, back;
	struct smbdx_ird_ord_hdr h;

	KUNIT_ASSERT_EQ(test, smbdx_ird_ord_parse(true, old_cifs, 8, &cm, &peer),
			SMBDX_IRD_ORD_LEGACY);
	KUNIT_ASSERT_EQ(test, smbdx_ird_ord_negotiate(&local, &peer, &ours),
			SMBDX_OK);
	KUNIT_EXPECT_EQ(test, ours.ird, 1);	/* peer's ORD */
	KUNIT_EXPECT_EQ(test, ours.ord, 16);	/* min(ours, peer's IRD 32) */
	smbdx_ird_ord_encode(&ours, &h);
	/* What the connecting side will read from our accept. */
	KUNIT_EXPECT_EQ(test, smbdx_ird_ord_parse(true, &h, 8, &ours, &back),
			SMBDX_IRD_ORD_MATCH);
	KUNIT_EXPECT_EQ(test, back.ird, 1);
	KUNIT_EXPECT_EQ(test, back.ord, 16);
}

/* ---- fuzz ------------------------------------------------------------ */

static u64 xorshift(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Random bytes, random lengths, and valid messages with random mutations. */
static void pdu_fuzz_decoders(struct kunit *test)
{
	struct smbdx_proto_config cfg;
	struct smbdx_neg_req_info rq;
	struct smbdx_neg_resp_info rs;
	struct smbdx_data_info di;
	struct smbdx_buffer_desc bd;
	struct smbdx_ird_ord cm = { 16, 16 }, peer;
	u8 *page = guard_page(test);
	u8 src[600];
	u64 seed = 0x5eed5eed12345678ULL;
	unsigned int iter, ok_data = 0, ok_req = 0, ok_resp = 0;

	test_config(&cfg);
	for (iter = 0; iter < 20000; iter++) {
		u32 len = xorshift(&seed) % 600, i, max_frag;
		enum smbdx_verdict v;
		u64 total;
		u8 *p;

		for (i = 0; i < sizeof(src); i++)
			src[i] = xorshift(&seed);
		/* Half the time start from plausible fields, then mutate. */
		if (iter & 1) {
			struct smbdx_data_transfer *h = (void *)src;

			h->credits_requested = cpu_to_le16(xorshift(&seed) % 3);
			h->data_offset = cpu_to_le32(xorshift(&seed) % 9 * 8 +
						     (iter % 7 == 1 ? 4 : 0));
			h->data_length = cpu_to_le32(xorshift(&seed) % 600);
			h->remaining_data_length =
				cpu_to_le32(xorshift(&seed) % 3 ?
					    0 : (u32)xorshift(&seed));
			src[12 + xorshift(&seed) % 8] ^= 1 << (iter % 8);
		}
		if (iter % 4 == 2) {
			struct smbdx_negotiate_req *r = (void *)src;

			r->min_version = cpu_to_le16(0x0100 - iter % 2);
			r->max_version = cpu_to_le16(0x0100 + iter % 5);
		}
		if (iter % 3 == 0) {
			struct smbdx_negotiate_resp *r = (void *)src;

			r->status = 0;
			r->negotiated_version = cpu_to_le16(0x0100);
			r->preferred_send_size = cpu_to_le32(xorshift(&seed) % 2000);
		}
		p = at_page_end(page, src, sizeof(src), len);
		max_frag = xorshift(&seed) % 4 ? 131072 : (u32)xorshift(&seed);

		v = smbdx_data_decode(p, len, max_frag, &di);
		KUNIT_ASSERT_LT(test, (unsigned int)v, SMBDX_VERDICT_COUNT);
		if (v == SMBDX_OK) {
			ok_data++;
			KUNIT_ASSERT_GE(test, len, 20);
			KUNIT_ASSERT_LE(test, (u64)di.data_offset + di.data_length,
					(u64)len);
			KUNIT_ASSERT_LE(test, (u64)di.data_length +
					di.remaining_data_length, (u64)max_frag);
			KUNIT_ASSERT_TRUE(test, IS_ALIGNED(di.data_offset, 8));
			KUNIT_ASSERT_NE(test, di.credits_requested, 0);
			KUNIT_ASSERT_TRUE(test, !di.data_length ||
					  di.data_offset >= 24);
		}

		v = smbdx_negotiate_req_decode(p, len, &rq);
		KUNIT_ASSERT_LT(test, (unsigned int)v, SMBDX_VERDICT_COUNT);
		if (v == SMBDX_OK) {
			ok_req++;
			KUNIT_ASSERT_GE(test, len, 20);
			KUNIT_ASSERT_LE(test, rq.min_version, 0x0100);
			KUNIT_ASSERT_GE(test, rq.max_version, 0x0100);
			KUNIT_ASSERT_GE(test, rq.max_receive_size, 128);
			KUNIT_ASSERT_GE(test, rq.max_fragmented_size, 131072);
			KUNIT_ASSERT_NE(test, rq.credits_requested, 0);
		}

		v = smbdx_negotiate_resp_decode(p, len, &cfg, &rs);
		KUNIT_ASSERT_LT(test, (unsigned int)v, SMBDX_VERDICT_COUNT);
		if (v == SMBDX_OK) {
			ok_resp++;
			KUNIT_ASSERT_GE(test, len, 32);
			KUNIT_ASSERT_EQ(test, rs.status, 0);
			KUNIT_ASSERT_EQ(test, rs.negotiated_version, 0x0100);
			KUNIT_ASSERT_LE(test, rs.preferred_send_size,
					cfg.max_receive_size);
			KUNIT_ASSERT_NE(test, rs.credits_granted, 0);
		}

		v = smbdx_bd_v1_total(p, len, &total);
		KUNIT_ASSERT_LT(test, (unsigned int)v, SMBDX_VERDICT_COUNT);
		v = smbdx_bd_v1_decode(p, len, xorshift(&seed) % 40, &bd);
		KUNIT_ASSERT_LT(test, (unsigned int)v, SMBDX_VERDICT_COUNT);
		if (v == SMBDX_OK)
			KUNIT_ASSERT_LE(test, bd.offset, U64_MAX - bd.length);

		smbdx_ird_ord_parse(true, p, len, &cm, &peer);
		KUNIT_ASSERT_LE(test, peer.ird, max_t(u32, 255, cm.ird));
		KUNIT_ASSERT_LE(test, peer.ord, max_t(u32, 255, cm.ord));
	}
	/* The mutations must reach the deep paths, not only the early exits. */
	KUNIT_EXPECT_GT(test, ok_data, 100);
	KUNIT_EXPECT_GT(test, ok_req, 100);
	KUNIT_EXPECT_GT(test, ok_resp, 100);
}

static struct kunit_case pdu_cases[] = {
	KUNIT_CASE(pdu_layout),
	KUNIT_CASE(pdu_verdict_strings),
	KUNIT_CASE(pdu_verdict_nt_status),
	KUNIT_CASE(pdu_config_defaults),
	KUNIT_CASE_PARAM(pdu_config_validate, config_gen_params),
	KUNIT_CASE(pdu_neg_req_encode),
	KUNIT_CASE(pdu_neg_req_example_decode),
	KUNIT_CASE_PARAM(pdu_neg_req_decode, neg_req_gen_params),
	KUNIT_CASE(pdu_neg_req_null),
	KUNIT_CASE_PARAM(pdu_params_from_req, passive_gen_params),
	KUNIT_CASE(pdu_neg_resp_encode),
	KUNIT_CASE(pdu_neg_resp_failure),
	KUNIT_CASE_PARAM(pdu_neg_resp_decode, neg_resp_gen_params),
	KUNIT_CASE(pdu_neg_resp_null),
	KUNIT_CASE_PARAM(pdu_params_from_resp, active_gen_params),
	KUNIT_CASE(pdu_negotiate_both_sides),
	KUNIT_CASE_PARAM(pdu_data_decode, data_gen_params),
	KUNIT_CASE(pdu_data_null),
	KUNIT_CASE(pdu_data_encode_empty),
	KUNIT_CASE(pdu_data_encode_example),
	KUNIT_CASE(pdu_data_encode_padding),
	KUNIT_CASE_PARAM(pdu_data_encode_rules, encode_gen_params),
	KUNIT_CASE(pdu_bd_example),
	KUNIT_CASE_PARAM(pdu_bd_count, bd_count_gen_params),
	KUNIT_CASE(pdu_bd_array),
	KUNIT_CASE(pdu_ird_ord_encode),
	KUNIT_CASE_PARAM(pdu_ird_ord_parse, ird_ord_gen_params),
	KUNIT_CASE_PARAM(pdu_ird_ord_negotiate, ird_ord_neg_gen_params),
	KUNIT_CASE(pdu_ird_ord_legacy_round_trip),
	KUNIT_CASE(pdu_fuzz_decoders),
	{}
};

static struct kunit_suite pdu_suite = {
	.name = "smbdirect_pdu",
	.test_cases = pdu_cases,
};

kunit_test_suite(pdu_suite);

MODULE_DESCRIPTION("KUnit tests for the SMB Direct codec");
MODULE_LICENSE("GPL");
