/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Capabilities in RDMA CM private data: smbdirect's own blob, with the
 * discipline of RFC 8797 (a format identifier found at any byte offset, a
 * version, reserved bits sent zero and ignored, fields after byte 8 left
 * for later versions) and a format identifier of its own. It advertises
 * push-mode support (draft-talpey-rdma-commit: flush to global
 * visibility, flush to persistence, atomic write) and the responder
 * resources the peer may use for it. See smbdirect/privdata.c and
 * Documentation/design.rst, "Capabilities in CM private data".
 *
 * Pure code: no verbs calls. Concurrency: no locking and no shared state;
 * every function touches only its arguments and may run in any context
 * (a CM event handler included). Nothing sleeps or allocates.
 *
 * Hostile input: the parser takes the received length, never reads past
 * it, and answers "no capabilities" for anything it does not recognise;
 * nothing here can refuse a connection.
 */
#ifndef _SMBDIRECT_PRIVDATA_H
#define _SMBDIRECT_PRIVDATA_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/types.h>
#include <smbdirect/pdu.h>

/*
 * Format identifier, experimental (no IANA registration): the first four
 * octets of SHA-256("smbdirect CM private data capabilities"). Not RFC
 * 8797's 0xf6ab0e18. Sent in network byte order: 25 09 c3 90.
 */
#define SMBDX_CAPS_ID			0x2509c390
/* Version 1: exactly SMBDX_CAPS_V1_LEN octets, laid out as below. */
#define SMBDX_CAPS_VERSION_1		1
#define SMBDX_CAPS_V1_LEN		8

/* Flags (octet 5): push-mode operations the sender supports. */
#define SMBDX_CAP_FLUSH_GLOBAL		BIT(0)
#define SMBDX_CAP_FLUSH_PERSISTENT	BIT(1)
#define SMBDX_CAP_ATOMIC_WRITE		BIT(2)
/* Every other bit is reserved: sent zero, ignored on receipt. */
#define SMBDX_CAPS_KNOWN		(SMBDX_CAP_FLUSH_GLOBAL | \
					 SMBDX_CAP_FLUSH_PERSISTENT | \
					 SMBDX_CAP_ATOMIC_WRITE)

/*
 * Usable private data: an IB/RoCE connect request carries 92 octets less
 * the RDMA CM's 36-octet header, an accept (REP) 196; MPA (iWARP) allows
 * up to 512 (RFC 5044), where we never send the blob.
 */
#define SMBDX_PD_IB_REQ_MAX		56
#define SMBDX_PD_IB_REP_MAX		196
#define SMBDX_PD_MPA_MAX		512

/**
 * struct smbdx_caps_v1 - the capability blob, version 1, on the wire
 * @id: SMBDX_CAPS_ID, big-endian
 * @version: SMBDX_CAPS_VERSION_1
 * @flags: SMBDX_CAP_* bits; the others are reserved
 * @push_ird: responder resources the peer may use for push-mode
 *	operations (flushes and atomic writes outstanding at once)
 * @reserved: sent zero, ignored on receipt
 *
 * Later versions append their fields after these eight octets.
 */
struct smbdx_caps_v1 {
	__be32 id;
	u8 version;
	u8 flags;
	u8 push_ird;
	u8 reserved;
} __packed;
static_assert(sizeof(struct smbdx_caps_v1) == SMBDX_CAPS_V1_LEN);

/**
 * struct smbdx_caps - capabilities in host form
 * @flags: SMBDX_CAP_* bits (never a reserved bit)
 * @push_ird: responder resources for push mode (0 when @flags is 0)
 *
 * All zero means "no capabilities": what an absent or malformed blob gives.
 */
struct smbdx_caps {
	u8 flags;
	u8 push_ird;
};

/**
 * enum smbdx_pd_result - what a scan of private data found
 * @SMBDX_PD_ABSENT: the identifier occurs nowhere
 * @SMBDX_PD_FOUND: a blob of the expected version that fits in the data
 * @SMBDX_PD_BAD_VERSION: the identifier occurs, but the first such
 *	occurrence carries another version (and no later one is valid)
 * @SMBDX_PD_TRUNCATED: the first occurrence of the identifier runs past
 *	the end of the data (and no later one is valid)
 *
 * Anything but SMBDX_PD_FOUND means "no capabilities"; the other values
 * only say why, for counters and logs.
 */
enum smbdx_pd_result {
	SMBDX_PD_ABSENT,
	SMBDX_PD_FOUND,
	SMBDX_PD_BAD_VERSION,
	SMBDX_PD_TRUNCATED,
};

enum smbdx_pd_result smbdx_pd_find(const void *pd, u32 len, u32 id,
				   u8 version, u32 blob_len, u32 *off);
int smbdx_caps_encode(const struct smbdx_caps *caps, void *buf, u32 size);
enum smbdx_pd_result smbdx_caps_parse(const void *pd, u32 len,
				      struct smbdx_caps *caps, u32 *off);
int smbdx_privdata_build(bool iwarp, bool iwarp_ok,
			 const struct smbdx_ird_ord *ird_ord,
			 const struct smbdx_caps *caps, void *buf, u32 size);

#endif /* _SMBDIRECT_PRIVDATA_H */
