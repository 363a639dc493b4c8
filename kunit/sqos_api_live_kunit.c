// SPDX-License-Identifier: GPL-2.0
/*
 * sqos_api_live_kunit.c - drives the entry points of the loaded sqos.ko
 * (its own server, real clock, real sleeping in sqos_io_start()) the way
 * an SMB server and an SMB client would: policy store, open,
 * FSCTL_STORAGE_QOS_CONTROL built by the client helpers, throttled I/O,
 * counters and status. It calls them by name (exported for KUnit only);
 * our ksmbd and cifs reach the same functions through sqos_get_ops()'s
 * table, which sqos_limiter_kunit checks is these functions.
 *
 * Loaded without parameters (by the VM runner) it installs and removes a
 * policy of its own and leaves nothing behind. tests/vm/sqos_live.sh loads
 * it with policy=<GUID> expect_max=<N> flow=<GUID> keep=1 after writing
 * that policy into /sys/kernel/config/sqos/policies/; with keep=1 the open
 * (and so the flow with its counters) stays until the module is removed,
 * so the script can read them from debugfs.
 *
 * Locking: the test runs in one KUnit thread; kept_open is written by it
 * and read by module exit, which cannot run concurrently with the test.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include "sqos_internal.h"

MODULE_IMPORT_NS(SMBDX_NS_NAME(EXPORTED_FOR_KUNIT_TESTING));

static char *policy;
module_param(policy, charp, 0444);
MODULE_PARM_DESC(policy, "PolicyID configured from user space (default: install one)");

static ulong expect_max;
module_param(expect_max, ulong, 0444);
MODULE_PARM_DESC(expect_max, "MaximumIoRate the configured policy must give");

static char *flow = "5a1e0c0d-9b1f-4f6e-8c3a-6c0ffee00001";
module_param(flow, charp, 0444);
MODULE_PARM_DESC(flow, "LogicalFlowID to use");

static bool keep;
module_param(keep, bool, 0444);
MODULE_PARM_DESC(keep, "Keep the open (and its flow) until the module is removed");

#define LIVE_IOS	100
#define LIVE_IO_BYTES	8192
#define LIVE_OWN_MAX	200

static struct sqos_open *kept_open;

/* "LIVE-VM" in UTF-16LE */
static const u8 live_name[] = {
	'L', 0, 'I', 0, 'V', 0, 'E', 0, '-', 0, 'V', 0, 'M', 0,
};

KUNIT_DEFINE_ACTION_WRAPPER(live_release, sqos_open_release,
			    struct sqos_open *);

static u32 live_control(struct kunit *test, struct sqos_open *o,
			struct sqos_client_flow *cf,
			const struct sqos_client_args *a,
			struct sqos_response *rsp)
{
	u8 *in = kunit_kzalloc(test, SQOS_REQUEST_MAX_SIZE, GFP_KERNEL);
	u8 out[SQOS_RESPONSE_SIZE];
	u32 max_out = 0, out_len = 0, st;
	int len;

	KUNIT_ASSERT_NOT_NULL(test, in);
	len = sqos_client_build_request(cf, a, in, SQOS_REQUEST_MAX_SIZE,
					&max_out, ktime_get_ns());
	KUNIT_ASSERT_GT(test, len, 0);
	st = sqos_control(o, in, len, out, max_out, &out_len);
	KUNIT_EXPECT_EQ(test, out_len,
			st == SQOS_NT_SUCCESS && max_out ? 88U : 0U);
	if (sqos_client_handle_response(cf, st, out, out_len, ktime_get_ns(),
					rsp) && st == SQOS_NT_SUCCESS)
		KUNIT_FAIL(test, "client refused the server's response");
	return st;
}

/* Policy -> open -> associate + set policy -> throttled I/O -> counters */
static void sqos_live_api(struct kunit *test)
{
	guid_t pol = GUID_INIT(0x5a1e0c0d, 0x9b1f, 0x4f6e, 0x8c, 0x3a,
			       0x6c, 0x0f, 0xfe, 0xe0, 0x00, 0x99);
	guid_t ini = GUID_INIT(0x1b9e4dc6, 0xf8c0, 0x419f, 0x87, 0x85,
			       0x80, 0x65, 0xbc, 0xff, 0x72, 0x84);
	bool own = !policy || !*policy;
	struct sqos_client_args a = {};
	struct sqos_client_flow cf;
	struct sqos_flow_stats st;
	struct sqos_response rsp;
	u64 max = 0, min = 0, expect, burst, t0, elapsed, wait_ns;
	struct sqos_open *o;
	struct sqos_io io;
	guid_t fid;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, sqos_global);
	KUNIT_ASSERT_EQ(test, guid_parse(flow, &fid), 0);
	if (own) {
		KUNIT_ASSERT_EQ(test,
				sqos_server_policy_set(sqos_global, &pol,
						       LIVE_OWN_MAX, 0), 0);
		expect = LIVE_OWN_MAX;
	} else {
		KUNIT_ASSERT_EQ(test, guid_parse(policy, &pol), 0);
		/* The shell configured it through configfs. */
		KUNIT_ASSERT_EQ(test,
				sqos_server_policy_get(sqos_global, &pol,
						       &max, &min), 0);
		expect = expect_max ? expect_max : max;
		KUNIT_EXPECT_EQ(test, max, expect);
	}

	o = sqos_open_alloc(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, o);
	if (keep)
		kept_open = o;
	else
		KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, live_release, o), 0);

	sqos_client_flow_init(&cf, &fid, ktime_get_ns());
	a.options = STORAGE_QOS_CONTROL_FLAG_SET_LOGICAL_FLOW_ID |
		    STORAGE_QOS_CONTROL_FLAG_SET_POLICY |
		    STORAGE_QOS_CONTROL_FLAG_GET_STATUS;
	a.policy_id = pol;
	a.initiator_id = ini;
	a.name = live_name;
	a.name_len = sizeof(live_name);
	KUNIT_ASSERT_EQ(test, live_control(test, o, &cf, &a, &rsp),
			SQOS_NT_SUCCESS);
	KUNIT_EXPECT_EQ(test, rsp.status, SQOS_FLOW_STATUS_OK);
	KUNIT_EXPECT_EQ(test, rsp.max_rate, expect);
	KUNIT_EXPECT_EQ(test, cf.max_rate, expect);
	KUNIT_EXPECT_TRUE(test, guid_equal(&rsp.flow_id, &fid));

	/* Server-side enforcement with real sleeps */
	burst = sqos_burst_units(expect, sqos_global->burst_ms);
	t0 = ktime_get_ns();
	for (i = 0; i < LIVE_IOS; i++) {
		KUNIT_ASSERT_EQ(test, sqos_io_start(o, LIVE_IO_BYTES, &io), 0);
		sqos_client_io_start(&cf, LIVE_IO_BYTES, ktime_get_ns());
		sqos_io_done(&io);
		sqos_client_io_done(&cf, 10, 5);
	}
	elapsed = ktime_get_ns() - t0;
	if (expect && LIVE_IOS > burst) {
		/* The I/Os past the burst were spaced at 1/MaximumIoRate. */
		wait_ns = div64_u64((LIVE_IOS - burst - 1) * NSEC_PER_SEC,
				    expect);
		KUNIT_EXPECT_GE(test, elapsed, wait_ns);
	}

	/* The client reports its counters; the server adds them up */
	a.options = STORAGE_QOS_CONTROL_FLAG_UPDATE_COUNTERS |
		    STORAGE_QOS_CONTROL_FLAG_GET_STATUS;
	a.handle_associated = true;
	a.name_len = 0;
	KUNIT_ASSERT_EQ(test, live_control(test, o, &cf, &a, &rsp),
			SQOS_NT_SUCCESS);

	KUNIT_ASSERT_EQ(test, sqos_open_flow_stats(o, &st), 0);
	KUNIT_EXPECT_TRUE(test, guid_equal(&st.policy_id, &pol));
	KUNIT_EXPECT_EQ(test, st.max_rate, expect);
	KUNIT_EXPECT_EQ(test, st.opens, 1U);
	KUNIT_EXPECT_EQ(test, st.started, (u64)LIVE_IOS);
	KUNIT_EXPECT_EQ(test, st.completed, (u64)LIVE_IOS);
	KUNIT_EXPECT_EQ(test, st.started_units, (u64)LIVE_IOS);
	KUNIT_EXPECT_EQ(test, st.rep_updates, 1ULL);
	KUNIT_EXPECT_EQ(test, st.rep_io_count, (u64)LIVE_IOS);
	KUNIT_EXPECT_EQ(test, st.rep_norm_io_count, (u64)LIVE_IOS);
	KUNIT_EXPECT_EQ(test, st.rep_latency, 10ULL * LIVE_IOS);
	KUNIT_EXPECT_EQ(test, st.rep_lower_latency, 5ULL * LIVE_IOS);
	/*
	 * Sleeps overshoot, so the bucket may refill enough for an
	 * occasional I/O to pass without a delay; the rate check above is
	 * the exact one. Many I/Os must still have been held back.
	 */
	if (expect && LIVE_IOS > burst + 20)
		KUNIT_EXPECT_GE(test, st.delayed, 10ULL);

	if (own)
		KUNIT_EXPECT_EQ(test,
				sqos_server_policy_delete(sqos_global, &pol),
				0);
}

static void live_enable(void *srv)
{
	WRITE_ONCE(((struct sqos_server *)srv)->enabled, true);
}

/* G1 on the module's server: disabled -> STATUS_INVALID_DEVICE_REQUEST */
static void sqos_live_disabled(struct kunit *test)
{
	struct sqos_client_args a = {
		.options = STORAGE_QOS_CONTROL_FLAG_SET_LOGICAL_FLOW_ID,
	};
	struct sqos_client_flow cf;
	struct sqos_open *o;
	guid_t fid;

	KUNIT_ASSERT_NOT_NULL(test, sqos_global);
	KUNIT_ASSERT_TRUE(test, READ_ONCE(sqos_global->enabled));
	KUNIT_ASSERT_EQ(test, guid_parse(flow, &fid), 0);
	o = sqos_open_alloc(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, o);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, live_release, o),
			0);
	sqos_client_flow_init(&cf, &fid, ktime_get_ns());

	WRITE_ONCE(sqos_global->enabled, false);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, live_enable,
							sqos_global), 0);
	KUNIT_EXPECT_EQ(test, live_control(test, o, &cf, &a, NULL),
			SQOS_NT_INVALID_DEVICE_REQUEST);
	/* The client backs off for 10 s after a failure */
	KUNIT_EXPECT_GE(test, cf.timer_ns,
			ktime_get_ns() + 9 * NSEC_PER_SEC);
	kunit_release_action(test, live_enable, sqos_global);
	KUNIT_EXPECT_EQ(test, live_control(test, o, &cf, &a, NULL),
			SQOS_NT_SUCCESS);
}

struct live_race {
	struct sqos_server *srv;
	struct sqos_open *o[2];
	atomic64_t ios;
	atomic64_t policy_changes;
};

/* I/O on both opens while the main thread moves them between flows */
static int live_race_io(void *arg)
{
	struct live_race *r = arg;
	struct sqos_io io;
	unsigned int i = 0;

	while (!kthread_should_stop()) {
		sqos_io_admit(r->o[i++ & 1], 4096, &io);
		sqos_io_done(&io);
		atomic64_inc(&r->ios);
		cond_resched();
	}
	return 0;
}

/* Policy store changes that re-resolve the flows meanwhile */
static int live_race_policy(void *arg)
{
	struct live_race *r = arg;
	guid_t pol = GUID_INIT(0x5a1e0c0d, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7);
	u64 n = 0;

	while (!kthread_should_stop()) {
		if (n & 1)
			sqos_server_policy_delete(r->srv, &pol);
		else
			sqos_server_policy_set(r->srv, &pol, 1000000000, 0);
		n++;
		atomic64_inc(&r->policy_changes);
		cond_resched();
	}
	return 0;
}

KUNIT_DEFINE_ACTION_WRAPPER(live_server_destroy, sqos_server_destroy,
			    struct sqos_server *);

/*
 * Concurrency on a server of its own with the real clock: control
 * requests re-associating two opens, I/O on them from another thread and
 * policy changes from a third. Lockdep, KASAN and kmemleak watch this in
 * the debug kernel; afterwards nothing may be left.
 */
static void sqos_live_race(struct kunit *test)
{
	struct live_race *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	guid_t pol = GUID_INIT(0x5a1e0c0d, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7);
	struct task_struct *io_task, *pol_task;
	struct sqos_request req = {
		.version = SQOS_PROTOCOL_VERSION_1_0,
		.options = STORAGE_QOS_CONTROL_FLAG_SET_LOGICAL_FLOW_ID |
			   STORAGE_QOS_CONTROL_FLAG_SET_POLICY |
			   STORAGE_QOS_CONTROL_FLAG_UPDATE_COUNTERS,
		.policy_id = pol,
		.io_count = 1,
	};
	u8 in[SQOS_REQUEST_FIXED_SIZE];
	u32 out_len, st;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->srv = sqos_server_create();
	KUNIT_ASSERT_NOT_NULL(test, r->srv);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, live_server_destroy, r->srv), 0);
	for (i = 0; i < 2; i++) {
		r->o[i] = sqos_server_open_alloc(r->srv, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, r->o[i]);
		KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, live_release, r->o[i]), 0);
	}

	io_task = kthread_run(live_race_io, r, "sqos_race_io");
	KUNIT_ASSERT_FALSE(test, IS_ERR(io_task));
	pol_task = kthread_run(live_race_policy, r, "sqos_race_pol");
	if (IS_ERR(pol_task)) {
		kthread_stop(io_task);
		KUNIT_FAIL(test, "kthread_run");
		return;
	}

	for (i = 0; i < 3000; i++) {
		/* Flows 0, 1, 2 and "none", in an order that differs per open */
		req.flow_id = GUID_INIT(0x5a1e0c0d, 0, 0, 0, 0, 0, 0, 0, 0, 1,
					i % 3);
		if (i % 4 == 3)
			req.flow_id = guid_null;
		req.options = STORAGE_QOS_CONTROL_FLAG_SET_LOGICAL_FLOW_ID;
		if (!guid_is_null(&req.flow_id))
			req.options |= STORAGE_QOS_CONTROL_FLAG_SET_POLICY |
				       STORAGE_QOS_CONTROL_FLAG_UPDATE_COUNTERS;
		sqos_request_encode(&req, in, sizeof(in));
		st = sqos_control(r->o[i & 1], in, sizeof(in), NULL, 0,
				  &out_len);
		if (st != SQOS_NT_SUCCESS) {
			KUNIT_FAIL(test, "request %d: status %08x", i, st);
			break;
		}
		if (i % 64 == 0)
			cond_resched();
	}
	kthread_stop(pol_task);
	kthread_stop(io_task);
	kunit_info(test, "%lld I/Os, %lld policy changes during 3000 requests",
		   atomic64_read(&r->ios), atomic64_read(&r->policy_changes));
	KUNIT_EXPECT_GT(test, atomic64_read(&r->ios), 0);

	kunit_release_action(test, live_release, r->o[0]);
	kunit_release_action(test, live_release, r->o[1]);
	KUNIT_EXPECT_EQ(test, r->srv->nr_flows, 0U);
	KUNIT_EXPECT_EQ(test, r->srv->nr_opens, 0U);
}

static struct kunit_case sqos_live_cases[] = {
	KUNIT_CASE_SLOW(sqos_live_api),
	KUNIT_CASE(sqos_live_disabled),
	KUNIT_CASE_SLOW(sqos_live_race),
	{}
};

static struct kunit_suite sqos_live_suite = {
	.name = "sqos_api_live",
	.test_cases = sqos_live_cases,
};

kunit_test_suite(sqos_live_suite);

static int __init sqos_live_init(void)
{
	return 0;
}

static void __exit sqos_live_exit(void)
{
	sqos_open_release(kept_open);
	kept_open = NULL;
}

module_init(sqos_live_init);
module_exit(sqos_live_exit);

MODULE_DESCRIPTION("Live KUnit test of the sqos.ko API");
MODULE_LICENSE("GPL");
