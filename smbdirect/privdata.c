// SPDX-License-Identifier: GPL-2.0
/*
 * Capabilities in RDMA CM private data (the codec; design.rst,
 * "Capabilities in CM private data").
 *
 * The blob, version 1, in network byte order (octets):
 *
 *   0-3  format identifier SMBDX_CAPS_ID (25 09 c3 90)
 *   4    version, 1
 *   5    flags: bit 0 flush to global visibility, bit 1 flush to
 *        persistence, bit 2 atomic write; bits 3-7 reserved
 *   6    responder resources the peer may use for push mode
 *   7    reserved
 *
 * Reserved bits and octets are sent zero and ignored on receipt; later
 * versions put their fields after octet 8.
 *
 * Finding it (RFC 8797 section 5.1's discipline): the identifier is looked
 * for at every byte offset of whatever the peer sent, since other content
 * may come first (MS-SMBD's 8-octet iWARP IRD/ORD header, a transport's
 * own). An occurrence is a blob only if its version is one we know and
 * the whole blob lies inside the received bytes; otherwise the scan goes
 * on to the next occurrence, so that a sender may put a later version
 * first and a version 1 blob after it. Nothing found means no
 * capabilities, never a refused connection, and nothing is remembered:
 * every connection is evaluated afresh.
 *
 * Sending: smbdx_privdata_build() appends the blob on iWARP only when the
 * caller opted in (a peer known to be smbdirect, or one whose connect
 * request carried a blob), and then only after the IRD/ORD header: Linux
 * 6.12's cifs and ksmbd, and smbdirect itself, take private data of
 * exactly 8 octets on iWARP for a legacy peer's IRD/ORD and anything
 * longer for none, so a blob alone would be read as an IRD/ORD header.
 * The IRD/ORD header, when there is one, always comes first and stays 8
 * octets.
 *
 * Concurrency: pure code, no locking and no shared state; every function
 * touches only its arguments. Nothing sleeps or allocates.
 */

#include <linux/errno.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include <kunit/visibility.h>

#include "privdata.h"

/* The identifier and the version octet: the least a candidate must hold. */
#define SMBDX_PD_ID_LEN		4
#define SMBDX_PD_MIN_BLOB	(SMBDX_PD_ID_LEN + 1)

/**
 * smbdx_pd_find() - look for a format identifier in private data
 * @pd: the private data as received (any alignment; NULL means none)
 * @len: bytes received
 * @id: the format identifier (host order; looked for big-endian)
 * @version: the only version accepted
 * @blob_len: bytes a blob of @version occupies, identifier included
 *	(at least 5)
 * @off: where the blob starts on SMBDX_PD_FOUND, where the first rejected
 *	occurrence starts on BAD_VERSION/TRUNCATED, 0 when absent (may be
 *	NULL)
 *
 * Every offset is tried, from the first byte to the last at which the
 * identifier still fits. The first occurrence that carries @version and
 * ends at or before @len wins. Never reads a byte at or past @len.
 *
 * Return: SMBDX_PD_FOUND, or why nothing was found (the first rejected
 * occurrence's reason, or SMBDX_PD_ABSENT).
 */
enum smbdx_pd_result smbdx_pd_find(const void *pd, u32 len, u32 id,
				   u8 version, u32 blob_len, u32 *off)
{
	enum smbdx_pd_result first = SMBDX_PD_ABSENT;
	u32 first_off = 0;
	const u8 *p = pd;
	u8 idb[SMBDX_PD_ID_LEN];
	u32 o;

	if (off)
		*off = 0;
	if (!pd || len < SMBDX_PD_ID_LEN || blob_len < SMBDX_PD_MIN_BLOB)
		return SMBDX_PD_ABSENT;

	put_unaligned_be32(id, idb);
	for (o = 0; o <= len - SMBDX_PD_ID_LEN; o++) {
		enum smbdx_pd_result r;

		if (p[o] != idb[0] || memcmp(p + o, idb, SMBDX_PD_ID_LEN))
			continue;
		/* len - o >= 4 here: the subtractions cannot wrap. */
		if (len - o < SMBDX_PD_MIN_BLOB)
			r = SMBDX_PD_TRUNCATED;
		else if (p[o + SMBDX_PD_ID_LEN] != version)
			r = SMBDX_PD_BAD_VERSION;
		else if (len - o < blob_len)
			r = SMBDX_PD_TRUNCATED;
		else
			r = SMBDX_PD_FOUND;

		if (r == SMBDX_PD_FOUND) {
			if (off)
				*off = o;
			return r;
		}
		if (first == SMBDX_PD_ABSENT) {
			first = r;
			first_off = o;
		}
	}
	if (off)
		*off = first_off;
	return first;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_pd_find);

/**
 * smbdx_caps_encode() - write the capability blob, version 1
 * @caps: what to advertise; reserved flag bits are not sent
 * @buf: where the blob goes (any alignment)
 * @size: bytes available at @buf
 *
 * Return: SMBDX_CAPS_V1_LEN, or -ENOSPC (nothing written) if @size is
 * smaller.
 */
int smbdx_caps_encode(const struct smbdx_caps *caps, void *buf, u32 size)
{
	u8 *p = buf;
	u8 flags = caps->flags & SMBDX_CAPS_KNOWN;

	if (size < SMBDX_CAPS_V1_LEN)
		return -ENOSPC;
	put_unaligned_be32(SMBDX_CAPS_ID, p);
	p[4] = SMBDX_CAPS_VERSION_1;
	p[5] = flags;
	p[6] = flags ? caps->push_ird : 0;
	p[7] = 0;
	return SMBDX_CAPS_V1_LEN;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_caps_encode);

/**
 * smbdx_caps_parse() - find the peer's capabilities in its private data
 * @pd: the peer's CM private data (any alignment; NULL means none)
 * @len: its length (on IB/RoCE the CM reports the whole area, 56 or 196
 *	octets, zero-filled after what the peer sent)
 * @caps: the peer's capabilities; all zero unless SMBDX_PD_FOUND
 * @off: as for smbdx_pd_find() (may be NULL)
 *
 * Reserved flag bits and the reserved octet are ignored. Responder
 * resources without any push-mode flag are reported as 0.
 *
 * Return: as smbdx_pd_find(); only SMBDX_PD_FOUND gives capabilities, and
 * no result is a reason to refuse the connection.
 */
enum smbdx_pd_result smbdx_caps_parse(const void *pd, u32 len,
				      struct smbdx_caps *caps, u32 *off)
{
	enum smbdx_pd_result r;
	const u8 *p = pd;
	u32 o;

	caps->flags = 0;
	caps->push_ird = 0;
	r = smbdx_pd_find(pd, len, SMBDX_CAPS_ID, SMBDX_CAPS_VERSION_1,
			  SMBDX_CAPS_V1_LEN, &o);
	if (off)
		*off = o;
	if (r != SMBDX_PD_FOUND)
		return r;
	caps->flags = p[o + 5] & SMBDX_CAPS_KNOWN;
	if (caps->flags)
		caps->push_ird = p[o + 6];
	return r;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_caps_parse);

/**
 * smbdx_privdata_build() - the private data of a connect request or accept
 * @iwarp: the connection is iWARP
 * @iwarp_ok: on iWARP, append the blob after @ird_ord all the same
 * @ird_ord: MS-SMBD's IRD/ORD header to send first (appendix A), or NULL
 * @caps: capabilities to advertise, or NULL
 * @buf: the private data area
 * @size: its size (SMBDX_PD_IB_REQ_MAX for an IB/RoCE connect request,
 *	SMBDX_PD_IB_REP_MAX for an accept)
 *
 * The IRD/ORD header, if any, fills the first 8 octets. The capability
 * blob follows it when it fits in @size and either @iwarp is false, or
 * @iwarp_ok is true and @ird_ord was given (on iWARP a blob never goes
 * alone: 8 octets there are an IRD/ORD header to every reader). It is
 * left out otherwise, which is never an error (capabilities are
 * optional), so on iWARP without @iwarp_ok the result is exactly what it
 * would be without @caps.
 *
 * Return: octets to send (0 to @size), or -ENOSPC (nothing written) if the
 * IRD/ORD header does not fit.
 */
int smbdx_privdata_build(bool iwarp, bool iwarp_ok,
			 const struct smbdx_ird_ord *ird_ord,
			 const struct smbdx_caps *caps, void *buf, u32 size)
{
	struct smbdx_ird_ord_hdr hdr;
	u32 used = 0;
	int n;

	if (ird_ord) {
		if (size < SMBDX_IRD_ORD_LEN)
			return -ENOSPC;
		smbdx_ird_ord_encode(ird_ord, &hdr);
		memcpy(buf, &hdr, SMBDX_IRD_ORD_LEN);
		used = SMBDX_IRD_ORD_LEN;
	}
	if (caps && (!iwarp || (iwarp_ok && ird_ord))) {
		n = smbdx_caps_encode(caps, (u8 *)buf + used, size - used);
		if (n > 0)
			used += n;
	}
	return used;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_privdata_build);
