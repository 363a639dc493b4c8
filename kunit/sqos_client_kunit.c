// SPDX-License-Identifier: GPL-2.0
/*
 * sqos_client_kunit.c - KUnit suite for the MS-SQOS client helpers
 * (qos/client.c): initialisation (3.1.3), request construction (3.1.4.1,
 * rules C3-C10), response handling and the StatusRequestTimer (3.1.5.1,
 * 3.1.6, rules D1-D3), client throttling (3.1.7.1, E1-E2) with a fake
 * clock, the section 4 examples, and a client/server round trip.
 *
 * Locking: single-threaded; client flows live on the stack.
 */
#include <kunit/test.h>
#include <smbdirect/ns.h>
#include <linux/string.h>
#include <linux/time64.h>
#include "sqos_kunit_util.h"

MODULE_IMPORT_NS(SMBDX_NS_NAME(EXPORTED_FOR_KUNIT_TESTING));

#define SET_FLOW	STORAGE_QOS_CONTROL_FLAG_SET_LOGICAL_FLOW_ID
#define SET_POLICY	STORAGE_QOS_CONTROL_FLAG_SET_POLICY
#define PROBE		STORAGE_QOS_CONTROL_FLAG_PROBE_POLICY
#define GET_STATUS	STORAGE_QOS_CONTROL_FLAG_GET_STATUS
#define UPDATE		STORAGE_QOS_CONTROL_FLAG_UPDATE_COUNTERS

#define T0 (100 * NSEC_PER_SEC)

static void sqc_init(struct sqos_client_flow *cf)
{
	guid_t id = SQT_FLOW_ID;

	sqos_client_flow_init(cf, &id, T0);
}

/* B2: initial state */
static void sqos_client_b2_init(struct kunit *test)
{
	struct sqos_client_flow cf;

	memset(&cf, 0x5a, sizeof(cf));
	sqc_init(&cf);
	KUNIT_EXPECT_EQ(test, cf.io_count, 0ULL);
	KUNIT_EXPECT_EQ(test, cf.norm_io_count, 0ULL);
	KUNIT_EXPECT_EQ(test, cf.latency, 0ULL);
	KUNIT_EXPECT_EQ(test, cf.lower_latency, 0ULL);
	KUNIT_EXPECT_EQ(test, cf.max_rate, 0ULL);
	KUNIT_EXPECT_EQ(test, cf.base_io_size, 8192U);
	KUNIT_EXPECT_EQ(test, cf.timer_ns, SQOS_TIMER_NEVER);
	KUNIT_EXPECT_EQ(test, sqos_client_timer_options(&cf, U64_MAX - 1), 0U);
}

struct sqc_bad {
	const char *what;
	u32 options;
	bool associated;
	bool null_flow;
	u16 name_len;
	int want;
};

static const struct sqc_bad sqc_bad_cases[] = {
	{ "C3 no flag", 0, true, false, 0, -EINVAL },
	{ "C3 only undefined flag", 0x20, true, false, 0, -EINVAL },
	{ "C3 undefined flag with a defined one", 0x28, true, false, 0,
	  -EINVAL },
	{ "C5 unassociated without SET_LOGICAL_FLOW_ID", GET_STATUS, false,
	  false, 0, -EINVAL },
	{ "C5 unassociated with an empty GUID", SET_FLOW, false, true, 0,
	  -EINVAL },
	{ "C5 unassociated with SET_LOGICAL_FLOW_ID", SET_FLOW, false, false,
	  0, 112 },
	{ "C6 probe with an empty GUID", PROBE, true, true, 0, -EINVAL },
	{ "disassociate (empty GUID) when associated", SET_FLOW, true, true,
	  0, 112 },
	{ "name 512 bytes", SET_POLICY, true, false, 512, 112 + 512 },
	{ "name 514 bytes", SET_POLICY, true, false, 514, -EINVAL },
	{ "name odd length", SET_POLICY, true, false, 7, -EINVAL },
};

static void sqc_bad_desc(const struct sqc_bad *c, char *desc)
{
	strscpy(desc, c->what, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sqc_bad, sqc_bad_cases, sqc_bad_desc);

/* C3, C5, C6 and the name limits */
static void sqos_client_build_rules(struct kunit *test)
{
	const struct sqc_bad *c = test->param_value;
	struct sqos_client_args a = {
		.options = c->options,
		.handle_associated = c->associated,
		.name_len = c->name_len,
	};
	struct sqos_client_flow cf;
	u8 *buf = kunit_kzalloc(test, 2048, GFP_KERNEL);
	u32 max_out;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	a.name = buf + 1024;
	sqc_init(&cf);
	if (c->null_flow)
		cf.flow_id = guid_null;
	KUNIT_EXPECT_EQ(test, sqos_client_build_request(&cf, &a, buf, 1024,
							&max_out, T0),
			c->want);
}

/* C2, C4, C7, C8: layout, output size, counters sent and reset */
static void sqos_client_build_counters(struct kunit *test)
{
	struct sqos_client_args a = {
		.options = PROBE | GET_STATUS | UPDATE,
		.handle_associated = true,
		.policy_id = SQT_POLICY_ID,
		.initiator_id = SQT_INITIATOR_ID,
	};
	struct sqos_client_flow cf;
	u8 buf[SQOS_REQUEST_FIXED_SIZE];
	u32 max_out = 0;
	int i;

	sqc_init(&cf);
	/* 399 I/Os of 4 KiB, 95800 x 100 ns each on average */
	for (i = 0; i < 399; i++) {
		KUNIT_EXPECT_EQ(test, sqos_client_io_start(&cf, 4096, T0), 0ULL);
		sqos_client_io_done(&cf, 95798, 95798);
	}
	cf.latency += 38223584 - 399 * 95798;
	cf.lower_latency += 38223584 - 399 * 95798;

	KUNIT_ASSERT_EQ(test, sqos_client_build_request(&cf, &a, buf,
							sizeof(buf), &max_out,
							T0), 112);
	/* Example 4.3, byte for byte */
	KUNIT_EXPECT_MEMEQ(test, buf, sqt_43_req, sizeof(sqt_43_req));
	KUNIT_EXPECT_EQ(test, max_out, 88U);
	KUNIT_EXPECT_EQ(test, cf.io_count, 0ULL);
	KUNIT_EXPECT_EQ(test, cf.norm_io_count, 0ULL);
	KUNIT_EXPECT_EQ(test, cf.latency, 0ULL);
	KUNIT_EXPECT_EQ(test, cf.lower_latency, 0ULL);

	/* Without UPDATE_COUNTERS they are neither sent nor lost */
	sqos_client_io_start(&cf, 65536, T0);
	a.options = GET_STATUS;
	KUNIT_ASSERT_EQ(test, sqos_client_build_request(&cf, &a, buf,
							sizeof(buf), &max_out,
							T0), 112);
	KUNIT_EXPECT_EQ(test, buf[80], 0);
	KUNIT_EXPECT_EQ(test, buf[88], 0);
	KUNIT_EXPECT_EQ(test, cf.io_count, 1ULL);
	KUNIT_EXPECT_EQ(test, cf.norm_io_count, 8ULL);

	/* Too small a buffer */
	KUNIT_EXPECT_EQ(test, sqos_client_build_request(&cf, &a, buf, 111,
							&max_out, T0),
			-EMSGSIZE);
}

/* Names go right after the fixed part (offsets >= 112): example 4.2(b) */
static void sqos_client_build_names(struct kunit *test)
{
	struct sqos_client_args a = {
		.options = SET_POLICY,
		.handle_associated = true,
		.policy_id = SQT_POLICY_ID,
		.initiator_id = SQT_INITIATOR_ID,
		.name = sqt_name,
		.name_len = sizeof(sqt_name),
		.node_name = sqt_node_name,
		.node_name_len = sizeof(sqt_node_name),
	};
	struct sqos_client_flow cf;
	u8 buf[256];
	u32 max_out = 1;

	sqc_init(&cf);
	KUNIT_ASSERT_EQ(test, sqos_client_request_size(&a), 198U);
	KUNIT_ASSERT_EQ(test, sqos_client_build_request(&cf, &a, buf,
							sizeof(buf), &max_out,
							T0), 198);
	KUNIT_EXPECT_MEMEQ(test, buf, sqt_42b, sizeof(sqt_42b));
	KUNIT_EXPECT_EQ(test, max_out, 0U);
	/* C10: SET_POLICY without GET_STATUS -> status within 1 s */
	KUNIT_EXPECT_LE(test, cf.timer_ns, T0 + NSEC_PER_SEC);

	/* Only a node name: it takes offset 112 */
	a.name_len = 0;
	KUNIT_ASSERT_EQ(test, sqos_client_build_request(&cf, &a, buf,
							sizeof(buf), &max_out,
							T0), 112 + 72);
	KUNIT_EXPECT_EQ(test, buf[76], 112);
	KUNIT_EXPECT_EQ(test, buf[72] | buf[73] | buf[74] | buf[75], 0);
}

/* C10: an earlier timer is not pushed back; GET_STATUS stops it */
static void sqos_client_c10_timer(struct kunit *test)
{
	struct sqos_client_args a = {
		.options = SET_POLICY,
		.handle_associated = true,
	};
	struct sqos_client_flow cf;
	u8 buf[SQOS_REQUEST_FIXED_SIZE];
	u32 max_out;

	sqc_init(&cf);
	cf.timer_ns = T0 + 5;
	KUNIT_ASSERT_EQ(test, sqos_client_build_request(&cf, &a, buf,
							sizeof(buf), &max_out,
							T0), 112);
	KUNIT_EXPECT_EQ(test, cf.timer_ns, T0 + 5);
	cf.timer_ns = T0 + 2 * NSEC_PER_SEC;
	KUNIT_ASSERT_EQ(test, sqos_client_build_request(&cf, &a, buf,
							sizeof(buf), &max_out,
							T0), 112);
	KUNIT_EXPECT_EQ(test, cf.timer_ns, T0 + NSEC_PER_SEC);
	a.options = SET_POLICY | GET_STATUS;
	KUNIT_ASSERT_EQ(test, sqos_client_build_request(&cf, &a, buf,
							sizeof(buf), &max_out,
							T0), 112);
	KUNIT_EXPECT_EQ(test, cf.timer_ns, SQOS_TIMER_NEVER);
	KUNIT_EXPECT_EQ(test, max_out, 88U);
}

/* D1: failure -> retry in 10 s */
static void sqos_client_d1_failure(struct kunit *test)
{
	struct sqos_client_flow cf;
	int ret;

	sqc_init(&cf);
	ret = sqos_client_handle_response(&cf, SQOS_NT_NOT_FOUND, NULL, 0, T0,
					  NULL);
	KUNIT_EXPECT_EQ(test, ret, -EREMOTEIO);
	KUNIT_EXPECT_EQ(test, cf.timer_ns, T0 + 10 * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, cf.max_rate, 0ULL);
}

/* D2: the 4.3 response sets the rate, base size and a 3981 ms timer */
static void sqos_client_d2_response_43(struct kunit *test)
{
	struct sqos_client_flow cf;
	struct sqos_response rsp;
	int ret;

	sqc_init(&cf);
	cf.base_io_size = 4096;
	ret = sqos_client_handle_response(&cf, SQOS_NT_SUCCESS, sqt_43_rsp,
					  sizeof(sqt_43_rsp), T0, &rsp);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, cf.max_rate, 100ULL);
	KUNIT_EXPECT_EQ(test, cf.base_io_size, 8192U);
	KUNIT_EXPECT_EQ(test, cf.timer_ns, T0 + 3981 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, rsp.status, SQOS_FLOW_STATUS_OK);
	KUNIT_EXPECT_EQ(test, cf.lim.rate, 100ULL);

	/* Success without a response buffer changes nothing */
	ret = sqos_client_handle_response(&cf, SQOS_NT_SUCCESS, NULL, 0, T0 + 1,
					  NULL);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, cf.timer_ns, T0 + 3981 * NSEC_PER_MSEC);
}

struct sqc_ttl {
	u32 ttl;
	u64 want_ms;
};

static const struct sqc_ttl sqc_ttl_cases[] = {
	{ 0, 1000 }, { 1, 1000 }, { 999, 1000 }, { 1000, 1000 },
	{ 1001, 1001 }, { 3981, 3981 }, { U32_MAX, U32_MAX },
};

static void sqc_ttl_desc(const struct sqc_ttl *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "TimeToLive %u", c->ttl);
}

KUNIT_ARRAY_PARAM(sqc_ttl, sqc_ttl_cases, sqc_ttl_desc);

/* D2 boundaries of the TimeToLive rule */
static void sqos_client_d2_ttl(struct kunit *test)
{
	const struct sqc_ttl *c = test->param_value;
	struct sqos_client_flow cf;
	u8 buf[SQOS_RESPONSE_SIZE];
	int ret;

	memcpy(buf, sqt_43_rsp, sizeof(buf));
	buf[56] = c->ttl;
	buf[57] = c->ttl >> 8;
	buf[58] = c->ttl >> 16;
	buf[59] = c->ttl >> 24;
	sqc_init(&cf);
	ret = sqos_client_handle_response(&cf, SQOS_NT_SUCCESS, buf, sizeof(buf),
					  T0, NULL);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, cf.timer_ns, T0 + c->want_ms * NSEC_PER_MSEC);
}

/* A hostile response is a failure: nothing taken from it */
static void sqos_client_d2_bad_response(struct kunit *test)
{
	struct sqos_client_flow cf;
	u8 buf[SQOS_RESPONSE_SIZE];
	int ret;

	sqc_init(&cf);
	ret = sqos_client_handle_response(&cf, SQOS_NT_SUCCESS, sqt_43_rsp, 87,
					  T0, NULL);
	KUNIT_EXPECT_EQ(test, ret, -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, cf.timer_ns, T0 + 10 * NSEC_PER_SEC);

	memcpy(buf, sqt_43_rsp, sizeof(buf));
	buf[80] = 0;
	buf[81] = 0;		/* BaseIoSize 0 */
	ret = sqos_client_handle_response(&cf, SQOS_NT_SUCCESS, buf, sizeof(buf),
					  T0, NULL);
	KUNIT_EXPECT_EQ(test, ret, -EPROTO);
	memcpy(buf, sqt_43_rsp, sizeof(buf));
	buf[8] ^= 1;		/* another LogicalFlowID */
	ret = sqos_client_handle_response(&cf, SQOS_NT_SUCCESS, buf, sizeof(buf),
					  T0, NULL);
	KUNIT_EXPECT_EQ(test, ret, -EPROTO);
	KUNIT_EXPECT_EQ(test, cf.max_rate, 0ULL);
	KUNIT_EXPECT_EQ(test, cf.base_io_size, 8192U);
}

/* D3: when the timer fires, GET_STATUS | UPDATE_COUNTERS, unless idle */
static void sqos_client_d3_timer(struct kunit *test)
{
	struct sqos_client_flow cf;
	u64 fire;
	int ret;

	sqc_init(&cf);
	ret = sqos_client_handle_response(&cf, SQOS_NT_SUCCESS, sqt_43_rsp,
					  sizeof(sqt_43_rsp), T0, NULL);
	KUNIT_ASSERT_EQ(test, ret, 0);
	fire = cf.timer_ns;
	sqos_client_io_start(&cf, 4096, T0);
	KUNIT_EXPECT_EQ(test, sqos_client_timer_options(&cf, fire - 1), 0U);
	KUNIT_EXPECT_EQ(test, sqos_client_timer_options(&cf, fire),
			GET_STATUS | UPDATE);
	/* Idle: the request may wait for new I/O */
	sqos_client_io_done(&cf, 1, 1);
	KUNIT_EXPECT_EQ(test, sqos_client_timer_options(&cf, fire + 5), 0U);
	sqos_client_io_start(&cf, 4096, fire + 6);
	KUNIT_EXPECT_EQ(test, sqos_client_timer_options(&cf, fire + 6),
			GET_STATUS | UPDATE);
}

/* E1: the client holds 64 KiB I/Os offered at 10x to 100 IOPS */
static void sqos_client_e1_throttle(struct kunit *test)
{
	struct sqos_client_flow cf;
	u64 now, end = T0 + 60 * NSEC_PER_SEC, delay, started = 0, gap;
	int ret;

	sqc_init(&cf);
	ret = sqos_client_handle_response(&cf, SQOS_NT_SUCCESS, sqt_43_rsp,
					  sizeof(sqt_43_rsp), T0, NULL);
	KUNIT_ASSERT_EQ(test, ret, 0);
	/* 8 units each, 1000 units/s offered */
	gap = 8 * NSEC_PER_MSEC;
	for (now = T0; now < end; now += gap) {
		delay = sqos_client_io_start(&cf, 65536, now);
		if (now + delay < end)
			started += 8;
		sqos_client_io_done(&cf, delay / 100, 0);
	}
	KUNIT_EXPECT_LE(test, started * 100, 100ULL * 60 * 102);
	KUNIT_EXPECT_GE(test, started * 100, 100ULL * 60 * 98);
	KUNIT_EXPECT_EQ(test, cf.norm_io_count, 8ULL * 7500);
	KUNIT_EXPECT_GT(test, cf.latency, 0ULL);
	KUNIT_EXPECT_EQ(test, cf.lower_latency, 0ULL);
}

/* E2: MaximumIoRate 0 means no throttling */
static void sqos_client_e2_unlimited(struct kunit *test)
{
	struct sqos_client_flow cf;
	u8 buf[SQOS_RESPONSE_SIZE];
	int i;
	int ret;

	memcpy(buf, sqt_43_rsp, sizeof(buf));
	buf[64] = 0;		/* MaximumIoRate 0 */
	sqc_init(&cf);
	ret = sqos_client_handle_response(&cf, SQOS_NT_SUCCESS, buf, sizeof(buf),
					  T0, NULL);
	KUNIT_ASSERT_EQ(test, ret, 0);
	for (i = 0; i < 10000; i++)
		KUNIT_ASSERT_EQ(test, sqos_client_io_start(&cf, 1 << 20, T0),
				0ULL);
}

/* Client and server together: policy from the store reaches the client */
static void sqos_client_server_round_trip(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	struct sqos_client_args a = {
		.options = SET_FLOW | SET_POLICY | GET_STATUS,
		.policy_id = SQT_POLICY_ID,
		.initiator_id = SQT_INITIATOR_ID,
		.name = sqt_name,
		.name_len = sizeof(sqt_name),
	};
	guid_t pol = SQT_POLICY_ID;
	struct sqos_client_flow cf;
	u8 *in, out[SQOS_RESPONSE_SIZE];
	u32 max_out, out_len, st;
	int len;
	int ret;

	KUNIT_ASSERT_EQ(test, sqos_server_policy_set(srv, &pol, 40, 0), 0);
	in = kunit_kzalloc(test, SQOS_REQUEST_MAX_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, in);
	sqc_init(&cf);
	len = sqos_client_build_request(&cf, &a, in, SQOS_REQUEST_MAX_SIZE,
					&max_out, clk.now);
	KUNIT_ASSERT_GT(test, len, 0);
	st = sqos_control(o, in, len, out, max_out, &out_len);
	KUNIT_ASSERT_EQ(test, st, SQOS_NT_SUCCESS);
	ret = sqos_client_handle_response(&cf, st, out, out_len, clk.now, NULL);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, cf.max_rate, 40ULL);
	KUNIT_EXPECT_EQ(test, sqt_flow(o)->name_len, sizeof(sqt_name));

	/* Periodic report */
	sqos_client_io_start(&cf, 12288, clk.now);
	sqos_client_io_done(&cf, 30, 20);
	a.options = sqos_client_timer_options(&cf, cf.timer_ns);
	KUNIT_EXPECT_EQ(test, a.options, 0U);	/* idle: may wait */
	sqos_client_io_start(&cf, 12288, clk.now);
	a.options = sqos_client_timer_options(&cf, cf.timer_ns);
	KUNIT_ASSERT_EQ(test, a.options, GET_STATUS | UPDATE);
	a.handle_associated = true;
	len = sqos_client_build_request(&cf, &a, in, SQOS_REQUEST_MAX_SIZE,
					&max_out, clk.now);
	KUNIT_ASSERT_GT(test, len, 0);
	st = sqos_control(o, in, len, out, max_out, &out_len);
	KUNIT_ASSERT_EQ(test, st, SQOS_NT_SUCCESS);
	KUNIT_EXPECT_EQ(test, sqt_flow(o)->rep_io_count, 2ULL);
	KUNIT_EXPECT_EQ(test, sqt_flow(o)->rep_norm_io_count, 4ULL);
	KUNIT_EXPECT_EQ(test, sqt_flow(o)->rep_latency, 30ULL);
	KUNIT_EXPECT_EQ(test, sqt_flow(o)->rep_lower_latency, 20ULL);
}

static struct kunit_case sqos_client_cases[] = {
	KUNIT_CASE(sqos_client_b2_init),
	KUNIT_CASE_PARAM(sqos_client_build_rules, sqc_bad_gen_params),
	KUNIT_CASE(sqos_client_build_counters),
	KUNIT_CASE(sqos_client_build_names),
	KUNIT_CASE(sqos_client_c10_timer),
	KUNIT_CASE(sqos_client_d1_failure),
	KUNIT_CASE(sqos_client_d2_response_43),
	KUNIT_CASE_PARAM(sqos_client_d2_ttl, sqc_ttl_gen_params),
	KUNIT_CASE(sqos_client_d2_bad_response),
	KUNIT_CASE(sqos_client_d3_timer),
	KUNIT_CASE(sqos_client_e1_throttle),
	KUNIT_CASE(sqos_client_e2_unlimited),
	KUNIT_CASE(sqos_client_server_round_trip),
	{}
};

static struct kunit_suite sqos_client_suite = {
	.name = "sqos_client",
	.test_cases = sqos_client_cases,
};

kunit_test_suite(sqos_client_suite);

MODULE_DESCRIPTION("KUnit tests for the MS-SQOS client helpers");
MODULE_LICENSE("GPL");
