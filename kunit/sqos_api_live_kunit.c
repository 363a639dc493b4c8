// SPDX-License-Identifier: GPL-2.0
/*
 * sqos_api_live_kunit.c - drives the real exported API of the loaded
 * sqos.ko (its own server, real clock, real sleeping in sqos_io_start())
 * the way an SMB server and an SMB client would: policy store, open,
 * FSCTL_STORAGE_QOS_CONTROL built by the client helpers, throttled I/O,
 * counters and status.
 *
 * Loaded without parameters (by the VM runner) it installs and removes a
 * policy of its own and leaves nothing behind. tests/vm/sqos_live.sh loads
 * it with policy=<GUID> expect_max=<N> flow=<GUID> keep=1 after writing
 * that policy into /sys/kernel/debug/sqos/policies; with keep=1 the open
 * (and so the flow with its counters) stays until the module is removed,
 * so the script can read them from debugfs.
 *
 * Locking: the test runs in one KUnit thread; kept_open is written by it
 * and read by module exit, which cannot run concurrently with the test.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include "sqos_internal.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

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
		KUNIT_ASSERT_EQ(test, sqos_policy_set(&pol, LIVE_OWN_MAX, 0), 0);
		expect = LIVE_OWN_MAX;
	} else {
		KUNIT_ASSERT_EQ(test, guid_parse(policy, &pol), 0);
		/* The shell configured it through debugfs. */
		KUNIT_ASSERT_EQ(test, sqos_policy_get(&pol, &max, &min), 0);
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
	if (expect && LIVE_IOS > burst)
		KUNIT_EXPECT_GE(test, st.delayed, LIVE_IOS - burst - 1);

	if (own)
		KUNIT_EXPECT_EQ(test, sqos_policy_delete(&pol), 0);
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

static struct kunit_case sqos_live_cases[] = {
	KUNIT_CASE_SLOW(sqos_live_api),
	KUNIT_CASE(sqos_live_disabled),
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
