// SPDX-License-Identifier: GPL-2.0
/*
 * codec.c - MS-SQOS wire codec: STORAGE_QOS_CONTROL_REQUEST and
 * STORAGE_QOS_CONTROL_RESPONSE encode/decode, the name-field and policy-field
 * validity rules of MS-SQOS 3.2.5.1.2, and I/O size normalization (4.1).
 *
 * Locking: none. Every function is pure: it reads the buffer it is given
 * (never past the length it is given) and writes only caller-owned memory,
 * so any number of callers may run concurrently.
 *
 * Every buffer is treated as hostile: lengths are checked before any read,
 * offset + length sums are done in 32 bits so a 16-bit offset near 0xffff
 * cannot wrap, and multi-byte fields are read with memcpy so the buffer
 * need not be aligned.
 */
#include <asm/byteorder.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/math64.h>
#include <linux/string.h>
#include <kunit/visibility.h>
#include "sqos_internal.h"

/**
 * sqos_request_decode() - decode the fixed part of a control request
 * @buf: request bytes as received
 * @len: number of bytes in @buf (the RequestSize)
 * @req: decoded fields, in CPU order
 *
 * Only the 112-byte fixed part is decoded; the names are referenced by
 * offset and length and checked by sqos_check_name(). No semantic check is
 * made here.
 *
 * Return: 0, or -EMSGSIZE if @len is smaller than the fixed part.
 */
int sqos_request_decode(const void *buf, size_t len, struct sqos_request *req)
{
	struct sqos_request_wire w;

	if (!buf || len < sizeof(w))
		return -EMSGSIZE;
	memcpy(&w, buf, sizeof(w));

	req->version = le16_to_cpu(w.protocol_version);
	req->options = le32_to_cpu(w.options);
	req->flow_id = w.logical_flow_id;
	req->policy_id = w.policy_id;
	req->initiator_id = w.initiator_id;
	req->limit = le64_to_cpu(w.limit);
	req->reservation = le64_to_cpu(w.reservation);
	req->name_off = le16_to_cpu(w.initiator_name_offset);
	req->name_len = le16_to_cpu(w.initiator_name_length);
	req->node_name_off = le16_to_cpu(w.initiator_node_name_offset);
	req->node_name_len = le16_to_cpu(w.initiator_node_name_length);
	req->io_count = le64_to_cpu(w.io_count_increment);
	req->norm_io_count = le64_to_cpu(w.normalized_io_count_increment);
	req->latency = le64_to_cpu(w.latency_increment);
	req->lower_latency = le64_to_cpu(w.lower_latency_increment);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sqos_request_decode);

/**
 * sqos_request_encode() - encode the fixed part of a control request
 * @req: fields to encode; Reserved is always sent as zero
 * @buf: output buffer
 * @len: size of @buf
 *
 * The names (if any) are not written; the caller places them at the offsets
 * it put in @req.
 *
 * Return: SQOS_REQUEST_FIXED_SIZE, or -EMSGSIZE if @buf is too small.
 */
int sqos_request_encode(const struct sqos_request *req, void *buf, size_t len)
{
	struct sqos_request_wire w;

	if (!buf || len < sizeof(w))
		return -EMSGSIZE;

	memset(&w, 0, sizeof(w));
	w.protocol_version = cpu_to_le16(req->version);
	w.options = cpu_to_le32(req->options);
	w.logical_flow_id = req->flow_id;
	w.policy_id = req->policy_id;
	w.initiator_id = req->initiator_id;
	w.limit = cpu_to_le64(req->limit);
	w.reservation = cpu_to_le64(req->reservation);
	w.initiator_name_offset = cpu_to_le16(req->name_off);
	w.initiator_name_length = cpu_to_le16(req->name_len);
	w.initiator_node_name_offset = cpu_to_le16(req->node_name_off);
	w.initiator_node_name_length = cpu_to_le16(req->node_name_len);
	w.io_count_increment = cpu_to_le64(req->io_count);
	w.normalized_io_count_increment = cpu_to_le64(req->norm_io_count);
	w.latency_increment = cpu_to_le64(req->latency);
	w.lower_latency_increment = cpu_to_le64(req->lower_latency);
	memcpy(buf, &w, sizeof(w));
	return sizeof(w);
}
EXPORT_SYMBOL_IF_KUNIT(sqos_request_encode);

/**
 * sqos_flow_status_valid() - is @status one of the codes of MS-SQOS 2.2.2.1
 * @status: a Status value
 *
 * Return: true for 0, 1, 2, 4 and 5.
 */
bool sqos_flow_status_valid(u32 status)
{
	switch (status) {
	case SQOS_FLOW_STATUS_OK:
	case SQOS_FLOW_STATUS_INSUFFICIENT_THROUGHPUT:
	case SQOS_FLOW_STATUS_UNKNOWN_POLICY_ID:
	case SQOS_FLOW_STATUS_CONFIGURATION_MISMATCH:
	case SQOS_FLOW_STATUS_NOT_AVAILABLE:
		return true;
	default:
		return false;
	}
}
EXPORT_SYMBOL_IF_KUNIT(sqos_flow_status_valid);

/**
 * sqos_response_decode() - decode a control response (client side)
 * @buf: response bytes as received
 * @len: number of bytes in @buf
 * @rsp: decoded fields
 *
 * The response comes from the network and is checked before use: it must
 * be at least 88 bytes, carry version 0x0100, a defined Status and a
 * non-zero BaseIoSize (a zero one would make normalization divide by zero).
 * Reserved fields and Options are ignored as MS-SQOS 2.1 asks.
 *
 * Return: 0, -EMSGSIZE if @len is too small, -EPROTO if a field is invalid.
 */
int sqos_response_decode(const void *buf, size_t len, struct sqos_response *rsp)
{
	struct sqos_response_wire w;

	if (!buf || len < sizeof(w))
		return -EMSGSIZE;
	memcpy(&w, buf, sizeof(w));

	rsp->version = le16_to_cpu(w.protocol_version);
	rsp->options = le32_to_cpu(w.options);
	rsp->flow_id = w.logical_flow_id;
	rsp->policy_id = w.policy_id;
	rsp->initiator_id = w.initiator_id;
	rsp->ttl_ms = le32_to_cpu(w.time_to_live);
	rsp->status = le32_to_cpu(w.status);
	rsp->max_rate = le64_to_cpu(w.maximum_io_rate);
	rsp->min_rate = le64_to_cpu(w.minimum_io_rate);
	rsp->base_io_size = le32_to_cpu(w.base_io_size);

	if (rsp->version != SQOS_PROTOCOL_VERSION_1_0)
		return -EPROTO;
	if (!sqos_flow_status_valid(rsp->status))
		return -EPROTO;
	if (!rsp->base_io_size)
		return -EPROTO;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sqos_response_decode);

/**
 * sqos_response_encode() - encode a control response (server side)
 * @rsp: fields to encode; Reserved fields are written as zero
 * @buf: output buffer
 * @len: size of @buf
 *
 * Return: SQOS_RESPONSE_SIZE, or -EMSGSIZE if @buf is too small.
 */
int sqos_response_encode(const struct sqos_response *rsp, void *buf, size_t len)
{
	struct sqos_response_wire w;

	if (!buf || len < sizeof(w))
		return -EMSGSIZE;

	memset(&w, 0, sizeof(w));
	w.protocol_version = cpu_to_le16(rsp->version);
	w.options = cpu_to_le32(rsp->options);
	w.logical_flow_id = rsp->flow_id;
	w.policy_id = rsp->policy_id;
	w.initiator_id = rsp->initiator_id;
	w.time_to_live = cpu_to_le32(rsp->ttl_ms);
	w.status = cpu_to_le32(rsp->status);
	w.maximum_io_rate = cpu_to_le64(rsp->max_rate);
	w.minimum_io_rate = cpu_to_le64(rsp->min_rate);
	w.base_io_size = cpu_to_le32(rsp->base_io_size);
	memcpy(buf, &w, sizeof(w));
	return sizeof(w);
}
EXPORT_SYMBOL_IF_KUNIT(sqos_response_encode);

/**
 * sqos_check_name() - MS-SQOS 3.2.5.1.2 checks of one name field
 * @off: InitiatorNameOffset or InitiatorNodeNameOffset
 * @len: the matching length, in bytes
 * @req_size: RequestSize, the whole input buffer length
 *
 * Fails when the length exceeds STORAGE_QOS_INITIATOR_NAME_SIZE, when a
 * non-empty name starts before SQOS_MIN_NAME_OFFSET (the spec's literal
 * 104), or when offset + length passes the end of the request. As a project
 * decision an odd length is also rejected: a UTF-16 string has an even
 * number of bytes. A zero length is always accepted, whatever the offset.
 * The sum is computed in 32 bits and cannot wrap.
 *
 * Return: 0 if the name may be read at buf[off, off + len), else -EINVAL.
 */
int sqos_check_name(u16 off, u16 len, u32 req_size)
{
	u32 end = (u32)off + (u32)len;

	if (len > STORAGE_QOS_INITIATOR_NAME_SIZE)
		return -EINVAL;
	if (!len)
		return 0;
	if (off < SQOS_MIN_NAME_OFFSET)
		return -EINVAL;
	if (end > req_size)
		return -EINVAL;
	if (len & 1)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sqos_check_name);

/**
 * sqos_check_policy_fields() - "invalid value" rules of MS-SQOS 3.2.5.1.2
 * @req: decoded request
 *
 * Applies the five rules of the spec's product note <4>: Limit and
 * Reservation at most 10^9, Reservation not above a non-zero Limit, and no
 * numeric Limit or Reservation together with a PolicyID. InitiatorID has no
 * invalid value.
 *
 * Return: 0 if valid, -EINVAL otherwise.
 */
int sqos_check_policy_fields(const struct sqos_request *req)
{
	bool has_policy = !guid_is_null(&req->policy_id);

	if (req->limit > SQOS_MAX_IOPS || req->reservation > SQOS_MAX_IOPS)
		return -EINVAL;
	if (req->limit && req->reservation > req->limit)
		return -EINVAL;
	if (has_policy && (req->limit || req->reservation))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sqos_check_policy_fields);

/**
 * sqos_normalize() - normalized size of an I/O (MS-SQOS 4.1)
 * @bytes: size of the I/O in bytes
 * @base_io_size: BaseIoSize; 0 is treated as the default 8192
 *
 * ceil(@bytes / @base_io_size), computed without the (bytes + base - 1)
 * sum so it cannot overflow. Project decision: a 0-byte I/O counts as one
 * normalized I/O (the glossary's "8KB or smaller"), so a stream of empty
 * requests is still rate limited.
 *
 * Return: the number of normalized I/Os, at least 1.
 */
u64 sqos_normalize(u64 bytes, u32 base_io_size)
{
	u32 rem;
	u64 units;

	if (!base_io_size)
		base_io_size = SQOS_DEFAULT_BASE_IO_SIZE;
	if (!bytes)
		return 1;
	units = div_u64_rem(bytes, base_io_size, &rem);
	return units + (rem ? 1 : 0);
}
EXPORT_SYMBOL_IF_KUNIT(sqos_normalize);
