/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sqos.h - MS-SQOS (Storage Quality of Service) wire format and the API of
 * sqos.ko.
 *
 * What lives here:
 *
 *  - the wire format of STORAGE_QOS_CONTROL_REQUEST (112-byte fixed part
 *    followed by UTF-16LE names) and STORAGE_QOS_CONTROL_RESPONSE (88 bytes),
 *    the constants of MS-SQOS 2.2 and the NTSTATUS values the server returns;
 *  - the structures an SMB server or client keeps for sqos.ko: per-I/O
 *    accounting (struct sqos_io) and the initiator's state of a flow
 *    (struct sqos_client_flow, struct sqos_client_args);
 *  - the one way into sqos.ko for another module: struct sqos_ops, the
 *    table of its entry points, obtained with symbol_get(sqos_get_ops)
 *    (Documentation/api.rst, "sqos.ko: one table"). The functions behind
 *    the table, and the rest of the module's functions, are declared in
 *    qos/sqos_internal.h: outside sqos.ko only its KUnit suites call them.
 *
 * Locking: the server entry points do their own locking (see qos/flow.c).
 * The client helpers and the codec are pure functions on caller-owned
 * memory; the caller serialises calls on one struct sqos_client_flow.
 */
#ifndef _SMBDIRECT_SQOS_H
#define _SMBDIRECT_SQOS_H

#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/types.h>
#include <linux/uuid.h>
#include <smbdirect/ns.h>

/* MS-SQOS 2.2.1 and 1.7 */
#define FSCTL_STORAGE_QOS_CONTROL		0x00090350
#define STORAGE_QOS_INITIATOR_NAME_SIZE		0x200
#define SQOS_PROTOCOL_VERSION_1_0		0x0100

/* Options of STORAGE_QOS_CONTROL_REQUEST (MS-SQOS 2.2.2.2) */
#define STORAGE_QOS_CONTROL_FLAG_SET_LOGICAL_FLOW_ID	0x00000001
#define STORAGE_QOS_CONTROL_FLAG_SET_POLICY		0x00000002
#define STORAGE_QOS_CONTROL_FLAG_PROBE_POLICY		0x00000004
#define STORAGE_QOS_CONTROL_FLAG_GET_STATUS		0x00000008
#define STORAGE_QOS_CONTROL_FLAG_UPDATE_COUNTERS	0x00000010
#define STORAGE_QOS_CONTROL_FLAGS_ALL			0x0000001f

/* Logical flow status codes (MS-SQOS 2.2.2.1); 3 is not defined */
#define SQOS_FLOW_STATUS_OK			0x00000000
#define SQOS_FLOW_STATUS_INSUFFICIENT_THROUGHPUT	0x00000001
#define SQOS_FLOW_STATUS_UNKNOWN_POLICY_ID	0x00000002
#define SQOS_FLOW_STATUS_CONFIGURATION_MISMATCH	0x00000004
#define SQOS_FLOW_STATUS_NOT_AVAILABLE		0x00000005

/* NTSTATUS values returned by sqos_control(), in CPU byte order ([MS-ERREF]) */
#define SQOS_NT_SUCCESS				0x00000000U
#define SQOS_NT_INVALID_PARAMETER		0xC000000DU
#define SQOS_NT_INVALID_DEVICE_REQUEST		0xC0000010U
#define SQOS_NT_REVISION_MISMATCH		0xC0000059U
#define SQOS_NT_NOT_FOUND			0xC0000225U
/* Only when the server runs out of memory; not a protocol outcome */
#define SQOS_NT_INSUFFICIENT_RESOURCES		0xC000009AU

/* Sizes. See Documentation/sqos.rst for the 104/112 and 80/88 decisions. */
#define SQOS_REQUEST_FIXED_SIZE		112
#define SQOS_RESPONSE_SIZE		88
/* The spec's "size of STORAGE_QOS_CONTROL_RESPONSE" (3.1.4.1, 3.2.5.1.4) */
#define SQOS_RESPONSE_SPEC_MIN_SIZE	80
/* The spec's minimum name offset (3.2.5.1.2), applied literally */
#define SQOS_MIN_NAME_OFFSET		104
/* Largest request: fixed part + two names of the maximum size */
#define SQOS_REQUEST_MAX_SIZE \
	(SQOS_REQUEST_FIXED_SIZE + 2 * STORAGE_QOS_INITIATOR_NAME_SIZE)

/* Windows' limit on Limit/Reservation (MS-SQOS note <4>) */
#define SQOS_MAX_IOPS			1000000000ULL
#define SQOS_DEFAULT_BASE_IO_SIZE	8192

/* Client timer defaults (MS-SQOS notes <2> and <3>) */
#define SQOS_CLIENT_FAILURE_RETRY_MS	10000
#define SQOS_CLIENT_DEFAULT_STATUS_MS	1000
#define SQOS_CLIENT_TTL_THRESHOLD_MS	1000
#define SQOS_TIMER_NEVER		U64_MAX

/**
 * struct sqos_request_wire - STORAGE_QOS_CONTROL_REQUEST fixed part
 * @protocol_version: must be 0x0100
 * @reserved: zero on send, ignored on receipt
 * @options: STORAGE_QOS_CONTROL_FLAG_* bits
 * @logical_flow_id: GUID of the logical flow
 * @policy_id: GUID of the policy; NULL GUID means no policy
 * @initiator_id: GUID of the initiator
 * @limit: desired maximum, normalized IOPS; 0 = not defined
 * @reservation: desired minimum, normalized IOPS
 * @initiator_name_offset: byte offset of InitiatorName from the start
 * @initiator_name_length: byte length of InitiatorName
 * @initiator_node_name_offset: byte offset of InitiatorNodeName
 * @initiator_node_name_length: byte length of InitiatorNodeName
 * @io_count_increment: I/Os issued since the last update
 * @normalized_io_count_increment: normalized I/Os issued since the last update
 * @latency_increment: total latency in 100 ns units, including queueing
 * @lower_latency_increment: total latency in 100 ns units, excluding queueing
 *
 * GUIDs use the Microsoft layout, which is the kernel's guid_t.
 */
struct sqos_request_wire {
	__le16 protocol_version;
	__le16 reserved;
	__le32 options;
	guid_t logical_flow_id;
	guid_t policy_id;
	guid_t initiator_id;
	__le64 limit;
	__le64 reservation;
	__le16 initiator_name_offset;
	__le16 initiator_name_length;
	__le16 initiator_node_name_offset;
	__le16 initiator_node_name_length;
	__le64 io_count_increment;
	__le64 normalized_io_count_increment;
	__le64 latency_increment;
	__le64 lower_latency_increment;
} __packed;
static_assert(sizeof(struct sqos_request_wire) == SQOS_REQUEST_FIXED_SIZE);
static_assert(offsetof(struct sqos_request_wire, limit) == 56);
static_assert(offsetof(struct sqos_request_wire, initiator_name_offset) == 72);
static_assert(offsetof(struct sqos_request_wire, io_count_increment) == 80);

/**
 * struct sqos_response_wire - STORAGE_QOS_CONTROL_RESPONSE
 * @protocol_version: 0x0100
 * @reserved: zero
 * @options: zero
 * @logical_flow_id: GUID of the flow the open is associated with
 * @policy_id: GUID of the flow's policy
 * @initiator_id: GUID of the flow's initiator
 * @time_to_live: validity of the status and rates, in milliseconds
 * @status: one of SQOS_FLOW_STATUS_*
 * @maximum_io_rate: maximum initiation rate, normalized IOPS
 * @minimum_io_rate: minimum completion rate, normalized IOPS
 * @base_io_size: base I/O size of the normalization
 * @reserved2: zero
 */
struct sqos_response_wire {
	__le16 protocol_version;
	__le16 reserved;
	__le32 options;
	guid_t logical_flow_id;
	guid_t policy_id;
	guid_t initiator_id;
	__le32 time_to_live;
	__le32 status;
	__le64 maximum_io_rate;
	__le64 minimum_io_rate;
	__le32 base_io_size;
	__le32 reserved2;
} __packed;
static_assert(sizeof(struct sqos_response_wire) == SQOS_RESPONSE_SIZE);
static_assert(offsetof(struct sqos_response_wire, time_to_live) == 56);

/**
 * struct sqos_request - decoded STORAGE_QOS_CONTROL_REQUEST fixed part
 * @version: ProtocolVersion
 * @options: Options
 * @flow_id: LogicalFlowID
 * @policy_id: PolicyID
 * @initiator_id: InitiatorID
 * @limit: Limit
 * @reservation: Reservation
 * @name_off: InitiatorNameOffset
 * @name_len: InitiatorNameLength
 * @node_name_off: InitiatorNodeNameOffset
 * @node_name_len: InitiatorNodeNameLength
 * @io_count: IoCountIncrement
 * @norm_io_count: NormalizedIoCountIncrement
 * @latency: LatencyIncrement
 * @lower_latency: LowerLatencyIncrement
 */
struct sqos_request {
	u16 version;
	u32 options;
	guid_t flow_id;
	guid_t policy_id;
	guid_t initiator_id;
	u64 limit;
	u64 reservation;
	u16 name_off;
	u16 name_len;
	u16 node_name_off;
	u16 node_name_len;
	u64 io_count;
	u64 norm_io_count;
	u64 latency;
	u64 lower_latency;
};

/**
 * struct sqos_response - decoded STORAGE_QOS_CONTROL_RESPONSE
 * @version: ProtocolVersion
 * @options: Options
 * @flow_id: LogicalFlowID
 * @policy_id: PolicyID
 * @initiator_id: InitiatorID
 * @ttl_ms: TimeToLive
 * @status: Status
 * @max_rate: MaximumIoRate
 * @min_rate: MinimumIoRate
 * @base_io_size: BaseIoSize
 */
struct sqos_response {
	u16 version;
	u32 options;
	guid_t flow_id;
	guid_t policy_id;
	guid_t initiator_id;
	u32 ttl_ms;
	u32 status;
	u64 max_rate;
	u64 min_rate;
	u32 base_io_size;
};

/**
 * struct sqos_limiter - token bucket in normalized I/O units
 * @rate: refill rate in units per second; 0 means unlimited
 * @burst: bucket depth in units
 * @tokens: current fill in units * 10^9 (nano-units); negative is debt
 * @last_ns: clock value of the last refill
 *
 * Pure arithmetic, no locking and no clock of its own: every call is given
 * the current time. The caller serialises calls on one limiter.
 */
struct sqos_limiter {
	u64 rate;
	u64 burst;
	s64 tokens;
	u64 last_ns;
};

/* Server side (qos/flow.c, qos/main.c) */
struct sqos_open;
struct sqos_flow;

/**
 * struct sqos_io - one I/O accounted by the server limiter
 * @flow: flow the I/O was charged to (holds a reference), NULL if none
 * @units: normalized size of the I/O
 * @bytes: size of the I/O in bytes
 * @start_ns: time the I/O was admitted
 * @held: it was given a delay and counts against the server's bounds on
 *	held I/Os until sqos_io_done()
 *
 * Filled by sqos_io_admit() or sqos_io_start(); consumed by sqos_io_done().
 * Callers treat it as opaque.
 */
struct sqos_io {
	struct sqos_flow *flow;
	u64 units;
	u64 bytes;
	u64 start_ns;
	bool held;
};

/* Client side (qos/client.c) */

/**
 * struct sqos_client_flow - initiator state of one logical flow (3.1.1.1)
 * @flow_id: LogicalFlowID
 * @io_count: IoCountIncrement not yet reported
 * @norm_io_count: NormalizedIoCountIncrement not yet reported
 * @latency: LatencyIncrement not yet reported (100 ns units)
 * @lower_latency: LowerLatencyIncrement not yet reported (100 ns units)
 * @max_rate: MaximumIoRate last received; 0 = no throttling
 * @base_io_size: BaseIoSize last received (8192 initially)
 * @timer_ns: expiry of StatusRequestTimer, SQOS_TIMER_NEVER if none
 * @inflight: I/Os started and not yet completed (for the idle rule of 3.1.6)
 * @burst_ms: burst allowance of the client limiter, in milliseconds of rate
 * @lim: client-side limiter (3.1.7.1)
 */
struct sqos_client_flow {
	guid_t flow_id;
	u64 io_count;
	u64 norm_io_count;
	u64 latency;
	u64 lower_latency;
	u64 max_rate;
	u32 base_io_size;
	u64 timer_ns;
	u64 inflight;
	u32 burst_ms;
	struct sqos_limiter lim;
};

/**
 * struct sqos_client_args - what the application asks for in one request
 * @options: STORAGE_QOS_CONTROL_FLAG_* bits
 * @handle_associated: the handle is already associated with a flow
 * @policy_id: PolicyID to send
 * @initiator_id: InitiatorID to send
 * @limit: Limit to send
 * @reservation: Reservation to send
 * @name: InitiatorName, UTF-16LE bytes (not NUL-terminated), may be NULL
 * @name_len: byte length of @name
 * @node_name: InitiatorNodeName, UTF-16LE bytes, may be NULL
 * @node_name_len: byte length of @node_name
 */
struct sqos_client_args {
	u32 options;
	bool handle_associated;
	guid_t policy_id;
	guid_t initiator_id;
	u64 limit;
	u64 reservation;
	const void *name;
	u16 name_len;
	const void *node_name;
	u16 node_name_len;
};

/**
 * struct sqos_ops - sqos.ko's entry points, for a module bound at run time
 * @enabled: sqos_enabled()
 * @open_alloc: sqos_open_alloc()
 * @open_release: sqos_open_release()
 * @control: sqos_control()
 * @io_admit: sqos_io_admit()
 * @io_done: sqos_io_done()
 * @request_decode: sqos_request_decode()
 * @client_flow_init: sqos_client_flow_init()
 * @client_build_request: sqos_client_build_request()
 * @client_handle_response: sqos_client_handle_response()
 * @client_timer_options: sqos_client_timer_options()
 * @client_io_start: sqos_client_io_start()
 * @client_io_done: sqos_client_io_done()
 *
 * The one way into sqos.ko for another module (Documentation/api.rst,
 * "sqos.ko: one table"). An SMB server or client that must keep working
 * without sqos.ko (our ksmbd and cifs builds, shim/6.12) does not link
 * against it: it takes ``symbol_get(sqos_get_ops)`` (cifs:
 * symbol_request(), which loads sqos.ko first), which holds a reference on
 * sqos.ko until the matching symbol_put(), and calls through this table.
 * The functions named above are documented with kernel-doc in qos/;
 * they are exported for sqos.ko's KUnit suites only.
 */
struct sqos_ops {
	bool (*enabled)(void);
	struct sqos_open *(*open_alloc)(gfp_t gfp);
	void (*open_release)(struct sqos_open *open);
	u32 (*control)(struct sqos_open *open, const void *in, u32 in_len,
		       void *out, u32 max_out, u32 *out_len);
	u64 (*io_admit)(struct sqos_open *open, u64 bytes, struct sqos_io *io);
	void (*io_done)(struct sqos_io *io);
	int (*request_decode)(const void *buf, size_t len,
			      struct sqos_request *req);
	void (*client_flow_init)(struct sqos_client_flow *cf,
				 const guid_t *flow_id, u64 now_ns);
	int (*client_build_request)(struct sqos_client_flow *cf,
				    const struct sqos_client_args *args,
				    void *buf, u32 len, u32 *max_out,
				    u64 now_ns);
	int (*client_handle_response)(struct sqos_client_flow *cf,
				      u32 ntstatus, const void *out,
				      u32 out_len, u64 now_ns,
				      struct sqos_response *rsp);
	u32 (*client_timer_options)(struct sqos_client_flow *cf, u64 now_ns);
	u64 (*client_io_start)(struct sqos_client_flow *cf, u64 bytes,
			       u64 now_ns);
	void (*client_io_done)(struct sqos_client_flow *cf, u64 latency_100ns,
			       u64 lower_latency_100ns);
};

const struct sqos_ops *sqos_get_ops(void);

#endif /* _SMBDIRECT_SQOS_H */
