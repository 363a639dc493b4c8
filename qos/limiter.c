// SPDX-License-Identifier: GPL-2.0
/*
 * limiter.c - rate arithmetic of sqos.ko: the token bucket that holds a
 * flow's I/O initiation rate at or under MaximumIoRate, and the completion
 * meter that tells whether a flow is getting its MinimumIoRate.
 *
 * Both are pure: they never read a clock, sleep or allocate. The current
 * time is an argument, which is what lets the KUnit suites drive them with
 * a fake clock over minutes of simulated time in milliseconds of real time.
 *
 * Locking: none inside. The caller serialises all calls on one limiter or
 * meter (the server does it with sqos_flow.lock, a client with its own lock).
 *
 * Token bucket: tokens are kept in nano-units (units * 10^9) so that any
 * integer rate refills exactly: after t ns a bucket gains t * rate
 * nano-units. A request of n units always gets through: it takes n * 10^9
 * nano-units, possibly driving the bucket into debt, and the caller is told
 * to wait until the debt would be repaid (debt / rate ns). Over any interval
 * of length T the units admitted with a start time inside the interval are
 * therefore at most burst + rate * T plus one request, which is the
 * "average rate at or under MaximumIoRate" guarantee, and an idle flow
 * refills to a full bucket of burst units, which it may use at once.
 * A delay is always finite: the waiting time of any request is its share
 * of debt divided by the rate, so no request is starved. The server bounds
 * it further (sqos_limiter_admit_max(): debt beyond the longest delay is
 * forgiven).
 */
#include <linux/export.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <kunit/visibility.h>
#include "sqos_internal.h"

/* Keep every product below 2^63: 4e9 units * 1e9 = 4e18. */
#define SQOS_LIM_MAX_UNITS	4000000000ULL
#define SQOS_LIM_MAX_DEBT	(4000000000ULL * NSEC_PER_SEC)

/**
 * sqos_mul_div() - a * b / c without overflow
 * @a: factor
 * @b: factor
 * @c: divisor
 *
 * Exact while a * b fits in 64 bits; beyond that (only reachable with
 * absurd inputs) it returns (a / c) * b, saturated at U64_MAX.
 *
 * Return: the quotient, U64_MAX if @c is 0.
 */
u64 sqos_mul_div(u64 a, u64 b, u64 c)
{
	u64 p;

	if (!c)
		return U64_MAX;
	if (!check_mul_overflow(a, b, &p))
		return div64_u64(p, c);
	if (check_mul_overflow(div64_u64(a, c), b, &p))
		return U64_MAX;
	return p;
}
EXPORT_SYMBOL_IF_KUNIT(sqos_mul_div);

/**
 * sqos_burst_units() - bucket depth for a rate and a burst allowance
 * @rate: units per second
 * @burst_ms: how many milliseconds of @rate an idle flow may send at once
 *
 * Return: max(1, @rate * @burst_ms / 1000), capped to keep the arithmetic
 * in range.
 */
u64 sqos_burst_units(u64 rate, u32 burst_ms)
{
	/* 4e9 * (2^32 - 1) < 2^64: the product cannot overflow. */
	u64 b = div_u64(min_t(u64, rate, SQOS_LIM_MAX_UNITS) * burst_ms,
			MSEC_PER_SEC);

	return clamp_t(u64, b, 1, SQOS_LIM_MAX_UNITS);
}
EXPORT_SYMBOL_IF_KUNIT(sqos_burst_units);

static s64 sqos_lim_cap(const struct sqos_limiter *lim)
{
	return (s64)(lim->burst * NSEC_PER_SEC);
}

static void sqos_lim_refill(struct sqos_limiter *lim, u64 now_ns)
{
	s64 cap = sqos_lim_cap(lim);
	u64 elapsed, need;

	/* A clock that does not advance (or steps back) refills nothing. */
	if (now_ns <= lim->last_ns)
		return;
	elapsed = now_ns - lim->last_ns;
	lim->last_ns = now_ns;

	if (lim->tokens >= cap) {
		lim->tokens = cap;
		return;
	}
	need = (u64)(cap - lim->tokens);
	/* elapsed * rate would reach the cap: no need to multiply. */
	if (elapsed >= div64_u64(need, lim->rate) + 1)
		lim->tokens = cap;
	else
		lim->tokens += (s64)(elapsed * lim->rate);
}

/**
 * sqos_limiter_init() - start a limiter with a full bucket
 * @lim: limiter
 * @rate: units per second, 0 = unlimited
 * @burst: bucket depth in units (at least 1)
 * @now_ns: current time
 */
void sqos_limiter_init(struct sqos_limiter *lim, u64 rate, u64 burst,
		       u64 now_ns)
{
	memset(lim, 0, sizeof(*lim));
	lim->rate = rate;
	lim->burst = clamp_t(u64, burst, 1, SQOS_LIM_MAX_UNITS);
	lim->tokens = sqos_lim_cap(lim);
	lim->last_ns = now_ns;
}
EXPORT_SYMBOL_IF_KUNIT(sqos_limiter_init);

/**
 * sqos_limiter_set_rate() - change the rate of a running limiter
 * @lim: limiter
 * @rate: new rate in units per second, 0 = unlimited
 * @burst: new bucket depth in units
 * @now_ns: current time
 *
 * Tokens earned at the old rate up to @now_ns are kept (capped to the new
 * depth); debt is kept, so a flow cannot escape its debt by a policy
 * change. A limiter that was unlimited starts again with a full bucket.
 */
void sqos_limiter_set_rate(struct sqos_limiter *lim, u64 rate, u64 burst,
			   u64 now_ns)
{
	bool was_unlimited = !lim->rate;

	if (!was_unlimited)
		sqos_lim_refill(lim, now_ns);
	lim->rate = rate;
	lim->burst = clamp_t(u64, burst, 1, SQOS_LIM_MAX_UNITS);
	if (was_unlimited || lim->tokens > sqos_lim_cap(lim))
		lim->tokens = sqos_lim_cap(lim);
	if (now_ns > lim->last_ns)
		lim->last_ns = now_ns;
}
EXPORT_SYMBOL_IF_KUNIT(sqos_limiter_set_rate);

/**
 * sqos_limiter_admit() - charge an I/O and say how long it must wait
 * @lim: limiter
 * @units: normalized size of the I/O
 * @now_ns: current time
 *
 * The I/O is always accepted; it must not be initiated before
 * @now_ns + the returned delay.
 *
 * Return: delay in ns, 0 if the I/O may start now or the limiter is
 * unlimited.
 */
u64 sqos_limiter_admit(struct sqos_limiter *lim, u64 units, u64 now_ns)
{
	u64 debt, delay;
	s64 cost;

	if (!lim->rate)
		return 0;
	sqos_lim_refill(lim, now_ns);

	units = min_t(u64, units, SQOS_LIM_MAX_UNITS);
	cost = (s64)(units * NSEC_PER_SEC);
	if (lim->tokens - cost < -(s64)SQOS_LIM_MAX_DEBT)
		lim->tokens = -(s64)SQOS_LIM_MAX_DEBT;
	else
		lim->tokens -= cost;
	if (lim->tokens >= 0)
		return 0;
	/* ceil(debt / rate), without a debt + rate - 1 that could wrap */
	debt = (u64)(-lim->tokens);
	delay = div64_u64(debt, lim->rate);
	if (delay * lim->rate < debt)
		delay++;
	return delay;
}
EXPORT_SYMBOL_IF_KUNIT(sqos_limiter_admit);

/**
 * sqos_limiter_admit_max() - sqos_limiter_admit() with a longest delay
 * @lim: limiter
 * @units: normalized size of the I/O
 * @now_ns: current time
 * @max_delay_ns: the longest delay to hand out
 * @capped: set to whether the delay was cut to @max_delay_ns (may be NULL)
 *
 * Charges the I/O as sqos_limiter_admit() does. When the debt it leaves
 * would take longer than @max_delay_ns to repay, the debt beyond
 * @max_delay_ns of the rate is forgiven: the I/O waits @max_delay_ns, and
 * the flow has gone over its rate by the forgiven units. That happens
 * only while a flow keeps more than @max_delay_ns of its rate queued; a
 * flow whose queue shrinks below that is held to its rate again at once.
 *
 * Return: delay in ns, at most @max_delay_ns.
 */
u64 sqos_limiter_admit_max(struct sqos_limiter *lim, u64 units, u64 now_ns,
			   u64 max_delay_ns, bool *capped)
{
	u64 delay = sqos_limiter_admit(lim, units, now_ns);
	u64 keep;

	if (capped)
		*capped = false;
	if (delay <= max_delay_ns)
		return delay;
	/* delay > max_delay_ns, so rate * max_delay_ns < debt <= MAX_DEBT */
	if (check_mul_overflow(lim->rate, max_delay_ns, &keep) ||
	    keep > SQOS_LIM_MAX_DEBT)
		keep = SQOS_LIM_MAX_DEBT;
	lim->tokens = -(s64)keep;
	if (capped)
		*capped = true;
	return max_delay_ns;
}
EXPORT_SYMBOL_IF_KUNIT(sqos_limiter_admit_max);

/**
 * sqos_meter_init() - start completion accounting
 * @m: meter
 * @win_ns: window length in ns (at least 1 ms)
 * @now_ns: current time; the first window starts here
 */
void sqos_meter_init(struct sqos_meter *m, u64 win_ns, u64 now_ns)
{
	memset(m, 0, sizeof(*m));
	m->win_ns = max_t(u64, win_ns, NSEC_PER_MSEC);
	m->win_start = now_ns;
}
EXPORT_SYMBOL_IF_KUNIT(sqos_meter_init);

/**
 * sqos_meter_roll() - close the windows that ended before @now_ns
 * @m: meter
 * @now_ns: current time
 *
 * If exactly one window ended, its totals become the "last window". If more
 * ended, the last of them saw no arrival or completion and its demand is
 * whatever was in flight.
 */
void sqos_meter_roll(struct sqos_meter *m, u64 now_ns)
{
	u64 n;

	if (now_ns < m->win_start || now_ns - m->win_start < m->win_ns)
		return;
	n = div64_u64(now_ns - m->win_start, m->win_ns);
	if (n == 1) {
		m->last_demand = m->backlog_at_start + m->arrivals;
		m->last_completions = m->completions;
	} else {
		m->last_demand = m->inflight;
		m->last_completions = 0;
	}
	m->have_last = true;
	m->win_start += n * m->win_ns;
	m->arrivals = 0;
	m->completions = 0;
	m->backlog_at_start = m->inflight;
}
EXPORT_SYMBOL_IF_KUNIT(sqos_meter_roll);

/**
 * sqos_meter_arrive() - an I/O of @units was admitted
 * @m: meter
 * @units: normalized size
 * @now_ns: current time
 */
void sqos_meter_arrive(struct sqos_meter *m, u64 units, u64 now_ns)
{
	sqos_meter_roll(m, now_ns);
	m->arrivals = sqos_sat_add(m->arrivals, units);
	m->inflight = sqos_sat_add(m->inflight, units);
}
EXPORT_SYMBOL_IF_KUNIT(sqos_meter_arrive);

/**
 * sqos_meter_complete() - an I/O of @units completed
 * @m: meter
 * @units: normalized size
 * @now_ns: current time
 */
void sqos_meter_complete(struct sqos_meter *m, u64 units, u64 now_ns)
{
	sqos_meter_roll(m, now_ns);
	m->completions = sqos_sat_add(m->completions, units);
	m->inflight -= min(units, m->inflight);
}
EXPORT_SYMBOL_IF_KUNIT(sqos_meter_complete);

/**
 * sqos_meter_insufficient() - did the last window miss the minimum
 * @m: meter, rolled to the current time by the caller
 * @min_rate: MinimumIoRate in units per second
 *
 * The storage owes a flow min(demand, minimum) completions per window,
 * where demand is what was in flight at the start of the window plus what
 * arrived during it: a flow that asks for less than its minimum is not
 * short-changed when it gets what it asked for. A 5% tolerance absorbs
 * window-phase rounding.
 *
 * Return: true if the last full window completed less than owed.
 */
bool sqos_meter_insufficient(const struct sqos_meter *m, u64 min_rate)
{
	u64 owed;

	if (!m->have_last || !min_rate)
		return false;
	owed = sqos_mul_div(min_rate, m->win_ns, NSEC_PER_SEC);
	owed = min(owed, m->last_demand);
	return m->last_completions < owed - owed / 20;
}
EXPORT_SYMBOL_IF_KUNIT(sqos_meter_insufficient);

/**
 * sqos_meter_last_rate() - completion rate of the last full window
 * @m: meter
 *
 * Return: units per second, 0 if no window was measured.
 */
u64 sqos_meter_last_rate(const struct sqos_meter *m)
{
	if (!m->have_last)
		return 0;
	return sqos_mul_div(m->last_completions, NSEC_PER_SEC, m->win_ns);
}
EXPORT_SYMBOL_IF_KUNIT(sqos_meter_last_rate);
