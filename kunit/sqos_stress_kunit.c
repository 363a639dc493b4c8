// SPDX-License-Identifier: GPL-2.0
/*
 * sqos_stress_kunit.c - KUnit suites for the robustness of sqos.ko's
 * server: random requests of random lengths (differential: the same
 * request fed to two identical servers, one from an exact-size buffer and
 * one followed by 0xff bytes, must give identical results, so a read past
 * RequestSize would show), flow and open lifetime under many random
 * operations, and the policy store.
 *
 * Locking: single-threaded tests on private servers with fake clocks.
 */
#include <kunit/test.h>
#include <smbdirect/ns.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "sqos_kunit_util.h"

MODULE_IMPORT_NS(SMBDX_NS_NAME(EXPORTED_FOR_KUNIT_TESTING));

#define SQF_OPENS	4
#define SQF_ITERS	6000

struct sqf_side {
	struct sqt_clock clk;
	struct sqos_server *srv;
	struct sqos_open *o[SQF_OPENS];
};

static u32 sqf_rand(struct rnd_state *rs, u32 n)
{
	return n ? prandom_u32_state(rs) % n : 0;
}

static u16 sqf_offset(struct rnd_state *rs, u32 len)
{
	switch (sqf_rand(rs, 8)) {
	case 0:
		return 0;
	case 1:
		return SQOS_MIN_NAME_OFFSET - sqf_rand(rs, 2);
	case 2:
		return SQOS_REQUEST_FIXED_SIZE;
	case 3:
		return 0xffff - sqf_rand(rs, 16);
	case 4:
		return len > 16 ? len - sqf_rand(rs, 16) : len;
	case 5:
		return 0xfe00 + sqf_rand(rs, 0x200);
	default:
		return prandom_u32_state(rs);
	}
}

static u16 sqf_length(struct rnd_state *rs)
{
	switch (sqf_rand(rs, 6)) {
	case 0:
		return 0;
	case 1:
		return 2 * sqf_rand(rs, 8);
	case 2:
		return STORAGE_QOS_INITIATOR_NAME_SIZE + sqf_rand(rs, 3) - 1;
	case 3:
		return 0xffff - sqf_rand(rs, 4);
	default:
		return prandom_u32_state(rs);
	}
}

static u32 sqf_request_len(struct rnd_state *rs)
{
	switch (sqf_rand(rs, 8)) {
	case 0:
		return sqf_rand(rs, SQOS_REQUEST_FIXED_SIZE);
	case 1:
		return SQOS_REQUEST_FIXED_SIZE - 2 + sqf_rand(rs, 4);
	case 2:
		return SQOS_REQUEST_MAX_SIZE - 2 + sqf_rand(rs, 4);
	case 3:
		return 0x10000 - 8 + sqf_rand(rs, 16);
	default:
		return SQOS_REQUEST_FIXED_SIZE + sqf_rand(rs, 1200);
	}
}

static u32 sqf_max_out(struct rnd_state *rs)
{
	static const u32 picks[] = { 0, 1, 79, 80, 87, 88, 89, 200 };

	return picks[sqf_rand(rs, ARRAY_SIZE(picks))];
}

static void sqf_fill_request(struct rnd_state *rs, u8 *buf, u32 len)
{
	static const guid_t flows[] = {
		SQT_FLOW_ID,
		GUID_INIT(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11),
		GUID_INIT(0xffffffff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1),
	};
	struct sqos_request r;
	u32 i;

	for (i = 0; i < len; i++)
		buf[i] = prandom_u32_state(rs);
	if (len < SQOS_REQUEST_FIXED_SIZE)
		return;

	sqos_request_decode(buf, len, &r);
	if (sqf_rand(rs, 5))
		r.version = SQOS_PROTOCOL_VERSION_1_0;
	if (sqf_rand(rs, 4))
		r.options &= STORAGE_QOS_CONTROL_FLAGS_ALL;
	switch (sqf_rand(rs, 5)) {
	case 0:
		r.flow_id = guid_null;
		break;
	case 1:
		break;
	default:
		r.flow_id = flows[sqf_rand(rs, ARRAY_SIZE(flows))];
		break;
	}
	if (sqf_rand(rs, 2))
		r.policy_id = guid_null;
	if (sqf_rand(rs, 2)) {
		r.limit = sqf_rand(rs, 3) ? sqf_rand(rs, 2000) : r.limit;
		r.reservation = sqf_rand(rs, 3) ? sqf_rand(rs, 2000) : 0;
	}
	r.name_off = sqf_offset(rs, len);
	r.name_len = sqf_length(rs);
	r.node_name_off = sqf_offset(rs, len);
	r.node_name_len = sqf_length(rs);
	sqos_request_encode(&r, buf, len);
}

static bool sqf_status_defined(u32 st)
{
	return st == SQOS_NT_SUCCESS || st == SQOS_NT_INVALID_PARAMETER ||
	       st == SQOS_NT_INVALID_DEVICE_REQUEST ||
	       st == SQOS_NT_REVISION_MISMATCH || st == SQOS_NT_NOT_FOUND;
}

static void sqf_side_init(struct kunit *test, struct sqf_side *s)
{
	int i;

	s->srv = sqt_server(test, &s->clk);
	for (i = 0; i < SQF_OPENS; i++)
		s->o[i] = sqt_open(test, s->srv);
}

/* Both servers hold the same flows with the same content. */
static bool sqf_same_state(struct kunit *test, struct sqf_side *a,
			   struct sqf_side *b)
{
	struct sqos_flow *fa, *fb;
	int i;

	if (a->srv->nr_flows != b->srv->nr_flows)
		return false;
	for (i = 0; i < SQF_OPENS; i++) {
		fa = sqt_flow(a->o[i]);
		fb = sqt_flow(b->o[i]);
		if (!fa || !fb) {
			if (fa != fb && (!fa || !fb))
				return false;
			continue;
		}
		if (!guid_equal(&fa->id, &fb->id) ||
		    !guid_equal(&fa->policy_id, &fb->policy_id) ||
		    fa->limit != fb->limit ||
		    fa->reservation != fb->reservation ||
		    fa->rep_io_count != fb->rep_io_count ||
		    fa->name_len != fb->name_len ||
		    fa->node_name_len != fb->node_name_len ||
		    memcmp(fa->name, fb->name, fa->name_len) ||
		    memcmp(fa->node_name, fb->node_name, fa->node_name_len))
			return false;
	}
	return true;
}

/*
 * Random requests of random lengths always get a defined NTSTATUS, an
 * output of 0 or 88 bytes within MaxResponseSize, and never depend on
 * bytes past RequestSize.
 */
static void sqos_fuzz_control(struct kunit *test)
{
	struct sqf_side *a, *b;
	struct rnd_state rs;
	u32 it, len, max_out, ia, ib, sa, sb, la, lb, i;
	u8 *in_a, *in_b, *out_a, *out_b;
	struct sqos_response rsp;
	u64 total = 0;

	a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	sqf_side_init(test, a);
	sqf_side_init(test, b);
	prandom_seed_state(&rs, 0x5a05f00d);

	for (it = 0; it < SQF_ITERS; it++) {
		len = sqf_request_len(&rs);
		max_out = sqf_max_out(&rs);
		i = sqf_rand(&rs, SQF_OPENS);

		if (!sqf_rand(&rs, 200)) {
			a->srv->enabled = !a->srv->enabled;
			b->srv->enabled = a->srv->enabled;
		}
		if (!sqf_rand(&rs, 60)) {
			sqt_release(test, a->o[i]);
			sqt_release(test, b->o[i]);
			a->o[i] = sqt_open(test, a->srv);
			b->o[i] = sqt_open(test, b->srv);
		}

		in_a = kmalloc(max_t(u32, len, 1), GFP_KERNEL);
		in_b = kmalloc(len + 64, GFP_KERNEL);
		out_a = kmalloc(max_t(u32, max_out, 1), GFP_KERNEL);
		out_b = kmalloc(max_t(u32, max_out, 1), GFP_KERNEL);
		if (!in_a || !in_b || !out_a || !out_b) {
			kfree(in_a);
			kfree(in_b);
			kfree(out_a);
			kfree(out_b);
			KUNIT_FAIL(test, "out of memory");
			break;
		}
		sqf_fill_request(&rs, in_b, len);
		memset(in_b + len, 0xff, 64);
		memcpy(in_a, in_b, len);

		la = 0xdead;
		lb = 0xbeef;
		sa = sqos_control(a->o[i], in_a, len, out_a, max_out, &la);
		sb = sqos_control(b->o[i], in_b, len, out_b, max_out, &lb);
		total++;
		ia = la;
		ib = lb;

		if (!sqf_status_defined(sa) || sa != sb || ia != ib ||
		    (ia != 0 && ia != SQOS_RESPONSE_SIZE) || ia > max_out ||
		    (sa != SQOS_NT_SUCCESS && ia) ||
		    (ia && memcmp(out_a, out_b, ia)) ||
		    (ia && sqos_response_decode(out_a, ia, &rsp))) {
			KUNIT_FAIL(test,
				   "iteration %u: len %u max_out %u: status %08x/%08x out_len %u/%u",
				   it, len, max_out, sa, sb, ia, ib);
			it = SQF_ITERS;
		}
		kfree(in_a);
		kfree(in_b);
		kfree(out_a);
		kfree(out_b);

		if (it % 100 == 0 && !sqf_same_state(test, a, b)) {
			KUNIT_FAIL(test, "iteration %u: server states differ",
				   it);
			break;
		}
	}
	KUNIT_EXPECT_TRUE(test, sqf_same_state(test, a, b));

	/* Every call was counted under exactly one status. */
	for (i = 0, la = 0; i < SQOS_NT_IDX_MAX; i++)
		la += atomic64_read(&a->srv->nt_count[i]);
	KUNIT_EXPECT_EQ(test, (u64)la, total);
	KUNIT_EXPECT_EQ(test, atomic64_read(&a->srv->nt_count[SQOS_NT_IDX_NO_MEMORY]), 0);
	/* The run exercised more than the early exits. */
	KUNIT_EXPECT_GT(test, atomic64_read(&a->srv->nt_count[SQOS_NT_IDX_SUCCESS]), 100);
	KUNIT_EXPECT_GT(test, atomic64_read(&a->srv->nt_count[SQOS_NT_IDX_NOT_FOUND]), 10);
	KUNIT_EXPECT_GT(test, atomic64_read(&a->srv->nt_count[SQOS_NT_IDX_INVALID_PARAMETER]), 100);

	for (i = 0; i < SQF_OPENS; i++) {
		sqt_release(test, a->o[i]);
		sqt_release(test, b->o[i]);
	}
	KUNIT_EXPECT_EQ(test, a->srv->nr_flows, 0U);
	KUNIT_EXPECT_EQ(test, a->srv->nr_opens, 0U);
	KUNIT_EXPECT_EQ(test, b->srv->nr_flows, 0U);
}

/* Offsets and lengths that overflow 16 bits, each name, exact buffers */
static void sqos_fuzz_name_overflow(struct kunit *test)
{
	static const u16 offs[] = { 0xffff, 0xfffe, 0xff00, 0xfe01, 0xfe00 };
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	struct sqos_request r;
	struct sqt_result res;
	unsigned int i, node;
	u32 end, st;

	for (node = 0; node < 2; node++) {
		for (i = 0; i < ARRAY_SIZE(offs); i++) {
			r = sqt_req(STORAGE_QOS_CONTROL_FLAG_SET_LOGICAL_FLOW_ID |
				    STORAGE_QOS_CONTROL_FLAG_SET_POLICY);
			if (node) {
				r.node_name_off = offs[i];
				r.node_name_len = 0x200;
			} else {
				r.name_off = offs[i];
				r.name_len = 0x200;
			}
			/* One byte short of the end, then exactly the end */
			end = (u32)offs[i] + 0x200;
			st = sqt_ctl_fill(test, o, &r, end - 1, 0, 0x41, &res);
			KUNIT_EXPECT_EQ(test, st, SQOS_NT_INVALID_PARAMETER);
			st = sqt_ctl_fill(test, o, &r, end, 0, 0x41, &res);
			KUNIT_EXPECT_EQ(test, st, SQOS_NT_SUCCESS);
		}
	}
}

/* Many flows and opens created and dropped leave nothing behind */
static void sqos_lifecycle_many(struct kunit *test)
{
	enum { NOPENS = 256, NFLOWS = 96, NIO = 32, ITERS = 20000 };
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open **o;
	struct sqos_io *io;
	int *assoc, *refs, *io_flow;
	struct sqos_request r;
	struct sqt_result res;
	struct rnd_state rs;
	int it, i, f, k, live, bkt;
	struct sqos_flow *fl;
	guid_t id;

	o = kunit_kcalloc(test, NOPENS, sizeof(*o), GFP_KERNEL);
	io = kunit_kcalloc(test, NIO, sizeof(*io), GFP_KERNEL);
	assoc = kunit_kcalloc(test, NOPENS, sizeof(int), GFP_KERNEL);
	io_flow = kunit_kcalloc(test, NIO, sizeof(int), GFP_KERNEL);
	refs = kunit_kcalloc(test, NFLOWS, sizeof(int), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, o && io && assoc && io_flow && refs);
	for (i = 0; i < NOPENS; i++) {
		o[i] = sqos_server_open_alloc(srv, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, o[i]);
		assoc[i] = -1;
	}
	for (k = 0; k < NIO; k++)
		io_flow[k] = -1;
	prandom_seed_state(&rs, 42);

	for (it = 0; it < ITERS; it++) {
		i = sqf_rand(&rs, NOPENS);
		f = sqf_rand(&rs, NFLOWS);
		switch (sqf_rand(&rs, 10)) {
		case 0 ... 4:
			r = sqt_req(STORAGE_QOS_CONTROL_FLAG_SET_LOGICAL_FLOW_ID);
			r.flow_id = sqt_guid(f);
			break;
		case 5:
			r = sqt_req(STORAGE_QOS_CONTROL_FLAG_PROBE_POLICY);
			r.flow_id = sqt_guid(f);
			r.limit = f;
			if (assoc[i] >= 0)
				f = assoc[i];
			break;
		case 6:
			r = sqt_req(STORAGE_QOS_CONTROL_FLAG_SET_LOGICAL_FLOW_ID);
			r.flow_id = guid_null;
			f = -1;
			break;
		case 7:
			if (assoc[i] >= 0)
				refs[assoc[i]]--;
			sqos_open_release(o[i]);
			o[i] = sqos_server_open_alloc(srv, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, o[i]);
			assoc[i] = -1;
			continue;
		default:
			/* Start or finish an I/O that pins the open's flow. */
			k = sqf_rand(&rs, NIO);
			if (io_flow[k] >= 0) {
				refs[io_flow[k]]--;
				sqos_io_done(&io[k]);
				io_flow[k] = -1;
			} else {
				sqos_io_admit(o[i], 4096, &io[k]);
				KUNIT_ASSERT_EQ(test, !!io[k].flow,
						assoc[i] >= 0);
				io_flow[k] = assoc[i];
				if (assoc[i] >= 0)
					refs[assoc[i]]++;
			}
			continue;
		}
		KUNIT_ASSERT_EQ(test, sqt_ctl(test, o[i], &r, 0, &res),
				SQOS_NT_SUCCESS);
		if (assoc[i] >= 0)
			refs[assoc[i]]--;
		assoc[i] = f;
		if (f >= 0)
			refs[f]++;

		if (it % 500)
			continue;
		/* The table holds exactly the flows the model says are live */
		for (f = 0, live = 0; f < NFLOWS; f++) {
			id = sqt_guid(f);
			fl = sqt_find(srv, &id);
			KUNIT_ASSERT_EQ(test, !!fl, refs[f] > 0);
			if (fl) {
				live++;
				KUNIT_ASSERT_EQ(test, refcount_read(&fl->ref),
						(unsigned int)refs[f]);
			}
		}
		KUNIT_ASSERT_EQ(test, srv->nr_flows, (unsigned int)live);
	}

	for (i = 0; i < NOPENS; i++)
		sqos_open_release(o[i]);
	KUNIT_EXPECT_EQ(test, srv->nr_opens, 0U);
	/* Flows pinned only by in-flight I/O survive their opens... */
	for (k = 0, live = 0; k < NIO; k++)
		live += io_flow[k] >= 0;
	if (live)
		KUNIT_EXPECT_GT(test, srv->nr_flows, 0U);
	/* ...and go with the last I/O. */
	for (k = 0; k < NIO; k++)
		sqos_io_done(&io[k]);
	KUNIT_EXPECT_EQ(test, srv->nr_flows, 0U);
	hash_for_each(srv->flows, bkt, fl, node)
		KUNIT_FAIL(test, "flow %pUl left in the table", &fl->id);
}

/* An I/O in flight keeps its flow after the open is gone */
static void sqos_lifecycle_io_pins_flow(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqos_server_open_alloc(srv, GFP_KERNEL);
	struct sqos_request r = sqt_req(STORAGE_QOS_CONTROL_FLAG_SET_LOGICAL_FLOW_ID);
	struct sqt_result res;
	struct sqos_io io;

	KUNIT_ASSERT_NOT_NULL(test, o);
	KUNIT_ASSERT_EQ(test, sqt_ctl(test, o, &r, 0, &res), SQOS_NT_SUCCESS);
	sqos_io_admit(o, 65536, &io);
	KUNIT_ASSERT_NOT_NULL(test, io.flow);
	KUNIT_EXPECT_EQ(test, io.units, 8ULL);
	KUNIT_EXPECT_EQ(test, refcount_read(&io.flow->ref), 2U);
	sqos_open_release(o);
	KUNIT_EXPECT_EQ(test, srv->nr_flows, 1U);
	KUNIT_EXPECT_EQ(test, io.flow->completed, 0ULL);
	sqos_io_done(&io);
	KUNIT_EXPECT_NULL(test, io.flow);
	KUNIT_EXPECT_EQ(test, srv->nr_flows, 0U);
	KUNIT_EXPECT_EQ(test, srv->nr_opens, 0U);
	/* Done twice is harmless: the io was cleared. */
	sqos_io_done(&io);
}

/* The store itself: set, replace, get, delete, clear */
static void sqos_policy_store(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	guid_t a = SQT_POLICY_ID, b = sqt_guid(9);
	u64 max = 0, min = 0;
	int i;

	KUNIT_EXPECT_EQ(test, sqos_server_policy_get(srv, &a, &max, &min),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, sqos_server_policy_set(srv, &a, 100, 10), 0);
	KUNIT_EXPECT_EQ(test, sqos_server_policy_set(srv, &a, 200, 20), 0);
	KUNIT_EXPECT_EQ(test, srv->nr_policies, 1U);
	KUNIT_EXPECT_EQ(test, sqos_server_policy_get(srv, &a, &max, &min), 0);
	KUNIT_EXPECT_EQ(test, max, 200ULL);
	KUNIT_EXPECT_EQ(test, min, 20ULL);
	KUNIT_EXPECT_EQ(test, sqos_server_policy_set(srv, &b, 10, 11),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, sqos_server_policy_set(srv, &guid_null, 1, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, sqos_server_policy_delete(srv, &b), -ENOENT);
	KUNIT_EXPECT_EQ(test, sqos_server_policy_delete(srv, &a), 0);
	KUNIT_EXPECT_EQ(test, srv->nr_policies, 0U);

	for (i = 1; i <= 500; i++) {
		b = sqt_guid(i);
		KUNIT_ASSERT_EQ(test, sqos_server_policy_set(srv, &b, i, 0), 0);
	}
	KUNIT_EXPECT_EQ(test, srv->nr_policies, 500U);
	b = sqt_guid(321);
	KUNIT_EXPECT_EQ(test, sqos_server_policy_get(srv, &b, &max, &min), 0);
	KUNIT_EXPECT_EQ(test, max, 321ULL);
	sqos_server_policy_clear(srv);
	KUNIT_EXPECT_EQ(test, srv->nr_policies, 0U);
	KUNIT_EXPECT_EQ(test, sqos_server_policy_get(srv, &b, &max, &min),
			-ENOENT);
}

static struct kunit_case sqos_fuzz_cases[] = {
	KUNIT_CASE_SLOW(sqos_fuzz_control),
	KUNIT_CASE(sqos_fuzz_name_overflow),
	{}
};

static struct kunit_suite sqos_fuzz_suite = {
	.name = "sqos_fuzz",
	.test_cases = sqos_fuzz_cases,
};

static struct kunit_case sqos_lifecycle_cases[] = {
	KUNIT_CASE_SLOW(sqos_lifecycle_many),
	KUNIT_CASE(sqos_lifecycle_io_pins_flow),
	{}
};

static struct kunit_suite sqos_lifecycle_suite = {
	.name = "sqos_lifecycle",
	.test_cases = sqos_lifecycle_cases,
};

static struct kunit_case sqos_policy_cases[] = {
	KUNIT_CASE(sqos_policy_store),
	{}
};

static struct kunit_suite sqos_policy_suite = {
	.name = "sqos_policy",
	.test_cases = sqos_policy_cases,
};

kunit_test_suites(&sqos_fuzz_suite, &sqos_lifecycle_suite, &sqos_policy_suite);

MODULE_DESCRIPTION("KUnit robustness tests for sqos.ko");
MODULE_LICENSE("GPL");
