// SPDX-License-Identifier: GPL-2.0
/*
 * Push mode, the message-level path: the control messages' codec and the
 * pure engine (design.rst, "Push mode"; pushmsg.h has the types).
 *
 * The body, version 1, 56 octets, little-endian like MS-SMBD:
 *
 *   0   version (1)             1   type
 *   2   flags (u16)             4   sequence number (u32)
 *   8   region id (u32)         12  region token (u32)
 *   16  offset (u64)            24  length (u64)
 *   32  atomic offset (u64)     40  atomic value (u64)
 *   48  status (u32)            52  reserved (u32)
 *
 * Which fields a type uses:
 *
 *   COMMIT_REQ   flags, seq, region, token; offset and length with
 *                GLOBAL or PERSISTENT and without REGION; atomic offset
 *                and value with ATOMIC
 *   COMMIT_RESP  seq, region, status
 *   REVOKE_REQ   seq, region, token
 *   REVOKE_ACK   seq, region
 *
 * A field a type (or its flags) does not use is sent zero and must be
 * zero on receipt; only "reserved" is ignored. The check is the same on
 * both sides (smbdx_pushmsg_check()): the encoder refuses to build what
 * the decoder would refuse.
 *
 * The engine: smbdx_push_negotiate() turns the two CM blobs into the
 * connection's push mode; smbdx_push_commit_check() judges a commit
 * against a region (the responder for every request, the requester before
 * it sends one); the tx/rx numbering keeps requests in sequence and
 * bounds how many are outstanding; the region and target state machines
 * carry a revoke from the owner's request to the requester's
 * acknowledgment.
 *
 * Concurrency: pure code, no locking and no shared state; every function
 * touches only its arguments. Nothing sleeps or allocates.
 */

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include <kunit/visibility.h>

#include "privdata.h"
#include "pushmsg.h"

static_assert(SMBDX_PUSHACC_GLOBAL == SMBDX_CAP_FLUSH_GLOBAL);
static_assert(SMBDX_PUSHACC_PERSISTENT == SMBDX_CAP_FLUSH_PERSISTENT);
static_assert(SMBDX_PUSHACC_ATOMIC == SMBDX_CAP_ATOMIC_WRITE);
static_assert(SMBDX_PUSHMSG_F_GLOBAL == SMBDX_PUSHACC_GLOBAL);
static_assert(SMBDX_PUSHMSG_F_PERSISTENT == SMBDX_PUSHACC_PERSISTENT);
static_assert(SMBDX_PUSH_MAX_COMMITS <= U8_MAX);

/**
 * smbdx_pushmsg_frame() - check the Data Transfer header of a control
 *	message
 * @di: the decoded header of a message whose Flags carry SMBDX_FLAG_PUSH
 *	(smbdx_data_decode() accepted it)
 *
 * Return: SMBDX_PUSHMSG_OK if the message is unfragmented and its payload
 * is exactly one body; SMBDX_PUSHMSG_E_FRAGMENTED or _E_LENGTH otherwise.
 */
enum smbdx_pushmsg_verdict smbdx_pushmsg_frame(const struct smbdx_data_info *di)
{
	if (di->remaining_data_length)
		return SMBDX_PUSHMSG_E_FRAGMENTED;
	if (di->data_length != SMBDX_PUSHMSG_LEN)
		return SMBDX_PUSHMSG_E_LENGTH;
	return SMBDX_PUSHMSG_OK;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_pushmsg_frame);

static enum smbdx_pushmsg_verdict
smbdx_pushmsg_check_commit(const struct smbdx_pushmsg *m)
{
	u16 f = m->flags;

	if (f & ~SMBDX_PUSHMSG_F_KNOWN)
		return SMBDX_PUSHMSG_E_FLAGS;
	/* It must ask for something. */
	if (!(f & (SMBDX_PUSHMSG_F_FLUSH | SMBDX_PUSHMSG_F_ATOMIC)))
		return SMBDX_PUSHMSG_E_FLAGS;
	if ((f & SMBDX_PUSHMSG_F_REGION) && !(f & SMBDX_PUSHMSG_F_FLUSH))
		return SMBDX_PUSHMSG_E_FLAGS;
	if ((f & SMBDX_PUSHMSG_F_ATOMIC_PERSISTENT) &&
	    !(f & SMBDX_PUSHMSG_F_ATOMIC))
		return SMBDX_PUSHMSG_E_FLAGS;
	if (m->status)
		return SMBDX_PUSHMSG_E_STATUS;
	if (!(f & SMBDX_PUSHMSG_F_FLUSH) || (f & SMBDX_PUSHMSG_F_REGION)) {
		if (m->offset || m->length)
			return SMBDX_PUSHMSG_E_FIELDS;
	} else if (!m->length) {
		return SMBDX_PUSHMSG_E_FIELDS;
	}
	if (!(f & SMBDX_PUSHMSG_F_ATOMIC) && (m->atomic_offset || m->atomic_value))
		return SMBDX_PUSHMSG_E_FIELDS;
	return SMBDX_PUSHMSG_OK;
}

/**
 * smbdx_pushmsg_check() - the field rules of a control message
 * @m: the message in host form
 *
 * The rules of the table at the top of this file: known type, flags the
 * type allows, zero in every field it does not use, a status only in a
 * COMMIT_RESP and then a known one.
 *
 * Return: SMBDX_PUSHMSG_OK or the first rule broken (_E_TYPE, _E_FLAGS,
 * _E_STATUS, _E_FIELDS).
 */
enum smbdx_pushmsg_verdict smbdx_pushmsg_check(const struct smbdx_pushmsg *m)
{
	bool unused_zero;

	switch (m->type) {
	case SMBDX_PUSHMSG_COMMIT_REQ:
		return smbdx_pushmsg_check_commit(m);
	case SMBDX_PUSHMSG_COMMIT_RESP:
		if (m->flags)
			return SMBDX_PUSHMSG_E_FLAGS;
		if (m->status >= SMBDX_PUSH_ST_COUNT)
			return SMBDX_PUSHMSG_E_STATUS;
		unused_zero = !m->token;
		break;
	case SMBDX_PUSHMSG_REVOKE_REQ:
	case SMBDX_PUSHMSG_REVOKE_ACK:
		if (m->flags)
			return SMBDX_PUSHMSG_E_FLAGS;
		if (m->status)
			return SMBDX_PUSHMSG_E_STATUS;
		unused_zero = m->type == SMBDX_PUSHMSG_REVOKE_REQ || !m->token;
		break;
	default:
		return SMBDX_PUSHMSG_E_TYPE;
	}
	if (!unused_zero || m->offset || m->length || m->atomic_offset ||
	    m->atomic_value)
		return SMBDX_PUSHMSG_E_FIELDS;
	return SMBDX_PUSHMSG_OK;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_pushmsg_check);

/**
 * smbdx_pushmsg_decode() - decode and check a control message's body
 * @buf: the payload (any alignment)
 * @len: its length (the Data Transfer message's DataLength)
 * @m: the message; zeroed first, filled only if @len is right
 *
 * Return: SMBDX_PUSHMSG_OK, or the first rule broken: _E_LENGTH (@len is
 * not SMBDX_PUSHMSG_LEN), _E_VERSION, then smbdx_pushmsg_check()'s. Never
 * reads past @len.
 */
enum smbdx_pushmsg_verdict smbdx_pushmsg_decode(const void *buf, u32 len,
						struct smbdx_pushmsg *m)
{
	const struct smbdx_pushmsg_wire *w = buf;

	memset(m, 0, sizeof(*m));
	if (!buf || len != SMBDX_PUSHMSG_LEN)
		return SMBDX_PUSHMSG_E_LENGTH;
	if (w->version != SMBDX_PUSHMSG_VERSION)
		return SMBDX_PUSHMSG_E_VERSION;
	m->type = w->type;
	m->flags = get_unaligned_le16(&w->flags);
	m->seq = get_unaligned_le32(&w->seq);
	m->region = get_unaligned_le32(&w->region);
	m->token = get_unaligned_le32(&w->token);
	m->offset = get_unaligned_le64(&w->offset);
	m->length = get_unaligned_le64(&w->length);
	m->atomic_offset = get_unaligned_le64(&w->atomic_offset);
	m->atomic_value = get_unaligned_le64(&w->atomic_value);
	m->status = get_unaligned_le32(&w->status);
	return smbdx_pushmsg_check(m);
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_pushmsg_decode);

/**
 * smbdx_pushmsg_encode() - write a control message's body
 * @m: the message; must pass smbdx_pushmsg_check()
 * @buf: where the body goes (any alignment)
 * @size: bytes available at @buf
 *
 * Return: SMBDX_PUSHMSG_LEN; -EINVAL (nothing written) if @m breaks a
 * rule; -ENOSPC if @size is too small.
 */
int smbdx_pushmsg_encode(const struct smbdx_pushmsg *m, void *buf, u32 size)
{
	struct smbdx_pushmsg_wire *w = buf;

	if (smbdx_pushmsg_check(m))
		return -EINVAL;
	if (size < SMBDX_PUSHMSG_LEN)
		return -ENOSPC;
	w->version = SMBDX_PUSHMSG_VERSION;
	w->type = m->type;
	put_unaligned_le16(m->flags, &w->flags);
	put_unaligned_le32(m->seq, &w->seq);
	put_unaligned_le32(m->region, &w->region);
	put_unaligned_le32(m->token, &w->token);
	put_unaligned_le64(m->offset, &w->offset);
	put_unaligned_le64(m->length, &w->length);
	put_unaligned_le64(m->atomic_offset, &w->atomic_offset);
	put_unaligned_le64(m->atomic_value, &w->atomic_value);
	put_unaligned_le32(m->status, &w->status);
	put_unaligned_le32(0, &w->reserved);
	return SMBDX_PUSHMSG_LEN;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_pushmsg_encode);

/**
 * smbdx_pushmsg_mark() - mark an encoded Data Transfer header as push mode
 * @hdr: the header smbdx_data_encode() wrote (which sends only the Flags
 *	MS-SMBD defines)
 */
void smbdx_pushmsg_mark(void *hdr)
{
	struct smbdx_data_transfer *h = hdr;

	h->flags |= cpu_to_le16(SMBDX_FLAG_PUSH);
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_pushmsg_mark);

/**
 * smbdx_pushmsg_verdict_name() - a verdict's name (logs, tests)
 * @v: verdict
 *
 * Return: a constant string, "unknown" for a value out of range.
 */
const char *smbdx_pushmsg_verdict_name(enum smbdx_pushmsg_verdict v)
{
	static const char * const names[] = {
		[SMBDX_PUSHMSG_OK] = "ok",
		[SMBDX_PUSHMSG_E_FRAGMENTED] = "fragmented",
		[SMBDX_PUSHMSG_E_LENGTH] = "length",
		[SMBDX_PUSHMSG_E_VERSION] = "version",
		[SMBDX_PUSHMSG_E_TYPE] = "type",
		[SMBDX_PUSHMSG_E_FLAGS] = "flags",
		[SMBDX_PUSHMSG_E_FIELDS] = "fields",
		[SMBDX_PUSHMSG_E_STATUS] = "status",
		[SMBDX_PUSHMSG_E_INVALIDATE] = "invalidate",
		[SMBDX_PUSHMSG_E_SEQ] = "sequence",
		[SMBDX_PUSHMSG_E_TOO_MANY] = "too_many",
		[SMBDX_PUSHMSG_E_UNNEGOTIATED] = "unnegotiated",
	};

	if ((unsigned int)v >= ARRAY_SIZE(names) || !names[v])
		return "unknown";
	return names[v];
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_pushmsg_verdict_name);

/* ---- the connection's push mode ----------------------------------------- */

/**
 * smbdx_push_negotiate() - the push mode two CM blobs give a connection
 * @own: what we advertised
 * @sent: our blob went out
 * @peer: what the peer advertised
 * @found: the peer's blob was found
 * @out: the result
 *
 * Push mode is active when both blobs were exchanged and both carry at
 * least one push-mode flag: each side then speaks the control messages.
 * What each side may ask of the other is what the other advertised (the
 * responder's flags say what it serves), so a side without persistent
 * memory support may still ask a peer that has it; a peer that advertised
 * flags but no responder resources can be asked nothing.
 */
void smbdx_push_negotiate(const struct smbdx_caps *own, bool sent,
			  const struct smbdx_caps *peer, bool found,
			  struct smbdx_push_mode *out)
{
	u8 mine = sent ? own->flags & SMBDX_PUSHACC_KNOWN : 0;
	u8 theirs = found ? peer->flags & SMBDX_PUSHACC_KNOWN : 0;

	memset(out, 0, sizeof(*out));
	if (!mine || !theirs)
		return;
	out->active = true;
	out->served = mine;
	out->commits = min_t(u8, peer->push_ird, SMBDX_PUSH_MAX_COMMITS);
	if (out->commits)
		out->ops = theirs;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_push_negotiate);

/* ---- ranges and commits ------------------------------------------------- */

/**
 * smbdx_push_range_check() - is a range inside a region
 * @region_len: the region's length
 * @offset: first byte of the range, from the region's start
 * @length: bytes
 *
 * Computed without forming @offset + @length, so no sum can wrap.
 *
 * Return: 0; -EINVAL for an empty range; -ERANGE if any byte of it lies
 * at or past @region_len.
 */
int smbdx_push_range_check(u64 region_len, u64 offset, u64 length)
{
	if (!length)
		return -EINVAL;
	if (offset >= region_len || length > region_len - offset)
		return -ERANGE;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_push_range_check);

/**
 * smbdx_push_commit_check() - judge a commit request against a region
 * @region_len: the region's length
 * @access: SMBDX_PUSHACC_* the region was registered with
 * @req: a COMMIT_REQ that passed smbdx_pushmsg_check()
 *
 * In this order (R5: permission first): the access each part needs
 * (global visibility, persistence, atomic write, a persistent atomic
 * value), the flushed range, the atomic target's alignment, then its
 * range (its 8 octets inside the region).
 *
 * Return: SMBDX_PUSH_ST_OK, _ACCESS, _RANGE or _ALIGN.
 */
enum smbdx_push_status smbdx_push_commit_check(u64 region_len, u32 access,
					       const struct smbdx_pushmsg *req)
{
	u16 f = req->flags;

	if (((f & SMBDX_PUSHMSG_F_GLOBAL) && !(access & SMBDX_PUSHACC_GLOBAL)) ||
	    ((f & SMBDX_PUSHMSG_F_PERSISTENT) &&
	     !(access & SMBDX_PUSHACC_PERSISTENT)) ||
	    ((f & SMBDX_PUSHMSG_F_ATOMIC) && !(access & SMBDX_PUSHACC_ATOMIC)) ||
	    ((f & SMBDX_PUSHMSG_F_ATOMIC_PERSISTENT) &&
	     !(access & SMBDX_PUSHACC_PERSISTENT)))
		return SMBDX_PUSH_ST_ACCESS;
	if ((f & SMBDX_PUSHMSG_F_FLUSH) && !(f & SMBDX_PUSHMSG_F_REGION) &&
	    smbdx_push_range_check(region_len, req->offset, req->length))
		return SMBDX_PUSH_ST_RANGE;
	if (f & SMBDX_PUSHMSG_F_ATOMIC) {
		if (!IS_ALIGNED(req->atomic_offset, SMBDX_PUSH_ATOMIC_LEN))
			return SMBDX_PUSH_ST_ALIGN;
		if (smbdx_push_range_check(region_len, req->atomic_offset,
					   SMBDX_PUSH_ATOMIC_LEN))
			return SMBDX_PUSH_ST_RANGE;
	}
	return SMBDX_PUSH_ST_OK;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_push_commit_check);

/**
 * smbdx_push_status_errno() - what a requester's call returns for a status
 * @st: the COMMIT_RESP's status
 *
 * Return: 0 for OK; -ERANGE, -EINVAL (alignment), -EKEYREVOKED, -EACCES,
 * or -EIO (failed, or a value that is not a status).
 */
int smbdx_push_status_errno(enum smbdx_push_status st)
{
	switch (st) {
	case SMBDX_PUSH_ST_OK:
		return 0;
	case SMBDX_PUSH_ST_RANGE:
		return -ERANGE;
	case SMBDX_PUSH_ST_ALIGN:
		return -EINVAL;
	case SMBDX_PUSH_ST_REVOKED:
		return -EKEYREVOKED;
	case SMBDX_PUSH_ST_ACCESS:
		return -EACCES;
	default:
		return -EIO;
	}
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_push_status_errno);

/* ---- request numbering -------------------------------------------------- */

/**
 * smbdx_push_tx_init() - start numbering the requests we send
 * @tx: state
 * @limit: most requests outstanding at once
 */
void smbdx_push_tx_init(struct smbdx_push_tx *tx, u32 limit)
{
	tx->next = 1;
	tx->open = 0;
	tx->limit = limit;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_push_tx_init);

/**
 * smbdx_push_tx_begin() - number a request about to be sent
 * @tx: state
 * @seq: its number
 *
 * Return: 0, or -EBUSY (nothing changed) if @tx->limit requests are
 * outstanding.
 */
int smbdx_push_tx_begin(struct smbdx_push_tx *tx, u32 *seq)
{
	if (tx->open >= tx->limit)
		return -EBUSY;
	*seq = tx->next++;
	tx->open++;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_push_tx_begin);

/**
 * smbdx_push_tx_answer() - an in-order answer arrived
 * @tx: state of requests answered in the order they were sent (commits)
 * @seq: the number the answer carries
 *
 * Return: SMBDX_PUSHMSG_OK if it answers the oldest outstanding request
 * (which is then no longer outstanding); SMBDX_PUSHMSG_E_SEQ (nothing
 * changed) if none is outstanding or it names another.
 */
enum smbdx_pushmsg_verdict smbdx_push_tx_answer(struct smbdx_push_tx *tx,
						u32 seq)
{
	if (!tx->open || seq != tx->next - tx->open)
		return SMBDX_PUSHMSG_E_SEQ;
	tx->open--;
	return SMBDX_PUSHMSG_OK;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_push_tx_answer);

/**
 * smbdx_push_tx_end() - a request answered out of order is done
 * @tx: state of requests the caller matches to their answers itself
 *	(revokes)
 */
void smbdx_push_tx_end(struct smbdx_push_tx *tx)
{
	if (tx->open)
		tx->open--;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_push_tx_end);

/**
 * smbdx_push_rx_init() - start checking the requests we receive
 * @rx: state
 * @limit: most requests the peer may have outstanding at once
 */
void smbdx_push_rx_init(struct smbdx_push_rx *rx, u32 limit)
{
	rx->expect = 1;
	rx->open = 0;
	rx->limit = limit;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_push_rx_init);

/**
 * smbdx_push_rx_request() - a request arrived
 * @rx: state
 * @seq: its number
 *
 * A request is outstanding from its arrival until our answer to it is
 * posted; a peer that keeps to the limit, counting until it receives the
 * answer, never exceeds it by that count.
 *
 * Return: SMBDX_PUSHMSG_OK (it is now outstanding); _E_SEQ if @seq is not
 * the next number; _E_TOO_MANY if @rx->limit are outstanding already.
 * Nothing changes on an error.
 */
enum smbdx_pushmsg_verdict smbdx_push_rx_request(struct smbdx_push_rx *rx,
						 u32 seq)
{
	if (seq != rx->expect)
		return SMBDX_PUSHMSG_E_SEQ;
	if (rx->open >= rx->limit)
		return SMBDX_PUSHMSG_E_TOO_MANY;
	rx->expect++;
	rx->open++;
	return SMBDX_PUSHMSG_OK;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_push_rx_request);

/**
 * smbdx_push_rx_answered() - our answer to a request was posted
 * @rx: state
 */
void smbdx_push_rx_answered(struct smbdx_push_rx *rx)
{
	if (rx->open)
		rx->open--;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_push_rx_answered);

/* ---- revoke: the owner's region ----------------------------------------- */

/**
 * smbdx_push_rgn_revoke() - the owner asks for its region back
 * @r: region state
 * @seq: the number of the REVOKE_REQ about to be sent
 *
 * Return: 0 (ACTIVE to REVOKING), or -EALREADY (nothing changed).
 */
int smbdx_push_rgn_revoke(struct smbdx_push_rgn *r, u32 seq)
{
	if (r->state != SMBDX_PUSH_RS_ACTIVE)
		return -EALREADY;
	r->state = SMBDX_PUSH_RS_REVOKING;
	r->seq = seq;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_push_rgn_revoke);

/**
 * smbdx_push_rgn_ack() - a REVOKE_ACK for the region arrived
 * @r: region state
 * @seq: the number it carries
 *
 * Return: SMBDX_PUSHMSG_OK (REVOKING to REVOKED) if it answers the
 * region's REVOKE_REQ; SMBDX_PUSHMSG_E_SEQ (nothing changed) otherwise.
 */
enum smbdx_pushmsg_verdict smbdx_push_rgn_ack(struct smbdx_push_rgn *r,
					      u32 seq)
{
	if (r->state != SMBDX_PUSH_RS_REVOKING || seq != r->seq)
		return SMBDX_PUSHMSG_E_SEQ;
	r->state = SMBDX_PUSH_RS_REVOKED;
	return SMBDX_PUSHMSG_OK;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_push_rgn_ack);

/**
 * smbdx_push_rgn_commit() - may a commit on the region be served
 * @r: region state
 *
 * Return: SMBDX_PUSH_ST_OK while ACTIVE or REVOKING (the requester may
 * have sent it before it saw the revoke), SMBDX_PUSH_ST_REVOKED after the
 * acknowledgment.
 */
enum smbdx_push_status smbdx_push_rgn_commit(const struct smbdx_push_rgn *r)
{
	return r->state == SMBDX_PUSH_RS_REVOKED ? SMBDX_PUSH_ST_REVOKED :
						  SMBDX_PUSH_ST_OK;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_push_rgn_commit);

/* ---- revoke: the requester's target ------------------------------------- */

/**
 * smbdx_push_tgt_begin() - an operation on a target starts
 * @t: target state
 *
 * Return: 0 (counted in @t->inflight), or -EKEYREVOKED (nothing changed)
 * once the owner asked for the region back.
 */
int smbdx_push_tgt_begin(struct smbdx_push_tgt *t)
{
	if (t->state != SMBDX_PUSH_TS_ATTACHED)
		return -EKEYREVOKED;
	t->inflight++;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_push_tgt_begin);

/**
 * smbdx_push_tgt_end() - an operation on a target ended
 * @t: target state
 *
 * Return: true if it was the last one of a target being revoked: the
 * caller now sends the REVOKE_ACK numbered @t->seq (the target is
 * REVOKED).
 */
bool smbdx_push_tgt_end(struct smbdx_push_tgt *t)
{
	if (t->inflight)
		t->inflight--;
	if (t->state != SMBDX_PUSH_TS_REVOKING || t->inflight)
		return false;
	t->state = SMBDX_PUSH_TS_REVOKED;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_push_tgt_end);

/**
 * smbdx_push_tgt_revoke() - the owner's REVOKE_REQ for a target arrived
 * @t: target state
 * @seq: the request's number
 *
 * Return: SMBDX_PUSH_ACK_NOW (REVOKED: nothing outstanding),
 * SMBDX_PUSH_ACK_LATER (REVOKING: smbdx_push_tgt_end() of the last
 * operation says when), or SMBDX_PUSH_ACK_DUP (nothing changed) if the
 * target was already being revoked.
 */
enum smbdx_push_revoke_action smbdx_push_tgt_revoke(struct smbdx_push_tgt *t,
						    u32 seq)
{
	if (t->state != SMBDX_PUSH_TS_ATTACHED)
		return SMBDX_PUSH_ACK_DUP;
	t->seq = seq;
	if (t->inflight) {
		t->state = SMBDX_PUSH_TS_REVOKING;
		return SMBDX_PUSH_ACK_LATER;
	}
	t->state = SMBDX_PUSH_TS_REVOKED;
	return SMBDX_PUSH_ACK_NOW;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_push_tgt_revoke);
