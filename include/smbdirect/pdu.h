/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SMB Direct (MS-SMBD) wire format and protocol codec.
 *
 * This header describes the messages of MS-SMBD section 2.2 exactly as they
 * appear on the wire (little-endian, packed, size-checked at compile time),
 * the iWARP IRD/ORD private data of MS-SMBD appendix A, and the API of the
 * pure codec in smbdirect/pdu.c that encodes them and decodes/validates them.
 *
 * Concurrency: every function declared here is pure. It reads only its
 * arguments, writes only its output arguments, never sleeps, never allocates
 * and takes no lock, so it may be called from any context (including
 * softirq completion handlers). Callers serialise access to the structures
 * they pass in.
 *
 * Hostile input: every decoder takes the received length and validates every
 * length, offset and sum (in 64-bit arithmetic) before it is used. A decoder
 * never reads past @len bytes and always returns a defined verdict.
 */
#ifndef _SMBDIRECT_PDU_H
#define _SMBDIRECT_PDU_H

#include <linux/build_bug.h>
#include <linux/types.h>

/* Protocol version 1.0, MS-SMBD 1.7 */
#define SMBDX_VERSION_1_0		0x0100

/* Wire sizes, MS-SMBD 2.2.1 - 2.2.3.1 and appendix A */
#define SMBDX_NEGOTIATE_REQ_LEN		20
#define SMBDX_NEGOTIATE_RESP_LEN		32
#define SMBDX_DATA_HDR_LEN		20
#define SMBDX_BUFFER_DESC_V1_LEN		16
#define SMBDX_IRD_ORD_LEN		8

/* Default DataOffset of a data-carrying message (MS-SMBD 3.1.5.4) */
#define SMBDX_DATA_PAYLOAD_OFFSET	24
/* DataOffset alignment (MS-SMBD 2.2.3) */
#define SMBDX_DATA_ALIGN			8

/* Data Transfer Flags, MS-SMBD 2.2.3 */
#define SMBDX_FLAG_RESPONSE_REQUESTED	0x0001
/*
 * Not MS-SMBD: a bit it reserves, set only on push mode's control
 * messages between two peers that both advertised push mode
 * (smbdirect/pushmsg.h; design.rst, "Push mode"). smbdx_data_encode()
 * never sends it; smbdx_data_decode() reports it like any other bit.
 */
#define SMBDX_FLAG_PUSH			0x8000

/* Protocol minimums a peer must advertise (MS-SMBD 3.1.5.6, 3.1.5.7) */
#define SMBDX_PROTO_MIN_RECV_SIZE	128
#define SMBDX_PROTO_MIN_FRAG_SIZE	131072
/* Size of the single receive posted for the negotiate message (3.1.4.1) */
#define SMBDX_PROTO_NEG_RECV_SIZE	512

/* Ports, MS-SMBD 1.9: 445 for IB/RoCE, 5445 for iWARP */
#define SMBDX_PORT_IB			445
#define SMBDX_PORT_IWARP			5445

/* NTSTATUS values carried in a Negotiate Response (MS-ERREF 2.3) */
#define SMBDX_STATUS_SUCCESS			0x00000000
#define SMBDX_STATUS_NOT_SUPPORTED		0xC00000BB
#define SMBDX_STATUS_INSUFFICIENT_RESOURCES	0xC000009A

/* Windows initial values, MS-SMBD appendix B <3> and <8> */
#define SMBDX_WIN_CREDITS		255
#define SMBDX_WIN_MAX_SEND_SIZE		1364
#define SMBDX_WIN_MAX_RECV_SIZE		8192
#define SMBDX_WIN_MAX_FRAG_SIZE		1048576
#define SMBDX_WIN_MAX_RW_SIZE		8388608
#define SMBDX_WIN_KEEPALIVE_SEC		120

/* Our defaults (Documentation/admin-guide.rst, "Module parameters") */
#define SMBDX_DEF_RECV_CREDIT_MAX	255
#define SMBDX_DEF_SEND_CREDIT_TARGET	255
#define SMBDX_DEF_MAX_SEND_SIZE		1364
#define SMBDX_DEF_MAX_RECV_SIZE		1364
#define SMBDX_DEF_MAX_RW_SIZE		(8 * 1024 * 1024)
#define SMBDX_DEF_KEEPALIVE_SEC		120

/**
 * struct smbdx_negotiate_req - Negotiate Request, MS-SMBD 2.2.1
 * @min_version: lowest protocol version the sender supports
 * @max_version: highest protocol version the sender supports
 * @reserved: sent as 0, ignored on receipt
 * @credits_requested: Send Credits requested of the receiver
 * @preferred_send_size: largest message the sender wants to send
 * @max_receive_size: largest message the sender can receive
 * @max_fragmented_size: largest upper-layer message the sender can reassemble
 */
struct smbdx_negotiate_req {
	__le16 min_version;
	__le16 max_version;
	__le16 reserved;
	__le16 credits_requested;
	__le32 preferred_send_size;
	__le32 max_receive_size;
	__le32 max_fragmented_size;
} __packed;
static_assert(sizeof(struct smbdx_negotiate_req) == SMBDX_NEGOTIATE_REQ_LEN);

/**
 * struct smbdx_negotiate_resp - Negotiate Response, MS-SMBD 2.2.2
 * @min_version: lowest protocol version the sender supports
 * @max_version: highest protocol version the sender supports
 * @negotiated_version: version selected for the connection
 * @reserved: sent as 0, ignored on receipt
 * @credits_requested: Send Credits requested of the receiver
 * @credits_granted: Send Credits granted to the receiver
 * @status: NTSTATUS, 0 on success
 * @max_read_write_size: largest RDMA read/write per upper-layer request
 * @preferred_send_size: largest message the sender will send
 * @max_receive_size: largest message the sender can receive
 * @max_fragmented_size: largest upper-layer message the sender can reassemble
 */
struct smbdx_negotiate_resp {
	__le16 min_version;
	__le16 max_version;
	__le16 negotiated_version;
	__le16 reserved;
	__le16 credits_requested;
	__le16 credits_granted;
	__le32 status;
	__le32 max_read_write_size;
	__le32 preferred_send_size;
	__le32 max_receive_size;
	__le32 max_fragmented_size;
} __packed;
static_assert(sizeof(struct smbdx_negotiate_resp) == SMBDX_NEGOTIATE_RESP_LEN);

/**
 * struct smbdx_data_transfer - Data Transfer message header, MS-SMBD 2.2.3
 * @credits_requested: total Send Credits requested of the receiver
 * @credits_granted: Send Credits newly granted to the receiver
 * @flags: SMBDX_FLAG_*
 * @reserved: sent as 0, ignored on receipt
 * @remaining_data_length: bytes of the upper-layer message after this one
 * @data_offset: offset of the payload from the start of the header
 * @data_length: length of the payload
 *
 * Padding (normally 4 bytes, so that the payload starts at
 * SMBDX_DATA_PAYLOAD_OFFSET) and the payload follow the header.
 */
struct smbdx_data_transfer {
	__le16 credits_requested;
	__le16 credits_granted;
	__le16 flags;
	__le16 reserved;
	__le32 remaining_data_length;
	__le32 data_offset;
	__le32 data_length;
} __packed;
static_assert(sizeof(struct smbdx_data_transfer) == SMBDX_DATA_HDR_LEN);

/**
 * struct smbdx_buffer_desc_v1 - Buffer Descriptor V1, MS-SMBD 2.2.3.1
 * @offset: provider-specific offset (iova) of the first byte
 * @token: steering tag (rkey)
 * @length: length of the registered buffer segment
 */
struct smbdx_buffer_desc_v1 {
	__le64 offset;
	__le32 token;
	__le32 length;
} __packed;
static_assert(sizeof(struct smbdx_buffer_desc_v1) == SMBDX_BUFFER_DESC_V1_LEN);

/**
 * struct smbdx_ird_ord_hdr - iWARP IRD/ORD negotiate header, MS-SMBD 6.1
 * @ird: incoming RDMA read depth of the sender, big-endian
 * @ord: outgoing RDMA read depth of the sender, big-endian
 *
 * Sent as the whole CM private data on iWARP only (port 5445).
 */
struct smbdx_ird_ord_hdr {
	__be32 ird;
	__be32 ord;
} __packed;
static_assert(sizeof(struct smbdx_ird_ord_hdr) == SMBDX_IRD_ORD_LEN);

/*
 * enum smbdx_verdict - result of a codec, credit or reassembly check:
 * SMBDX_OK (input accepted), then SMBDX_ERR_<ID> for each line of
 * <smbdirect/pdu_verdicts.h> in its order (each names the one rule an input
 * broke), then SMBDX_VERDICT_COUNT, the number of verdicts.
 */
enum smbdx_verdict {
	SMBDX_OK = 0,
#define SMBDX_VERDICT(id, ...) SMBDX_ERR_##id,
#include <smbdirect/pdu_verdicts.h>
#undef SMBDX_VERDICT
	SMBDX_VERDICT_COUNT
};

/**
 * struct smbdx_proto_config - local initial values, MS-SMBD 3.1.4.1 / 3.1.7.2
 * @recv_credit_max: Connection.ReceiveCreditMax, also the number of receive
 *	buffers the transport may post after negotiation
 * @send_credit_target: Connection.SendCreditTarget (CreditsRequested we send)
 * @max_send_size: Connection.MaxSendSize before negotiation
 * @max_receive_size: Connection.MaxReceiveSize before negotiation; the size
 *	of our receive buffers
 * @max_fragmented_recv_size: Connection.MaxFragmentedRecvSize
 * @max_read_write_size: Connection.MaxReadWriteSize limit
 * @keepalive_interval: Connection.KeepaliveInterval in seconds
 */
struct smbdx_proto_config {
	u16 recv_credit_max;
	u16 send_credit_target;
	u32 max_send_size;
	u32 max_receive_size;
	u32 max_fragmented_recv_size;
	u32 max_read_write_size;
	u32 keepalive_interval;
};

/**
 * struct smbdx_proto_params - negotiated connection parameters (3.1.4.7)
 * @protocol: Connection.Protocol, SMBDX_VERSION_1_0
 * @send_credits: initial Connection.SendCredits (granted by the peer's
 *	negotiate response on the active side, 0 on the passive side)
 * @send_credit_target: Connection.SendCreditTarget
 * @recv_credit_max: Connection.ReceiveCreditMax
 * @recv_credit_target: Connection.ReceiveCreditTarget (peer's request)
 * @max_send_size: Connection.MaxSendSize
 * @max_receive_size: Connection.MaxReceiveSize
 * @max_fragmented_send_size: Connection.MaxFragmentedSendSize
 * @max_fragmented_recv_size: Connection.MaxFragmentedRecvSize
 * @max_read_write_size: Connection.MaxReadWriteSize
 * @keepalive_interval: Connection.KeepaliveInterval in seconds
 */
struct smbdx_proto_params {
	u16 protocol;
	u16 send_credits;
	u16 send_credit_target;
	u16 recv_credit_max;
	u16 recv_credit_target;
	u32 max_send_size;
	u32 max_receive_size;
	u32 max_fragmented_send_size;
	u32 max_fragmented_recv_size;
	u32 max_read_write_size;
	u32 keepalive_interval;
};

/**
 * struct smbdx_neg_req_info - decoded Negotiate Request, host byte order
 * @min_version: MinVersion
 * @max_version: MaxVersion
 * @credits_requested: CreditsRequested
 * @preferred_send_size: PreferredSendSize
 * @max_receive_size: MaxReceiveSize
 * @max_fragmented_size: MaxFragmentedSize
 */
struct smbdx_neg_req_info {
	u16 min_version;
	u16 max_version;
	u16 credits_requested;
	u32 preferred_send_size;
	u32 max_receive_size;
	u32 max_fragmented_size;
};

/**
 * struct smbdx_neg_resp_info - decoded Negotiate Response, host byte order
 * @min_version: MinVersion
 * @max_version: MaxVersion
 * @negotiated_version: NegotiatedVersion
 * @credits_requested: CreditsRequested
 * @credits_granted: CreditsGranted
 * @status: Status (NTSTATUS)
 * @max_read_write_size: MaxReadWriteSize
 * @preferred_send_size: PreferredSendSize
 * @max_receive_size: MaxReceiveSize
 * @max_fragmented_size: MaxFragmentedSize
 */
struct smbdx_neg_resp_info {
	u16 min_version;
	u16 max_version;
	u16 negotiated_version;
	u16 credits_requested;
	u16 credits_granted;
	u32 status;
	u32 max_read_write_size;
	u32 preferred_send_size;
	u32 max_receive_size;
	u32 max_fragmented_size;
};

/**
 * struct smbdx_data_info - Data Transfer header fields, host byte order
 * @credits_requested: CreditsRequested
 * @credits_granted: CreditsGranted
 * @flags: Flags (SMBDX_FLAG_*)
 * @remaining_data_length: RemainingDataLength
 * @data_offset: DataOffset
 * @data_length: DataLength
 *
 * Filled by smbdx_data_decode() on receive. On send, the credit engine fills
 * the credit and flag fields and the fragmenter the three data fields, then
 * smbdx_data_encode() writes the header.
 */
struct smbdx_data_info {
	u16 credits_requested;
	u16 credits_granted;
	u16 flags;
	u32 remaining_data_length;
	u32 data_offset;
	u32 data_length;
};

/**
 * struct smbdx_buffer_desc - Buffer Descriptor V1 in host byte order
 * @offset: Offset
 * @token: Token
 * @length: Length
 */
struct smbdx_buffer_desc {
	u64 offset;
	u32 token;
	u32 length;
};

/**
 * struct smbdx_ird_ord - IRD/ORD pair in host byte order
 * @ird: incoming RDMA read depth (responder resources)
 * @ord: outgoing RDMA read depth (initiator depth)
 */
struct smbdx_ird_ord {
	u32 ird;
	u32 ord;
};

/**
 * enum smbdx_ird_ord_kind - what the peer's CM private data contained
 * @SMBDX_IRD_ORD_ABSENT: not iWARP, or private data not exactly 8 bytes;
 *	the CM's own values are used
 * @SMBDX_IRD_ORD_MATCH: header present and equal to the CM's values (the
 *	peer negotiated with MPA v2 as well); no reply header is needed
 * @SMBDX_IRD_ORD_LEGACY: header present and different from the CM's values:
 *	a legacy (MPA v1 or byte-swapped) peer; the values were repaired and
 *	the reply must carry a header too
 */
enum smbdx_ird_ord_kind {
	SMBDX_IRD_ORD_ABSENT,
	SMBDX_IRD_ORD_MATCH,
	SMBDX_IRD_ORD_LEGACY,
};

const char *smbdx_verdict_str(enum smbdx_verdict v);
const char *smbdx_verdict_name(enum smbdx_verdict v);
u32 smbdx_verdict_nt_status(enum smbdx_verdict v);

void smbdx_config_init_defaults(struct smbdx_proto_config *cfg);
enum smbdx_verdict smbdx_config_validate(const struct smbdx_proto_config *cfg);

void smbdx_negotiate_req_encode(const struct smbdx_proto_config *cfg,
				struct smbdx_negotiate_req *req);
enum smbdx_verdict smbdx_negotiate_req_decode(const void *buf, u32 len,
					      struct smbdx_neg_req_info *out);
void smbdx_params_from_req(const struct smbdx_proto_config *cfg,
			   const struct smbdx_neg_req_info *req,
			  struct smbdx_proto_params *p);
void smbdx_negotiate_resp_encode(const struct smbdx_proto_params *p,
				 u16 credits_granted,
				struct smbdx_negotiate_resp *resp);
void smbdx_negotiate_resp_encode_failure(u32 status,
					 struct smbdx_negotiate_resp *resp);
enum smbdx_verdict smbdx_negotiate_resp_decode(const void *buf, u32 len,
					       const struct smbdx_proto_config *cfg,
					     struct smbdx_neg_resp_info *out);
void smbdx_params_from_resp(const struct smbdx_proto_config *cfg,
			    const struct smbdx_neg_resp_info *resp,
			   struct smbdx_proto_params *p);

enum smbdx_verdict smbdx_data_decode(const void *buf, u32 len,
				     u32 max_fragmented_recv_size,
				   struct smbdx_data_info *out);
enum smbdx_verdict smbdx_data_encode(void *buf, u32 buf_len,
				     const struct smbdx_data_info *di);
u32 smbdx_data_wire_len(const struct smbdx_data_info *di);

void smbdx_bd_v1_encode(const struct smbdx_buffer_desc *d,
			struct smbdx_buffer_desc_v1 *wire);
enum smbdx_verdict smbdx_bd_v1_count(u32 len, u32 *count);
enum smbdx_verdict smbdx_bd_v1_decode(const void *buf, u32 len, u32 index,
				      struct smbdx_buffer_desc *out);
enum smbdx_verdict smbdx_bd_v1_total(const void *buf, u32 len, u64 *total);

void smbdx_ird_ord_encode(const struct smbdx_ird_ord *v,
			  struct smbdx_ird_ord_hdr *hdr);
enum smbdx_ird_ord_kind smbdx_ird_ord_parse(bool iwarp, const void *pd, u32 len,
					    const struct smbdx_ird_ord *cm,
					  struct smbdx_ird_ord *peer);
enum smbdx_verdict smbdx_ird_ord_negotiate(const struct smbdx_ird_ord *local,
					   const struct smbdx_ird_ord *peer,
					 struct smbdx_ird_ord *out);

#endif /* _SMBDIRECT_PDU_H */
