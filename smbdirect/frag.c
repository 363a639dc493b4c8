// SPDX-License-Identifier: GPL-2.0
/*
 * SMB Direct fragmentation and reassembly bookkeeping (MS-SMBD 3.1.5.4,
 * 3.1.5.8) and the safe MaxFragmentedRecvSize.
 *
 * Sending: smbdx_frag_init() checks the message against the peer's
 * MaxFragmentedSize (a longer one is a local error, 3.1.4.2) and
 * smbdx_frag_count() says how many Data Transfer messages it needs. The
 * transport queues them all with smbdx_credits_queue() and, each time the
 * credit engine lets the head of the queue go, smbdx_frag_next() gives the
 * next fragment: payload at DataOffset 24, at most MaxSendSize - 24 bytes,
 * RemainingDataLength = bytes still to send after it. A message of length
 * 0 is one message without payload (DataOffset, DataLength and
 * RemainingDataLength 0), as 3.1.5.4 prescribes for an empty buffer.
 *
 * Receiving: smbdx_reasm_add() takes each header accepted by
 * smbdx_data_decode(). A message whose RemainingDataLength is 0 and that is
 * not continuing a fragmented one is complete by itself. Otherwise the
 * first fragment fixes the message length (DataLength +
 * RemainingDataLength, at most MaxFragmentedRecvSize) and each following
 * fragment must reduce the remaining count by exactly its DataLength; the
 * message completes when RemainingDataLength reaches 0.
 *
 * Messages without payload (DataLength 0) carry credits and keepalives and
 * never touch the reassembly state, even between two fragments. A literal
 * reading of 3.1.5.8 would end the connection when such a message (with
 * RemainingDataLength 0) arrives mid-message; older Linux senders emitted
 * exactly that (LESSONS: interleaved fragments) and their payload stream
 * is still intact, so we accept it. Our own sender never interleaves.
 *
 * Concurrency: pure code, no locking; the caller serialises. Nothing sleeps
 * or allocates.
 */

#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "frag.h"

/**
 * smbdx_frag_init() - prepare to fragment one upper-layer message
 * @f: fragmenter to set up
 * @len: length of the message
 * @max_send_size: Connection.MaxSendSize (negotiated)
 * @max_fragmented_send_size: Connection.MaxFragmentedSendSize (the peer's
 *	MaxFragmentedSize)
 *
 * Return: SMBDX_OK; SMBDX_ERR_MSG_TOO_BIG if @len exceeds
 * @max_fragmented_send_size (3.1.4.2, 3.1.5.4); SMBDX_ERR_INVALID if
 * @max_send_size leaves no room for a payload after the 24-byte header.
 */
enum smbdx_verdict smbdx_frag_init(struct smbdx_frag *f, u32 len,
				   u32 max_send_size,
				 u32 max_fragmented_send_size)
{
	memset(f, 0, sizeof(*f));
	if (max_send_size <= SMBDX_DATA_PAYLOAD_OFFSET)
		return SMBDX_ERR_INVALID;
	if (len > max_fragmented_send_size)
		return SMBDX_ERR_MSG_TOO_BIG;
	f->total = len;
	f->max_payload = max_send_size - SMBDX_DATA_PAYLOAD_OFFSET;
	return SMBDX_OK;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_frag_init);

/**
 * smbdx_frag_count() - number of Data Transfer messages for the message
 * @f: fragmenter set up by smbdx_frag_init()
 *
 * Return: total number of fragments of the whole message (1 for a message
 * of length 0), regardless of how many were already handed out.
 */
u32 smbdx_frag_count(const struct smbdx_frag *f)
{
	if (!f->total || !f->max_payload)
		return 1;
	return f->total / f->max_payload + !!(f->total % f->max_payload);
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_frag_count);

/**
 * smbdx_frag_next() - data fields of the next fragment
 * @f: fragmenter
 * @di: its RemainingDataLength, DataOffset and DataLength are set; credit
 *	and flag fields are left as smbdx_credits_next_send() set them
 * @msg_offset: offset in the upper-layer message of the payload to copy
 *	(0 for an empty message)
 *
 * Return: true if a fragment was produced, false if the message is done.
 */
bool smbdx_frag_next(struct smbdx_frag *f, struct smbdx_data_info *di,
		     u32 *msg_offset)
{
	u32 len;

	if (smbdx_frag_done(f))
		return false;

	f->started = true;
	*msg_offset = f->done;
	if (!f->total) {
		di->remaining_data_length = 0;
		di->data_offset = 0;
		di->data_length = 0;
		return true;
	}
	len = min(f->total - f->done, f->max_payload);
	f->done += len;
	di->remaining_data_length = f->total - f->done;
	di->data_offset = SMBDX_DATA_PAYLOAD_OFFSET;
	di->data_length = len;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_frag_next);

/**
 * smbdx_reasm_init() - set up (or reset) reassembly for a connection
 * @r: reassembly state
 * @max_fragmented_recv_size: Connection.MaxFragmentedRecvSize
 */
void smbdx_reasm_init(struct smbdx_reasm *r, u32 max_fragmented_recv_size)
{
	memset(r, 0, sizeof(*r));
	r->max_size = max_fragmented_recv_size;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_reasm_init);

/**
 * smbdx_reasm_add() - account for a received Data Transfer message
 * @r: reassembly state
 * @di: header accepted by smbdx_data_decode()
 * @out: where the payload goes and whether the message is complete
 *
 * Return: SMBDX_OK; SMBDX_ERR_DATA_TOO_BIG if a first fragment announces a
 * message above MaxFragmentedRecvSize; SMBDX_ERR_REASM_MISMATCH if a later
 * fragment's RemainingDataLength is not the remaining count minus its
 * DataLength. Errors terminate the connection; the state is unchanged.
 */
enum smbdx_verdict smbdx_reasm_add(struct smbdx_reasm *r,
				   const struct smbdx_data_info *di,
				 struct smbdx_reasm_place *out)
{
	u32 len = di->data_length;
	u32 rem = di->remaining_data_length;
	u64 total;

	memset(out, 0, sizeof(*out));
	if (!len) {
		out->state = SMBDX_REASM_EMPTY;
		out->total = r->active ? r->total : 0;
		out->offset = r->active ? r->received : 0;
		return SMBDX_OK;
	}

	if (!r->active) {
		total = (u64)len + rem;
		if (total > r->max_size)
			return SMBDX_ERR_DATA_TOO_BIG;
		out->first = true;
		out->offset = 0;
		out->length = len;
		out->total = total;
		if (!rem) {
			out->state = SMBDX_REASM_COMPLETE;
			return SMBDX_OK;
		}
		r->active = true;
		r->total = total;
		r->received = len;
		r->remaining = rem;
		out->state = SMBDX_REASM_PARTIAL;
		return SMBDX_OK;
	}

	if (len > r->remaining || r->remaining - len != rem)
		return SMBDX_ERR_REASM_MISMATCH;
	out->offset = r->received;
	out->length = len;
	out->total = r->total;
	r->received += len;
	r->remaining = rem;
	if (rem) {
		out->state = SMBDX_REASM_PARTIAL;
		return SMBDX_OK;
	}
	out->state = SMBDX_REASM_COMPLETE;
	r->active = false;
	r->total = 0;
	r->received = 0;
	return SMBDX_OK;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_reasm_add);

/**
 * smbdx_frag_safe_max_recv_size() - a MaxFragmentedRecvSize that cannot stall
 * @recv_credit_max: receive buffers (ReceiveCreditMax)
 * @max_receive_size: size of each receive buffer (our MaxReceiveSize)
 * @out: the computed size, set even on failure
 *
 * If the transport keeps receive buffers queued until a fragmented message
 * is complete, one message must never be able to hold every buffer: none
 * would be left to repost and grant, and the connection would stall
 * (LESSONS: 1 MiB with 255 buffers of 1364 bytes). We allow half of the
 * buffers, filled with full-size fragments: floor(@recv_credit_max / 2) *
 * (@max_receive_size - 24). With 255 buffers of 1364 bytes that is
 * 170180. The bound assumes full-size fragments; a peer may legally send
 * smaller ones, so the transport should copy fragments out rather than
 * hold buffers once half of them are held.
 *
 * Return: SMBDX_OK, or SMBDX_ERR_FRAG_CONFIG if the result is below the
 * protocol minimum of 131072 (more or larger receive buffers are needed).
 */
enum smbdx_verdict smbdx_frag_safe_max_recv_size(u16 recv_credit_max,
						 u32 max_receive_size, u32 *out)
{
	u32 payload = max_receive_size > SMBDX_DATA_PAYLOAD_OFFSET ?
		      max_receive_size - SMBDX_DATA_PAYLOAD_OFFSET : 0;
	u64 size = (u64)(recv_credit_max / 2) * payload;

	*out = min_t(u64, size, U32_MAX);
	return *out >= SMBDX_PROTO_MIN_FRAG_SIZE ? SMBDX_OK : SMBDX_ERR_FRAG_CONFIG;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_frag_safe_max_recv_size);
