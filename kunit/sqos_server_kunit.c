// SPDX-License-Identifier: GPL-2.0
/*
 * sqos_server_kunit.c - KUnit suites for MS-SQOS server processing
 * (qos/flow.c): one case per server processing rule of MS-SQOS 3.2.4.1
 * and 3.2.5.1 to 3.2.5.1.4 (associate, set policy, update counters, get
 * status) with its boundaries, the validate-then-commit decision, the
 * Status rules, and the section 4 examples run through sqos_control() with
 * the documented corrections (Documentation/sqos.rst).
 *
 * Every case builds a private sqos_server on a fake clock, so nothing here
 * touches the module's own server. Locking: single-threaded tests.
 */
#include <kunit/test.h>
#include <smbdirect/ns.h>
#include <linux/string.h>
#include "sqos_kunit_util.h"

MODULE_IMPORT_NS(SMBDX_NS_NAME(EXPORTED_FOR_KUNIT_TESTING));

#define SET_FLOW	STORAGE_QOS_CONTROL_FLAG_SET_LOGICAL_FLOW_ID
#define SET_POLICY	STORAGE_QOS_CONTROL_FLAG_SET_POLICY
#define PROBE		STORAGE_QOS_CONTROL_FLAG_PROBE_POLICY
#define GET_STATUS	STORAGE_QOS_CONTROL_FLAG_GET_STATUS
#define UPDATE		STORAGE_QOS_CONTROL_FLAG_UPDATE_COUNTERS

/* Associate @o with the example flow. */
static void sqt_associate(struct kunit *test, struct sqos_open *o)
{
	struct sqos_request r = sqt_req(SET_FLOW);
	struct sqt_result res;

	KUNIT_ASSERT_EQ(test, sqt_ctl(test, o, &r, 0, &res), SQOS_NT_SUCCESS);
	KUNIT_ASSERT_NOT_NULL(test, sqt_flow(o));
}

/* G1: Storage QoS not supported -> STATUS_INVALID_DEVICE_REQUEST */
static void sqos_g1_disabled(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	struct sqos_request r = sqt_req(SET_FLOW);
	struct sqt_result res;

	srv->enabled = false;
	KUNIT_EXPECT_EQ(test, sqt_ctl(test, o, &r, 88, &res),
			SQOS_NT_INVALID_DEVICE_REQUEST);
	KUNIT_EXPECT_EQ(test, res.out_len, 0U);
	KUNIT_EXPECT_NULL(test, sqt_flow(o));
	/* Even a malformed request gets the "not supported" answer. */
	KUNIT_EXPECT_EQ(test, sqos_control(o, NULL, 0, NULL, 0, &res.out_len),
			SQOS_NT_INVALID_DEVICE_REQUEST);
	srv->enabled = true;
	KUNIT_EXPECT_EQ(test, sqt_ctl(test, o, &r, 0, &res), SQOS_NT_SUCCESS);
	KUNIT_EXPECT_NOT_NULL(test, sqt_flow(o));
}

struct sqt_u32_case {
	u32 value;
	u32 want;
};

static void sqt_u32_desc(const struct sqt_u32_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "0x%x", c->value);
}

static const struct sqt_u32_case sqos_g2_cases[] = {
	{ 0x0000, SQOS_NT_REVISION_MISMATCH },
	{ 0x0001, SQOS_NT_REVISION_MISMATCH },	/* byte-swapped 1.0 */
	{ 0x00ff, SQOS_NT_REVISION_MISMATCH },
	{ 0x0101, SQOS_NT_REVISION_MISMATCH },	/* 1.1 is not supported */
	{ 0x0200, SQOS_NT_REVISION_MISMATCH },
	{ 0xffff, SQOS_NT_REVISION_MISMATCH },
	{ 0x0100, SQOS_NT_SUCCESS },
};

KUNIT_ARRAY_PARAM(sqos_g2, sqos_g2_cases, sqt_u32_desc);

/* G2: ProtocolVersion other than 0x0100 -> STATUS_REVISION_MISMATCH */
static void sqos_g2_version(struct kunit *test)
{
	const struct sqt_u32_case *c = test->param_value;
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	struct sqos_request r = sqt_req(SET_FLOW | GET_STATUS);
	struct sqt_result res;

	r.version = c->value;
	KUNIT_EXPECT_EQ(test, sqt_ctl(test, o, &r, 88, &res), c->want);
	KUNIT_EXPECT_EQ(test, !!sqt_flow(o), c->want == SQOS_NT_SUCCESS);
	KUNIT_EXPECT_EQ(test, res.out_len,
			c->want == SQOS_NT_SUCCESS ? 88U : 0U);
}

static const struct sqt_u32_case sqos_g3_cases[] = {
	{ 0x00000000, SQOS_NT_INVALID_PARAMETER },
	{ 0x00000020, SQOS_NT_INVALID_PARAMETER },
	{ 0x80000000, SQOS_NT_INVALID_PARAMETER },
	{ 0xffffffe0, SQOS_NT_INVALID_PARAMETER },
	{ 0x00000021, SQOS_NT_SUCCESS },	/* undefined bit ignored */
	{ 0x00000001, SQOS_NT_SUCCESS },
	{ 0xffffffe1, SQOS_NT_SUCCESS },
};

KUNIT_ARRAY_PARAM(sqos_g3, sqos_g3_cases, sqt_u32_desc);

/* G3: no defined flag in Options -> STATUS_INVALID_PARAMETER */
static void sqos_g3_options(struct kunit *test)
{
	const struct sqt_u32_case *c = test->param_value;
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	struct sqos_request r = sqt_req(c->value);
	struct sqt_result res;

	KUNIT_EXPECT_EQ(test, sqt_ctl(test, o, &r, 0, &res), c->want);
	KUNIT_EXPECT_EQ(test, !!sqt_flow(o), c->want == SQOS_NT_SUCCESS);
}

/* G4: PROBE_POLICY on an associated open is ignored */
static void sqos_g4_probe_ignored(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	struct sqos_request r;
	struct sqt_result res;
	struct sqos_flow *f;
	guid_t other = sqt_guid(7);

	sqt_associate(test, o);
	f = sqt_flow(o);

	/* Another flow, explicit limits: would change both if not ignored. */
	r = sqt_req(PROBE);
	r.flow_id = other;
	r.limit = 50;
	KUNIT_EXPECT_EQ(test, sqt_ctl(test, o, &r, 0, &res), SQOS_NT_SUCCESS);
	KUNIT_EXPECT_PTR_EQ(test, sqt_flow(o), f);
	KUNIT_EXPECT_EQ(test, f->limit, 0ULL);
	KUNIT_EXPECT_EQ(test, srv->nr_flows, 1U);
	KUNIT_EXPECT_NULL(test, sqt_find(srv, &other));
	KUNIT_EXPECT_EQ(test, res.out_len, 0U);

	/* Ignored means its empty-GUID failure (H2) does not apply either. */
	r = sqt_req(PROBE);
	r.flow_id = guid_null;
	KUNIT_EXPECT_EQ(test, sqt_ctl(test, o, &r, 0, &res), SQOS_NT_SUCCESS);
	KUNIT_EXPECT_PTR_EQ(test, sqt_flow(o), f);

	/* And its invalid policy fields are not looked at. */
	r = sqt_req(PROBE);
	r.limit = SQOS_MAX_IOPS + 1;
	r.name_off = 1;
	r.name_len = 2;
	KUNIT_EXPECT_EQ(test, sqt_ctl(test, o, &r, 0, &res), SQOS_NT_SUCCESS);
}

/* G5: all four steps in one request, in order */
static void sqos_g5_all_steps(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	struct sqos_request r = sqt_req(SET_FLOW | SET_POLICY | UPDATE |
					GET_STATUS);
	struct sqt_result res;
	struct sqos_response rsp;

	r.limit = 300;
	r.reservation = 20;
	r.io_count = 5;
	KUNIT_ASSERT_EQ(test, sqt_ctl(test, o, &r, 88, &res), SQOS_NT_SUCCESS);
	KUNIT_ASSERT_EQ(test, res.out_len, 88U);
	KUNIT_ASSERT_EQ(test, sqos_response_decode(res.out, 88, &rsp), 0);
	KUNIT_EXPECT_EQ(test, rsp.max_rate, 300ULL);
	KUNIT_EXPECT_EQ(test, rsp.min_rate, 20ULL);
	KUNIT_EXPECT_EQ(test, sqt_flow(o)->rep_io_count, 5ULL);
}

/* G6: success without GET_STATUS writes no output */
static void sqos_g6_no_output(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	struct sqos_request r = sqt_req(SET_FLOW | SET_POLICY | UPDATE);
	struct sqt_result res;
	u8 fresh[sizeof(res.out)];

	KUNIT_EXPECT_EQ(test, sqt_ctl(test, o, &r, 88, &res), SQOS_NT_SUCCESS);
	KUNIT_EXPECT_EQ(test, res.out_len, 0U);
	memset(fresh, 0xa5, sizeof(fresh));
	KUNIT_EXPECT_MEMEQ(test, res.out, fresh, sizeof(fresh));
}

static const struct sqt_u32_case sqos_g7_cases[] = {
	{ 0, SQOS_NT_INVALID_PARAMETER },
	{ 1, SQOS_NT_INVALID_PARAMETER },
	{ 2, SQOS_NT_INVALID_PARAMETER },
	{ 8, SQOS_NT_INVALID_PARAMETER },
	{ 104, SQOS_NT_INVALID_PARAMETER },
	{ 111, SQOS_NT_INVALID_PARAMETER },
	{ 112, SQOS_NT_SUCCESS },
	{ 113, SQOS_NT_SUCCESS },
	{ 4096, SQOS_NT_SUCCESS },
};

KUNIT_ARRAY_PARAM(sqos_g7, sqos_g7_cases, sqt_u32_desc);

/* G7: RequestSize below the fixed part -> STATUS_INVALID_PARAMETER */
static void sqos_g7_short_request(struct kunit *test)
{
	const struct sqt_u32_case *c = test->param_value;
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	struct sqos_request r = sqt_req(SET_FLOW);
	u8 buf[SQOS_REQUEST_FIXED_SIZE];
	struct sqt_result res;
	u8 *in;

	/* The request is valid; only RequestSize varies. */
	sqos_request_encode(&r, buf, sizeof(buf));
	in = kunit_kzalloc(test, max_t(u32, c->value, 1), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, in);
	memcpy(in, buf, min_t(u32, c->value, sizeof(buf)));
	KUNIT_EXPECT_EQ(test, sqos_control(o, in, c->value, res.out, 88,
					   &res.out_len), c->want);
	KUNIT_EXPECT_EQ(test, !!sqt_flow(o), c->want == SQOS_NT_SUCCESS);
}

/* G7 corner: no input buffer at all */
static void sqos_g7_null_request(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	u32 len = 1234;

	KUNIT_EXPECT_EQ(test, sqos_control(o, NULL, 112, NULL, 0, &len),
			SQOS_NT_INVALID_PARAMETER);
	KUNIT_EXPECT_EQ(test, len, 0U);
}

/* H1: SET_LOGICAL_FLOW_ID creates and associates; same GUID shares */
static void sqos_h1_associate(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *a = sqt_open(test, srv);
	struct sqos_open *b = sqt_open(test, srv);
	struct sqos_request r = sqt_req(SET_FLOW);
	guid_t id = SQT_FLOW_ID, other = sqt_guid(2);
	struct sqt_result res;
	struct sqos_flow *f;

	KUNIT_ASSERT_EQ(test, sqt_ctl(test, a, &r, 0, &res), SQOS_NT_SUCCESS);
	f = sqt_flow(a);
	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_EXPECT_TRUE(test, guid_equal(&f->id, &id));
	KUNIT_EXPECT_PTR_EQ(test, sqt_find(srv, &id), f);
	KUNIT_EXPECT_EQ(test, srv->nr_flows, 1U);

	/* A second open joins the existing flow. */
	KUNIT_ASSERT_EQ(test, sqt_ctl(test, b, &r, 0, &res), SQOS_NT_SUCCESS);
	KUNIT_EXPECT_PTR_EQ(test, sqt_flow(b), f);
	KUNIT_EXPECT_EQ(test, f->opens, 2U);
	KUNIT_EXPECT_EQ(test, srv->nr_flows, 1U);

	/* Setting the same GUID again changes nothing. */
	KUNIT_ASSERT_EQ(test, sqt_ctl(test, b, &r, 0, &res), SQOS_NT_SUCCESS);
	KUNIT_EXPECT_EQ(test, f->opens, 2U);

	/* Re-association moves the open: at most one flow per open. */
	r.flow_id = other;
	KUNIT_ASSERT_EQ(test, sqt_ctl(test, b, &r, 0, &res), SQOS_NT_SUCCESS);
	KUNIT_EXPECT_TRUE(test, guid_equal(&sqt_flow(b)->id, &other));
	KUNIT_EXPECT_EQ(test, f->opens, 1U);
	KUNIT_EXPECT_EQ(test, srv->nr_flows, 2U);

	/* The last open leaving a flow destroys it. */
	KUNIT_ASSERT_EQ(test, sqt_ctl(test, a, &r, 0, &res), SQOS_NT_SUCCESS);
	KUNIT_EXPECT_EQ(test, srv->nr_flows, 1U);
	KUNIT_EXPECT_NULL(test, sqt_find(srv, &id));
	KUNIT_EXPECT_EQ(test, sqt_flow(a)->opens, 2U);
}

/* H1 via PROBE: an effective probe associates too */
static void sqos_h1_probe_associates(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	struct sqos_request r = sqt_req(PROBE);
	struct sqt_result res;

	KUNIT_ASSERT_EQ(test, sqt_ctl(test, o, &r, 0, &res), SQOS_NT_SUCCESS);
	KUNIT_EXPECT_NOT_NULL(test, sqt_flow(o));
	KUNIT_EXPECT_EQ(test, srv->nr_flows, 1U);
}

/* H2: effective PROBE with an empty GUID -> STATUS_INVALID_PARAMETER */
static void sqos_h2_probe_empty(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	struct sqos_request r = sqt_req(PROBE);
	struct sqt_result res;

	r.flow_id = guid_null;
	KUNIT_EXPECT_EQ(test, sqt_ctl(test, o, &r, 0, &res),
			SQOS_NT_INVALID_PARAMETER);
	KUNIT_EXPECT_NULL(test, sqt_flow(o));
	/* Also with SET_LOGICAL_FLOW_ID alongside. */
	r.options = PROBE | SET_FLOW;
	KUNIT_EXPECT_EQ(test, sqt_ctl(test, o, &r, 0, &res),
			SQOS_NT_INVALID_PARAMETER);
	KUNIT_EXPECT_EQ(test, srv->nr_flows, 0U);
}

/* H3: SET_LOGICAL_FLOW_ID with an empty GUID disassociates */
static void sqos_h3_disassociate(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	struct sqos_request r = sqt_req(SET_FLOW);
	struct sqt_result res;

	r.flow_id = guid_null;
	/* Not associated: nothing to remove, still success. */
	KUNIT_EXPECT_EQ(test, sqt_ctl(test, o, &r, 0, &res), SQOS_NT_SUCCESS);
	KUNIT_EXPECT_NULL(test, sqt_flow(o));

	sqt_associate(test, o);
	KUNIT_EXPECT_EQ(test, sqt_ctl(test, o, &r, 0, &res), SQOS_NT_SUCCESS);
	KUNIT_EXPECT_NULL(test, sqt_flow(o));
	KUNIT_EXPECT_EQ(test, srv->nr_flows, 0U);

	/* Disassociated means: counters and status are refused now. */
	r = sqt_req(UPDATE);
	KUNIT_EXPECT_EQ(test, sqt_ctl(test, o, &r, 0, &res),
			SQOS_NT_NOT_FOUND);
}

/* I1: SET_POLICY needs an association (after step H) */
static void sqos_i1_set_policy_unassociated(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	struct sqos_request r = sqt_req(SET_POLICY);
	struct sqt_result res;

	KUNIT_EXPECT_EQ(test, sqt_ctl(test, o, &r, 0, &res),
			SQOS_NT_NOT_FOUND);
	KUNIT_EXPECT_EQ(test, srv->nr_flows, 0U);

	/* Association in the same request satisfies it. */
	r.options = SET_FLOW | SET_POLICY;
	r.limit = 7;
	KUNIT_EXPECT_EQ(test, sqt_ctl(test, o, &r, 0, &res), SQOS_NT_SUCCESS);
	KUNIT_ASSERT_NOT_NULL(test, sqt_flow(o));
	KUNIT_EXPECT_EQ(test, sqt_flow(o)->limit, 7ULL);

	/*
	 * Disassociation in the same request: NOT_FOUND, and with
	 * validate-then-commit the open stays associated.
	 */
	r.flow_id = guid_null;
	KUNIT_EXPECT_EQ(test, sqt_ctl(test, o, &r, 0, &res),
			SQOS_NT_NOT_FOUND);
	KUNIT_EXPECT_NOT_NULL(test, sqt_flow(o));
}

/* I2: without SET_POLICY/PROBE, names and policy fields are ignored */
static void sqos_i2_fields_ignored(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	struct sqos_request r = sqt_req(SET_FLOW | UPDATE | GET_STATUS);
	struct sqt_result res;
	struct sqos_flow *f;

	r.policy_id = SQT_POLICY_ID;
	r.limit = U64_MAX;
	r.reservation = U64_MAX;
	r.name_off = 3;
	r.name_len = 0xffff;
	r.node_name_off = 0xffff;
	r.node_name_len = 0xffff;
	KUNIT_ASSERT_EQ(test, sqt_ctl(test, o, &r, 88, &res), SQOS_NT_SUCCESS);
	f = sqt_flow(o);
	KUNIT_EXPECT_TRUE(test, guid_is_null(&f->policy_id));
	KUNIT_EXPECT_EQ(test, f->limit, 0ULL);
	KUNIT_EXPECT_EQ(test, f->name_len, 0);
	KUNIT_EXPECT_NULL(test, f->name);
}

struct sqt_name_case {
	const char *what;
	bool node;		/* InitiatorNodeName instead of InitiatorName */
	u16 off;
	u16 len;
	u32 size;
	u32 want;
};

static const struct sqt_name_case sqos_i3_cases[] = {
	{ "name len 0x200", false, 112, 0x200, 112 + 0x200, SQOS_NT_SUCCESS },
	{ "name len 0x201", false, 112, 0x201, 112 + 0x202,
	  SQOS_NT_INVALID_PARAMETER },
	{ "name offset 103", false, 103, 2, 128, SQOS_NT_INVALID_PARAMETER },
	{ "name offset 104", false, 104, 2, 128, SQOS_NT_SUCCESS },
	{ "name end == size", false, 112, 16, 128, SQOS_NT_SUCCESS },
	{ "name end == size + 1", false, 112, 16, 127,
	  SQOS_NT_INVALID_PARAMETER },
	{ "name len 0 offset 0xffff", false, 0xffff, 0, 112,
	  SQOS_NT_SUCCESS },
	{ "name offset 0xffff len 2", false, 0xffff, 2, 4096,
	  SQOS_NT_INVALID_PARAMETER },
	{ "name odd length", false, 112, 3, 128, SQOS_NT_INVALID_PARAMETER },
	{ "node len 0x200", true, 112, 0x200, 112 + 0x200, SQOS_NT_SUCCESS },
	{ "node len 0x201", true, 112, 0x201, 112 + 0x202,
	  SQOS_NT_INVALID_PARAMETER },
	{ "node offset 103", true, 103, 2, 128, SQOS_NT_INVALID_PARAMETER },
	{ "node offset 104", true, 104, 2, 128, SQOS_NT_SUCCESS },
	{ "node end == size", true, 112, 16, 128, SQOS_NT_SUCCESS },
	{ "node end == size + 1", true, 112, 16, 127,
	  SQOS_NT_INVALID_PARAMETER },
	{ "node len 0 offset 0xffff", true, 0xffff, 0, 112,
	  SQOS_NT_SUCCESS },
	{ "node offset 0xffff len 0x200", true, 0xffff, 0x200, 4096,
	  SQOS_NT_INVALID_PARAMETER },
};

static void sqt_name_desc(const struct sqt_name_case *c, char *desc)
{
	strscpy(desc, c->what, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sqos_i3, sqos_i3_cases, sqt_name_desc);

/* I3: name offset/length rules with their boundaries, via sqos_control() */
static void sqos_i3_names(struct kunit *test)
{
	const struct sqt_name_case *c = test->param_value;
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	struct sqos_request r = sqt_req(SET_FLOW | SET_POLICY);
	struct sqt_result res;
	struct sqos_flow *f;

	if (c->node) {
		r.node_name_off = c->off;
		r.node_name_len = c->len;
	} else {
		r.name_off = c->off;
		r.name_len = c->len;
	}
	KUNIT_EXPECT_EQ(test, sqt_ctl_fill(test, o, &r, c->size, 0, 'x', &res),
			c->want);
	f = sqt_flow(o);
	if (c->want != SQOS_NT_SUCCESS) {
		/* Validate-then-commit: the association did not happen. */
		KUNIT_EXPECT_NULL(test, f);
		return;
	}
	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_EXPECT_EQ(test, c->node ? f->node_name_len : f->name_len,
			c->len);
}

struct sqt_pol_case {
	const char *what;
	bool policy;
	u64 limit;
	u64 reservation;
	u32 want;
};

static const struct sqt_pol_case sqos_i4_cases[] = {
	{ "limit 1e9", false, 1000000000, 0, SQOS_NT_SUCCESS },
	{ "limit 1e9+1", false, 1000000001, 0, SQOS_NT_INVALID_PARAMETER },
	{ "reservation 1e9", false, 0, 1000000000, SQOS_NT_SUCCESS },
	{ "reservation 1e9+1", false, 0, 1000000001,
	  SQOS_NT_INVALID_PARAMETER },
	{ "limit 10 reservation 10", false, 10, 10, SQOS_NT_SUCCESS },
	{ "limit 10 reservation 11", false, 10, 11,
	  SQOS_NT_INVALID_PARAMETER },
	{ "policy, no numbers", true, 0, 0, SQOS_NT_SUCCESS },
	{ "policy and limit 1", true, 1, 0, SQOS_NT_INVALID_PARAMETER },
	{ "policy and reservation 1", true, 0, 1, SQOS_NT_INVALID_PARAMETER },
};

static void sqt_pol_desc(const struct sqt_pol_case *c, char *desc)
{
	strscpy(desc, c->what, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sqos_i4, sqos_i4_cases, sqt_pol_desc);

/* I4: invalid PolicyID/Limit/Reservation -> STATUS_INVALID_PARAMETER */
static void sqos_i4_policy_fields(struct kunit *test)
{
	const struct sqt_pol_case *c = test->param_value;
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	struct sqos_request r = sqt_req(SET_POLICY);
	struct sqt_result res;

	sqt_associate(test, o);
	if (c->policy)
		r.policy_id = SQT_POLICY_ID;
	r.limit = c->limit;
	r.reservation = c->reservation;
	KUNIT_EXPECT_EQ(test, sqt_ctl(test, o, &r, 0, &res), c->want);
	KUNIT_EXPECT_EQ(test, sqt_flow(o)->limit,
			c->want == SQOS_NT_SUCCESS ? c->limit : 0);
}

/* I5: names are stored when given, kept when the length is 0 */
static void sqos_i5_names_stored(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	struct sqos_request r = sqt_req(SET_FLOW | SET_POLICY);
	struct sqt_result res;
	struct sqos_flow *f;
	u8 *buf;

	sqt_associate(test, o);
	buf = kunit_kzalloc(test, sizeof(sqt_42b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	memcpy(buf, sqt_42b, sizeof(sqt_42b));
	KUNIT_ASSERT_EQ(test, sqos_control(o, buf, sizeof(sqt_42b), NULL, 0,
					   &res.out_len), SQOS_NT_SUCCESS);
	f = sqt_flow(o);
	KUNIT_ASSERT_EQ(test, f->name_len, sizeof(sqt_name));
	KUNIT_EXPECT_MEMEQ(test, f->name, sqt_name, sizeof(sqt_name));
	KUNIT_ASSERT_EQ(test, f->node_name_len, sizeof(sqt_node_name));
	KUNIT_EXPECT_MEMEQ(test, f->node_name, sqt_node_name,
			   sizeof(sqt_node_name));

	/* New InitiatorName only: InitiatorNodeName is kept. */
	r.name_off = 112;
	r.name_len = 4;
	KUNIT_ASSERT_EQ(test, sqt_ctl_fill(test, o, &r, 116, 0, 'Z', &res),
			SQOS_NT_SUCCESS);
	KUNIT_ASSERT_EQ(test, f->name_len, 4);
	KUNIT_EXPECT_MEMEQ(test, f->name, "ZZZZ", 4);
	KUNIT_EXPECT_EQ(test, f->node_name_len, sizeof(sqt_node_name));
	KUNIT_EXPECT_MEMEQ(test, f->node_name, sqt_node_name,
			   sizeof(sqt_node_name));
}

/* I6: policy fields are overwritten, also with zeros */
static void sqos_i6_policy_overwritten(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	struct sqos_request r = sqt_req(SET_FLOW | SET_POLICY);
	struct sqt_result res;
	struct sqos_flow *f;
	guid_t ini = SQT_INITIATOR_ID;

	r.limit = 100;
	r.reservation = 10;
	KUNIT_ASSERT_EQ(test, sqt_ctl(test, o, &r, 0, &res), SQOS_NT_SUCCESS);
	f = sqt_flow(o);
	KUNIT_EXPECT_EQ(test, f->limit, 100ULL);
	KUNIT_EXPECT_EQ(test, f->reservation, 10ULL);
	KUNIT_EXPECT_TRUE(test, guid_equal(&f->initiator_id, &ini));
	KUNIT_EXPECT_EQ(test, f->max_rate, 100ULL);

	r = sqt_req(SET_POLICY);
	r.initiator_id = guid_null;
	KUNIT_ASSERT_EQ(test, sqt_ctl(test, o, &r, 0, &res), SQOS_NT_SUCCESS);
	KUNIT_EXPECT_EQ(test, f->limit, 0ULL);
	KUNIT_EXPECT_EQ(test, f->reservation, 0ULL);
	KUNIT_EXPECT_TRUE(test, guid_is_null(&f->initiator_id));
	KUNIT_EXPECT_TRUE(test, guid_is_null(&f->policy_id));
	KUNIT_EXPECT_EQ(test, f->max_rate, 0ULL);

	r.policy_id = SQT_POLICY_ID;
	KUNIT_ASSERT_EQ(test, sqt_ctl(test, o, &r, 0, &res), SQOS_NT_SUCCESS);
	KUNIT_EXPECT_FALSE(test, guid_is_null(&f->policy_id));
}

/* I7: an effective PROBE overwrites the policy of an existing flow */
static void sqos_i7_probe_overwrites(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *a = sqt_open(test, srv);
	struct sqos_open *b = sqt_open(test, srv);
	struct sqos_request r = sqt_req(SET_FLOW | SET_POLICY);
	struct sqt_result res;

	r.limit = 500;
	KUNIT_ASSERT_EQ(test, sqt_ctl(test, a, &r, 0, &res), SQOS_NT_SUCCESS);
	r = sqt_req(PROBE);
	r.limit = 40;
	KUNIT_ASSERT_EQ(test, sqt_ctl(test, b, &r, 0, &res), SQOS_NT_SUCCESS);
	KUNIT_EXPECT_PTR_EQ(test, sqt_flow(a), sqt_flow(b));
	KUNIT_EXPECT_EQ(test, sqt_flow(a)->limit, 40ULL);
	KUNIT_EXPECT_EQ(test, sqt_flow(a)->max_rate, 40ULL);
}

/* J1: UPDATE_COUNTERS on an unassociated open -> STATUS_NOT_FOUND */
static void sqos_j1_update_unassociated(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	struct sqos_request r = sqt_req(UPDATE);
	struct sqt_result res;

	r.io_count = 1;
	KUNIT_EXPECT_EQ(test, sqt_ctl(test, o, &r, 0, &res),
			SQOS_NT_NOT_FOUND);
	r.options = SET_FLOW | UPDATE;
	KUNIT_EXPECT_EQ(test, sqt_ctl(test, o, &r, 0, &res), SQOS_NT_SUCCESS);
	KUNIT_EXPECT_EQ(test, sqt_flow(o)->rep_io_count, 1ULL);
}

/* J2: without UPDATE_COUNTERS the counter fields are ignored */
static void sqos_j2_counters_ignored(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	struct sqos_request r = sqt_req(SET_FLOW | SET_POLICY | GET_STATUS);
	struct sqt_result res;
	struct sqos_flow *f;

	r.io_count = 11;
	r.norm_io_count = 22;
	r.latency = 33;
	r.lower_latency = 44;
	KUNIT_ASSERT_EQ(test, sqt_ctl(test, o, &r, 88, &res), SQOS_NT_SUCCESS);
	f = sqt_flow(o);
	KUNIT_EXPECT_EQ(test, f->rep_updates, 0ULL);
	KUNIT_EXPECT_EQ(test, f->rep_io_count, 0ULL);
	KUNIT_EXPECT_EQ(test, f->rep_norm_io_count, 0ULL);
	KUNIT_EXPECT_EQ(test, f->rep_latency, 0ULL);
	KUNIT_EXPECT_EQ(test, f->rep_lower_latency, 0ULL);
}

/* J3: the increments add up (and saturate instead of wrapping) */
static void sqos_j3_counters_added(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	struct sqos_request r = sqt_req(SET_FLOW | UPDATE);
	struct sqt_result res;
	struct sqos_flow *f;

	r.io_count = 399;
	r.norm_io_count = 400;
	r.latency = 38223584;
	r.lower_latency = 1000;
	KUNIT_ASSERT_EQ(test, sqt_ctl(test, o, &r, 0, &res), SQOS_NT_SUCCESS);
	KUNIT_ASSERT_EQ(test, sqt_ctl(test, o, &r, 0, &res), SQOS_NT_SUCCESS);
	f = sqt_flow(o);
	KUNIT_EXPECT_EQ(test, f->rep_updates, 2ULL);
	KUNIT_EXPECT_EQ(test, f->rep_io_count, 798ULL);
	KUNIT_EXPECT_EQ(test, f->rep_norm_io_count, 800ULL);
	KUNIT_EXPECT_EQ(test, f->rep_latency, 76447168ULL);
	KUNIT_EXPECT_EQ(test, f->rep_lower_latency, 2000ULL);

	r.io_count = U64_MAX;
	KUNIT_ASSERT_EQ(test, sqt_ctl(test, o, &r, 0, &res), SQOS_NT_SUCCESS);
	KUNIT_EXPECT_EQ(test, f->rep_io_count, U64_MAX);
}

static const struct sqt_u32_case sqos_k1_cases[] = {
	{ 0, SQOS_NT_INVALID_PARAMETER },
	{ 79, SQOS_NT_INVALID_PARAMETER },
	{ 80, SQOS_NT_INVALID_PARAMETER },	/* decision: 80..87 refused */
	{ 87, SQOS_NT_INVALID_PARAMETER },
	{ 88, SQOS_NT_SUCCESS },
	{ 96, SQOS_NT_SUCCESS },
};

KUNIT_ARRAY_PARAM(sqos_k1, sqos_k1_cases, sqt_u32_desc);

/* K1: MaxResponseSize below 80 (and, by decision, 88) is refused */
static void sqos_k1_max_out(struct kunit *test)
{
	const struct sqt_u32_case *c = test->param_value;
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	struct sqos_request r = sqt_req(GET_STATUS);
	struct sqt_result res;

	sqt_associate(test, o);
	KUNIT_EXPECT_EQ(test, sqt_ctl(test, o, &r, c->value, &res), c->want);
	KUNIT_EXPECT_EQ(test, res.out_len,
			c->want == SQOS_NT_SUCCESS ? 88U : 0U);
	KUNIT_EXPECT_LE(test, res.out_len, c->value);
}

/* K1 before K2: the size check comes before the association check */
static void sqos_k1_before_k2(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	struct sqos_request r = sqt_req(GET_STATUS);
	struct sqt_result res;

	KUNIT_EXPECT_EQ(test, sqt_ctl(test, o, &r, 79, &res),
			SQOS_NT_INVALID_PARAMETER);
	KUNIT_EXPECT_EQ(test, sqt_ctl(test, o, &r, 88, &res),
			SQOS_NT_NOT_FOUND);
}

/* K2: GET_STATUS on an unassociated open -> STATUS_NOT_FOUND */
static void sqos_k2_status_unassociated(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	struct sqos_request r = sqt_req(GET_STATUS);
	struct sqt_result res;

	KUNIT_EXPECT_EQ(test, sqt_ctl(test, o, &r, 88, &res),
			SQOS_NT_NOT_FOUND);
	KUNIT_EXPECT_EQ(test, res.out_len, 0U);
	r.options = GET_STATUS | SET_FLOW;
	KUNIT_EXPECT_EQ(test, sqt_ctl(test, o, &r, 88, &res), SQOS_NT_SUCCESS);
	KUNIT_EXPECT_EQ(test, res.out_len, 88U);
}

/* K3: the response fields */
static void sqos_k3_response_fields(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	struct sqos_request r = sqt_req(SET_FLOW | SET_POLICY | GET_STATUS);
	guid_t flow = SQT_FLOW_ID, ini = SQT_INITIATOR_ID;
	struct sqos_response rsp;
	struct sqt_result res;

	r.limit = 250;
	r.reservation = 0;
	srv->ttl_ms = 0;	/* TimeToLive must still be positive */
	KUNIT_ASSERT_EQ(test, sqt_ctl(test, o, &r, 88, &res), SQOS_NT_SUCCESS);
	KUNIT_ASSERT_EQ(test, sqos_response_decode(res.out, 88, &rsp), 0);
	KUNIT_EXPECT_EQ(test, rsp.version, 0x0100);
	KUNIT_EXPECT_EQ(test, res.out[2] | res.out[3], 0);
	KUNIT_EXPECT_EQ(test, rsp.options, 0U);
	KUNIT_EXPECT_TRUE(test, guid_equal(&rsp.flow_id, &flow));
	KUNIT_EXPECT_TRUE(test, guid_is_null(&rsp.policy_id));
	KUNIT_EXPECT_TRUE(test, guid_equal(&rsp.initiator_id, &ini));
	KUNIT_EXPECT_GT(test, rsp.ttl_ms, 0U);
	KUNIT_EXPECT_TRUE(test, sqos_flow_status_valid(rsp.status));
	KUNIT_EXPECT_EQ(test, rsp.max_rate, 250ULL);
	KUNIT_EXPECT_EQ(test, rsp.min_rate, 0ULL);
	KUNIT_EXPECT_EQ(test, rsp.base_io_size, 8192U);
	KUNIT_EXPECT_EQ(test, res.out[84] | res.out[85] | res.out[86] |
			res.out[87], 0);
	/* Nothing past the 88 bytes is written. */
	KUNIT_EXPECT_EQ(test, res.out[88], 0xa5);

	srv->ttl_ms = 3981;
	r.options = GET_STATUS;
	KUNIT_ASSERT_EQ(test, sqt_ctl(test, o, &r, 88, &res), SQOS_NT_SUCCESS);
	KUNIT_ASSERT_EQ(test, sqos_response_decode(res.out, 88, &rsp), 0);
	KUNIT_EXPECT_EQ(test, rsp.ttl_ms, 3981U);
}

/* K4: the output length is 88 with STATUS_SUCCESS */
static void sqos_k4_out_len(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	struct sqos_request r = sqt_req(SET_FLOW | GET_STATUS);
	u8 *out = kunit_kzalloc(test, 4096, GFP_KERNEL);
	u8 in[SQOS_REQUEST_FIXED_SIZE];
	u32 len = 0;

	KUNIT_ASSERT_NOT_NULL(test, out);
	sqos_request_encode(&r, in, sizeof(in));
	KUNIT_EXPECT_EQ(test, sqos_control(o, in, sizeof(in), out, 4096, &len),
			SQOS_NT_SUCCESS);
	KUNIT_EXPECT_EQ(test, len, 88U);
	KUNIT_EXPECT_EQ(test, out[88], 0);
}

/* L3: a request that fails changes nothing, whatever came before */
static void sqos_l3_validate_then_commit(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	struct sqos_request r;
	struct sqt_result res;
	struct sqos_flow *f;

	/* SET_LOGICAL_FLOW_ID | GET_STATUS with no room for the answer */
	r = sqt_req(SET_FLOW | GET_STATUS);
	KUNIT_EXPECT_EQ(test, sqt_ctl(test, o, &r, 0, &res),
			SQOS_NT_INVALID_PARAMETER);
	KUNIT_EXPECT_NULL(test, sqt_flow(o));
	KUNIT_EXPECT_EQ(test, srv->nr_flows, 0U);

	/* Association + invalid policy: no association either */
	r = sqt_req(SET_FLOW | SET_POLICY);
	r.limit = 10;
	r.reservation = 11;
	KUNIT_EXPECT_EQ(test, sqt_ctl(test, o, &r, 0, &res),
			SQOS_NT_INVALID_PARAMETER);
	KUNIT_EXPECT_NULL(test, sqt_flow(o));

	/* Policy + counters + failing status: neither policy nor counters */
	sqt_associate(test, o);
	f = sqt_flow(o);
	r = sqt_req(SET_POLICY | UPDATE | GET_STATUS);
	r.limit = 77;
	r.io_count = 5;
	KUNIT_EXPECT_EQ(test, sqt_ctl(test, o, &r, 87, &res),
			SQOS_NT_INVALID_PARAMETER);
	KUNIT_EXPECT_EQ(test, f->limit, 0ULL);
	KUNIT_EXPECT_EQ(test, f->rep_io_count, 0ULL);

	/* Moving to another flow + failing status: still on the old flow */
	r = sqt_req(SET_FLOW | GET_STATUS);
	r.flow_id = sqt_guid(3);
	KUNIT_EXPECT_EQ(test, sqt_ctl(test, o, &r, 10, &res),
			SQOS_NT_INVALID_PARAMETER);
	KUNIT_EXPECT_PTR_EQ(test, sqt_flow(o), f);
	KUNIT_EXPECT_EQ(test, srv->nr_flows, 1U);
}

/* Status: UnknownPolicyId until the policy store knows the PolicyID */
static void sqos_status_unknown_policy(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	struct sqos_request r = sqt_req(SET_FLOW | SET_POLICY | GET_STATUS);
	guid_t pol = SQT_POLICY_ID;
	struct sqos_response rsp;
	struct sqt_result res;

	r.policy_id = pol;
	KUNIT_ASSERT_EQ(test, sqt_ctl(test, o, &r, 88, &res), SQOS_NT_SUCCESS);
	KUNIT_ASSERT_EQ(test, sqos_response_decode(res.out, 88, &rsp), 0);
	KUNIT_EXPECT_EQ(test, rsp.status, SQOS_FLOW_STATUS_UNKNOWN_POLICY_ID);
	KUNIT_EXPECT_EQ(test, rsp.max_rate, 0ULL);

	/* The store learns it: rates and status follow without a request. */
	KUNIT_ASSERT_EQ(test, sqos_server_policy_set(srv, &pol, 100, 0), 0);
	r.options = GET_STATUS;
	KUNIT_ASSERT_EQ(test, sqt_ctl(test, o, &r, 88, &res), SQOS_NT_SUCCESS);
	KUNIT_ASSERT_EQ(test, sqos_response_decode(res.out, 88, &rsp), 0);
	KUNIT_EXPECT_EQ(test, rsp.status, SQOS_FLOW_STATUS_OK);
	KUNIT_EXPECT_EQ(test, rsp.max_rate, 100ULL);
	KUNIT_EXPECT_EQ(test, sqt_flow(o)->lim.rate, 100ULL);

	/* Changed and deleted at run time */
	KUNIT_ASSERT_EQ(test, sqos_server_policy_set(srv, &pol, 300, 5), 0);
	KUNIT_ASSERT_EQ(test, sqt_ctl(test, o, &r, 88, &res), SQOS_NT_SUCCESS);
	KUNIT_ASSERT_EQ(test, sqos_response_decode(res.out, 88, &rsp), 0);
	KUNIT_EXPECT_EQ(test, rsp.max_rate, 300ULL);
	KUNIT_EXPECT_EQ(test, rsp.min_rate, 5ULL);
	KUNIT_ASSERT_EQ(test, sqos_server_policy_delete(srv, &pol), 0);
	KUNIT_ASSERT_EQ(test, sqt_ctl(test, o, &r, 88, &res), SQOS_NT_SUCCESS);
	KUNIT_ASSERT_EQ(test, sqos_response_decode(res.out, 88, &rsp), 0);
	KUNIT_EXPECT_EQ(test, rsp.status, SQOS_FLOW_STATUS_UNKNOWN_POLICY_ID);
	KUNIT_EXPECT_EQ(test, sqt_flow(o)->lim.rate, 0ULL);
}

/* Status: a minimum above the known capacity is ConfigurationMismatch */
static void sqos_status_config_mismatch(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	struct sqos_request r = sqt_req(SET_FLOW | SET_POLICY | GET_STATUS);
	struct sqos_response rsp;
	struct sqt_result res;

	srv->capacity_iops = 1000;
	r.limit = 5000;
	r.reservation = 1001;
	KUNIT_ASSERT_EQ(test, sqt_ctl(test, o, &r, 88, &res), SQOS_NT_SUCCESS);
	KUNIT_ASSERT_EQ(test, sqos_response_decode(res.out, 88, &rsp), 0);
	KUNIT_EXPECT_EQ(test, rsp.status,
			SQOS_FLOW_STATUS_CONFIGURATION_MISMATCH);
	r.reservation = 1000;
	KUNIT_ASSERT_EQ(test, sqt_ctl(test, o, &r, 88, &res), SQOS_NT_SUCCESS);
	KUNIT_ASSERT_EQ(test, sqos_response_decode(res.out, 88, &rsp), 0);
	KUNIT_EXPECT_NE(test, rsp.status,
			SQOS_FLOW_STATUS_CONFIGURATION_MISMATCH);
}

/* Status: NotAvailable, then InsufficientThroughput, then Ok */
static void sqos_status_minimum(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	struct sqos_request r = sqt_req(SET_FLOW | SET_POLICY | GET_STATUS);
	struct sqos_response rsp;
	struct sqt_result res;
	struct sqos_io *io;
	int i;

	io = kunit_kcalloc(test, 200, sizeof(*io), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, io);

	r.limit = 1000;
	r.reservation = 100;
	KUNIT_ASSERT_EQ(test, sqt_ctl(test, o, &r, 88, &res), SQOS_NT_SUCCESS);
	KUNIT_ASSERT_EQ(test, sqos_response_decode(res.out, 88, &rsp), 0);
	KUNIT_EXPECT_EQ(test, rsp.status, SQOS_FLOW_STATUS_NOT_AVAILABLE);

	/* 200 I/Os queued, 10 complete in the first second: too few */
	for (i = 0; i < 200; i++)
		sqos_io_admit(o, 8192, &io[i]);
	for (i = 0; i < 10; i++)
		sqos_io_done(&io[i]);
	clk.now += NSEC_PER_SEC;
	r.options = GET_STATUS;
	KUNIT_ASSERT_EQ(test, sqt_ctl(test, o, &r, 88, &res), SQOS_NT_SUCCESS);
	KUNIT_ASSERT_EQ(test, sqos_response_decode(res.out, 88, &rsp), 0);
	KUNIT_EXPECT_EQ(test, rsp.status,
			SQOS_FLOW_STATUS_INSUFFICIENT_THROUGHPUT);

	/* The next second completes 100: enough */
	for (i = 10; i < 110; i++)
		sqos_io_done(&io[i]);
	clk.now += NSEC_PER_SEC;
	KUNIT_ASSERT_EQ(test, sqt_ctl(test, o, &r, 88, &res), SQOS_NT_SUCCESS);
	KUNIT_ASSERT_EQ(test, sqos_response_decode(res.out, 88, &rsp), 0);
	KUNIT_EXPECT_EQ(test, rsp.status, SQOS_FLOW_STATUS_OK);

	/* Idle with 90 still queued for two windows: short-changed */
	clk.now += 2 * NSEC_PER_SEC;
	KUNIT_ASSERT_EQ(test, sqt_ctl(test, o, &r, 88, &res), SQOS_NT_SUCCESS);
	KUNIT_ASSERT_EQ(test, sqos_response_decode(res.out, 88, &rsp), 0);
	KUNIT_EXPECT_EQ(test, rsp.status,
			SQOS_FLOW_STATUS_INSUFFICIENT_THROUGHPUT);

	for (i = 110; i < 200; i++)
		sqos_io_done(&io[i]);
	/* A flow asking for less than its minimum and getting it is Ok */
	clk.now += NSEC_PER_SEC;
	sqos_io_admit(o, 512, &io[0]);
	sqos_io_done(&io[0]);
	clk.now += NSEC_PER_SEC;
	KUNIT_ASSERT_EQ(test, sqt_ctl(test, o, &r, 88, &res), SQOS_NT_SUCCESS);
	KUNIT_ASSERT_EQ(test, sqos_response_decode(res.out, 88, &rsp), 0);
	KUNIT_EXPECT_EQ(test, rsp.status, SQOS_FLOW_STATUS_OK);
}

/* The pure status function, every branch */
static void sqos_status_function(struct kunit *test)
{
	struct sqos_meter m;

	sqos_meter_init(&m, NSEC_PER_SEC, 0);
	KUNIT_EXPECT_EQ(test, sqos_flow_status(false, 0, 0, &m),
			SQOS_FLOW_STATUS_UNKNOWN_POLICY_ID);
	KUNIT_EXPECT_EQ(test, sqos_flow_status(true, 11, 10, &m),
			SQOS_FLOW_STATUS_CONFIGURATION_MISMATCH);
	KUNIT_EXPECT_EQ(test, sqos_flow_status(true, 10, 10, &m),
			SQOS_FLOW_STATUS_NOT_AVAILABLE);
	KUNIT_EXPECT_EQ(test, sqos_flow_status(true, 0, 10, &m),
			SQOS_FLOW_STATUS_OK);
	sqos_meter_arrive(&m, 50, 0);
	sqos_meter_complete(&m, 5, 1);
	sqos_meter_roll(&m, NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, sqos_flow_status(true, 10, 0, &m),
			SQOS_FLOW_STATUS_INSUFFICIENT_THROUGHPUT);
	KUNIT_EXPECT_EQ(test, sqos_flow_status(true, 5, 0, &m),
			SQOS_FLOW_STATUS_OK);
}

/* Example 4.2(a): as printed (104 bytes) refused; corrected accepted */
static void sqos_vector_42a(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	guid_t flow = SQT_FLOW_ID;
	u8 out[SQOS_RESPONSE_SIZE];
	u8 *in;
	u32 len = 99;

	in = kunit_kmalloc(test, sizeof(sqt_42a_printed), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, in);
	memcpy(in, sqt_42a_printed, sizeof(sqt_42a_printed));
	KUNIT_EXPECT_EQ(test, sqos_control(o, in, sizeof(sqt_42a_printed),
					   out, sizeof(out), &len),
			SQOS_NT_INVALID_PARAMETER);
	KUNIT_EXPECT_NULL(test, sqt_flow(o));

	in = kunit_kmalloc(test, sizeof(sqt_42a), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, in);
	memcpy(in, sqt_42a, sizeof(sqt_42a));
	KUNIT_EXPECT_EQ(test, sqos_control(o, in, sizeof(sqt_42a), out,
					   sizeof(out), &len),
			SQOS_NT_SUCCESS);
	KUNIT_EXPECT_EQ(test, len, 0U);		/* step 4: no output */
	KUNIT_ASSERT_NOT_NULL(test, sqt_flow(o));
	KUNIT_EXPECT_TRUE(test, guid_equal(&sqt_flow(o)->id, &flow));
}

/* Example 4.2(b): the corrected request sets the policy and the names */
static void sqos_vector_42b(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	guid_t pol = SQT_POLICY_ID, ini = SQT_INITIATOR_ID;
	struct sqos_flow *f;
	u32 len = 99;
	u8 *in;

	in = kunit_kmalloc(test, sizeof(sqt_42a), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, in);
	memcpy(in, sqt_42a, sizeof(sqt_42a));
	KUNIT_ASSERT_EQ(test, sqos_control(o, in, sizeof(sqt_42a), NULL, 0,
					   &len), SQOS_NT_SUCCESS);

	in = kunit_kmalloc(test, sizeof(sqt_42b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, in);
	memcpy(in, sqt_42b, sizeof(sqt_42b));
	KUNIT_EXPECT_EQ(test, sqos_control(o, in, sizeof(sqt_42b), NULL, 0,
					   &len), SQOS_NT_SUCCESS);
	KUNIT_EXPECT_EQ(test, len, 0U);		/* step 6: no output */
	f = sqt_flow(o);
	KUNIT_EXPECT_TRUE(test, guid_equal(&f->policy_id, &pol));
	KUNIT_EXPECT_TRUE(test, guid_equal(&f->initiator_id, &ini));
	KUNIT_EXPECT_EQ(test, f->limit, 0ULL);
	KUNIT_EXPECT_EQ(test, f->reservation, 0ULL);
	KUNIT_ASSERT_EQ(test, f->name_len, 14);
	KUNIT_EXPECT_MEMEQ(test, f->name, sqt_name, 14);
	KUNIT_ASSERT_EQ(test, f->node_name_len, 72);
	KUNIT_EXPECT_MEMEQ(test, f->node_name, sqt_node_name, 72);
}

/*
 * Example 4.2(b) as printed: the literal 104 rule accepts offsets 104 and
 * 118, which slice the names 8 bytes early (documented in sqos.rst).
 */
static void sqos_vector_42b_printed(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	struct sqos_flow *f;
	u32 len;
	u8 *in;

	sqt_associate(test, o);
	in = kunit_kmalloc(test, sizeof(sqt_42b_printed), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, in);
	memcpy(in, sqt_42b_printed, sizeof(sqt_42b_printed));
	KUNIT_EXPECT_EQ(test, sqos_control(o, in, sizeof(sqt_42b_printed),
					   NULL, 0, &len), SQOS_NT_SUCCESS);
	f = sqt_flow(o);
	KUNIT_ASSERT_EQ(test, f->name_len, 14);
	KUNIT_EXPECT_MEMEQ(test, f->name, sqt_42b_printed + 104, 14);
	KUNIT_EXPECT_MEMEQ(test, f->name + 8, sqt_name, 6);
}

/* Example 4.3: probe + status + counters, byte-exact response */
static void sqos_vector_43(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	guid_t pol = SQT_POLICY_ID;
	struct sqos_flow *f;
	u8 *in, *out;
	u32 len;

	srv->ttl_ms = 3981;
	KUNIT_ASSERT_EQ(test, sqos_server_policy_set(srv, &pol, 100, 0), 0);
	in = kunit_kmalloc(test, sizeof(sqt_42b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, in);
	memcpy(in, sqt_42a, sizeof(sqt_42a));
	KUNIT_ASSERT_EQ(test, sqos_control(o, in, sizeof(sqt_42a), NULL, 0,
					   &len), SQOS_NT_SUCCESS);
	memcpy(in, sqt_42b, sizeof(sqt_42b));
	KUNIT_ASSERT_EQ(test, sqos_control(o, in, sizeof(sqt_42b), NULL, 0,
					   &len), SQOS_NT_SUCCESS);

	out = kunit_kmalloc(test, SQOS_RESPONSE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, out);
	memcpy(in, sqt_43_req, sizeof(sqt_43_req));
	KUNIT_ASSERT_EQ(test, sqos_control(o, in, sizeof(sqt_43_req), out,
					   SQOS_RESPONSE_SIZE, &len),
			SQOS_NT_SUCCESS);
	KUNIT_ASSERT_EQ(test, len, 88U);
	KUNIT_EXPECT_MEMEQ(test, out, sqt_43_rsp, sizeof(sqt_43_rsp));

	f = sqt_flow(o);
	KUNIT_EXPECT_EQ(test, f->rep_io_count, 399ULL);
	KUNIT_EXPECT_EQ(test, f->rep_norm_io_count, 399ULL);
	KUNIT_EXPECT_EQ(test, f->rep_latency, 38223584ULL);
	KUNIT_EXPECT_EQ(test, f->rep_lower_latency, 38223584ULL);
	/* PROBE was ignored (the open was associated): names unchanged */
	KUNIT_EXPECT_EQ(test, f->name_len, 14);
}

static struct kunit_case sqos_rules_cases[] = {
	KUNIT_CASE(sqos_g1_disabled),
	KUNIT_CASE_PARAM(sqos_g2_version, sqos_g2_gen_params),
	KUNIT_CASE_PARAM(sqos_g3_options, sqos_g3_gen_params),
	KUNIT_CASE(sqos_g4_probe_ignored),
	KUNIT_CASE(sqos_g5_all_steps),
	KUNIT_CASE(sqos_g6_no_output),
	KUNIT_CASE_PARAM(sqos_g7_short_request, sqos_g7_gen_params),
	KUNIT_CASE(sqos_g7_null_request),
	KUNIT_CASE(sqos_h1_associate),
	KUNIT_CASE(sqos_h1_probe_associates),
	KUNIT_CASE(sqos_h2_probe_empty),
	KUNIT_CASE(sqos_h3_disassociate),
	KUNIT_CASE(sqos_i1_set_policy_unassociated),
	KUNIT_CASE(sqos_i2_fields_ignored),
	KUNIT_CASE_PARAM(sqos_i3_names, sqos_i3_gen_params),
	KUNIT_CASE_PARAM(sqos_i4_policy_fields, sqos_i4_gen_params),
	KUNIT_CASE(sqos_i5_names_stored),
	KUNIT_CASE(sqos_i6_policy_overwritten),
	KUNIT_CASE(sqos_i7_probe_overwrites),
	KUNIT_CASE(sqos_j1_update_unassociated),
	KUNIT_CASE(sqos_j2_counters_ignored),
	KUNIT_CASE(sqos_j3_counters_added),
	KUNIT_CASE_PARAM(sqos_k1_max_out, sqos_k1_gen_params),
	KUNIT_CASE(sqos_k1_before_k2),
	KUNIT_CASE(sqos_k2_status_unassociated),
	KUNIT_CASE(sqos_k3_response_fields),
	KUNIT_CASE(sqos_k4_out_len),
	KUNIT_CASE(sqos_l3_validate_then_commit),
	{}
};

static struct kunit_suite sqos_rules_suite = {
	.name = "sqos_server_rules",
	.test_cases = sqos_rules_cases,
};

static struct kunit_case sqos_status_cases[] = {
	KUNIT_CASE(sqos_status_unknown_policy),
	KUNIT_CASE(sqos_status_config_mismatch),
	KUNIT_CASE(sqos_status_minimum),
	KUNIT_CASE(sqos_status_function),
	{}
};

static struct kunit_suite sqos_status_suite = {
	.name = "sqos_server_status",
	.test_cases = sqos_status_cases,
};

static struct kunit_case sqos_vector_cases[] = {
	KUNIT_CASE(sqos_vector_42a),
	KUNIT_CASE(sqos_vector_42b),
	KUNIT_CASE(sqos_vector_42b_printed),
	KUNIT_CASE(sqos_vector_43),
	{}
};

static struct kunit_suite sqos_vector_suite = {
	.name = "sqos_server_vectors",
	.test_cases = sqos_vector_cases,
};

kunit_test_suites(&sqos_rules_suite, &sqos_status_suite, &sqos_vector_suite);

MODULE_DESCRIPTION("KUnit tests for MS-SQOS server processing");
MODULE_LICENSE("GPL");
