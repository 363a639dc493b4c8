// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the SMB Direct credit engine (smbdirect/credits.c), MS-SMBD
 * 3.1.5.1, 3.1.5.8, 3.1.5.9 and the keepalive rules of 3.1.5.5 / 3.1.6.2.
 *
 * Unit cases probe each rule on both sides of its boundary: the last send
 * credit, a peer holding no credit, the reserve receive, the grant cap, the
 * credit-grant race, overflow of granted credits, the low-water mark of
 * credit-only messages, fragments never interleaved with empty messages,
 * and keepalives. A simulation then runs two engines against each other
 * through a model network with random event order, many configurations
 * (tiny credit and buffer counts, receivers that copy or hold buffers,
 * one-way and two-way traffic, keepalives), checking after every event
 * that credits are conserved and that no message can arrive without a
 * posted receive, and at the end that every message was delivered intact
 * and nothing is stuck (no deadlock, no credit-message ping-pong).
 *
 * Pure: no device, no sleeping.
 */

#include <kunit/test.h>
#include <smbdirect/ns.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include <smbdirect/pdu.h>
#include "credits.h"
#include "frag.h"

MODULE_IMPORT_NS(SMBDX_NS_NAME(EXPORTED_FOR_KUNIT_TESTING));

static void params(struct smbdx_proto_params *p, u16 send_credits, u16 max,
		   u16 target)
{
	memset(p, 0, sizeof(*p));
	p->protocol = SMBDX_VERSION_1_0;
	p->send_credits = send_credits;
	p->send_credit_target = 255;
	p->recv_credit_max = max;
	p->recv_credit_target = target;
	p->max_send_size = 1364;
	p->max_receive_size = 1364;
	p->max_fragmented_send_size = 1048576;
	p->max_fragmented_recv_size = 170180;
}

/* A connection with @sc send credits, @posted receives, @granted granted. */
static void state(struct smbdx_credits *c, u32 sc, u32 posted, u32 granted,
		  u16 max, u16 target)
{
	struct smbdx_proto_params p;

	params(&p, 0, max, target);
	smbdx_credits_init(c, &p);
	c->send_credits = sc;
	c->recv_posted = posted;
	c->recv_granted = granted;
}

static struct smbdx_data_info rx(u16 requested, u16 granted, u16 flags)
{
	struct smbdx_data_info di = {
		.credits_requested = requested,
		.credits_granted = granted,
		.flags = flags,
	};
	return di;
}

/* ---- set-up ---------------------------------------------------------- */

static void credits_init(struct kunit *test)
{
	struct smbdx_proto_params p;
	struct smbdx_credits c;

	params(&p, 7, 255, 10);
	memset(&c, 0xff, sizeof(c));
	smbdx_credits_init(&c, &p);
	KUNIT_EXPECT_EQ(test, c.send_credits, 7);
	KUNIT_EXPECT_EQ(test, c.send_credit_target, 255);
	KUNIT_EXPECT_EQ(test, c.recv_credit_max, 255);
	KUNIT_EXPECT_EQ(test, c.recv_credit_target, 10);
	KUNIT_EXPECT_EQ(test, c.recv_posted, 0);
	KUNIT_EXPECT_EQ(test, c.recv_granted, 0);
	KUNIT_EXPECT_EQ(test, c.send_queued, 0);
	KUNIT_EXPECT_FALSE(test, c.send_immediate);
	KUNIT_EXPECT_EQ(test, c.keepalive, SMBDX_KEEPALIVE_NONE);
	KUNIT_EXPECT_TRUE(test, smbdx_credits_check(&c));

	/* Zero limits are raised to 1 rather than wedging the engine. */
	p.recv_credit_max = 0;
	p.recv_credit_target = 0;
	p.send_credit_target = 0;
	smbdx_credits_init(&c, &p);
	KUNIT_EXPECT_EQ(test, c.recv_credit_max, 1);
	KUNIT_EXPECT_EQ(test, c.recv_credit_target, 1);
	KUNIT_EXPECT_EQ(test, c.send_credit_target, 1);
}

struct refill_case {
	const char *name;
	u16 max, target;
	u32 posted, granted;
	u32 want;
};

static const struct refill_case refill_cases[] = {
	{ "255/255 empty", 255, 255, 0, 0, 255 },
	{ "255 target 10", 255, 10, 0, 0, 11 },
	{ "255 target 1", 255, 1, 0, 0, 2 },
	{ "255 target 254", 255, 254, 0, 0, 255 },
	{ "2 target 5", 2, 5, 0, 0, 2 },
	{ "2 target 1", 2, 1, 0, 0, 2 },
	{ "partly posted", 255, 10, 5, 5, 6 },
	{ "fully posted", 255, 10, 11, 10, 0 },
	{ "more granted than target", 255, 10, 20, 20, 1 },
	{ "granted at max", 255, 255, 255, 255, 0 },
	{ "target lowered", 255, 3, 11, 0, 0 },
};

KUNIT_ARRAY_PARAM_DESC(refill, refill_cases, name);

static void credits_refill(struct kunit *test)
{
	const struct refill_case *c = test->param_value;
	struct smbdx_credits cr;

	state(&cr, 1, c->posted, c->granted, c->max, c->target);
	KUNIT_EXPECT_EQ(test, smbdx_credits_recv_to_post(&cr), c->want);
	smbdx_credits_recv_posted(&cr, smbdx_credits_recv_to_post(&cr));
	KUNIT_EXPECT_EQ(test, smbdx_credits_recv_to_post(&cr), 0);
	KUNIT_EXPECT_LE(test, cr.recv_posted, (u32)c->max);
	KUNIT_EXPECT_TRUE(test, smbdx_credits_check(&cr));
}

static void credits_grant_initial(struct kunit *test)
{
	struct smbdx_proto_params p;
	struct smbdx_credits c;

	/* Passive side, peer asked for 10: post 11, grant 10, keep 1. */
	params(&p, 0, 255, 10);
	smbdx_credits_init(&c, &p);
	KUNIT_EXPECT_EQ(test, smbdx_credits_grant_initial(&c), 0);
	smbdx_credits_recv_posted(&c, smbdx_credits_recv_to_post(&c));
	KUNIT_EXPECT_EQ(test, c.recv_posted, 11);
	KUNIT_EXPECT_EQ(test, smbdx_credits_grant_initial(&c), 10);
	KUNIT_EXPECT_EQ(test, c.recv_granted, 10);
	KUNIT_EXPECT_EQ(test, smbdx_credits_recv_ungranted(&c), 1);

	/* Peer asked for 255 and we have 255: grant 254, one in reserve. */
	params(&p, 0, 255, 255);
	smbdx_credits_init(&c, &p);
	smbdx_credits_recv_posted(&c, smbdx_credits_recv_to_post(&c));
	KUNIT_EXPECT_EQ(test, smbdx_credits_grant_initial(&c), 254);

	/* Only one receive could be posted: it is granted (3.1.5.9). */
	params(&p, 0, 255, 255);
	smbdx_credits_init(&c, &p);
	smbdx_credits_recv_posted(&c, 1);
	KUNIT_EXPECT_EQ(test, smbdx_credits_grant_initial(&c), 1);
}

/* ---- the send decision ----------------------------------------------- */

struct send_case {
	const char *name;
	u32 sc, posted, granted;
	u16 max, target;
	u32 queued;
	bool immediate;
	enum smbdx_send_action act;
	u16 grant;
};

static const struct send_case send_cases[] = {
	{ "nothing to send", 5, 10, 5, 255, 5, 0, false, SMBDX_SEND_IDLE, 0 },
	{ "no send credit", 0, 10, 5, 255, 5, 1, false, SMBDX_SEND_BLOCKED, 0 },
	{ "queued, peer full", 5, 10, 5, 255, 5, 1, false, SMBDX_SEND_QUEUED,
	  0 },
	{ "queued, top up", 5, 10, 2, 255, 5, 1, false, SMBDX_SEND_QUEUED, 3 },
	{ "top up limited by posted", 5, 3, 1, 255, 5, 1, false,
	  SMBDX_SEND_QUEUED, 2 },
	/* 3.1.5.1: the last credit only goes with a grant. */
	{ "last credit, nothing to grant", 1, 5, 5, 255, 5, 1, false,
	  SMBDX_SEND_BLOCKED, 0 },
	{ "last credit, reserve granted", 1, 6, 5, 255, 5, 1, false,
	  SMBDX_SEND_QUEUED, 1 },
	{ "last credit, top up to cap + 1", 1, 10, 2, 255, 5, 1, false,
	  SMBDX_SEND_QUEUED, 4 },
	{ "two credits, nothing to grant", 2, 5, 5, 255, 5, 1, false,
	  SMBDX_SEND_QUEUED, 0 },
	/* 3.1.5.9: a peer holding nothing must be given something. */
	{ "peer holds none, none posted", 5, 0, 0, 255, 5, 1, false,
	  SMBDX_SEND_BLOCKED, 0 },
	{ "peer holds none, one posted", 5, 1, 0, 255, 5, 1, false,
	  SMBDX_SEND_QUEUED, 1 },
	{ "immediate, empty queue", 5, 10, 5, 255, 5, 0, true,
	  SMBDX_SEND_EMPTY, 0 },
	{ "immediate, last credit, nothing", 1, 5, 5, 255, 5, 0, true,
	  SMBDX_SEND_BLOCKED, 0 },
	{ "immediate with queue sends queue", 5, 10, 5, 255, 5, 2, true,
	  SMBDX_SEND_QUEUED, 0 },
	/* credit-only messages: low-water mark = min(cap / 2, cap - 2) */
	{ "credit msg: peer holds 0", 5, 10, 0, 255, 10, 0, false,
	  SMBDX_SEND_EMPTY, 10 },
	{ "credit msg: peer at low water", 5, 10, 5, 255, 10, 0, false,
	  SMBDX_SEND_EMPTY, 5 },
	{ "credit msg: peer above low water", 5, 10, 6, 255, 10, 0, false,
	  SMBDX_SEND_IDLE, 0 },
	{ "credit msg: cap 2, peer holds 1", 5, 3, 1, 255, 2, 0, false,
	  SMBDX_SEND_IDLE, 0 },
	{ "credit msg: cap 2, peer holds 0", 5, 3, 0, 255, 2, 0, false,
	  SMBDX_SEND_EMPTY, 2 },
	{ "credit msg: cap 3, peer holds 1", 5, 4, 1, 255, 3, 0, false,
	  SMBDX_SEND_EMPTY, 2 },
	{ "credit msg: cap 3, peer holds 2", 5, 4, 2, 255, 3, 0, false,
	  SMBDX_SEND_IDLE, 0 },
	{ "credit msg: cap 1, peer holds 0", 5, 2, 0, 2, 1, 0, false,
	  SMBDX_SEND_EMPTY, 1 },
	{ "credit msg: cap 1, peer holds 1", 5, 2, 1, 2, 1, 0, false,
	  SMBDX_SEND_IDLE, 0 },
	{ "credit msg: 254 cap, 127 held", 5, 255, 127, 255, 255, 0, false,
	  SMBDX_SEND_EMPTY, 127 },
	{ "credit msg: 254 cap, 128 held", 5, 255, 128, 255, 255, 0, false,
	  SMBDX_SEND_IDLE, 0 },
	{ "credit msg: nothing posted", 5, 0, 0, 255, 10, 0, false,
	  SMBDX_SEND_IDLE, 0 },
	{ "credit msg, no send credit", 0, 10, 0, 255, 10, 0, false,
	  SMBDX_SEND_BLOCKED, 0 },
};

KUNIT_ARRAY_PARAM_DESC(send, send_cases, name);

static void credits_send_decision(struct kunit *test)
{
	const struct send_case *c = test->param_value;
	struct smbdx_credits cr, before;
	struct smbdx_data_info di;
	enum smbdx_send_action act;

	state(&cr, c->sc, c->posted, c->granted, c->max, c->target);
	cr.send_queued = c->queued;
	cr.send_immediate = c->immediate;
	before = cr;

	KUNIT_EXPECT_EQ(test, smbdx_credits_peek_send(&cr), c->act);
	memset(&di, 0xee, sizeof(di));
	act = smbdx_credits_next_send(&cr, &di);
	KUNIT_ASSERT_EQ(test, act, c->act);
	KUNIT_EXPECT_TRUE(test, smbdx_credits_check(&cr));
	if (act != SMBDX_SEND_QUEUED && act != SMBDX_SEND_EMPTY) {
		/* nothing changed, nothing written */
		KUNIT_EXPECT_EQ(test, cr.send_credits, before.send_credits);
		KUNIT_EXPECT_EQ(test, cr.recv_granted, before.recv_granted);
		KUNIT_EXPECT_EQ(test, cr.send_queued, before.send_queued);
		KUNIT_EXPECT_EQ(test, di.credits_granted, 0xeeee);
		return;
	}
	KUNIT_EXPECT_EQ(test, di.credits_granted, c->grant);
	KUNIT_EXPECT_EQ(test, di.credits_requested, 255);
	KUNIT_EXPECT_EQ(test, di.flags, 0);
	KUNIT_EXPECT_EQ(test, di.data_length, 0);
	KUNIT_EXPECT_EQ(test, di.data_offset, 0);
	KUNIT_EXPECT_EQ(test, di.remaining_data_length, 0);
	KUNIT_EXPECT_EQ(test, cr.send_credits, before.send_credits - 1);
	KUNIT_EXPECT_EQ(test, cr.recv_granted, before.recv_granted + c->grant);
	KUNIT_EXPECT_EQ(test, cr.send_queued,
			before.send_queued - (act == SMBDX_SEND_QUEUED));
	KUNIT_EXPECT_FALSE(test, cr.send_immediate);
	/* The last credit never leaves without a grant. */
	if (before.send_credits == 1)
		KUNIT_EXPECT_GT(test, di.credits_granted, 0);
	/* A peer holding nothing always gets something. */
	if (!before.recv_granted)
		KUNIT_EXPECT_GT(test, di.credits_granted, 0);
}

/*
 * LESSONS, credit-grant race: a receive the peer has consumed, whose
 * completion we have not processed yet, is still counted as held by the
 * peer and must not be granted again.
 */
static void credits_grant_race(struct kunit *test)
{
	struct smbdx_credits c;
	struct smbdx_data_info di = rx(10, 0, 0), out;

	/* 10 posted, all granted; the peer sends one. */
	state(&c, 5, 10, 10, 255, 10);
	c.send_queued = 1;
	/* Before the completion is processed: nothing to grant. */
	KUNIT_EXPECT_EQ(test, smbdx_credits_grant_now(&c), 0);
	/* Processed: the receive is gone from both counts. */
	KUNIT_ASSERT_EQ(test, smbdx_credits_on_recv(&c, &di), SMBDX_OK);
	KUNIT_EXPECT_EQ(test, c.recv_posted, 9);
	KUNIT_EXPECT_EQ(test, c.recv_granted, 9);
	KUNIT_EXPECT_EQ(test, smbdx_credits_grant_now(&c), 0);
	/* Reposted: now, and only now, one credit can be granted. */
	KUNIT_EXPECT_EQ(test, smbdx_credits_recv_to_post(&c), 2);
	smbdx_credits_recv_posted(&c, 1);
	KUNIT_EXPECT_EQ(test, smbdx_credits_grant_now(&c), 1);
	KUNIT_ASSERT_EQ(test, smbdx_credits_next_send(&c, &out),
			SMBDX_SEND_QUEUED);
	KUNIT_EXPECT_EQ(test, out.credits_granted, 1);
	KUNIT_EXPECT_EQ(test, c.recv_granted, c.recv_posted);
	KUNIT_EXPECT_EQ(test, smbdx_credits_grant_now(&c), 0);
}

/* ---- receive side ---------------------------------------------------- */

static void credits_on_recv(struct kunit *test)
{
	struct smbdx_credits c, before;
	struct smbdx_data_info di;

	state(&c, 3, 10, 4, 255, 10);
	di = rx(42, 6, 0);
	KUNIT_ASSERT_EQ(test, smbdx_credits_on_recv(&c, &di), SMBDX_OK);
	KUNIT_EXPECT_EQ(test, c.send_credits, 9);
	KUNIT_EXPECT_EQ(test, c.recv_posted, 9);
	KUNIT_EXPECT_EQ(test, c.recv_granted, 3);
	KUNIT_EXPECT_EQ(test, c.recv_credit_target, 42);
	KUNIT_EXPECT_FALSE(test, c.send_immediate);

	/* The peer sent with no credit in hand: a protocol violation. */
	state(&c, 3, 10, 0, 255, 10);
	before = c;
	KUNIT_EXPECT_EQ(test, smbdx_credits_on_recv(&c, &di),
			SMBDX_ERR_RECV_NO_CREDIT);
	KUNIT_EXPECT_EQ(test, c.send_credits, before.send_credits);
	KUNIT_EXPECT_EQ(test, c.recv_posted, before.recv_posted);
	KUNIT_EXPECT_EQ(test, c.recv_credit_target, before.recv_credit_target);

	/* 65535 outstanding send credits at most. */
	state(&c, 65535 - 6, 10, 4, 255, 10);
	KUNIT_EXPECT_EQ(test, smbdx_credits_on_recv(&c, &di), SMBDX_OK);
	KUNIT_EXPECT_EQ(test, c.send_credits, 65535);
	state(&c, 65535 - 5, 10, 4, 255, 10);
	before = c;
	KUNIT_EXPECT_EQ(test, smbdx_credits_on_recv(&c, &di),
			SMBDX_ERR_SEND_CREDIT_OVERFLOW);
	KUNIT_EXPECT_EQ(test, c.send_credits, before.send_credits);
	KUNIT_EXPECT_EQ(test, c.recv_granted, before.recv_granted);
	di = rx(1, 0xffff, 0);
	state(&c, 0, 10, 4, 255, 10);
	KUNIT_EXPECT_EQ(test, smbdx_credits_on_recv(&c, &di), SMBDX_OK);
	KUNIT_EXPECT_EQ(test, smbdx_credits_on_recv(&c, &di),
			SMBDX_ERR_SEND_CREDIT_OVERFLOW);

	/* A (hostile) CreditsRequested of 0 never becomes a target of 0. */
	state(&c, 0, 10, 4, 255, 10);
	di = rx(0, 0, 0);
	KUNIT_EXPECT_EQ(test, smbdx_credits_on_recv(&c, &di), SMBDX_OK);
	KUNIT_EXPECT_EQ(test, c.recv_credit_target, 1);
	KUNIT_EXPECT_TRUE(test, smbdx_credits_check(&c));
}

/* Credits arriving unblock a queued message (3.1.5.8). */
static void credits_unblock(struct kunit *test)
{
	struct smbdx_credits c;
	struct smbdx_data_info di = rx(10, 2, 0), out;

	state(&c, 0, 10, 5, 255, 10);
	KUNIT_ASSERT_EQ(test, smbdx_credits_queue(&c, 2), SMBDX_OK);
	KUNIT_EXPECT_EQ(test, smbdx_credits_next_send(&c, &out),
			SMBDX_SEND_BLOCKED);
	KUNIT_ASSERT_EQ(test, smbdx_credits_on_recv(&c, &di), SMBDX_OK);
	smbdx_credits_recv_posted(&c, smbdx_credits_recv_to_post(&c));
	KUNIT_EXPECT_EQ(test, smbdx_credits_next_send(&c, &out),
			SMBDX_SEND_QUEUED);
	/* Second one uses the last credit: it must and can grant. */
	KUNIT_EXPECT_EQ(test, smbdx_credits_next_send(&c, &out),
			SMBDX_SEND_QUEUED);
	KUNIT_EXPECT_GT(test, out.credits_granted, 0);
	KUNIT_EXPECT_EQ(test, c.send_credits, 0);
	KUNIT_EXPECT_EQ(test, smbdx_credits_next_send(&c, &out),
			SMBDX_SEND_IDLE);
}

static void credits_queue_overflow(struct kunit *test)
{
	struct smbdx_credits c;

	state(&c, 0, 0, 0, 255, 10);
	KUNIT_EXPECT_EQ(test, smbdx_credits_queue(&c, U32_MAX), SMBDX_OK);
	KUNIT_EXPECT_EQ(test, smbdx_credits_queue(&c, 1), SMBDX_ERR_INVALID);
	KUNIT_EXPECT_EQ(test, c.send_queued, U32_MAX);
	KUNIT_EXPECT_EQ(test, smbdx_credits_queue(&c, 0), SMBDX_OK);
}

/*
 * LESSONS, interleaved fragments: while fragments are queued, no empty
 * message (credit grant, keepalive, keepalive answer) may be sent; the
 * fragments themselves carry the credits and the flag.
 */
static void credits_no_interleave(struct kunit *test)
{
	struct smbdx_credits c;
	struct smbdx_data_info di = rx(10, 0, SMBDX_FLAG_RESPONSE_REQUESTED), out;
	unsigned int n = 0;
	bool flag_seen = false;

	state(&c, 3, 10, 10, 255, 10);
	KUNIT_ASSERT_EQ(test, smbdx_credits_queue(&c, 5), SMBDX_OK);
	/* The peer asks for a response, our idle timer fires, credits due. */
	KUNIT_ASSERT_EQ(test, smbdx_credits_on_recv(&c, &di), SMBDX_OK);
	KUNIT_ASSERT_TRUE(test, smbdx_credits_on_idle_timeout(&c));
	smbdx_credits_recv_posted(&c, smbdx_credits_recv_to_post(&c));
	for (;;) {
		enum smbdx_send_action a = smbdx_credits_next_send(&c, &out);

		if (a == SMBDX_SEND_BLOCKED) {
			/* the peer grants more; the fragments continue */
			di = rx(10, 1, 0);
			c.recv_granted++;
			c.recv_posted++;
			KUNIT_ASSERT_EQ(test, smbdx_credits_on_recv(&c, &di),
					SMBDX_OK);
			continue;
		}
		if (n < 5)
			KUNIT_ASSERT_EQ(test, a, SMBDX_SEND_QUEUED);
		if (a != SMBDX_SEND_QUEUED)
			break;
		n++;
		if (out.flags & SMBDX_FLAG_RESPONSE_REQUESTED)
			flag_seen = true;
	}
	KUNIT_EXPECT_EQ(test, n, 5);
	KUNIT_EXPECT_TRUE(test, flag_seen);
}

/* ---- keepalive ------------------------------------------------------- */

static void credits_keepalive(struct kunit *test)
{
	struct smbdx_credits c;
	struct smbdx_data_info di = rx(10, 0, 0), out;

	state(&c, 5, 10, 10, 255, 10);
	/* Idle: request a response on an empty message (3.1.6.2). */
	KUNIT_ASSERT_TRUE(test, smbdx_credits_on_idle_timeout(&c));
	KUNIT_EXPECT_EQ(test, c.keepalive, SMBDX_KEEPALIVE_PENDING);
	KUNIT_ASSERT_EQ(test, smbdx_credits_next_send(&c, &out), SMBDX_SEND_EMPTY);
	KUNIT_EXPECT_EQ(test, out.flags, SMBDX_FLAG_RESPONSE_REQUESTED);
	KUNIT_EXPECT_EQ(test, c.keepalive, SMBDX_KEEPALIVE_SENT);
	/* Only once. */
	KUNIT_EXPECT_EQ(test, smbdx_credits_next_send(&c, &out), SMBDX_SEND_IDLE);
	/* No answer before the timer fires again: give up. */
	KUNIT_EXPECT_FALSE(test, smbdx_credits_on_idle_timeout(&c));
	/* Any message is an answer (3.1.5.5). */
	KUNIT_ASSERT_EQ(test, smbdx_credits_on_recv(&c, &di), SMBDX_OK);
	KUNIT_EXPECT_EQ(test, c.keepalive, SMBDX_KEEPALIVE_NONE);
	KUNIT_EXPECT_TRUE(test, smbdx_credits_on_idle_timeout(&c));

	/* A pending keepalive that cannot be sent still counts as pending. */
	state(&c, 0, 10, 10, 255, 10);
	KUNIT_ASSERT_TRUE(test, smbdx_credits_on_idle_timeout(&c));
	KUNIT_EXPECT_EQ(test, smbdx_credits_next_send(&c, &out),
			SMBDX_SEND_BLOCKED);
	KUNIT_EXPECT_FALSE(test, smbdx_credits_on_idle_timeout(&c));
}

/*
 * The peer's keepalive is answered promptly, without a flag of our own
 * (answering with RESPONSE_REQUESTED would make keepalives ping-pong).
 */
static void credits_keepalive_answer(struct kunit *test)
{
	struct smbdx_credits c;
	struct smbdx_data_info di = rx(10, 0, SMBDX_FLAG_RESPONSE_REQUESTED), out;

	state(&c, 5, 10, 10, 255, 10);
	KUNIT_ASSERT_EQ(test, smbdx_credits_on_recv(&c, &di), SMBDX_OK);
	KUNIT_EXPECT_TRUE(test, c.send_immediate);
	KUNIT_EXPECT_EQ(test, c.keepalive, SMBDX_KEEPALIVE_NONE);
	KUNIT_ASSERT_EQ(test, smbdx_credits_next_send(&c, &out), SMBDX_SEND_EMPTY);
	KUNIT_EXPECT_EQ(test, out.flags, 0);
	KUNIT_EXPECT_FALSE(test, c.send_immediate);
	KUNIT_EXPECT_EQ(test, smbdx_credits_next_send(&c, &out), SMBDX_SEND_IDLE);
}

static void credits_check_invariants(struct kunit *test)
{
	struct smbdx_credits c;

	state(&c, 1, 10, 10, 255, 10);
	KUNIT_EXPECT_TRUE(test, smbdx_credits_check(&c));
	c.recv_granted = 11;
	KUNIT_EXPECT_FALSE(test, smbdx_credits_check(&c));
	state(&c, 1, 256, 10, 255, 10);
	KUNIT_EXPECT_FALSE(test, smbdx_credits_check(&c));
	state(&c, 65536, 10, 10, 255, 10);
	KUNIT_EXPECT_FALSE(test, smbdx_credits_check(&c));
}

/* ---- two-peer simulation --------------------------------------------- */

#define SIM_RING	512	/* > any in-flight count: bounded by posted */
#define SIM_MSGS	600

struct sim_msg {
	struct smbdx_data_info di;
	u32 msg_len;		/* length of the upper-layer message */
};

struct sim_peer {
	struct smbdx_credits c;
	struct smbdx_reasm r;
	u32 max_send, max_frag_send;
	u32 bufs;		/* receive buffers */
	u32 held;		/* held by reassembly / unread messages */
	bool copy;		/* receiver copies payload, holds nothing */
	/* upper-layer messages to send */
	u32 to_send, queued_len[SIM_MSGS], qh, qt;
	struct smbdx_frag f;
	bool f_active;
	/* received messages not yet read by the upper layer */
	u32 unread_held[SIM_MSGS], uh, ut, cur_held;
	/* bookkeeping */
	u32 sent_len[SIM_MSGS], nsent;		/* non-empty, in order */
	u32 got_len[SIM_MSGS], ngot;
	u32 keepalives_left;
	u64 msgs, empties;
};

struct sim {
	struct sim_peer p[2];
	struct sim_msg ring[2][SIM_RING];	/* ring[i]: from i to 1 - i */
	u32 head[2], tail[2];
	u64 seed;
};

struct sim_cfg {
	const char *name;
	u16 max[2], target[2];
	u32 recv_size[2];
	bool copy[2];
	u32 msgs[2];
	u32 max_len;		/* 0: up to the peer's max fragmented size */
	u32 keepalives;
};

static u32 sim_rand(struct sim *s)
{
	s->seed ^= s->seed << 13;
	s->seed ^= s->seed >> 7;
	s->seed ^= s->seed << 17;
	return s->seed >> 11;
}

static u32 sim_inflight(struct sim *s, int i)
{
	return s->tail[i] - s->head[i];
}

/* The receive side posts what the engine asks, up to its free buffers. */
static void sim_refill(struct kunit *test, struct sim *s, int i)
{
	struct sim_peer *p = &s->p[i];
	u32 used = p->held + p->c.recv_posted;
	u32 n;

	KUNIT_ASSERT_LE(test, used, p->bufs);
	n = min(smbdx_credits_recv_to_post(&p->c), p->bufs - used);
	smbdx_credits_recv_posted(&p->c, n);
}

static void sim_send_loop(struct kunit *test, struct sim *s, int i)
{
	struct sim_peer *p = &s->p[i];
	struct smbdx_data_info di;
	struct sim_msg *m;
	u32 off;

	for (;;) {
		enum smbdx_send_action a = smbdx_credits_next_send(&p->c, &di);

		if (a == SMBDX_SEND_IDLE || a == SMBDX_SEND_BLOCKED)
			return;
		KUNIT_ASSERT_LT(test, sim_inflight(s, i), (u32)SIM_RING);
		m = &s->ring[i][s->tail[i]++ % SIM_RING];
		m->msg_len = 0;
		if (a == SMBDX_SEND_QUEUED) {
			if (!p->f_active) {
				u32 len;

				KUNIT_ASSERT_LT(test, p->qh, p->qt);
				len = p->queued_len[p->qh++];
				KUNIT_ASSERT_EQ(test,
						smbdx_frag_init(&p->f, len,
								p->max_send,
							       p->max_frag_send),
						SMBDX_OK);
				p->f_active = true;
			}
			KUNIT_ASSERT_TRUE(test, smbdx_frag_next(&p->f, &di, &off));
			m->msg_len = p->f.total;
			if (smbdx_frag_done(&p->f))
				p->f_active = false;
		} else {
			/* never between two fragments */
			KUNIT_ASSERT_FALSE(test, p->f_active);
			p->empties++;
		}
		m->di = di;
		p->msgs++;
		KUNIT_ASSERT_TRUE(test, smbdx_credits_check(&p->c));
	}
}

/* Every credit is somewhere: with its holder, in flight, or in a grant. */
static void sim_conservation(struct kunit *test, struct sim *s)
{
	int i, j;
	u32 k;

	for (i = 0; i < 2; i++) {
		u64 sum;

		j = 1 - i;
		sum = s->p[i].c.send_credits + sim_inflight(s, i);
		for (k = s->head[j]; k != s->tail[j]; k++)
			sum += s->ring[j][k % SIM_RING].di.credits_granted;
		KUNIT_ASSERT_EQ(test, sum, (u64)s->p[j].c.recv_granted);
		/* nothing can arrive without a posted receive */
		KUNIT_ASSERT_LE(test, sim_inflight(s, i), s->p[j].c.recv_posted);
	}
}

static void sim_deliver(struct kunit *test, struct sim *s, int j)
{
	struct sim_peer *p = &s->p[j];
	struct sim_msg *m = &s->ring[1 - j][s->head[1 - j]++ % SIM_RING];
	struct smbdx_reasm_place pl;
	u8 wire[SMBDX_DATA_HDR_LEN + 4];
	struct smbdx_data_info di;

	/*
	 * Through the real codec; the payload is not modelled, so the decoder
	 * is told the message is as long as the header says (it reads only
	 * the header).
	 */
	KUNIT_ASSERT_EQ(test, smbdx_data_encode(wire, sizeof(wire), &m->di),
			SMBDX_OK);
	KUNIT_ASSERT_EQ(test, smbdx_data_decode(wire, smbdx_data_wire_len(&m->di),
						p->r.max_size, &di), SMBDX_OK);
	KUNIT_ASSERT_EQ(test, di.credits_granted, m->di.credits_granted);
	KUNIT_ASSERT_EQ(test, di.flags, m->di.flags);
	KUNIT_ASSERT_EQ(test, di.data_length, m->di.data_length);
	KUNIT_ASSERT_EQ(test, di.remaining_data_length,
			m->di.remaining_data_length);
	KUNIT_ASSERT_EQ(test, smbdx_credits_on_recv(&p->c, &di), SMBDX_OK);
	KUNIT_ASSERT_EQ(test, smbdx_reasm_add(&p->r, &di, &pl), SMBDX_OK);
	if (pl.state == SMBDX_REASM_EMPTY)
		return;
	KUNIT_ASSERT_EQ(test, pl.total, m->msg_len);
	if (!p->copy) {
		p->held++;
		p->cur_held++;
	}
	if (pl.state == SMBDX_REASM_COMPLETE) {
		KUNIT_ASSERT_LT(test, p->ngot, (u32)SIM_MSGS);
		p->got_len[p->ngot++] = pl.total;
		p->unread_held[p->ut++] = p->cur_held;
		p->cur_held = 0;
	}
}

static void sim_enqueue(struct kunit *test, struct sim *s, int i, u32 max_len)
{
	struct sim_peer *p = &s->p[i];
	u32 limit = max_len ? min(max_len, p->max_frag_send) : p->max_frag_send;
	u32 len, kind = sim_rand(s) % 5;
	struct smbdx_frag f;

	if (kind == 0)
		len = 0;
	else if (kind == 1)
		len = sim_rand(s) % (min(limit, p->max_send - 24) + 1);
	else if (kind == 2)
		len = limit;
	else
		len = sim_rand(s) % (limit + 1);
	KUNIT_ASSERT_EQ(test, smbdx_frag_init(&f, len, p->max_send,
					      p->max_frag_send), SMBDX_OK);
	KUNIT_ASSERT_EQ(test, smbdx_credits_queue(&p->c, smbdx_frag_count(&f)),
			SMBDX_OK);
	p->queued_len[p->qt++] = len;
	if (len)
		p->sent_len[p->nsent++] = len;
	p->to_send--;
}

static void sim_run(struct kunit *test, struct sim *s,
		    const struct sim_cfg *cfg, u64 seed)
{
	struct smbdx_proto_params pp[2];
	u64 steps = 0;
	bool ka;
	int i, j;
	u16 g;

	memset(s, 0, sizeof(*s));
	s->seed = seed | 1;
	for (i = 0; i < 2; i++) {
		struct sim_peer *p = &s->p[i];

		j = 1 - i;
		memset(&pp[i], 0, sizeof(pp[i]));
		pp[i].recv_credit_max = cfg->max[i];
		pp[i].send_credit_target = cfg->target[i];
		pp[i].recv_credit_target = cfg->target[j];
		p->bufs = cfg->max[i];
		p->copy = cfg->copy[i];
		p->max_send = cfg->recv_size[j];
		p->to_send = min_t(u32, cfg->msgs[i], SIM_MSGS);
		p->keepalives_left = cfg->keepalives;
	}
	/* Each sender is limited by its receiver's MaxFragmentedSize. */
	for (i = 0; i < 2; i++) {
		u32 frag;

		j = 1 - i;
		smbdx_frag_safe_max_recv_size(cfg->max[j], cfg->recv_size[j],
					      &frag);
		s->p[i].max_frag_send = s->p[j].copy ? 65536 : frag;
		smbdx_reasm_init(&s->p[j].r, s->p[i].max_frag_send);
	}

	/* Negotiation: peer 1 is passive and grants in its response. */
	smbdx_credits_init(&s->p[1].c, &pp[1]);
	sim_refill(test, s, 1);
	g = smbdx_credits_grant_initial(&s->p[1].c);
	KUNIT_ASSERT_GT(test, g, 0);
	pp[0].send_credits = g;
	smbdx_credits_init(&s->p[0].c, &pp[0]);
	sim_refill(test, s, 0);
	sim_send_loop(test, s, 0);
	sim_send_loop(test, s, 1);

	for (;;) {
		int ev[8], n = 0, e;

		sim_conservation(test, s);
		for (i = 0; i < 2; i++) {
			if (sim_inflight(s, 1 - i))
				ev[n++] = i * 4 + 0;
			if (s->p[i].to_send)
				ev[n++] = i * 4 + 1;
			if (s->p[i].uh != s->p[i].ut)
				ev[n++] = i * 4 + 2;
			if (s->p[i].keepalives_left &&
			    s->p[i].c.keepalive == SMBDX_KEEPALIVE_NONE)
				ev[n++] = i * 4 + 3;
		}
		if (!n)
			break;
		e = ev[sim_rand(s) % n];
		i = e / 4;
		switch (e % 4) {
		case 0:
			sim_deliver(test, s, i);
			break;
		case 1:
			sim_enqueue(test, s, i, cfg->max_len);
			break;
		case 2:
			s->p[i].held -= s->p[i].unread_held[s->p[i].uh++];
			break;
		case 3:
			s->p[i].keepalives_left--;
			ka = smbdx_credits_on_idle_timeout(&s->p[i].c);
			KUNIT_ASSERT_TRUE(test, ka);
			break;
		}
		sim_refill(test, s, i);
		sim_send_loop(test, s, i);
		sim_send_loop(test, s, 1 - i);
		KUNIT_ASSERT_LT_MSG(test, ++steps, 2000000ULL,
				    "%s seed %llu: livelock", cfg->name, seed);
	}

	/* Quiescent: nothing queued, nothing half-sent, all delivered. */
	for (i = 0; i < 2; i++) {
		struct sim_peer *p = &s->p[i], *q = &s->p[1 - i];

		KUNIT_ASSERT_EQ_MSG(test, p->c.send_queued, 0,
				    "%s seed %llu: peer %d deadlocked (credits %u, peer holds %u, posted %u)",
				    cfg->name, seed, i, p->c.send_credits,
				    p->c.recv_granted, p->c.recv_posted);
		KUNIT_ASSERT_FALSE(test, p->f_active);
		KUNIT_ASSERT_FALSE(test, p->c.send_immediate);
		/* every keepalive was sent and answered */
		KUNIT_ASSERT_EQ(test, p->c.keepalive, SMBDX_KEEPALIVE_NONE);
		KUNIT_ASSERT_EQ(test, q->ngot, p->nsent);
		KUNIT_ASSERT_EQ(test, memcmp(q->got_len, p->sent_len,
					     p->nsent * sizeof(u32)), 0);
		KUNIT_ASSERT_FALSE(test, smbdx_reasm_active(&q->r));
		KUNIT_ASSERT_EQ(test, q->held, 0);
		KUNIT_ASSERT_TRUE(test, smbdx_credits_check(&p->c));
	}
}

static const struct sim_cfg sim_cfgs[] = {
	{ "tiny 2/2 target 1/1", { 2, 2 }, { 1, 1 }, { 128, 128 },
	  { true, true }, { 150, 150 }, 600, 5 },
	{ "tiny 2/2 target 1/1 hold", { 2, 2 }, { 1, 1 }, { 128, 128 },
	  { false, false }, { 150, 150 }, 0, 5 },
	{ "2/3 target 8/2 hold", { 2, 3 }, { 8, 2 }, { 200, 150 },
	  { false, false }, { 200, 200 }, 0, 5 },
	{ "3/3 target 3/3 mixed", { 3, 3 }, { 3, 3 }, { 300, 128 },
	  { true, false }, { 200, 200 }, 4096, 5 },
	{ "one-way tiny", { 2, 2 }, { 2, 2 }, { 150, 150 },
	  { false, false }, { 300, 0 }, 0, 3 },
	{ "one-way reverse", { 4, 2 }, { 1, 5 }, { 150, 150 },
	  { true, true }, { 0, 300 }, 2000, 3 },
	{ "asymmetric 40/2", { 40, 2 }, { 10, 1 }, { 1364, 128 },
	  { false, true }, { 200, 200 }, 2048, 5 },
	{ "windows-like 255/255", { 255, 255 }, { 255, 255 }, { 1364, 1364 },
	  { false, false }, { 300, 300 }, 32768, 10 },
	{ "windows-like one-way", { 255, 255 }, { 255, 255 }, { 1364, 8192 },
	  { false, false }, { 300, 0 }, 65536, 10 },
	{ "target 1 vs 255", { 255, 255 }, { 1, 255 }, { 1364, 1364 },
	  { false, false }, { 300, 300 }, 16384, 5 },
};

KUNIT_ARRAY_PARAM_DESC(sim, sim_cfgs, name);

KUNIT_DEFINE_ACTION_WRAPPER(sim_vfree, vfree, const void *);

static struct sim *sim_alloc(struct kunit *test)
{
	struct sim *s = vzalloc(sizeof(*s));

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, sim_vfree, s));
	return s;
}

static void credits_sim_fixed(struct kunit *test)
{
	const struct sim_cfg *cfg = test->param_value;
	struct sim *s = sim_alloc(test);
	u64 seed;

	for (seed = 1; seed <= 8; seed++)
		sim_run(test, s, cfg, seed * 0x9e3779b97f4a7c15ULL);
}

/* Random configurations: small credit counts stress every corner. */
static void credits_sim_random(struct kunit *test)
{
	struct sim_cfg cfg = { .name = "random" };
	struct sim *s = sim_alloc(test);
	u64 r = 0x2545f4914f6cdd1dULL;
	unsigned int n;
	int i;

	for (n = 0; n < 100; n++) {
		for (i = 0; i < 2; i++) {
			r ^= r << 13;
			r ^= r >> 7;
			r ^= r << 17;
			cfg.max[i] = 2 + r % (r & 0x300 ? 5 : 39);
			cfg.target[i] = 1 + (r >> 10) % 10;
			cfg.recv_size[i] = 128 + (r >> 20) % 300;
			cfg.copy[i] = (r >> 30) & 1;
			cfg.msgs[i] = (r >> 31) % 5 ? 20 + (r >> 34) % 100 : 0;
		}
		cfg.max_len = 4096;
		cfg.keepalives = (r >> 40) % 4;
		sim_run(test, s, &cfg, r);
	}
}

static struct kunit_case credits_cases[] = {
	KUNIT_CASE(credits_init),
	KUNIT_CASE_PARAM(credits_refill, refill_gen_params),
	KUNIT_CASE(credits_grant_initial),
	KUNIT_CASE_PARAM(credits_send_decision, send_gen_params),
	KUNIT_CASE(credits_grant_race),
	KUNIT_CASE(credits_on_recv),
	KUNIT_CASE(credits_unblock),
	KUNIT_CASE(credits_queue_overflow),
	KUNIT_CASE(credits_no_interleave),
	KUNIT_CASE(credits_keepalive),
	KUNIT_CASE(credits_keepalive_answer),
	KUNIT_CASE(credits_check_invariants),
	KUNIT_CASE_PARAM(credits_sim_fixed, sim_gen_params),
	KUNIT_CASE(credits_sim_random),
	{}
};

static struct kunit_suite credits_suite = {
	.name = "smbdirect_credits",
	.test_cases = credits_cases,
};

kunit_test_suite(credits_suite);

MODULE_DESCRIPTION("KUnit tests for the SMB Direct credit engine");
MODULE_LICENSE("GPL");
