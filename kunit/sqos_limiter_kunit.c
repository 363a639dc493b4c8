// SPDX-License-Identifier: GPL-2.0
/*
 * sqos_limiter_kunit.c - KUnit suite for the rate arithmetic of sqos.ko
 * (qos/limiter.c) and the server's I/O path on top of it, driven by a fake
 * clock: a flow offered 10x its limit for 60 simulated seconds is held
 * within 2% of MaximumIoRate, an idle flow may burst, nobody is starved,
 * extreme values do not overflow, and the completion meter detects a flow
 * running below its MinimumIoRate.
 *
 * Locking: single-threaded; limiters and meters live on the stack.
 */
#include <kunit/test.h>
#include <smbdirect/ns.h>
#include <linux/time64.h>
#include "sqos_kunit_util.h"

MODULE_IMPORT_NS(SMBDX_NS_NAME(EXPORTED_FOR_KUNIT_TESTING));

#define SIM_SECONDS	60

struct sql_case {
	u64 rate;		/* MaximumIoRate, normalized IOPS */
	u64 units;		/* normalized size of each offered I/O */
	u32 burst_ms;
};

static const struct sql_case sql_cases[] = {
	{ 1, 1, 250 },
	{ 3, 1, 250 },
	{ 7, 2, 1000 },
	{ 100, 1, 250 },
	{ 100, 8, 250 },	/* 64 KiB I/Os at 100 IOPS */
	{ 1000, 1, 250 },
	{ 1000, 128, 250 },	/* 1 MiB I/Os, larger than the burst */
	{ 12345, 16, 100 },
	{ 50000, 64, 250 },
	{ 1000000, 1024, 250 },	/* 8 MiB I/Os at 10^6 IOPS */
};

static void sql_desc(const struct sql_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "rate %llu units %llu burst %ums",
		 c->rate, c->units, c->burst_ms);
}

KUNIT_ARRAY_PARAM(sql, sql_cases, sql_desc);

/*
 * Offer I/Os at ten times the limit (open loop: they keep arriving whatever
 * the delays) and count the units whose start time falls inside the 60 s.
 * The average must be within 2% of the limit: not above (enforcement) and
 * not below (the limiter does not waste capacity).
 */
static void sqos_limiter_10x_for_60s(struct kunit *test)
{
	const struct sql_case *c = test->param_value;
	u64 end = SIM_SECONDS * NSEC_PER_SEC, t0 = 5 * NSEC_PER_SEC;
	u64 burst = sqos_burst_units(c->rate, c->burst_ms);
	u64 gap, now, delay, started = 0, max_delay = 0, expect;
	struct sqos_limiter lim;

	/* Arrival gap for 10x the rate in units */
	gap = div64_u64(c->units * NSEC_PER_SEC, 10 * c->rate);
	KUNIT_ASSERT_GT(test, gap, 0ULL);
	sqos_limiter_init(&lim, c->rate, burst, t0);

	for (now = t0; now < t0 + end; now += gap) {
		delay = sqos_limiter_admit(&lim, c->units, now);
		if (now + delay < t0 + end)
			started += c->units;
		max_delay = max(max_delay, delay);
	}
	expect = c->rate * SIM_SECONDS;
	kunit_info(test, "started %llu units, limit %llu, burst %llu",
		   started, expect, burst);
	KUNIT_EXPECT_LE(test, started * 100, expect * 102);
	KUNIT_EXPECT_GE(test, started * 100, expect * 98);
	/* The backlog grows (open loop) but every delay is finite. */
	KUNIT_EXPECT_LT(test, max_delay, (u64)SIM_SECONDS * 10 * NSEC_PER_SEC);
}

/* An idle flow gets its whole burst at once, then the rate */
static void sqos_limiter_idle_burst(struct kunit *test)
{
	struct sqos_limiter lim;
	u64 t = 1000 * NSEC_PER_SEC;
	int i;

	sqos_limiter_init(&lim, 100, sqos_burst_units(100, 250), t);
	KUNIT_ASSERT_EQ(test, lim.burst, 25ULL);
	for (i = 0; i < 25; i++)
		KUNIT_EXPECT_EQ(test, sqos_limiter_admit(&lim, 1, t), 0ULL);
	/* The 26th waits one unit's time: 10 ms at 100/s */
	KUNIT_EXPECT_EQ(test, sqos_limiter_admit(&lim, 1, t),
			10 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, sqos_limiter_admit(&lim, 1, t),
			20 * NSEC_PER_MSEC);

	/* After a long idle period the bucket is full again, not fuller */
	t += 3600 * NSEC_PER_SEC;
	for (i = 0; i < 25; i++)
		KUNIT_EXPECT_EQ(test, sqos_limiter_admit(&lim, 1, t), 0ULL);
	KUNIT_EXPECT_GT(test, sqos_limiter_admit(&lim, 1, t), 0ULL);
}

/* Saturated for a while, then idle: bursts are not starved forever */
static void sqos_limiter_burst_after_saturation(struct kunit *test)
{
	struct sqos_limiter lim;
	u64 t = 0, delay = 0;
	int i;

	sqos_limiter_init(&lim, 1000, 250, t);
	for (i = 0; i < 20000; i++)	/* 20 s of work offered at once */
		delay = sqos_limiter_admit(&lim, 1, t);
	/* The last one waits for the debt: (20000 - 250) / 1000 s */
	KUNIT_EXPECT_EQ(test, delay, 19750 * NSEC_PER_MSEC);
	/* Once the debt is repaid and the bucket refilled: a full burst */
	t = delay + 250 * NSEC_PER_MSEC;
	for (i = 0; i < 250; i++)
		KUNIT_EXPECT_EQ(test, sqos_limiter_admit(&lim, 1, t), 0ULL);
	KUNIT_EXPECT_EQ(test, sqos_limiter_admit(&lim, 1, t),
			NSEC_PER_MSEC);
}

/* A request bigger than the bucket still goes, and pays afterwards */
static void sqos_limiter_large_io(struct kunit *test)
{
	struct sqos_limiter lim;

	sqos_limiter_init(&lim, 100, 25, 0);
	KUNIT_EXPECT_EQ(test, sqos_limiter_admit(&lim, 128, 0),
			103 * 10 * NSEC_PER_MSEC);
	/* A small one behind it waits for the big one's debt */
	KUNIT_EXPECT_EQ(test, sqos_limiter_admit(&lim, 1, 0),
			104 * 10 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, sqos_limiter_admit(&lim, 1, 1040 * NSEC_PER_MSEC),
			10 * NSEC_PER_MSEC);
}

/* Rate 0 means unlimited; changing the rate keeps debt */
static void sqos_limiter_rate_changes(struct kunit *test)
{
	struct sqos_limiter lim;
	int i;

	sqos_limiter_init(&lim, 0, 1, 0);
	for (i = 0; i < 100000; i++)
		KUNIT_ASSERT_EQ(test, sqos_limiter_admit(&lim, 128, 0), 0ULL);

	/* Unlimited -> 10/s: starts with a full bucket of 2 */
	sqos_limiter_set_rate(&lim, 10, 2, 0);
	KUNIT_EXPECT_EQ(test, sqos_limiter_admit(&lim, 2, 0), 0ULL);
	KUNIT_EXPECT_EQ(test, sqos_limiter_admit(&lim, 10, 0), NSEC_PER_SEC);
	/* Raising the rate does not forgive the debt, it repays it faster */
	sqos_limiter_set_rate(&lim, 20, 4, 0);
	KUNIT_EXPECT_EQ(test, sqos_limiter_admit(&lim, 0, 0),
			NSEC_PER_SEC / 2);
	/* Back to unlimited */
	sqos_limiter_set_rate(&lim, 0, 1, 0);
	KUNIT_EXPECT_EQ(test, sqos_limiter_admit(&lim, 1000, 0), 0ULL);
}

/* Extreme inputs: no overflow, no division by zero, sane answers */
static void sqos_limiter_extremes(struct kunit *test)
{
	struct sqos_limiter lim;
	u64 d;

	sqos_limiter_init(&lim, U64_MAX, U64_MAX, 0);
	KUNIT_EXPECT_EQ(test, sqos_limiter_admit(&lim, U64_MAX, U64_MAX), 0ULL);
	d = sqos_limiter_admit(&lim, U64_MAX, U64_MAX);
	KUNIT_EXPECT_LE(test, d, 10ULL);

	sqos_limiter_init(&lim, 1, 1, 0);
	d = sqos_limiter_admit(&lim, U64_MAX, 0);
	/* Capped at 4e9 units of debt: about 127 years at 1/s */
	KUNIT_EXPECT_GT(test, d, 0ULL);
	d = sqos_limiter_admit(&lim, U64_MAX, 0);
	KUNIT_EXPECT_GT(test, d, 0ULL);
	/* Time going backwards refills nothing and breaks nothing */
	sqos_limiter_init(&lim, 10, 1, 5 * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, sqos_limiter_admit(&lim, 1, 5 * NSEC_PER_SEC),
			0ULL);
	KUNIT_EXPECT_EQ(test, sqos_limiter_admit(&lim, 1, 0),
			NSEC_PER_SEC / 10);
	/* A clock jump to the far future simply fills the bucket */
	KUNIT_EXPECT_EQ(test, sqos_limiter_admit(&lim, 1, U64_MAX), 0ULL);

	KUNIT_EXPECT_EQ(test, sqos_burst_units(0, 250), 1ULL);
	KUNIT_EXPECT_EQ(test, sqos_burst_units(100, 250), 25ULL);
	KUNIT_EXPECT_EQ(test, sqos_burst_units(U64_MAX, U32_MAX),
			4000000000ULL);
	KUNIT_EXPECT_EQ(test, sqos_mul_div(U64_MAX, 2, 4), U64_MAX / 4 * 2);
	KUNIT_EXPECT_EQ(test, sqos_mul_div(1, 1, 0), U64_MAX);
	KUNIT_EXPECT_EQ(test, sqos_mul_div(6, 7, 4), 10ULL);
}

/* Meter: the last full window is what counts; gaps are accounted */
static void sqos_meter_windows(struct kunit *test)
{
	struct sqos_meter m;
	u64 s = NSEC_PER_SEC;

	sqos_meter_init(&m, s, 10 * s);
	KUNIT_EXPECT_FALSE(test, m.have_last);
	KUNIT_EXPECT_FALSE(test, sqos_meter_insufficient(&m, 100));
	sqos_meter_arrive(&m, 300, 10 * s);
	sqos_meter_complete(&m, 120, 10 * s + s / 2);
	sqos_meter_roll(&m, 11 * s - 1);
	KUNIT_EXPECT_FALSE(test, m.have_last);
	sqos_meter_roll(&m, 11 * s);
	KUNIT_EXPECT_TRUE(test, m.have_last);
	KUNIT_EXPECT_EQ(test, m.last_demand, 300ULL);
	KUNIT_EXPECT_EQ(test, m.last_completions, 120ULL);
	KUNIT_EXPECT_EQ(test, sqos_meter_last_rate(&m), 120ULL);
	KUNIT_EXPECT_FALSE(test, sqos_meter_insufficient(&m, 120));
	KUNIT_EXPECT_FALSE(test, sqos_meter_insufficient(&m, 126));
	KUNIT_EXPECT_TRUE(test, sqos_meter_insufficient(&m, 127));
	KUNIT_EXPECT_EQ(test, m.inflight, 180ULL);

	/* Three silent windows: the last one completed nothing of 180 */
	sqos_meter_roll(&m, 14 * s + 5);
	KUNIT_EXPECT_EQ(test, m.last_demand, 180ULL);
	KUNIT_EXPECT_EQ(test, m.last_completions, 0ULL);
	KUNIT_EXPECT_TRUE(test, sqos_meter_insufficient(&m, 1));
	KUNIT_EXPECT_EQ(test, m.win_start, 14 * s);

	/* A flow that asks for little and gets it is not short-changed */
	sqos_meter_complete(&m, 180, 14 * s + 6);
	sqos_meter_arrive(&m, 3, 15 * s);
	sqos_meter_complete(&m, 3, 15 * s + 1);
	sqos_meter_roll(&m, 16 * s);
	KUNIT_EXPECT_EQ(test, m.last_demand, 3ULL);
	KUNIT_EXPECT_FALSE(test, sqos_meter_insufficient(&m, 1000));
	KUNIT_EXPECT_EQ(test, m.inflight, 0ULL);
	/* More completions than admitted never underflow */
	sqos_meter_complete(&m, 5, 16 * s);
	KUNIT_EXPECT_EQ(test, m.inflight, 0ULL);
}

/*
 * The server's I/O path with the fake clock: a flow whose policy allows
 * 200 IOPS, offered 64 KiB I/Os (8 units) at 10x for 60 s through
 * sqos_io_admit(), starts 200 units/s on average and every I/O is counted.
 */
static void sqos_server_io_path_10x(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	struct sqos_request r = sqt_req(STORAGE_QOS_CONTROL_FLAG_SET_LOGICAL_FLOW_ID |
					STORAGE_QOS_CONTROL_FLAG_SET_POLICY);
	guid_t pol = SQT_POLICY_ID;
	u64 t0, end, gap, delay, started = 0, n = 0;
	struct sqt_result res;
	struct sqos_flow *f;
	struct sqos_io io;

	KUNIT_ASSERT_EQ(test, sqos_server_policy_set(srv, &pol, 200, 0), 0);
	r.policy_id = pol;
	KUNIT_ASSERT_EQ(test, sqt_ctl(test, o, &r, 0, &res), SQOS_NT_SUCCESS);
	f = sqt_flow(o);
	KUNIT_ASSERT_EQ(test, f->lim.rate, 200ULL);

	t0 = clk.now;
	end = t0 + SIM_SECONDS * NSEC_PER_SEC;
	gap = NSEC_PER_SEC * 8 / 2000;
	for (; clk.now < end; clk.now += gap, n++) {
		delay = sqos_io_admit(o, 65536, &io);
		if (clk.now + delay < end)
			started += io.units;
		sqos_io_done(&io);
	}
	KUNIT_EXPECT_LE(test, started * 100, 200ULL * SIM_SECONDS * 102);
	KUNIT_EXPECT_GE(test, started * 100, 200ULL * SIM_SECONDS * 98);
	KUNIT_EXPECT_EQ(test, f->started, n);
	KUNIT_EXPECT_EQ(test, f->completed, n);
	KUNIT_EXPECT_EQ(test, f->started_units, 8 * n);
	KUNIT_EXPECT_EQ(test, f->bytes, 65536 * n);
	KUNIT_EXPECT_GT(test, f->delayed, n / 2);
	KUNIT_EXPECT_EQ(test, f->meter.inflight, 0ULL);

	/* An open with no flow is never held back */
	r = sqt_req(STORAGE_QOS_CONTROL_FLAG_SET_LOGICAL_FLOW_ID);
	r.flow_id = guid_null;
	KUNIT_ASSERT_EQ(test, sqt_ctl(test, o, &r, 0, &res), SQOS_NT_SUCCESS);
	KUNIT_EXPECT_EQ(test, sqos_io_admit(o, 1 << 30, &io), 0ULL);
	KUNIT_EXPECT_NULL(test, io.flow);
	sqos_io_done(&io);
}

/*
 * The run-time switches on the I/O path: with enforcement off (configfs
 * enforce=0) I/O is counted and never delayed, and the limiter is not
 * charged, so turning it back on starts without a debt; with Storage QoS
 * disabled (enabled=0) nothing is accounted at all.
 */
static void sqos_server_io_switches(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o = sqt_open(test, srv);
	struct sqos_request r = sqt_req(STORAGE_QOS_CONTROL_FLAG_SET_LOGICAL_FLOW_ID |
					STORAGE_QOS_CONTROL_FLAG_SET_POLICY);
	guid_t pol = SQT_POLICY_ID;
	struct sqt_result res;
	struct sqos_flow *f;
	struct sqos_io io;
	s64 tokens;
	u64 delay;
	int i;

	KUNIT_ASSERT_EQ(test, sqos_server_policy_set(srv, &pol, 10, 0), 0);
	r.policy_id = pol;
	KUNIT_ASSERT_EQ(test, sqt_ctl(test, o, &r, 0, &res), SQOS_NT_SUCCESS);
	f = sqt_flow(o);

	srv->enforce = false;
	tokens = f->lim.tokens;
	for (i = 0; i < 100; i++) {
		KUNIT_EXPECT_EQ(test, sqos_io_admit(o, 65536, &io), 0ULL);
		KUNIT_EXPECT_PTR_EQ(test, io.flow, f);
		sqos_io_done(&io);
	}
	KUNIT_EXPECT_EQ(test, f->started, 100ULL);
	KUNIT_EXPECT_EQ(test, f->started_units, 800ULL);
	KUNIT_EXPECT_EQ(test, f->completed, 100ULL);
	KUNIT_EXPECT_EQ(test, f->delayed, 0ULL);
	KUNIT_EXPECT_EQ(test, f->lim.tokens, tokens);

	/*
	 * Enforcing again at 10 IOPS (a 2-unit burst) with the clock
	 * standing still: what is left of the bucket goes at once, then the
	 * first 1-unit I/O in debt waits exactly 100 ms.
	 */
	srv->enforce = true;
	delay = 0;
	for (i = 0; i < 4 && !delay; i++) {
		delay = sqos_io_admit(o, 8192, &io);
		sqos_io_done(&io);
	}
	KUNIT_EXPECT_EQ(test, delay, 100 * NSEC_PER_MSEC);
	KUNIT_EXPECT_GE(test, i, 2);
	KUNIT_EXPECT_LE(test, i, 3);

	srv->enabled = false;
	KUNIT_EXPECT_EQ(test, sqos_io_admit(o, 1 << 30, &io), 0ULL);
	KUNIT_EXPECT_NULL(test, io.flow);
	sqos_io_done(&io);
	KUNIT_EXPECT_EQ(test, f->started, 100ULL + i);
	srv->enabled = true;
}

/* The table of sqos_get_ops() is complete and is the exported functions */
static void sqos_ops_table(struct kunit *test)
{
	const struct sqos_ops *ops = sqos_get_ops();

	KUNIT_ASSERT_NOT_NULL(test, ops);
	KUNIT_EXPECT_TRUE(test, ops->enabled == sqos_enabled);
	KUNIT_EXPECT_TRUE(test, ops->open_alloc == sqos_open_alloc);
	KUNIT_EXPECT_TRUE(test, ops->open_release == sqos_open_release);
	KUNIT_EXPECT_TRUE(test, ops->control == sqos_control);
	KUNIT_EXPECT_TRUE(test, ops->io_admit == sqos_io_admit);
	KUNIT_EXPECT_TRUE(test, ops->io_done == sqos_io_done);
	KUNIT_EXPECT_TRUE(test, ops->request_decode == sqos_request_decode);
	KUNIT_EXPECT_TRUE(test, ops->client_flow_init == sqos_client_flow_init);
	KUNIT_EXPECT_TRUE(test, ops->client_build_request == sqos_client_build_request);
	KUNIT_EXPECT_TRUE(test, ops->client_handle_response == sqos_client_handle_response);
	KUNIT_EXPECT_TRUE(test, ops->client_timer_options == sqos_client_timer_options);
	KUNIT_EXPECT_TRUE(test, ops->client_io_start == sqos_client_io_start);
	KUNIT_EXPECT_TRUE(test, ops->client_io_done == sqos_client_io_done);
}

static struct kunit_case sqos_limiter_cases[] = {
	KUNIT_CASE_PARAM(sqos_limiter_10x_for_60s, sql_gen_params),
	KUNIT_CASE(sqos_limiter_idle_burst),
	KUNIT_CASE(sqos_limiter_burst_after_saturation),
	KUNIT_CASE(sqos_limiter_large_io),
	KUNIT_CASE(sqos_limiter_rate_changes),
	KUNIT_CASE(sqos_limiter_extremes),
	KUNIT_CASE(sqos_meter_windows),
	KUNIT_CASE(sqos_server_io_path_10x),
	KUNIT_CASE(sqos_server_io_switches),
	KUNIT_CASE(sqos_ops_table),
	{}
};

static struct kunit_suite sqos_limiter_suite = {
	.name = "sqos_limiter",
	.test_cases = sqos_limiter_cases,
};

kunit_test_suite(sqos_limiter_suite);

MODULE_DESCRIPTION("KUnit tests for the sqos rate limiter and meter");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(SQOS_NS);
