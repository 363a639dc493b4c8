/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SMB Direct credit engine: MS-SMBD 3.1.5.1 (sending), 3.1.5.8 (credit
 * fields of a received message) and 3.1.5.9 (managing credits prior to
 * sending), plus the keepalive state of 3.1.5.5 and 3.1.6.2.
 *
 * The engine is a plain structure and functions that take decisions; the
 * transport owns the queue of messages, the receive buffers and the verbs.
 * See smbdirect/credits.c for the rules and Documentation/protocol-engine.rst
 * for how the transport drives it.
 *
 * Concurrency: no locking here. The transport calls every function with its
 * own per-connection lock held (a spinlock, since receive completions run in
 * softirq). No function sleeps or allocates.
 */
#ifndef _SMBDIRECT_CREDITS_H
#define _SMBDIRECT_CREDITS_H

#include <linux/types.h>
#include <smbdirect/pdu.h>

/**
 * enum smbdx_keepalive - Connection.KeepaliveRequested (3.1.1.1)
 * @SMBDX_KEEPALIVE_NONE: no keepalive outstanding
 * @SMBDX_KEEPALIVE_PENDING: our idle timer fired; the next message we send
 *	carries SMB_DIRECT_RESPONSE_REQUESTED
 * @SMBDX_KEEPALIVE_SENT: a message with the flag was sent; waiting for any
 *	message from the peer
 */
enum smbdx_keepalive {
	SMBDX_KEEPALIVE_NONE,
	SMBDX_KEEPALIVE_PENDING,
	SMBDX_KEEPALIVE_SENT,
};

/**
 * enum smbdx_send_action - what smbdx_credits_next_send() decided
 * @SMBDX_SEND_IDLE: nothing to send
 * @SMBDX_SEND_BLOCKED: something waits to be sent but the credit rules
 *	forbid it now; run the send loop again after smbdx_credits_on_recv()
 *	or smbdx_credits_recv_posted()
 * @SMBDX_SEND_QUEUED: send the message at the head of the send queue with
 *	the credit and flag fields just filled in
 * @SMBDX_SEND_EMPTY: build and send a new message without payload (credit
 *	grant, keepalive or keepalive response) with the fields filled in
 */
enum smbdx_send_action {
	SMBDX_SEND_IDLE,
	SMBDX_SEND_BLOCKED,
	SMBDX_SEND_QUEUED,
	SMBDX_SEND_EMPTY,
};

/**
 * struct smbdx_credits - per-connection credit state
 * @send_credits: Connection.SendCredits: credits the peer granted us and we
 *	have not used
 * @send_queued: messages (fragments) in Connection.SendQueue, counted by
 *	smbdx_credits_queue() and taken by smbdx_credits_next_send()
 * @recv_posted: receives posted and not yet completed
 * @recv_granted: of those, the ones granted to the peer: the credits the
 *	peer holds as far as we know (Connection.ReceiveCredits). Receives
 *	posted but not granted (@recv_posted - @recv_granted) are what we may
 *	still grant; counting them apart is what keeps a receive the peer has
 *	already consumed from being granted twice.
 * @send_credit_target: Connection.SendCreditTarget, the CreditsRequested
 *	of every message we send
 * @recv_credit_max: Connection.ReceiveCreditMax; the transport owns this
 *	many receive buffers and the engine never asks it to post more
 * @recv_credit_target: Connection.ReceiveCreditTarget, the peer's latest
 *	CreditsRequested
 * @send_immediate: Connection.SendImmediate: a message must go out even if
 *	the queue is empty
 * @keepalive: Connection.KeepaliveRequested
 */
struct smbdx_credits {
	u32 send_credits;
	u32 send_queued;
	u32 recv_posted;
	u32 recv_granted;
	u16 send_credit_target;
	u16 recv_credit_max;
	u16 recv_credit_target;
	bool send_immediate;
	enum smbdx_keepalive keepalive;
};

/**
 * smbdx_credits_recv_ungranted() - receives posted but not yet granted
 * @c: credit state
 *
 * Return: how many credits could be granted right now.
 */
static inline u32 smbdx_credits_recv_ungranted(const struct smbdx_credits *c)
{
	return c->recv_posted - c->recv_granted;
}

void smbdx_credits_init(struct smbdx_credits *c,
			const struct smbdx_proto_params *p);
u32 smbdx_credits_recv_to_post(const struct smbdx_credits *c);
void smbdx_credits_recv_posted(struct smbdx_credits *c, u32 n);
u16 smbdx_credits_grant_initial(struct smbdx_credits *c);
enum smbdx_verdict smbdx_credits_on_recv(struct smbdx_credits *c,
					 const struct smbdx_data_info *di);
enum smbdx_verdict smbdx_credits_queue(struct smbdx_credits *c, u32 n);
enum smbdx_send_action smbdx_credits_peek_send(const struct smbdx_credits *c);
enum smbdx_send_action smbdx_credits_next_send(struct smbdx_credits *c,
					       struct smbdx_data_info *di);
u16 smbdx_credits_grant_now(const struct smbdx_credits *c);
bool smbdx_credits_need_credit_msg(const struct smbdx_credits *c);
bool smbdx_credits_on_idle_timeout(struct smbdx_credits *c);
bool smbdx_credits_check(const struct smbdx_credits *c);

#endif /* _SMBDIRECT_CREDITS_H */
