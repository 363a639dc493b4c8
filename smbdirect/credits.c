// SPDX-License-Identifier: GPL-2.0
/*
 * SMB Direct credit engine (MS-SMBD 3.1.5.1, 3.1.5.8, 3.1.5.9).
 *
 * Each message we send uses one of the peer's receive buffers (a send
 * credit) and may grant the peer credits for receives we have posted. The
 * engine keeps the counts and decides, message by message, whether a
 * message may go, how many credits it grants, whether an empty message
 * must be built, and how many receives to post.
 *
 * Normal operation, with the transport's per-connection lock held:
 *  - after negotiation: smbdx_credits_init(), post smbdx_credits_recv_to_post()
 *    receives and report them with smbdx_credits_recv_posted(); the passive
 *    side then takes smbdx_credits_grant_initial() for its Negotiate Response;
 *  - upper-layer message: smbdx_credits_queue() with its fragment count,
 *    before any of its fragments is taken;
 *  - send loop: call smbdx_credits_next_send() until it returns
 *    SMBDX_SEND_IDLE or SMBDX_SEND_BLOCKED, sending the head of the queue or a
 *    new empty message as told;
 *  - receive completion: smbdx_data_decode(), smbdx_credits_on_recv(), repost
 *    receives as above, then run the send loop;
 *  - idle timer: smbdx_credits_on_idle_timeout(), then run the send loop.
 *
 * Rules and the decisions taken where the specification leaves room (see
 * Documentation/protocol-engine.rst for the reasoning):
 *  - Grants come only from receives posted and not yet granted; a receive
 *    stays "granted" until its completion has been processed, so a buffer
 *    the peer consumed is never granted twice (LESSONS: credit-grant race).
 *  - Routine grants top the peer up to min(ReceiveCreditTarget,
 *    ReceiveCreditMax - 1); one receive buffer is kept for the grant that
 *    must ride on our last send credit.
 *  - A message may use the last send credit only if it grants at least one
 *    credit, and no message is sent while the peer holds no credit unless
 *    it grants one (3.1.5.1, 3.1.5.9). If both peers follow this, neither
 *    can strand the other at zero credits; the looser "unless the peer
 *    still holds credits" is unsafe when both peers spend their last credit
 *    at the same time.
 *  - With the queue empty, a message carrying only credits is sent when
 *    the peer's credits have fallen to a low-water mark (half the target,
 *    at most target - 2) or to zero. Granting on every deficit, as a
 *    literal reading of 3.1.5.8 suggests, makes two peers answer each
 *    other's credit messages forever.
 *  - A received SMB_DIRECT_RESPONSE_REQUESTED sets SendImmediate only; our
 *    answer does not itself request a response (a literal reading of
 *    3.1.5.8 + 3.1.5.1 would make keepalives ping-pong).
 *
 * Concurrency: no locking here; the caller serialises. Nothing sleeps or
 * allocates; no verbs are called.
 */

#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "credits.h"

/* Most credits routinely granted: one receive is kept for a last-credit grant */
static u32 smbdx_credits_cap(const struct smbdx_credits *c)
{
	u32 max = c->recv_credit_max > 1 ? c->recv_credit_max - 1 : 1;

	return min_t(u32, c->recv_credit_target, max);
}

/*
 * Credits to put in the next message: top the peer up to the cap from
 * receives posted but not granted; at least one if @must and any is posted.
 * A message using our last send credit may also hand out the receive kept
 * in reserve: the peer then holds enough to answer with credits and still
 * keep one, instead of the two of us passing a single credit back and
 * forth for ever.
 */
static u32 smbdx_credits_grant(const struct smbdx_credits *c, bool must)
{
	u32 ungranted = smbdx_credits_recv_ungranted(c);
	u32 cap = smbdx_credits_cap(c);
	u32 room, g;

	if (c->send_credits == 1)
		cap++;
	room = cap > c->recv_granted ? cap - c->recv_granted : 0;
	g = min(ungranted, room);
	if (!g && must && ungranted)
		g = 1;
	return min_t(u32, g, U16_MAX);
}

/*
 * 3.1.5.9: a grant is mandatory when the peer holds no credit, or when we
 * are about to use our last send credit.
 */
static bool smbdx_credits_must_grant(const struct smbdx_credits *c)
{
	return !c->recv_granted || c->send_credits == 1;
}

/**
 * smbdx_credits_init() - set up the credit state after negotiation
 * @c: credit state
 * @p: negotiated parameters (smbdx_params_from_req() or
 *	smbdx_params_from_resp())
 *
 * SendCredits is what the Negotiate Response granted (active side) or 0
 * (passive side); nothing is posted, granted or queued yet. A
 * ReceiveCreditMax or target of 0 is raised to 1.
 */
void smbdx_credits_init(struct smbdx_credits *c,
			const struct smbdx_proto_params *p)
{
	memset(c, 0, sizeof(*c));
	c->send_credits = p->send_credits;
	c->send_credit_target = max_t(u16, p->send_credit_target, 1);
	c->recv_credit_max = max_t(u16, p->recv_credit_max, 1);
	c->recv_credit_target = max_t(u16, p->recv_credit_target, 1);
	c->keepalive = SMBDX_KEEPALIVE_NONE;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_credits_init);

/**
 * smbdx_credits_recv_to_post() - how many receives to post now
 * @c: credit state
 *
 * Enough receives for the peer to be topped up to its target (capped as for
 * grants) plus one kept for a last-credit grant, never more than
 * ReceiveCreditMax in total (3.1.5.9).
 *
 * Return: number of receives the transport should post; it may post fewer
 * if it has fewer free buffers, and reports what it posted with
 * smbdx_credits_recv_posted().
 */
u32 smbdx_credits_recv_to_post(const struct smbdx_credits *c)
{
	u32 want = max(smbdx_credits_cap(c), c->recv_granted) + 1;

	want = min_t(u32, want, c->recv_credit_max);
	return want > c->recv_posted ? want - c->recv_posted : 0;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_credits_recv_to_post);

/**
 * smbdx_credits_recv_posted() - receives were posted
 * @c: credit state
 * @n: number of receives successfully posted
 *
 * They are posted but not granted until a message we send grants them.
 * Run the send loop afterwards: a message blocked for want of something to
 * grant may now go.
 */
void smbdx_credits_recv_posted(struct smbdx_credits *c, u32 n)
{
	c->recv_posted += n;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_credits_recv_posted);

/**
 * smbdx_credits_grant_initial() - credits for the Negotiate Response
 * @c: credit state of the passive side, with receives already posted
 *
 * 3.1.5.3 grants Connection.ReceiveCredits; we grant the posted receives up
 * to the usual cap. The Negotiate Response does not use a send credit.
 *
 * Return: credits granted; 0 means credit set-up failed and the response
 * must carry STATUS_INSUFFICIENT_RESOURCES (3.1.5.6,
 * SMBDX_ERR_NEG_NO_RECV_CREDITS).
 */
u16 smbdx_credits_grant_initial(struct smbdx_credits *c)
{
	u32 g = smbdx_credits_grant(c, true);

	c->recv_granted += g;
	return g;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_credits_grant_initial);

/**
 * smbdx_credits_on_recv() - account for a received Data Transfer message
 * @c: credit state
 * @di: header accepted by smbdx_data_decode()
 *
 * 3.1.5.5 and 3.1.5.8: the receive it used is no longer posted nor held by
 * the peer; ReceiveCreditTarget becomes its CreditsRequested; SendCredits
 * grows by its CreditsGranted; KeepaliveRequested returns to NONE; a
 * RESPONSE_REQUESTED flag sets SendImmediate. Nothing changes on failure.
 * Afterwards the transport reposts receives and runs the send loop.
 *
 * Return: SMBDX_OK; SMBDX_ERR_RECV_NO_CREDIT if the peer held no credit
 * (it sent more than we granted); SMBDX_ERR_SEND_CREDIT_OVERFLOW if our send
 * credits would exceed 65535 (no peer has that many receives posted). Both
 * are protocol violations: terminate the connection.
 */
enum smbdx_verdict smbdx_credits_on_recv(struct smbdx_credits *c,
					 const struct smbdx_data_info *di)
{
	if (!c->recv_granted || !c->recv_posted)
		return SMBDX_ERR_RECV_NO_CREDIT;
	if ((u64)c->send_credits + di->credits_granted > U16_MAX)
		return SMBDX_ERR_SEND_CREDIT_OVERFLOW;

	c->recv_posted--;
	c->recv_granted--;
	c->recv_credit_target = max_t(u16, di->credits_requested, 1);
	c->send_credits += di->credits_granted;
	c->keepalive = SMBDX_KEEPALIVE_NONE;
	if (di->flags & SMBDX_FLAG_RESPONSE_REQUESTED)
		c->send_immediate = true;
	return SMBDX_OK;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_credits_on_recv);

/**
 * smbdx_credits_queue() - messages were appended to the send queue
 * @c: credit state
 * @n: number of Data Transfer messages appended; for an upper-layer
 *	message, all of its fragments (smbdx_frag_count()) at once, so that no
 *	empty message can be slipped between them (LESSONS: interleaved
 *	fragments)
 *
 * Return: SMBDX_OK, or SMBDX_ERR_INVALID if the count would overflow.
 */
enum smbdx_verdict smbdx_credits_queue(struct smbdx_credits *c, u32 n)
{
	if (n > U32_MAX - c->send_queued)
		return SMBDX_ERR_INVALID;
	c->send_queued += n;
	return SMBDX_OK;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_credits_queue);

/**
 * smbdx_credits_grant_now() - credits the next message would grant
 * @c: credit state
 *
 * Return: the CreditsGranted smbdx_credits_next_send() would use now.
 */
u16 smbdx_credits_grant_now(const struct smbdx_credits *c)
{
	return smbdx_credits_grant(c, smbdx_credits_must_grant(c));
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_credits_grant_now);

/**
 * smbdx_credits_need_credit_msg() - is a message carrying only credits due
 * @c: credit state
 *
 * 3.1.5.8 asks for a prompt grant when the send queue is empty. We send one
 * when there is something to grant and the peer holds no more than a
 * low-water mark of credits: half the cap, but at most cap - 2 so that the
 * peer's own credit message in answer cannot trigger another (no
 * ping-pong), and always when it holds none.
 *
 * Return: true if an empty message granting credits should be sent.
 */
bool smbdx_credits_need_credit_msg(const struct smbdx_credits *c)
{
	u32 cap = smbdx_credits_cap(c);
	u32 low = cap >= 2 ? min(cap / 2, cap - 2) : 0;

	if (c->send_queued)
		return false;
	if (!smbdx_credits_grant(c, !c->recv_granted))
		return false;
	return c->recv_granted <= low;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_credits_need_credit_msg);

/**
 * smbdx_credits_peek_send() - what smbdx_credits_next_send() would do
 * @c: credit state
 *
 * Return: the action, without changing anything. Useful to decide in a
 * completion handler whether to schedule the send worker.
 */
enum smbdx_send_action smbdx_credits_peek_send(const struct smbdx_credits *c)
{
	bool must;

	if (!c->send_queued && !c->send_immediate &&
	    !smbdx_credits_need_credit_msg(c))
		return SMBDX_SEND_IDLE;
	if (!c->send_credits)
		return SMBDX_SEND_BLOCKED;
	must = smbdx_credits_must_grant(c);
	if (must && !smbdx_credits_grant(c, must))
		return SMBDX_SEND_BLOCKED;
	return c->send_queued ? SMBDX_SEND_QUEUED : SMBDX_SEND_EMPTY;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_credits_peek_send);

/**
 * smbdx_credits_next_send() - decide and commit the next message to send
 * @c: credit state
 * @di: on SMBDX_SEND_QUEUED or SMBDX_SEND_EMPTY, CreditsRequested,
 *	CreditsGranted and Flags are set and the data fields zeroed (the
 *	fragmenter fills them for a queued message); untouched otherwise
 *
 * One step of 3.1.5.1: the head of the queue if any, else an empty message
 * if SendImmediate is set or a credit message is due. The message uses one
 * send credit and grants what smbdx_credits_grant_now() says; it is refused
 * (SMBDX_SEND_BLOCKED) if we have no send credit, or if a grant is
 * mandatory (last send credit, or the peer holds none) and nothing can be
 * granted. A pending keepalive sets RESPONSE_REQUESTED on whichever message
 * goes first and becomes SENT; SendImmediate is cleared.
 *
 * The caller must send the message it was told to: the counts already
 * assume it.
 *
 * Return: the action taken.
 */
enum smbdx_send_action smbdx_credits_next_send(struct smbdx_credits *c,
					       struct smbdx_data_info *di)
{
	enum smbdx_send_action act = smbdx_credits_peek_send(c);
	u32 g;

	if (act != SMBDX_SEND_QUEUED && act != SMBDX_SEND_EMPTY)
		return act;

	g = smbdx_credits_grant(c, smbdx_credits_must_grant(c));
	memset(di, 0, sizeof(*di));
	di->credits_requested = c->send_credit_target;
	di->credits_granted = g;
	if (c->keepalive == SMBDX_KEEPALIVE_PENDING) {
		di->flags = SMBDX_FLAG_RESPONSE_REQUESTED;
		c->keepalive = SMBDX_KEEPALIVE_SENT;
	}
	c->send_credits--;
	c->recv_granted += g;
	c->send_immediate = false;
	if (act == SMBDX_SEND_QUEUED)
		c->send_queued--;
	return act;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_credits_next_send);

/**
 * smbdx_credits_on_idle_timeout() - the Idle Connection Timer expired
 * @c: credit state
 *
 * 3.1.6.2: if a keepalive is already outstanding the peer did not answer
 * in time; otherwise request one on the next message (an empty one if
 * nothing is queued). After a message with RESPONSE_REQUESTED goes out the
 * transport re-arms the timer with the short response wait (3.1.5.1).
 *
 * Return: true if a keepalive is now pending (run the send loop), false if
 * the connection should be terminated.
 */
bool smbdx_credits_on_idle_timeout(struct smbdx_credits *c)
{
	if (c->keepalive != SMBDX_KEEPALIVE_NONE)
		return false;
	c->keepalive = SMBDX_KEEPALIVE_PENDING;
	c->send_immediate = true;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_credits_on_idle_timeout);

/**
 * smbdx_credits_check() - internal consistency of the credit state
 * @c: credit state
 *
 * Return: true if no more receives are granted than posted, no more posted
 * than ReceiveCreditMax, and the send credits fit in 16 bits. Meant for
 * WARN_ON_ONCE() in the transport and for the tests.
 */
bool smbdx_credits_check(const struct smbdx_credits *c)
{
	return c->recv_granted <= c->recv_posted &&
	       c->recv_posted <= c->recv_credit_max &&
	       c->send_credits <= U16_MAX &&
	       c->recv_credit_max && c->recv_credit_target;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_credits_check);
