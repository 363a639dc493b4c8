/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SMB Direct fragmentation (MS-SMBD 3.1.5.4) and reassembly (3.1.5.8).
 *
 * Pure bookkeeping: the fragmenter says which bytes of an upper-layer
 * message go into each Data Transfer message and with which header fields;
 * the reassembler checks the fields of each received fragment and says
 * where its bytes belong in the reassembled message. The transport owns
 * and copies the buffers. See smbdirect/frag.c.
 *
 * Concurrency: no locking here. One struct smbd_frag per message being sent
 * and one struct smbd_reasm per connection, each used under the transport's
 * lock (or by a single context). Nothing sleeps or allocates.
 */
#ifndef _SMBDIRECT_FRAG_H
#define _SMBDIRECT_FRAG_H

#include <linux/types.h>
#include <smbdirect/pdu.h>

/**
 * struct smbd_frag - fragmenter for one upper-layer message
 * @total: length of the message
 * @done: bytes already handed out in fragments
 * @max_payload: most payload bytes per fragment (MaxSendSize - 24)
 * @started: at least one fragment was handed out (a message of length 0
 *	still produces one)
 */
struct smbd_frag {
	u32 total;
	u32 done;
	u32 max_payload;
	bool started;
};

/**
 * enum smbd_reasm_state - what a received message meant for reassembly
 * @SMBD_REASM_EMPTY: no payload (credits or keepalive only); reassembly
 *	unchanged
 * @SMBD_REASM_PARTIAL: a fragment was added; more are expected
 * @SMBD_REASM_COMPLETE: a fragment was added and the message is complete;
 *	pass it to the upper layer
 */
enum smbd_reasm_state {
	SMBD_REASM_EMPTY,
	SMBD_REASM_PARTIAL,
	SMBD_REASM_COMPLETE,
};

/**
 * struct smbd_reasm_place - where a received fragment's payload goes
 * @state: see enum smbd_reasm_state
 * @first: this fragment starts a new message
 * @offset: offset of the fragment's payload within the message
 * @length: payload bytes (DataLength)
 * @total: length of the whole message (known from the first fragment)
 */
struct smbd_reasm_place {
	enum smbd_reasm_state state;
	bool first;
	u32 offset;
	u32 length;
	u32 total;
};

/**
 * struct smbd_reasm - reassembly state of a connection
 * @max_size: Connection.MaxFragmentedRecvSize
 * @total: length of the message being reassembled
 * @received: payload bytes of it received so far
 * @remaining: Connection.FragmentReassemblyRemaining
 * @active: a fragmented message is being reassembled
 */
struct smbd_reasm {
	u32 max_size;
	u32 total;
	u32 received;
	u32 remaining;
	bool active;
};

/**
 * smbd_frag_done() - has every fragment been handed out
 * @f: fragmenter
 *
 * Return: true once smbd_frag_next() has nothing left.
 */
static inline bool smbd_frag_done(const struct smbd_frag *f)
{
	return f->started && f->done == f->total;
}

/**
 * smbd_reasm_active() - is a fragmented message half received
 * @r: reassembly state
 *
 * Return: true between the first and the last fragment of a message.
 */
static inline bool smbd_reasm_active(const struct smbd_reasm *r)
{
	return r->active;
}

enum smbd_verdict smbd_frag_init(struct smbd_frag *f, u32 len,
				 u32 max_send_size,
				 u32 max_fragmented_send_size);
u32 smbd_frag_count(const struct smbd_frag *f);
bool smbd_frag_next(struct smbd_frag *f, struct smbd_data_info *di,
		    u32 *msg_offset);

void smbd_reasm_init(struct smbd_reasm *r, u32 max_fragmented_recv_size);
enum smbd_verdict smbd_reasm_add(struct smbd_reasm *r,
				 const struct smbd_data_info *di,
				 struct smbd_reasm_place *out);

enum smbd_verdict smbd_frag_safe_max_recv_size(u16 recv_credit_max,
					       u32 max_receive_size, u32 *out);

#endif /* _SMBDIRECT_FRAG_H */
