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
 * Concurrency: no locking here. One struct smbdx_frag per message being sent
 * and one struct smbdx_reasm per connection, each used under the transport's
 * lock (or by a single context). Nothing sleeps or allocates.
 */
#ifndef _SMBDIRECT_FRAG_H
#define _SMBDIRECT_FRAG_H

#include <linux/types.h>
#include <smbdirect/pdu.h>

/**
 * struct smbdx_frag - fragmenter for one upper-layer message
 * @total: length of the message
 * @done: bytes already handed out in fragments
 * @max_payload: most payload bytes per fragment (MaxSendSize - 24)
 * @started: at least one fragment was handed out (a message of length 0
 *	still produces one)
 */
struct smbdx_frag {
	u32 total;
	u32 done;
	u32 max_payload;
	bool started;
};

/**
 * enum smbdx_reasm_state - what a received message meant for reassembly
 * @SMBDX_REASM_EMPTY: no payload (credits or keepalive only); reassembly
 *	unchanged
 * @SMBDX_REASM_PARTIAL: a fragment was added; more are expected
 * @SMBDX_REASM_COMPLETE: a fragment was added and the message is complete;
 *	pass it to the upper layer
 */
enum smbdx_reasm_state {
	SMBDX_REASM_EMPTY,
	SMBDX_REASM_PARTIAL,
	SMBDX_REASM_COMPLETE,
};

/**
 * struct smbdx_reasm_place - where a received fragment's payload goes
 * @state: see enum smbdx_reasm_state
 * @first: this fragment starts a new message
 * @offset: offset of the fragment's payload within the message
 * @length: payload bytes (DataLength)
 * @total: length of the whole message (known from the first fragment)
 */
struct smbdx_reasm_place {
	enum smbdx_reasm_state state;
	bool first;
	u32 offset;
	u32 length;
	u32 total;
};

/**
 * struct smbdx_reasm - reassembly state of a connection
 * @max_size: Connection.MaxFragmentedRecvSize
 * @total: length of the message being reassembled
 * @received: payload bytes of it received so far
 * @remaining: Connection.FragmentReassemblyRemaining
 * @active: a fragmented message is being reassembled
 */
struct smbdx_reasm {
	u32 max_size;
	u32 total;
	u32 received;
	u32 remaining;
	bool active;
};

/**
 * smbdx_frag_done() - has every fragment been handed out
 * @f: fragmenter
 *
 * Return: true once smbdx_frag_next() has nothing left.
 */
static inline bool smbdx_frag_done(const struct smbdx_frag *f)
{
	return f->started && f->done == f->total;
}

/**
 * smbdx_reasm_active() - is a fragmented message half received
 * @r: reassembly state
 *
 * Return: true between the first and the last fragment of a message.
 */
static inline bool smbdx_reasm_active(const struct smbdx_reasm *r)
{
	return r->active;
}

enum smbdx_verdict smbdx_frag_init(struct smbdx_frag *f, u32 len,
				   u32 max_send_size,
				 u32 max_fragmented_send_size);
u32 smbdx_frag_count(const struct smbdx_frag *f);
bool smbdx_frag_next(struct smbdx_frag *f, struct smbdx_data_info *di,
		     u32 *msg_offset);

void smbdx_reasm_init(struct smbdx_reasm *r, u32 max_fragmented_recv_size);
enum smbdx_verdict smbdx_reasm_add(struct smbdx_reasm *r,
				   const struct smbdx_data_info *di,
				 struct smbdx_reasm_place *out);

enum smbdx_verdict smbdx_frag_safe_max_recv_size(u16 recv_credit_max,
						 u32 max_receive_size, u32 *out);

#endif /* _SMBDIRECT_FRAG_H */
