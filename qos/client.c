// SPDX-License-Identifier: GPL-2.0
/*
 * client.c - MS-SQOS helpers for an initiator (SMB client): per-flow state
 * of 3.1.1.1, request construction of 3.1.4.1, response handling of
 * 3.1.5.1, the StatusRequestTimer rules of 3.1.5.1 and 3.1.6, and the
 * client-side throttling to MaximumIoRate of 3.1.7.1.
 *
 * The helpers do not send anything and own no timer: the caller sends the
 * built request as an SMB2 IOCTL (FSCTL_STORAGE_QOS_CONTROL, flag
 * SMB2_0_IOCTL_IS_FSCTL), passes the outcome to
 * sqos_client_handle_response(), arms its own timer at
 * sqos_client_flow.timer_ns and asks sqos_client_timer_options() what to
 * send when it fires. Time is always passed in, so all of this is testable
 * with a fake clock.
 *
 * Locking: none. The caller serialises every call on one
 * struct sqos_client_flow (one flow is typically driven by one SMB client
 * connection under its own lock).
 */
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <kunit/visibility.h>
#include "sqos_internal.h"

/**
 * sqos_client_flow_init() - initialise a client flow (MS-SQOS 3.1.3)
 * @cf: client flow
 * @flow_id: LogicalFlowID; the NULL GUID is allowed only for requests
 *	that disassociate a handle
 * @now_ns: current time
 *
 * The four counters start at zero, BaseIoSize at 8192, MaximumIoRate at 0
 * (no throttling) and StatusRequestTimer never expires.
 */
void sqos_client_flow_init(struct sqos_client_flow *cf, const guid_t *flow_id,
			   u64 now_ns)
{
	memset(cf, 0, sizeof(*cf));
	cf->flow_id = *flow_id;
	cf->base_io_size = SQOS_DEFAULT_BASE_IO_SIZE;
	cf->timer_ns = SQOS_TIMER_NEVER;
	cf->burst_ms = 250;
	sqos_limiter_init(&cf->lim, 0, 1, now_ns);
}
EXPORT_SYMBOL_IF_KUNIT(sqos_client_flow_init);

/**
 * sqos_client_request_size() - bytes sqos_client_build_request() writes
 * @args: the request
 *
 * Return: 112 plus the lengths of the names.
 */
u32 sqos_client_request_size(const struct sqos_client_args *args)
{
	return SQOS_REQUEST_FIXED_SIZE + args->name_len + args->node_name_len;
}
EXPORT_SYMBOL_IF_KUNIT(sqos_client_request_size);

static int sqos_client_check_name(const void *name, u16 len)
{
	if (len > STORAGE_QOS_INITIATOR_NAME_SIZE || (len & 1))
		return -EINVAL;
	if (len && !name)
		return -EINVAL;
	return 0;
}

static void sqos_client_arm(struct sqos_client_flow *cf, u64 now_ns, u64 ms)
{
	cf->timer_ns = sqos_sat_add(now_ns, ms * NSEC_PER_MSEC);
}

/**
 * sqos_client_build_request() - build a STORAGE_QOS_CONTROL_REQUEST
 * @cf: client flow; its LogicalFlowID is sent
 * @args: what to ask for
 * @buf: output buffer
 * @len: size of @buf, at least sqos_client_request_size(@args)
 * @max_out: set to the MaxOutputResponse to send with the IOCTL: 88 with
 *	GET_STATUS, 0 otherwise
 * @now_ns: current time
 *
 * Applies the rules of MS-SQOS 3.1.4.1: Options holds at least one defined
 * flag and no undefined one; an unassociated handle must send
 * SET_LOGICAL_FLOW_ID with a non-empty LogicalFlowID; PROBE_POLICY needs a
 * non-empty LogicalFlowID; names are at most 512 bytes of UTF-16 (an even
 * length). The names are placed right after the 112-byte fixed part, so
 * their offsets are always at least 112.
 *
 * With UPDATE_COUNTERS the four counters are sent and then reset to zero
 * (the caller is expected to send the request it asked for). Without it
 * they are kept for a later report rather than lost (see sqos.rst).
 *
 * Timer (3.1.6): with GET_STATUS the timer is stopped until the response
 * is handled; SET_POLICY without GET_STATUS makes the timer expire within
 * one second.
 *
 * Return: the request length, -EINVAL for a request the rules forbid, or
 * -EMSGSIZE if @buf is too small.
 */
int sqos_client_build_request(struct sqos_client_flow *cf,
			      const struct sqos_client_args *args,
			      void *buf, u32 len, u32 *max_out, u64 now_ns)
{
	u32 opt = args->options;
	struct sqos_request req = {};
	u32 size = sqos_client_request_size(args);
	u8 *p = buf;

	if (!(opt & STORAGE_QOS_CONTROL_FLAGS_ALL) ||
	    (opt & ~STORAGE_QOS_CONTROL_FLAGS_ALL))
		return -EINVAL;
	if (!args->handle_associated &&
	    (!(opt & STORAGE_QOS_CONTROL_FLAG_SET_LOGICAL_FLOW_ID) ||
	     guid_is_null(&cf->flow_id)))
		return -EINVAL;
	if ((opt & STORAGE_QOS_CONTROL_FLAG_PROBE_POLICY) &&
	    guid_is_null(&cf->flow_id))
		return -EINVAL;
	if (sqos_client_check_name(args->name, args->name_len) ||
	    sqos_client_check_name(args->node_name, args->node_name_len))
		return -EINVAL;
	if (!buf || len < size)
		return -EMSGSIZE;

	req.version = SQOS_PROTOCOL_VERSION_1_0;
	req.options = opt;
	req.flow_id = cf->flow_id;
	req.policy_id = args->policy_id;
	req.initiator_id = args->initiator_id;
	req.limit = args->limit;
	req.reservation = args->reservation;
	if (args->name_len) {
		req.name_off = SQOS_REQUEST_FIXED_SIZE;
		req.name_len = args->name_len;
	}
	if (args->node_name_len) {
		req.node_name_off = SQOS_REQUEST_FIXED_SIZE + args->name_len;
		req.node_name_len = args->node_name_len;
	}
	if (opt & STORAGE_QOS_CONTROL_FLAG_UPDATE_COUNTERS) {
		req.io_count = cf->io_count;
		req.norm_io_count = cf->norm_io_count;
		req.latency = cf->latency;
		req.lower_latency = cf->lower_latency;
	}
	sqos_request_encode(&req, buf, len);
	if (args->name_len)
		memcpy(p + req.name_off, args->name, args->name_len);
	if (args->node_name_len)
		memcpy(p + req.node_name_off, args->node_name,
		       args->node_name_len);

	if (opt & STORAGE_QOS_CONTROL_FLAG_UPDATE_COUNTERS) {
		cf->io_count = 0;
		cf->norm_io_count = 0;
		cf->latency = 0;
		cf->lower_latency = 0;
	}

	if (opt & STORAGE_QOS_CONTROL_FLAG_GET_STATUS) {
		*max_out = SQOS_RESPONSE_SIZE;
		cf->timer_ns = SQOS_TIMER_NEVER;
	} else {
		*max_out = 0;
		if ((opt & STORAGE_QOS_CONTROL_FLAG_SET_POLICY) &&
		    sqos_sat_add(now_ns, NSEC_PER_SEC) < cf->timer_ns)
			sqos_client_arm(cf, now_ns,
					SQOS_CLIENT_DEFAULT_STATUS_MS);
	}
	return size;
}
EXPORT_SYMBOL_IF_KUNIT(sqos_client_build_request);

/**
 * sqos_client_handle_response() - apply the outcome of a control request
 * @cf: client flow
 * @ntstatus: NTSTATUS of the IOCTL, CPU byte order
 * @out: the IOCTL output buffer (untrusted), may be NULL if @out_len is 0
 * @out_len: its length; 0 when the request had no GET_STATUS
 * @now_ns: current time
 * @rsp: if not NULL, receives the decoded response
 *
 * MS-SQOS 3.1.5.1: a failure arms the timer for 10 s. A success with a
 * response sets MaximumIoRate and BaseIoSize from it (and retunes the
 * client limiter), and arms the timer for TimeToLive ms if that is above
 * 1000, else for 1 s. A response that is short, malformed, or about another
 * LogicalFlowID is treated as a failure.
 *
 * Return: 0 on success, -EREMOTEIO if @ntstatus is a failure, -EMSGSIZE or
 * -EPROTO for a bad response.
 */
int sqos_client_handle_response(struct sqos_client_flow *cf, u32 ntstatus,
				const void *out, u32 out_len, u64 now_ns,
				struct sqos_response *rsp)
{
	struct sqos_response r;
	int ret;

	if (ntstatus != SQOS_NT_SUCCESS) {
		sqos_client_arm(cf, now_ns, SQOS_CLIENT_FAILURE_RETRY_MS);
		return -EREMOTEIO;
	}
	if (!out_len)
		return 0;

	ret = sqos_response_decode(out, out_len, &r);
	if (!ret && !guid_equal(&r.flow_id, &cf->flow_id))
		ret = -EPROTO;
	if (ret) {
		sqos_client_arm(cf, now_ns, SQOS_CLIENT_FAILURE_RETRY_MS);
		return ret;
	}

	cf->max_rate = r.max_rate;
	cf->base_io_size = r.base_io_size;
	sqos_limiter_set_rate(&cf->lim, r.max_rate,
			      sqos_burst_units(r.max_rate, cf->burst_ms),
			      now_ns);
	if (r.ttl_ms > SQOS_CLIENT_TTL_THRESHOLD_MS)
		sqos_client_arm(cf, now_ns, r.ttl_ms);
	else
		sqos_client_arm(cf, now_ns, SQOS_CLIENT_DEFAULT_STATUS_MS);
	if (rsp)
		*rsp = r;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sqos_client_handle_response);

/**
 * sqos_client_timer_options() - what to send when the timer has fired
 * @cf: client flow
 * @now_ns: current time
 *
 * MS-SQOS 3.1.6: once StatusRequestTimer has expired, send at least
 * GET_STATUS | UPDATE_COUNTERS. If no I/O is in progress the request is
 * postponed (the MAY of 3.1.6): call again when new I/O starts.
 *
 * Return: the Options to send now, or 0 if nothing is due.
 */
u32 sqos_client_timer_options(struct sqos_client_flow *cf, u64 now_ns)
{
	if (cf->timer_ns == SQOS_TIMER_NEVER || now_ns < cf->timer_ns)
		return 0;
	if (!cf->inflight)
		return 0;
	return STORAGE_QOS_CONTROL_FLAG_GET_STATUS |
	       STORAGE_QOS_CONTROL_FLAG_UPDATE_COUNTERS;
}
EXPORT_SYMBOL_IF_KUNIT(sqos_client_timer_options);

/**
 * sqos_client_io_start() - account an I/O the initiator is about to issue
 * @cf: client flow
 * @bytes: size of the I/O
 * @now_ns: current time
 *
 * Counts the I/O in IoCountIncrement and NormalizedIoCountIncrement (using
 * the flow's BaseIoSize) and, when MaximumIoRate is non-zero, charges it to
 * the client limiter (MS-SQOS 3.1.7.1).
 *
 * Return: how long in ns the caller must hold the I/O back.
 */
u64 sqos_client_io_start(struct sqos_client_flow *cf, u64 bytes, u64 now_ns)
{
	u64 units = sqos_normalize(bytes, cf->base_io_size);

	cf->io_count = sqos_sat_add(cf->io_count, 1);
	cf->norm_io_count = sqos_sat_add(cf->norm_io_count, units);
	cf->inflight++;
	if (!cf->max_rate)
		return 0;
	return sqos_limiter_admit(&cf->lim, units, now_ns);
}
EXPORT_SYMBOL_IF_KUNIT(sqos_client_io_start);

/**
 * sqos_client_io_done() - account a completed I/O
 * @cf: client flow
 * @latency_100ns: latency including time held back by the initiator
 * @lower_latency_100ns: latency excluding that time
 */
void sqos_client_io_done(struct sqos_client_flow *cf, u64 latency_100ns,
			 u64 lower_latency_100ns)
{
	cf->latency = sqos_sat_add(cf->latency, latency_100ns);
	cf->lower_latency = sqos_sat_add(cf->lower_latency,
					 lower_latency_100ns);
	if (cf->inflight)
		cf->inflight--;
}
EXPORT_SYMBOL_IF_KUNIT(sqos_client_io_done);
