// SPDX-License-Identifier: GPL-2.0
/*
 * SMB Direct (MS-SMBD) message codec: encode, decode and validate the
 * Negotiate Request and Response, the Data Transfer header, Buffer
 * Descriptor V1 arrays, and the iWARP IRD/ORD private data of appendix A.
 * It also computes the negotiated connection parameters from our
 * configuration and the peer's negotiate message (3.1.5.6, 3.1.5.7).
 *
 * Normal operation: the transport hands every received buffer with its
 * length to a decoder, which checks each receive-side rule of MS-SMBD
 * 3.1.5.6 - 3.1.5.8 in the order the specification lists them and returns
 * an enum smbdx_verdict. SMBDX_OK means the fields in the output structure may
 * be used; anything else names the one rule that was broken, so the
 * transport can count errors by cause and log smbdx_verdict_str().
 *
 * Concurrency: pure code. No locking, no sleeping, no allocation, no verbs;
 * every function touches only its arguments. The caller serialises access
 * to the structures it passes.
 *
 * Hostile input: buffers are never read before their length has been
 * checked; sums of wire fields are computed in 64 bits so a peer cannot
 * wrap them around.
 */

#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/swab.h>
#include <linux/unaligned.h>
#include <kunit/visibility.h>

#include <smbdirect/pdu.h>
#include "frag.h"

/* SMBDX_ERR_<ID> is entry <ID> - 1: the list in the enum's order. */
static const struct smbdx_verdict_info {
	enum smbdx_verdict v;
	const char *name;
	const char *rule;
} smbdx_verdicts[] = {
#define SMBDX_VERDICT(id, ...) { SMBDX_ERR_##id, __VA_ARGS__ },
#include <smbdirect/pdu_verdicts.h>
#undef SMBDX_VERDICT
};

static_assert(ARRAY_SIZE(smbdx_verdicts) == SMBDX_VERDICT_COUNT - 1);

/**
 * smbdx_verdict_str() - one-line description of a verdict
 * @v: verdict
 *
 * Return: a static string naming the rule that was broken (with its
 * MS-SMBD section), "ok" for SMBDX_OK, or "unknown verdict" if @v is out of
 * range. Never NULL.
 */
const char *smbdx_verdict_str(enum smbdx_verdict v)
{
	if (v == SMBDX_OK)
		return "ok";
	if ((unsigned int)v >= SMBDX_VERDICT_COUNT)
		return "unknown verdict";
	return smbdx_verdicts[v - 1].rule;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_verdict_str);

/**
 * smbdx_verdict_name() - short name of a verdict
 * @v: verdict
 *
 * Return: a static string of lower-case letters, digits and underscores
 * ("ok" for SMBDX_OK), the name debugfs and the tracepoints use.
 */
const char *smbdx_verdict_name(enum smbdx_verdict v)
{
	if (v == SMBDX_OK)
		return "ok";
	if ((unsigned int)v >= SMBDX_VERDICT_COUNT)
		return "unknown";
	return smbdx_verdicts[v - 1].name;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_verdict_name);

/**
 * smbdx_verdict_nt_status() - Status for a failed Negotiate Response
 * @v: verdict of negotiate request processing at the passive side
 *
 * MS-SMBD 3.1.5.6 answers two failures with a Negotiate Response carrying a
 * Status (3.1.5.3): a version range without 0x0100 (STATUS_NOT_SUPPORTED)
 * and a credit set-up that left no receive credit (any error status; we use
 * STATUS_INSUFFICIENT_RESOURCES like Windows). Every other failure
 * terminates the connection without a response.
 *
 * Return: the NTSTATUS to send with smbdx_negotiate_resp_encode_failure(),
 * or 0 if the connection must be terminated without a response (or @v is
 * SMBDX_OK).
 */
u32 smbdx_verdict_nt_status(enum smbdx_verdict v)
{
	switch (v) {
	case SMBDX_ERR_NEG_REQ_VERSION:
		return SMBDX_STATUS_NOT_SUPPORTED;
	case SMBDX_ERR_NEG_NO_RECV_CREDITS:
		return SMBDX_STATUS_INSUFFICIENT_RESOURCES;
	default:
		return SMBDX_STATUS_SUCCESS;
	}
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_verdict_nt_status);

/**
 * smbdx_config_init_defaults() - fill in the project's default settings
 * @cfg: configuration to fill
 *
 * Receive credit max and send credit target 255, max send and receive size
 * 1364, max read/write size 8 MiB, keepalive 120 s
 * (Documentation/admin-guide.rst, "Module parameters"), and a max
 * fragmented receive size computed by
 * smbdx_frag_safe_max_recv_size() so reassembly can never hold every receive
 * buffer (170180 bytes with these values).
 */
void smbdx_config_init_defaults(struct smbdx_proto_config *cfg)
{
	u32 frag;

	cfg->recv_credit_max = SMBDX_DEF_RECV_CREDIT_MAX;
	cfg->send_credit_target = SMBDX_DEF_SEND_CREDIT_TARGET;
	cfg->max_send_size = SMBDX_DEF_MAX_SEND_SIZE;
	cfg->max_receive_size = SMBDX_DEF_MAX_RECV_SIZE;
	cfg->max_read_write_size = SMBDX_DEF_MAX_RW_SIZE;
	cfg->keepalive_interval = SMBDX_DEF_KEEPALIVE_SEC;
	smbdx_frag_safe_max_recv_size(cfg->recv_credit_max,
				      cfg->max_receive_size, &frag);
	cfg->max_fragmented_recv_size = frag;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_config_init_defaults);

/**
 * smbdx_config_validate() - check our own settings against the protocol
 * @cfg: configuration to check
 *
 * Our values go on the wire in the negotiate messages, so they must obey the
 * same minimums we demand of a peer (3.1.5.6, 3.1.5.7): at least one credit
 * requested, MaxReceiveSize (and MaxSendSize, our PreferredSendSize) at
 * least 128, MaxFragmentedSize at least 131072. ReceiveCreditMax must be at
 * least 2: the credit engine keeps one receive in reserve for the grant our
 * last send credit must carry (3.1.5.1); with a single receive buffer two
 * peers can only pass one credit back and forth or stall.
 *
 * Return: SMBDX_OK or SMBDX_ERR_INVALID.
 */
enum smbdx_verdict smbdx_config_validate(const struct smbdx_proto_config *cfg)
{
	if (cfg->recv_credit_max < 2 || !cfg->send_credit_target)
		return SMBDX_ERR_INVALID;
	if (cfg->max_send_size < SMBDX_PROTO_MIN_RECV_SIZE ||
	    cfg->max_receive_size < SMBDX_PROTO_MIN_RECV_SIZE)
		return SMBDX_ERR_INVALID;
	if (cfg->max_fragmented_recv_size < SMBDX_PROTO_MIN_FRAG_SIZE)
		return SMBDX_ERR_INVALID;
	return SMBDX_OK;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_config_validate);

/**
 * smbdx_negotiate_req_encode() - build our Negotiate Request (3.1.5.2)
 * @cfg: our configuration
 * @req: wire message to fill (20 bytes)
 */
void smbdx_negotiate_req_encode(const struct smbdx_proto_config *cfg,
				struct smbdx_negotiate_req *req)
{
	memset(req, 0, sizeof(*req));
	req->min_version = cpu_to_le16(SMBDX_VERSION_1_0);
	req->max_version = cpu_to_le16(SMBDX_VERSION_1_0);
	req->credits_requested = cpu_to_le16(cfg->send_credit_target);
	req->preferred_send_size = cpu_to_le32(cfg->max_send_size);
	req->max_receive_size = cpu_to_le32(cfg->max_receive_size);
	req->max_fragmented_size = cpu_to_le32(cfg->max_fragmented_recv_size);
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_negotiate_req_encode);

/**
 * smbdx_negotiate_req_decode() - decode and validate a Negotiate Request
 * @buf: received message
 * @len: number of bytes received
 * @out: decoded fields; valid whenever @len >= 20, zeroed otherwise
 *
 * Checks, in the order of MS-SMBD 3.1.5.6: length at least 20; version
 * range includes 0x0100 (a range with MinVersion > MaxVersion is empty);
 * CreditsRequested > 0; MaxReceiveSize >= 128; MaxFragmentedSize >= 131072.
 * Reserved is ignored.
 *
 * Return: SMBDX_OK or the SMBDX_ERR_NEG_REQ_* verdict of the first failed
 * check. smbdx_verdict_nt_status() says whether to answer with a failed
 * Negotiate Response or to terminate silently.
 */
enum smbdx_verdict smbdx_negotiate_req_decode(const void *buf, u32 len,
					      struct smbdx_neg_req_info *out)
{
	const struct smbdx_negotiate_req *req = buf;

	memset(out, 0, sizeof(*out));
	if (!buf || len < SMBDX_NEGOTIATE_REQ_LEN)
		return SMBDX_ERR_NEG_REQ_SHORT;

	out->min_version = le16_to_cpu(req->min_version);
	out->max_version = le16_to_cpu(req->max_version);
	out->credits_requested = le16_to_cpu(req->credits_requested);
	out->preferred_send_size = le32_to_cpu(req->preferred_send_size);
	out->max_receive_size = le32_to_cpu(req->max_receive_size);
	out->max_fragmented_size = le32_to_cpu(req->max_fragmented_size);

	if (out->min_version > SMBDX_VERSION_1_0 ||
	    out->max_version < SMBDX_VERSION_1_0)
		return SMBDX_ERR_NEG_REQ_VERSION;
	if (!out->credits_requested)
		return SMBDX_ERR_NEG_REQ_CREDITS;
	if (out->max_receive_size < SMBDX_PROTO_MIN_RECV_SIZE)
		return SMBDX_ERR_NEG_REQ_MAX_RECV;
	if (out->max_fragmented_size < SMBDX_PROTO_MIN_FRAG_SIZE)
		return SMBDX_ERR_NEG_REQ_MAX_FRAG;
	return SMBDX_OK;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_negotiate_req_decode);

/* MaxReceiveSize = min(ours, peer's PreferredSendSize), at least 128 */
static u32 smbdx_negotiated_recv_size(u32 ours, u32 peer_pref_send)
{
	return max_t(u32, min(ours, peer_pref_send), SMBDX_PROTO_MIN_RECV_SIZE);
}

/**
 * smbdx_params_from_req() - negotiated parameters at the passive side
 * @cfg: our configuration
 * @req: a Negotiate Request that smbdx_negotiate_req_decode() accepted
 * @p: parameters to fill
 *
 * MS-SMBD 3.1.5.6: protocol 0x0100; ReceiveCreditTarget = CreditsRequested;
 * MaxReceiveSize = min(ours, PreferredSendSize) but at least 128;
 * MaxSendSize = min(ours, peer's MaxReceiveSize); MaxFragmentedSendSize =
 * peer's MaxFragmentedSize. MaxReadWriteSize is ours (3.1.7.2) and we hold
 * no send credit until the peer's first data message grants some.
 */
void smbdx_params_from_req(const struct smbdx_proto_config *cfg,
			   const struct smbdx_neg_req_info *req,
			  struct smbdx_proto_params *p)
{
	memset(p, 0, sizeof(*p));
	p->protocol = SMBDX_VERSION_1_0;
	p->send_credits = 0;
	p->send_credit_target = cfg->send_credit_target;
	p->recv_credit_max = cfg->recv_credit_max;
	p->recv_credit_target = req->credits_requested;
	p->max_receive_size = smbdx_negotiated_recv_size(cfg->max_receive_size,
							 req->preferred_send_size);
	p->max_send_size = min(cfg->max_send_size, req->max_receive_size);
	p->max_fragmented_send_size = req->max_fragmented_size;
	p->max_fragmented_recv_size = cfg->max_fragmented_recv_size;
	p->max_read_write_size = cfg->max_read_write_size;
	p->keepalive_interval = cfg->keepalive_interval;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_params_from_req);

/**
 * smbdx_negotiate_resp_encode() - build a successful Negotiate Response
 * @p: negotiated parameters (from smbdx_params_from_req())
 * @credits_granted: receive credits granted, from smbdx_credits_grant_initial()
 * @resp: wire message to fill (32 bytes)
 *
 * MS-SMBD 3.1.5.3. PreferredSendSize is our negotiated MaxSendSize, which is
 * never above the peer's MaxReceiveSize, as 2.2.2 requires.
 */
void smbdx_negotiate_resp_encode(const struct smbdx_proto_params *p,
				 u16 credits_granted,
				struct smbdx_negotiate_resp *resp)
{
	memset(resp, 0, sizeof(*resp));
	resp->min_version = cpu_to_le16(SMBDX_VERSION_1_0);
	resp->max_version = cpu_to_le16(SMBDX_VERSION_1_0);
	resp->negotiated_version = cpu_to_le16(p->protocol);
	resp->credits_requested = cpu_to_le16(p->send_credit_target);
	resp->credits_granted = cpu_to_le16(credits_granted);
	resp->status = cpu_to_le32(SMBDX_STATUS_SUCCESS);
	resp->max_read_write_size = cpu_to_le32(p->max_read_write_size);
	resp->preferred_send_size = cpu_to_le32(p->max_send_size);
	resp->max_receive_size = cpu_to_le32(p->max_receive_size);
	resp->max_fragmented_size = cpu_to_le32(p->max_fragmented_recv_size);
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_negotiate_resp_encode);

/**
 * smbdx_negotiate_resp_encode_failure() - build a failed Negotiate Response
 * @status: NTSTATUS to report, from smbdx_verdict_nt_status()
 * @resp: wire message to fill (32 bytes)
 *
 * MS-SMBD 3.1.5.3: MinVersion and MaxVersion 0x0100, Status set, every other
 * field 0. The caller then terminates the connection gracefully.
 */
void smbdx_negotiate_resp_encode_failure(u32 status,
					 struct smbdx_negotiate_resp *resp)
{
	memset(resp, 0, sizeof(*resp));
	resp->min_version = cpu_to_le16(SMBDX_VERSION_1_0);
	resp->max_version = cpu_to_le16(SMBDX_VERSION_1_0);
	resp->status = cpu_to_le32(status);
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_negotiate_resp_encode_failure);

/**
 * smbdx_negotiate_resp_decode() - decode and validate a Negotiate Response
 * @buf: received message
 * @len: number of bytes received
 * @cfg: our configuration (its max_receive_size is the MaxReceiveSize we
 *	sent in our request)
 * @out: decoded fields; valid whenever @len >= 32, zeroed otherwise
 *
 * Checks of MS-SMBD 3.1.5.7: length at least 32; Status 0 (checked first,
 * so that a failure response, whose other fields are all 0, is reported as
 * such); NegotiatedVersion 0x0100; MaxReceiveSize >= 128;
 * MaxFragmentedSize >= 131072; CreditsGranted > 0; CreditsRequested > 0;
 * PreferredSendSize <= our MaxReceiveSize.
 *
 * Return: SMBDX_OK or the SMBDX_ERR_NEG_RESP_* verdict of the first failed
 * check; on any failure the connection must be terminated.
 */
enum smbdx_verdict smbdx_negotiate_resp_decode(const void *buf, u32 len,
					       const struct smbdx_proto_config *cfg,
					     struct smbdx_neg_resp_info *out)
{
	const struct smbdx_negotiate_resp *resp = buf;

	memset(out, 0, sizeof(*out));
	if (!buf || len < SMBDX_NEGOTIATE_RESP_LEN)
		return SMBDX_ERR_NEG_RESP_SHORT;

	out->min_version = le16_to_cpu(resp->min_version);
	out->max_version = le16_to_cpu(resp->max_version);
	out->negotiated_version = le16_to_cpu(resp->negotiated_version);
	out->credits_requested = le16_to_cpu(resp->credits_requested);
	out->credits_granted = le16_to_cpu(resp->credits_granted);
	out->status = le32_to_cpu(resp->status);
	out->max_read_write_size = le32_to_cpu(resp->max_read_write_size);
	out->preferred_send_size = le32_to_cpu(resp->preferred_send_size);
	out->max_receive_size = le32_to_cpu(resp->max_receive_size);
	out->max_fragmented_size = le32_to_cpu(resp->max_fragmented_size);

	if (out->status != SMBDX_STATUS_SUCCESS)
		return SMBDX_ERR_NEG_RESP_STATUS;
	if (out->negotiated_version != SMBDX_VERSION_1_0)
		return SMBDX_ERR_NEG_RESP_VERSION;
	if (out->max_receive_size < SMBDX_PROTO_MIN_RECV_SIZE)
		return SMBDX_ERR_NEG_RESP_MAX_RECV;
	if (out->max_fragmented_size < SMBDX_PROTO_MIN_FRAG_SIZE)
		return SMBDX_ERR_NEG_RESP_MAX_FRAG;
	if (!out->credits_granted)
		return SMBDX_ERR_NEG_RESP_CREDITS_GRANTED;
	if (!out->credits_requested)
		return SMBDX_ERR_NEG_RESP_CREDITS_REQUESTED;
	if (out->preferred_send_size > cfg->max_receive_size)
		return SMBDX_ERR_NEG_RESP_PREF_SEND;
	return SMBDX_OK;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_negotiate_resp_decode);

/**
 * smbdx_params_from_resp() - negotiated parameters at the active side
 * @cfg: our configuration
 * @resp: a Negotiate Response that smbdx_negotiate_resp_decode() accepted
 * @p: parameters to fill
 *
 * MS-SMBD 3.1.5.7: protocol 0x0100; ReceiveCreditTarget = CreditsRequested;
 * MaxReceiveSize = min(ours, PreferredSendSize) but at least 128;
 * MaxSendSize = min(ours, peer's MaxReceiveSize); MaxReadWriteSize =
 * min(ours, peer's); SendCredits = CreditsGranted; MaxFragmentedSendSize =
 * peer's MaxFragmentedSize.
 */
void smbdx_params_from_resp(const struct smbdx_proto_config *cfg,
			    const struct smbdx_neg_resp_info *resp,
			   struct smbdx_proto_params *p)
{
	memset(p, 0, sizeof(*p));
	p->protocol = SMBDX_VERSION_1_0;
	p->send_credits = resp->credits_granted;
	p->send_credit_target = cfg->send_credit_target;
	p->recv_credit_max = cfg->recv_credit_max;
	p->recv_credit_target = resp->credits_requested;
	p->max_receive_size = smbdx_negotiated_recv_size(cfg->max_receive_size,
							 resp->preferred_send_size);
	p->max_send_size = min(cfg->max_send_size, resp->max_receive_size);
	p->max_fragmented_send_size = resp->max_fragmented_size;
	p->max_fragmented_recv_size = cfg->max_fragmented_recv_size;
	p->max_read_write_size = min(cfg->max_read_write_size,
				     resp->max_read_write_size);
	p->keepalive_interval = cfg->keepalive_interval;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_params_from_resp);

/**
 * smbdx_data_decode() - decode and validate a Data Transfer message header
 * @buf: received message
 * @len: number of bytes received
 * @max_fragmented_recv_size: Connection.MaxFragmentedRecvSize
 * @out: decoded fields; valid whenever @len >= 20, zeroed otherwise
 *
 * Checks of MS-SMBD 3.1.5.8 in the order listed there: length at least 20;
 * CreditsRequested at least 1; DataOffset 8-byte aligned; DataOffset +
 * DataLength (computed without wrapping; a sum above 32 bits gets its own
 * verdict) not beyond @len; DataLength + RemainingDataLength (64-bit sum)
 * not above @max_fragmented_recv_size. Then one rule of 2.2.3: a payload
 * (DataLength > 0) must not start inside the 20-byte header. Flags bits we
 * do not know, Reserved and padding are ignored. DataOffset is not required
 * to be 0 when DataLength is 0 (a sender rule only), but it must still be
 * aligned and within the message.
 *
 * On SMBDX_OK the payload is the @out->data_length bytes at
 * @buf + @out->data_offset, entirely inside the @len received bytes.
 *
 * Return: SMBDX_OK or the SMBDX_ERR_DATA_* verdict of the first failed check;
 * on any failure the connection must be terminated.
 */
enum smbdx_verdict smbdx_data_decode(const void *buf, u32 len,
				     u32 max_fragmented_recv_size,
				   struct smbdx_data_info *out)
{
	const struct smbdx_data_transfer *hdr = buf;
	u64 end;

	memset(out, 0, sizeof(*out));
	if (!buf || len < SMBDX_DATA_HDR_LEN)
		return SMBDX_ERR_DATA_SHORT;

	out->credits_requested = le16_to_cpu(hdr->credits_requested);
	out->credits_granted = le16_to_cpu(hdr->credits_granted);
	out->flags = le16_to_cpu(hdr->flags);
	out->remaining_data_length = le32_to_cpu(hdr->remaining_data_length);
	out->data_offset = le32_to_cpu(hdr->data_offset);
	out->data_length = le32_to_cpu(hdr->data_length);

	if (!out->credits_requested)
		return SMBDX_ERR_DATA_CREDITS_REQUESTED;
	if (!IS_ALIGNED(out->data_offset, SMBDX_DATA_ALIGN))
		return SMBDX_ERR_DATA_OFFSET_ALIGN;
	end = (u64)out->data_offset + out->data_length;
	if (end > U32_MAX)
		return SMBDX_ERR_DATA_OVERFLOW;
	if (end > len)
		return SMBDX_ERR_DATA_PAST_END;
	if ((u64)out->data_length + out->remaining_data_length >
	    max_fragmented_recv_size)
		return SMBDX_ERR_DATA_TOO_BIG;
	if (out->data_length && out->data_offset < SMBDX_DATA_HDR_LEN)
		return SMBDX_ERR_DATA_OFFSET_OVERLAP;
	return SMBDX_OK;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_data_decode);

/**
 * smbdx_data_wire_len() - bytes a Data Transfer message occupies on the wire
 * @di: header fields of a message accepted by smbdx_data_encode() or
 *	smbdx_data_decode()
 *
 * Return: 20 for a message without payload, DataOffset + DataLength
 * otherwise (saturated at U32_MAX if the fields are inconsistent).
 */
u32 smbdx_data_wire_len(const struct smbdx_data_info *di)
{
	u64 end;

	if (!di->data_length)
		return SMBDX_DATA_HDR_LEN;
	end = (u64)di->data_offset + di->data_length;
	return end > U32_MAX ? U32_MAX : (u32)end;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_data_wire_len);

/**
 * smbdx_data_encode() - write a Data Transfer header and its padding
 * @buf: start of the send buffer
 * @buf_len: size of @buf in bytes
 * @di: header fields (credits and flags from smbdx_credits_next_send(), data
 *	fields from smbdx_frag_next())
 *
 * Enforces the sender rules of MS-SMBD 2.2.3 and 3.1.5.4: a message without
 * payload has DataOffset, DataLength and RemainingDataLength 0; a payload
 * starts at an 8-byte aligned DataOffset of at least 24 (after the header
 * and its padding); only defined Flags are sent. Writes the 20-byte header
 * (Reserved 0) and zeroes the padding up to DataOffset; the caller places
 * the payload at @buf + DataOffset.
 *
 * Return: SMBDX_OK; SMBDX_ERR_INVALID if @di breaks a sender rule;
 * SMBDX_ERR_BUF_TOO_SMALL if the header and padding do not fit in @buf_len.
 */
enum smbdx_verdict smbdx_data_encode(void *buf, u32 buf_len,
				     const struct smbdx_data_info *di)
{
	struct smbdx_data_transfer *hdr = buf;
	u32 hdr_len = SMBDX_DATA_HDR_LEN;

	if (di->flags & ~SMBDX_FLAG_RESPONSE_REQUESTED)
		return SMBDX_ERR_INVALID;
	if (!di->data_length) {
		if (di->data_offset || di->remaining_data_length)
			return SMBDX_ERR_INVALID;
	} else {
		if (!IS_ALIGNED(di->data_offset, SMBDX_DATA_ALIGN) ||
		    di->data_offset < SMBDX_DATA_PAYLOAD_OFFSET ||
		    (u64)di->data_offset + di->data_length > U32_MAX)
			return SMBDX_ERR_INVALID;
		hdr_len = di->data_offset;
	}
	if (!buf || buf_len < hdr_len)
		return SMBDX_ERR_BUF_TOO_SMALL;

	memset(buf, 0, hdr_len);
	hdr->credits_requested = cpu_to_le16(di->credits_requested);
	hdr->credits_granted = cpu_to_le16(di->credits_granted);
	hdr->flags = cpu_to_le16(di->flags);
	hdr->remaining_data_length = cpu_to_le32(di->remaining_data_length);
	hdr->data_offset = cpu_to_le32(di->data_offset);
	hdr->data_length = cpu_to_le32(di->data_length);
	return SMBDX_OK;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_data_encode);

/**
 * smbdx_bd_v1_encode() - write one Buffer Descriptor V1 (2.2.3.1)
 * @d: descriptor in host byte order
 * @wire: 16-byte wire descriptor to fill
 */
void smbdx_bd_v1_encode(const struct smbdx_buffer_desc *d,
			struct smbdx_buffer_desc_v1 *wire)
{
	wire->offset = cpu_to_le64(d->offset);
	wire->token = cpu_to_le32(d->token);
	wire->length = cpu_to_le32(d->length);
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_bd_v1_encode);

/**
 * smbdx_bd_v1_count() - number of descriptors in a received array
 * @len: length in bytes of the array as the upper layer found it
 * @count: number of 16-byte descriptors (0 on failure)
 *
 * Return: SMBDX_OK, or SMBDX_ERR_BD_LENGTH if @len is 0 or not a multiple of
 * 16.
 */
enum smbdx_verdict smbdx_bd_v1_count(u32 len, u32 *count)
{
	*count = 0;
	if (!len || len % SMBDX_BUFFER_DESC_V1_LEN)
		return SMBDX_ERR_BD_LENGTH;
	*count = len / SMBDX_BUFFER_DESC_V1_LEN;
	return SMBDX_OK;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_bd_v1_count);

/**
 * smbdx_bd_v1_decode() - decode one descriptor of an array
 * @buf: start of the array (any alignment)
 * @len: length of the array in bytes
 * @index: which descriptor
 * @out: descriptor in host byte order (zeroed on failure)
 *
 * Return: SMBDX_OK; SMBDX_ERR_BD_LENGTH if the array length is invalid or
 * @index is beyond it; SMBDX_ERR_BD_OVERFLOW if Offset + Length overflows
 * 64 bits (such a descriptor cannot describe real memory).
 */
enum smbdx_verdict smbdx_bd_v1_decode(const void *buf, u32 len, u32 index,
				      struct smbdx_buffer_desc *out)
{
	const struct smbdx_buffer_desc_v1 *wire;
	enum smbdx_verdict v;
	u32 count;

	memset(out, 0, sizeof(*out));
	v = smbdx_bd_v1_count(len, &count);
	if (v != SMBDX_OK)
		return v;
	if (!buf || index >= count)
		return SMBDX_ERR_BD_LENGTH;

	wire = (const struct smbdx_buffer_desc_v1 *)buf + index;
	out->offset = le64_to_cpu(wire->offset);
	out->token = le32_to_cpu(wire->token);
	out->length = le32_to_cpu(wire->length);
	if (out->offset > U64_MAX - out->length) {
		memset(out, 0, sizeof(*out));
		return SMBDX_ERR_BD_OVERFLOW;
	}
	return SMBDX_OK;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_bd_v1_decode);

/**
 * smbdx_bd_v1_total() - validate a descriptor array and sum its lengths
 * @buf: start of the array
 * @len: length of the array in bytes
 * @total: sum of every descriptor's Length (0 on failure)
 *
 * Return: SMBDX_OK or the first verdict of smbdx_bd_v1_decode() that is not.
 * The sum cannot overflow: at most 2^28 descriptors of at most 2^32 bytes.
 */
enum smbdx_verdict smbdx_bd_v1_total(const void *buf, u32 len, u64 *total)
{
	struct smbdx_buffer_desc d;
	enum smbdx_verdict v;
	u32 count, i;
	u64 sum = 0;

	*total = 0;
	v = smbdx_bd_v1_count(len, &count);
	if (v != SMBDX_OK)
		return v;
	for (i = 0; i < count; i++) {
		v = smbdx_bd_v1_decode(buf, len, i, &d);
		if (v != SMBDX_OK)
			return v;
		sum += d.length;
	}
	*total = sum;
	return SMBDX_OK;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_bd_v1_total);

/**
 * smbdx_ird_ord_encode() - build the iWARP IRD/ORD private data (6.1)
 * @v: the sender's own IRD and ORD
 * @hdr: 8-byte header, two big-endian 32-bit values {IRD, ORD}
 *
 * The header carries the sending peer's own values, as 6.1 defines the
 * fields; an accepting peer sends its negotiated values from
 * smbdx_ird_ord_negotiate().
 */
void smbdx_ird_ord_encode(const struct smbdx_ird_ord *v,
			  struct smbdx_ird_ord_hdr *hdr)
{
	hdr->ird = cpu_to_be32(v->ird);
	hdr->ord = cpu_to_be32(v->ord);
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_ird_ord_encode);

/*
 * A legacy value larger than the 8 bits RDMA CM can carry: if only its
 * first byte is set, it was written little-endian (old cifs.ko), so read it
 * back byte-swapped; anything else is clamped to 255.
 */
static u32 smbdx_ird_ord_repair(u32 v)
{
	if (v <= U8_MAX)
		return v;
	if (swab32(v) <= U8_MAX)
		return swab32(v);
	return U8_MAX;
}

/**
 * smbdx_ird_ord_parse() - read a peer's IRD/ORD private data (appendix A)
 * @iwarp: the connection is iWARP (the header is ignored otherwise; IB/RoCE
 *	CM events report a fixed private data size, not what was sent)
 * @pd: the peer's CM private data (any alignment; may be NULL)
 * @len: its length
 * @cm: the peer's IRD and ORD as the CM reports them (at the passive side
 *	event->param.conn.initiator_depth is the peer's IRD and
 *	.responder_resources its ORD)
 * @peer: the peer's values to negotiate with
 *
 * Only exactly 8 bytes on iWARP are a header. If it equals @cm the peer also
 * negotiated through MPA v2 and nothing changes. Otherwise the peer is a
 * legacy one: values above 255 are repaired (byte-swapped if they were
 * written little-endian, else clamped to 255, the largest value RDMA CM
 * carries).
 *
 * Return: which case applied; @peer is always filled.
 */
enum smbdx_ird_ord_kind smbdx_ird_ord_parse(bool iwarp, const void *pd, u32 len,
					    const struct smbdx_ird_ord *cm,
					  struct smbdx_ird_ord *peer)
{
	u32 ird, ord;

	*peer = *cm;
	if (!iwarp || !pd || len != SMBDX_IRD_ORD_LEN)
		return SMBDX_IRD_ORD_ABSENT;

	ird = get_unaligned_be32(pd);
	ord = get_unaligned_be32((const u8 *)pd + 4);
	if (ird == cm->ird && ord == cm->ord)
		return SMBDX_IRD_ORD_MATCH;

	peer->ird = smbdx_ird_ord_repair(ird);
	peer->ord = smbdx_ird_ord_repair(ord);
	return SMBDX_IRD_ORD_LEGACY;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_ird_ord_parse);

/**
 * smbdx_ird_ord_negotiate() - combine our IRD/ORD with the peer's (6.2)
 * @local: our IRD (responder resources) and ORD (initiator depth), already
 *	limited by the device
 * @peer: the peer's values from smbdx_ird_ord_parse()
 * @out: our negotiated values
 *
 * Our IRD cannot usefully exceed the peer's ORD, nor our ORD the peer's IRD,
 * so each is the smaller of the two. A peer value of 0 means "not given" and
 * leaves ours unchanged.
 *
 * Return: SMBDX_OK, or SMBDX_ERR_IRD_ORD_ZERO if a result is 0, in which case
 * the connection is rejected.
 */
enum smbdx_verdict smbdx_ird_ord_negotiate(const struct smbdx_ird_ord *local,
					   const struct smbdx_ird_ord *peer,
					 struct smbdx_ird_ord *out)
{
	out->ird = peer->ord ? min(local->ird, peer->ord) : local->ird;
	out->ord = peer->ird ? min(local->ord, peer->ird) : local->ord;
	if (!out->ird || !out->ord)
		return SMBDX_ERR_IRD_ORD_ZERO;
	return SMBDX_OK;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_ird_ord_negotiate);
