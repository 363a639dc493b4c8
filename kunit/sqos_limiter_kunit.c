// SPDX-License-Identifier: GPL-2.0
/*
 * sqos_limiter_kunit.c - KUnit suite for the rate arithmetic of sqos.ko
 * (qos/limiter.c) and the server's I/O path on top of it, driven by a fake
 * clock: a flow offered 10x its limit for 60 simulated seconds is held
 * within 2% of MaximumIoRate, an idle flow may burst, nobody is starved,
 * extreme values do not overflow, the completion meter detects a flow
 * running below its MinimumIoRate, and the server's bounds on held I/O
 * (longest delay, delayed I/Os per flow and in all) hold.
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

/*
 * The longest delay: debt beyond it is forgiven, so a flow with more than
 * max_delay of its rate queued goes over its rate, and one whose queue
 * shrinks is held to the rate again at once.
 */
static void sqos_limiter_max_delay(struct kunit *test)
{
	const u64 max = 10 * NSEC_PER_SEC;
	struct sqos_limiter lim;
	bool capped;
	int i;

	sqos_limiter_init(&lim, 1, 1, 0);
	KUNIT_EXPECT_EQ(test, sqos_limiter_admit_max(&lim, 1, 0, max, &capped),
			0ULL);
	KUNIT_EXPECT_FALSE(test, capped);
	for (i = 1; i <= 10; i++) {
		KUNIT_EXPECT_EQ(test,
				sqos_limiter_admit_max(&lim, 1, 0, max, &capped),
				i * NSEC_PER_SEC);
		KUNIT_EXPECT_FALSE(test, capped);
	}
	/* The 12th would wait 11 s: 10 s, and one unit forgiven */
	KUNIT_EXPECT_EQ(test, sqos_limiter_admit_max(&lim, 1, 0, max, &capped),
			max);
	KUNIT_EXPECT_TRUE(test, capped);
	KUNIT_EXPECT_EQ(test, lim.tokens, -10 * (s64)NSEC_PER_SEC);
	/* An 8 MiB READ at 1 IOPS (1024 units): 10 s, not 1,034 s */
	KUNIT_EXPECT_EQ(test, sqos_limiter_admit_max(&lim, 1024, 0, max, NULL),
			max);
	/* 10 s later the debt is repaid: one unit waits one second again */
	KUNIT_EXPECT_EQ(test, sqos_limiter_admit_max(&lim, 1, max, max, &capped),
			NSEC_PER_SEC);
	KUNIT_EXPECT_FALSE(test, capped);

	/* A longest delay of 0 never delays, and leaves no debt */
	sqos_limiter_init(&lim, 1, 1, 0);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, sqos_limiter_admit_max(&lim, 5, 0, 0, NULL),
				0ULL);
	KUNIT_EXPECT_EQ(test, lim.tokens, 0LL);
	/* No bound (U64_MAX): the limiter's own cap, about 127 years */
	sqos_limiter_init(&lim, 1, 1, 0);
	KUNIT_EXPECT_GT(test, sqos_limiter_admit_max(&lim, U64_MAX, 0, U64_MAX,
						     &capped),
			100ULL * 365 * 24 * 3600 * NSEC_PER_SEC);
	KUNIT_EXPECT_FALSE(test, capped);
	/* The fastest rate: nothing to forgive within any bound */
	sqos_limiter_init(&lim, SQOS_MAX_IOPS, 1, 0);
	KUNIT_EXPECT_LE(test, sqos_limiter_admit_max(&lim, U64_MAX, 0, max, NULL),
			4ULL * NSEC_PER_SEC);
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
	/*
	 * Open loop at 10x for 60 s queues 54 s of the rate: the exact rate
	 * needs delays beyond the default 10 s (sqos_server_held_bounds()
	 * tests the bound).
	 */
	srv->max_delay_ms = 60 * MSEC_PER_SEC;

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

/* Tag @o with flow number @n at Limit @limit (NULL PolicyID) */
static struct sqos_flow *sqt_limit(struct kunit *test, struct sqos_open *o,
				   int n, u64 limit)
{
	struct sqos_request r = sqt_req(STORAGE_QOS_CONTROL_FLAG_SET_LOGICAL_FLOW_ID |
					STORAGE_QOS_CONTROL_FLAG_SET_POLICY);
	struct sqt_result res;

	r.flow_id = sqt_guid(n);
	r.limit = limit;
	KUNIT_ASSERT_EQ(test, sqt_ctl(test, o, &r, 0, &res), SQOS_NT_SUCCESS);
	KUNIT_ASSERT_NOT_NULL(test, sqt_flow(o));
	KUNIT_ASSERT_EQ(test, sqt_flow(o)->lim.rate, limit);
	return sqt_flow(o);
}

/*
 * The server's bounds on held I/O: at most max_held_flow delayed I/Os per
 * flow and max_held in all, each delayed at most max_delay_ms; an I/O
 * beyond a count is charged and goes at once, and a held I/O stops
 * counting when it is done.
 */
static void sqos_server_held_bounds(struct kunit *test)
{
	struct sqt_clock clk;
	struct sqos_server *srv = sqt_server(test, &clk);
	struct sqos_open *o1 = sqt_open(test, srv), *o2 = sqt_open(test, srv);
	struct sqos_flow *f1, *f2;
	struct sqos_io io1[12], io2[4], io;
	u64 d;
	int i;

	srv->max_delay_ms = 10 * MSEC_PER_SEC;
	srv->max_held_flow = 4;
	srv->max_held = 6;
	f1 = sqt_limit(test, o1, 1, 1);
	f2 = sqt_limit(test, o2, 2, 1);

	/* Flow 1: the burst goes, four wait 1..4 s, the rest go at once */
	for (i = 0; i < 10; i++) {
		d = sqos_io_admit(o1, 8192, &io1[i]);
		KUNIT_EXPECT_EQ(test, d, i >= 1 && i <= 4 ? i * NSEC_PER_SEC : 0);
		KUNIT_EXPECT_EQ(test, io1[i].held, i >= 1 && i <= 4);
		KUNIT_EXPECT_PTR_EQ(test, io1[i].flow, f1);
	}
	KUNIT_EXPECT_EQ(test, f1->held, 4ULL);
	KUNIT_EXPECT_EQ(test, f1->unheld, 5ULL);
	KUNIT_EXPECT_EQ(test, f1->delayed, 4ULL);
	/* Every one was charged: 10 units at 1/s, a burst of 1 */
	KUNIT_EXPECT_EQ(test, f1->started_units, 10ULL);
	KUNIT_EXPECT_EQ(test, f1->lim.tokens, -9 * (s64)NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, atomic_read(&srv->held), 4);

	/* Flow 2: two more fit under max_held, the third does not */
	for (i = 0; i < 4; i++) {
		d = sqos_io_admit(o2, 8192, &io2[i]);
		KUNIT_EXPECT_EQ(test, d, i == 1 || i == 2 ? i * NSEC_PER_SEC : 0);
	}
	KUNIT_EXPECT_EQ(test, f2->held, 2ULL);
	KUNIT_EXPECT_EQ(test, f2->unheld, 1ULL);
	KUNIT_EXPECT_EQ(test, atomic_read(&srv->held), 6);

	/* One of flow 1 done: flow 1 may hold one more, for at most 10 s */
	sqos_io_done(&io1[1]);
	KUNIT_EXPECT_EQ(test, f1->held, 3ULL);
	KUNIT_EXPECT_EQ(test, atomic_read(&srv->held), 5);
	d = sqos_io_admit(o1, 8192, &io1[10]);
	KUNIT_EXPECT_EQ(test, d, 10 * NSEC_PER_SEC);
	KUNIT_EXPECT_TRUE(test, io1[10].held);
	KUNIT_EXPECT_EQ(test, f1->capped, 0ULL);
	/* ...and the server is full again: flow 2 cannot hold a third */
	KUNIT_EXPECT_EQ(test, sqos_io_admit(o2, 8192, &io), 0ULL);
	KUNIT_EXPECT_FALSE(test, io.held);
	KUNIT_EXPECT_EQ(test, f2->unheld, 2ULL);
	sqos_io_done(&io);
	/* Flow 1 over its longest delay: held for 10 s, the rest forgiven */
	sqos_io_done(&io1[2]);
	d = sqos_io_admit(o1, 65536, &io1[11]);
	KUNIT_EXPECT_EQ(test, d, 10 * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, f1->capped, 1ULL);
	KUNIT_EXPECT_EQ(test, f1->lim.tokens, -10 * (s64)NSEC_PER_SEC);

	/* Everything done: nothing held anywhere; done twice is harmless */
	for (i = 0; i < 12; i++)
		sqos_io_done(&io1[i]);
	for (i = 0; i < 4; i++)
		sqos_io_done(&io2[i]);
	sqos_io_done(&io1[3]);
	KUNIT_EXPECT_EQ(test, f1->held, 0ULL);
	KUNIT_EXPECT_EQ(test, f2->held, 0ULL);
	KUNIT_EXPECT_EQ(test, atomic_read(&srv->held), 0);

	/* max_held_flow 0: nothing is ever held, everything is charged */
	srv->max_held_flow = 0;
	KUNIT_EXPECT_EQ(test, sqos_io_admit(o1, 8192, &io), 0ULL);
	KUNIT_EXPECT_FALSE(test, io.held);
	sqos_io_done(&io);
	KUNIT_EXPECT_EQ(test, f1->started_units, 20ULL);
	KUNIT_EXPECT_EQ(test, atomic_read(&srv->held), 0);
}

/*
 * The table of sqos_get_ops(), the one way in for other modules, is
 * complete and is the functions the suites test by name
 */
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
	KUNIT_CASE(sqos_limiter_max_delay),
	KUNIT_CASE(sqos_meter_windows),
	KUNIT_CASE(sqos_server_io_path_10x),
	KUNIT_CASE(sqos_server_io_switches),
	KUNIT_CASE(sqos_server_held_bounds),
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
