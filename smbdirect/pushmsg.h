/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Push mode (draft-talpey-rdma-commit), the message-level path: the
 * codec of its control messages and the pure engine that judges them
 * (which push mode a connection has, range and alignment checks, request
 * numbering and the bound on outstanding requests, the revoke state
 * machines of a region and of a target). smbdirect/push.c is the glue
 * around it; Documentation/design.rst, "Push mode", has the protocol.
 *
 * A control message is an SMB Direct Data Transfer message (MS-SMBD
 * 2.2.3) whose Flags carry SMBDX_FLAG_PUSH, a bit MS-SMBD reserves, with
 * one fixed-size body as its whole payload. It is sent only to a peer
 * that advertised push mode in the CM private data (privdata.h), never
 * delivered to the upper layer, and one received without that is a
 * protocol error.
 *
 * Pure code: no verbs calls. Concurrency: no locking and no shared state;
 * every function touches only its arguments and may run in any context.
 * The glue calls the state functions with conn->lock held. Nothing sleeps
 * or allocates.
 *
 * Hostile input: the decoder takes the received length and checks every
 * field of the body before anything else reads it; every verdict other
 * than SMBDX_PUSHMSG_OK ends the connection.
 */
#ifndef _SMBDIRECT_PUSHMSG_H
#define _SMBDIRECT_PUSHMSG_H

#include <linux/build_bug.h>
#include <linux/types.h>
#include <smbdirect/pdu.h>

struct smbdx_caps;

/* SMBDX_FLAG_PUSH, the Data Transfer Flags bit, is in <smbdirect/pdu.h>. */

/* The body, version 1: exactly SMBDX_PUSHMSG_LEN octets, little-endian. */
#define SMBDX_PUSHMSG_VERSION		1
#define SMBDX_PUSHMSG_LEN		56

/**
 * enum smbdx_pushmsg_type - the control messages
 * @SMBDX_PUSHMSG_COMMIT_REQ: requester to responder: make a range of a
 *	region globally visible and/or persistent, then place a 64-bit value
 * @SMBDX_PUSHMSG_COMMIT_RESP: responder to requester: the commit with this
 *	sequence number was done (status 0) or refused (the connection ends)
 * @SMBDX_PUSHMSG_REVOKE_REQ: region owner to requester: give the region
 *	back
 * @SMBDX_PUSHMSG_REVOKE_ACK: requester to region owner: nothing of ours
 *	on that region is outstanding and nothing more will be issued
 */
enum smbdx_pushmsg_type {
	SMBDX_PUSHMSG_COMMIT_REQ = 1,
	SMBDX_PUSHMSG_COMMIT_RESP = 2,
	SMBDX_PUSHMSG_REVOKE_REQ = 3,
	SMBDX_PUSHMSG_REVOKE_ACK = 4,
};

/* COMMIT_REQ flags; the other types carry none. */
#define SMBDX_PUSHMSG_F_GLOBAL		0x0001	/* range globally visible */
#define SMBDX_PUSHMSG_F_PERSISTENT	0x0002	/* range persistent */
#define SMBDX_PUSHMSG_F_REGION		0x0004	/* the range is the whole region */
#define SMBDX_PUSHMSG_F_ATOMIC		0x0008	/* then place atomic_value */
#define SMBDX_PUSHMSG_F_ATOMIC_PERSISTENT 0x0010 /* and make it persistent */
#define SMBDX_PUSHMSG_F_KNOWN		0x001f
#define SMBDX_PUSHMSG_F_FLUSH		(SMBDX_PUSHMSG_F_GLOBAL | \
					 SMBDX_PUSHMSG_F_PERSISTENT)

/*
 * Access of a region and operations of a connection (the same bits as
 * the API's SMBDX_PUSH_GLOBAL, _PERSISTENT, _ATOMIC and as the CM blob's
 * SMBDX_CAP_FLUSH_GLOBAL, _FLUSH_PERSISTENT, _ATOMIC_WRITE).
 */
#define SMBDX_PUSHACC_GLOBAL		0x1
#define SMBDX_PUSHACC_PERSISTENT	0x2
#define SMBDX_PUSHACC_ATOMIC		0x4
#define SMBDX_PUSHACC_KNOWN		0x7

/**
 * enum smbdx_push_status - a COMMIT_RESP's status
 * @SMBDX_PUSH_ST_OK: done: the range reached the state asked for and the
 *	value was placed
 * @SMBDX_PUSH_ST_RANGE: the range or the atomic target lies outside the
 *	region
 * @SMBDX_PUSH_ST_ALIGN: the atomic target is not 8-byte aligned
 * @SMBDX_PUSH_ST_REVOKED: no such region (never registered, revoked, or
 *	the token does not match)
 * @SMBDX_PUSH_ST_ACCESS: the region was not registered for what was asked
 *	(persistence, global visibility, atomic write)
 * @SMBDX_PUSH_ST_FAILED: the responder could not do it
 * @SMBDX_PUSH_ST_COUNT: first value that is not a status
 *
 * Anything but OK ends the connection on both sides, with the cause the
 * status names.
 */
enum smbdx_push_status {
	SMBDX_PUSH_ST_OK,
	SMBDX_PUSH_ST_RANGE,
	SMBDX_PUSH_ST_ALIGN,
	SMBDX_PUSH_ST_REVOKED,
	SMBDX_PUSH_ST_ACCESS,
	SMBDX_PUSH_ST_FAILED,
	SMBDX_PUSH_ST_COUNT
};

/**
 * enum smbdx_pushmsg_verdict - what the decoder or the engine found
 * @SMBDX_PUSHMSG_OK: acceptable
 * @SMBDX_PUSHMSG_E_FRAGMENTED: RemainingDataLength is not 0 (a control
 *	message is never fragmented)
 * @SMBDX_PUSHMSG_E_LENGTH: DataLength is not SMBDX_PUSHMSG_LEN
 * @SMBDX_PUSHMSG_E_VERSION: unknown version
 * @SMBDX_PUSHMSG_E_TYPE: unknown type
 * @SMBDX_PUSHMSG_E_FLAGS: flags the type does not allow (unknown bits,
 *	a commit asking for nothing, contradictory bits)
 * @SMBDX_PUSHMSG_E_FIELDS: a field the type (or its flags) does not use is
 *	not zero, or a flushed range is empty
 * @SMBDX_PUSHMSG_E_STATUS: a status in a request, or an unknown status
 * @SMBDX_PUSHMSG_E_INVALIDATE: sent with Send with Invalidate (a control
 *	message never is)
 * @SMBDX_PUSHMSG_E_SEQ: a request out of sequence, or an answer to no
 *	outstanding request
 * @SMBDX_PUSHMSG_E_TOO_MANY: more outstanding requests than allowed
 * @SMBDX_PUSHMSG_E_UNNEGOTIATED: a control message on a connection whose
 *	peers did not both advertise push mode
 */
enum smbdx_pushmsg_verdict {
	SMBDX_PUSHMSG_OK,
	SMBDX_PUSHMSG_E_FRAGMENTED,
	SMBDX_PUSHMSG_E_LENGTH,
	SMBDX_PUSHMSG_E_VERSION,
	SMBDX_PUSHMSG_E_TYPE,
	SMBDX_PUSHMSG_E_FLAGS,
	SMBDX_PUSHMSG_E_FIELDS,
	SMBDX_PUSHMSG_E_STATUS,
	SMBDX_PUSHMSG_E_INVALIDATE,
	SMBDX_PUSHMSG_E_SEQ,
	SMBDX_PUSHMSG_E_TOO_MANY,
	SMBDX_PUSHMSG_E_UNNEGOTIATED,
};

/**
 * struct smbdx_pushmsg_wire - a control message's body, version 1
 * @version: SMBDX_PUSHMSG_VERSION
 * @type: enum smbdx_pushmsg_type
 * @flags: SMBDX_PUSHMSG_F_* (COMMIT_REQ only)
 * @seq: the request's number; an answer carries its request's
 * @region: the region's id (never reused on a connection)
 * @token: the region's token (its rkey), in requests
 * @offset: first byte of the range, from the region's start
 * @length: bytes of the range
 * @atomic_offset: where the 64-bit value goes, from the region's start
 * @atomic_value: the value
 * @status: enum smbdx_push_status (COMMIT_RESP only)
 * @reserved: sent zero, ignored on receipt
 *
 * Every field a type does not use (for COMMIT_REQ: that its flags do not
 * ask for) is sent zero and must be zero on receipt.
 */
struct smbdx_pushmsg_wire {
	u8 version;
	u8 type;
	__le16 flags;
	__le32 seq;
	__le32 region;
	__le32 token;
	__le64 offset;
	__le64 length;
	__le64 atomic_offset;
	__le64 atomic_value;
	__le32 status;
	__le32 reserved;
} __packed;
static_assert(sizeof(struct smbdx_pushmsg_wire) == SMBDX_PUSHMSG_LEN);

/**
 * struct smbdx_pushmsg - a control message in host form
 * @type: enum smbdx_pushmsg_type
 * @flags: SMBDX_PUSHMSG_F_*
 * @seq: sequence number
 * @region: region id
 * @token: region token
 * @offset: range start
 * @length: range length
 * @atomic_offset: atomic target
 * @atomic_value: atomic value
 * @status: enum smbdx_push_status
 */
struct smbdx_pushmsg {
	u8 type;
	u16 flags;
	u32 seq;
	u32 region;
	u32 token;
	u64 offset;
	u64 length;
	u64 atomic_offset;
	u64 atomic_value;
	u32 status;
};

/* ---- limits (design.rst, "Push mode": resources) ---- */

/* Commit requests a side lets its peer have outstanding (the CM blob's push_ird). */
#define SMBDX_PUSH_MAX_COMMITS		16
/* Regions one side may register on a connection, so revoke requests open at once. */
#define SMBDX_PUSH_MAX_REGIONS		64
/* Targets (the peer's regions) one side may attach on a connection. */
#define SMBDX_PUSH_MAX_TARGETS		64
/* The atomic write's size and alignment. */
#define SMBDX_PUSH_ATOMIC_LEN		8

/**
 * struct smbdx_push_mode - what push mode a connection has
 * @active: both peers advertised push mode: control messages may flow
 * @ops: SMBDX_PUSHACC_* this side may ask of the peer (what the peer
 *	serves), 0 if it may ask nothing
 * @served: SMBDX_PUSHACC_* this side serves the peer (what it advertised)
 * @commits: commit requests this side may have outstanding at the peer
 */
struct smbdx_push_mode {
	bool active;
	u8 ops;
	u8 served;
	u8 commits;
};

/**
 * struct smbdx_push_tx - numbering of the requests of one kind we send
 * @next: number of the next request (the first is 1; wraps)
 * @open: sent and not yet answered
 * @limit: most @open at once
 */
struct smbdx_push_tx {
	u32 next;
	u32 open;
	u32 limit;
};

/**
 * struct smbdx_push_rx - numbering of the requests of one kind we receive
 * @expect: number the next request must carry
 * @open: received, and our answer not yet posted
 * @limit: most @open at once; one more is a protocol error
 */
struct smbdx_push_rx {
	u32 expect;
	u32 open;
	u32 limit;
};

/**
 * enum smbdx_push_rstate - a region's revoke state (its owner's side)
 * @SMBDX_PUSH_RS_ACTIVE: usable; commits on it are served
 * @SMBDX_PUSH_RS_REVOKING: REVOKE_REQ sent; commits are still served
 *	(the peer may have sent them before it saw the request)
 * @SMBDX_PUSH_RS_REVOKED: the peer acknowledged: a commit on it now is
 *	refused (SMBDX_PUSH_ST_REVOKED) and the owner may invalidate it
 */
enum smbdx_push_rstate {
	SMBDX_PUSH_RS_ACTIVE,
	SMBDX_PUSH_RS_REVOKING,
	SMBDX_PUSH_RS_REVOKED,
};

/**
 * struct smbdx_push_rgn - a region's engine state
 * @state: enum smbdx_push_rstate
 * @seq: the number of its REVOKE_REQ, once REVOKING
 */
struct smbdx_push_rgn {
	enum smbdx_push_rstate state;
	u32 seq;
};

/**
 * enum smbdx_push_tstate - a target's revoke state (the requester's side)
 * @SMBDX_PUSH_TS_ATTACHED: operations may start
 * @SMBDX_PUSH_TS_REVOKING: the owner asked for it back; no operation
 *	starts, the last one to end sends the REVOKE_ACK
 * @SMBDX_PUSH_TS_REVOKED: acknowledged; no operation starts
 */
enum smbdx_push_tstate {
	SMBDX_PUSH_TS_ATTACHED,
	SMBDX_PUSH_TS_REVOKING,
	SMBDX_PUSH_TS_REVOKED,
};

/**
 * struct smbdx_push_tgt - a target's engine state
 * @state: enum smbdx_push_tstate
 * @inflight: operations started and not ended
 * @seq: the number of the owner's REVOKE_REQ, once REVOKING
 */
struct smbdx_push_tgt {
	enum smbdx_push_tstate state;
	u32 inflight;
	u32 seq;
};

/**
 * enum smbdx_push_revoke_action - what a REVOKE_REQ for a target asks of
 *	the glue
 * @SMBDX_PUSH_ACK_NOW: answer it at once (nothing is outstanding)
 * @SMBDX_PUSH_ACK_LATER: the last operation to end answers it
 * @SMBDX_PUSH_ACK_DUP: a second request for the same region: a protocol
 *	error (ids are never reused)
 */
enum smbdx_push_revoke_action {
	SMBDX_PUSH_ACK_NOW,
	SMBDX_PUSH_ACK_LATER,
	SMBDX_PUSH_ACK_DUP,
};

enum smbdx_pushmsg_verdict smbdx_pushmsg_frame(const struct smbdx_data_info *di);
enum smbdx_pushmsg_verdict smbdx_pushmsg_check(const struct smbdx_pushmsg *m);
enum smbdx_pushmsg_verdict smbdx_pushmsg_decode(const void *buf, u32 len,
						struct smbdx_pushmsg *m);
int smbdx_pushmsg_encode(const struct smbdx_pushmsg *m, void *buf, u32 size);
void smbdx_pushmsg_mark(void *hdr);
const char *smbdx_pushmsg_verdict_name(enum smbdx_pushmsg_verdict v);

void smbdx_push_negotiate(const struct smbdx_caps *own, bool sent,
			  const struct smbdx_caps *peer, bool found,
			  struct smbdx_push_mode *out);
int smbdx_push_range_check(u64 region_len, u64 offset, u64 length);
enum smbdx_push_status smbdx_push_commit_check(u64 region_len, u32 access,
					       const struct smbdx_pushmsg *req);
int smbdx_push_status_errno(enum smbdx_push_status st);

void smbdx_push_tx_init(struct smbdx_push_tx *tx, u32 limit);
int smbdx_push_tx_begin(struct smbdx_push_tx *tx, u32 *seq);
enum smbdx_pushmsg_verdict smbdx_push_tx_answer(struct smbdx_push_tx *tx,
						u32 seq);
void smbdx_push_tx_end(struct smbdx_push_tx *tx);
void smbdx_push_rx_init(struct smbdx_push_rx *rx, u32 limit);
enum smbdx_pushmsg_verdict smbdx_push_rx_request(struct smbdx_push_rx *rx,
						 u32 seq);
void smbdx_push_rx_answered(struct smbdx_push_rx *rx);

int smbdx_push_rgn_revoke(struct smbdx_push_rgn *r, u32 seq);
enum smbdx_pushmsg_verdict smbdx_push_rgn_ack(struct smbdx_push_rgn *r,
					      u32 seq);
enum smbdx_push_status smbdx_push_rgn_commit(const struct smbdx_push_rgn *r);
int smbdx_push_tgt_begin(struct smbdx_push_tgt *t);
bool smbdx_push_tgt_end(struct smbdx_push_tgt *t);
enum smbdx_push_revoke_action smbdx_push_tgt_revoke(struct smbdx_push_tgt *t,
						    u32 seq);

#endif /* _SMBDIRECT_PUSHMSG_H */
