/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The MS-SMB2 RDMA transform's wire structures, for the cifs and ksmbd
 * shims (Documentation/rdma-transform.rst): the data of the negotiate
 * context SMB2_RDMA_TRANSFORM_CAPABILITIES (MS-SMB2 2.2.3.1.6) and the
 * channel information SMB2_RDMA_TRANSFORM with its
 * SMB2_RDMA_CRYPTO_TRANSFORM (2.2.43, 2.2.43.1). The codec is
 * smbdirect/xform.c; its functions are declared in smbdirect.h.
 *
 * Names start with smbdx_xf_ / SMBDX_XF_ so that this header can be
 * included beside Linux's own fs/smb/common/smb2pdu.h (which defines
 * SMB2_RDMA_TRANSFORM_* for the same values) without a clash.
 *
 * Concurrency: none (declarations only).
 */
#ifndef _SMBDIRECT_XFORM_H
#define _SMBDIRECT_XFORM_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/types.h>

/* Negotiate context type of SMB2_RDMA_TRANSFORM_CAPABILITIES (2.2.3.1) */
#define SMBDX_XF_CTX_TYPE		7

/* RDMATransformIds (2.2.3.1.6) */
#define SMBDX_XF_ID_NONE		0x0000
#define SMBDX_XF_ID_ENCRYPTION		0x0001
#define SMBDX_XF_ID_SIGNING		0x0002

/* TransformType of SMB2_RDMA_CRYPTO_TRANSFORM (2.2.43.1) */
#define SMBDX_XF_TYPE_ENCRYPTION	0x0001
#define SMBDX_XF_TYPE_SIGNING		0x0002

/*
 * A set of transforms in host form: bit (ID - 1) for each known ID. The
 * same bits name a crypto transform's type (the two numberings agree).
 */
#define SMBDX_XF_ENCRYPTION		BIT(0)
#define SMBDX_XF_SIGNING		BIT(1)
#define SMBDX_XF_KNOWN			(SMBDX_XF_ENCRYPTION | SMBDX_XF_SIGNING)

/* Channel values (2.2.19, 2.2.21, 2.2.43), host order */
#define SMBDX_XF_CHANNEL_NONE		0x00000000
#define SMBDX_XF_CHANNEL_RDMA_V1	0x00000001
#define SMBDX_XF_CHANNEL_RDMA_V1_INV	0x00000002
#define SMBDX_XF_CHANNEL_TRANSFORM	0x00000003

/* SMB2_READFLAG_RESPONSE_RDMA_TRANSFORM (2.2.20), host order */
#define SMBDX_XF_READ_RSP_FLAG		0x00000001

/* Cipher IDs (2.2.3.1.2) and signing algorithm IDs (2.2.3.1.7) */
#define SMBDX_XF_AES128_CCM		0x0001
#define SMBDX_XF_AES128_GCM		0x0002
#define SMBDX_XF_AES256_CCM		0x0003
#define SMBDX_XF_AES256_GCM		0x0004
#define SMBDX_XF_HMAC_SHA256		0x0000
#define SMBDX_XF_AES_CMAC		0x0001
#define SMBDX_XF_AES_GMAC		0x0002

/* Lengths */
#define SMBDX_XF_CAPS_FIXED_LEN		8	/* context data before the IDs */
#define SMBDX_XF_CAPS_MAX_LEN		(SMBDX_XF_CAPS_FIXED_LEN + 2 * 2)
#define SMBDX_XF_HDR_LEN		16	/* SMB2_RDMA_TRANSFORM */
#define SMBDX_XF_CRYPTO_FIXED_LEN	8	/* crypto transform before Signature */
#define SMBDX_XF_SIG_MAX		16	/* SignatureLength limit (2.2.43.1) */
#define SMBDX_XF_NONCE_MAX		16	/* our limit: no algorithm needs more */
#define SMBDX_XF_ALIGN			8	/* what follows a crypto transform */
#define SMBDX_XF_CCM_NONCE_LEN		11
#define SMBDX_XF_GCM_NONCE_LEN		12
#define SMBDX_XF_GMAC_NONCE_LEN		12
#define SMBDX_XF_TAG_LEN		16	/* AES-CCM/GCM tag, AES-CMAC/GMAC */
/* The largest payload smbdx_xf_seal() and friends take (SMB2 I/O is <= 8 MiB) */
#define SMBDX_XF_PAYLOAD_MAX		(16U << 20)
/* The most descriptors RdmaDescriptorLength (16 bits) can describe */
#define SMBDX_XF_MAX_DESCS		4095

/* NTSTATUS values the transform's failures map to, host order */
#define SMBDX_XF_STATUS_INVALID_PARAMETER	0xc000000d
#define SMBDX_XF_STATUS_INVALID_NETWORK_RESPONSE 0xc00000c3
#define SMBDX_XF_STATUS_INVALID_SIGNATURE	0xc000a000
#define SMBDX_XF_STATUS_AUTH_TAG_MISMATCH	0xc000a002

/**
 * struct smbdx_xf_caps_wire - SMB2_RDMA_TRANSFORM_CAPABILITIES context data
 * @transform_count: number of IDs that follow (never 0)
 * @reserved1: sent zero, ignored
 * @reserved2: sent zero, ignored
 *
 * Followed by transform_count little-endian 16-bit RDMATransformIds.
 */
struct smbdx_xf_caps_wire {
	__le16 transform_count;
	__le16 reserved1;
	__le32 reserved2;
} __packed;
static_assert(sizeof(struct smbdx_xf_caps_wire) == SMBDX_XF_CAPS_FIXED_LEN);

/**
 * struct smbdx_xf_hdr_wire - SMB2_RDMA_TRANSFORM (MS-SMB2 2.2.43)
 * @desc_offset: from the start of this structure to the descriptors
 * @desc_length: octets of descriptors
 * @channel: the channel of the descriptors (NONE, RDMA_V1, RDMA_V1_INV)
 * @transform_count: crypto transforms that follow (never 0)
 * @reserved1: sent zero, ignored
 * @reserved2: sent zero, ignored
 */
struct smbdx_xf_hdr_wire {
	__le16 desc_offset;
	__le16 desc_length;
	__le32 channel;
	__le16 transform_count;
	__le16 reserved1;
	__le32 reserved2;
} __packed;
static_assert(sizeof(struct smbdx_xf_hdr_wire) == SMBDX_XF_HDR_LEN);

/**
 * struct smbdx_xf_crypto_wire - SMB2_RDMA_CRYPTO_TRANSFORM (2.2.43.1)
 * @transform_type: SMBDX_XF_TYPE_ENCRYPTION or SMBDX_XF_TYPE_SIGNING
 * @signature_length: octets of Signature (at most 16)
 * @nonce_length: octets of Nonce
 * @reserved: sent zero, ignored
 *
 * Followed by Signature, Nonce and zero padding to the next multiple of 8
 * octets counted from the start of the SMB2_RDMA_TRANSFORM.
 */
struct smbdx_xf_crypto_wire {
	__le16 transform_type;
	__le16 signature_length;
	__le16 nonce_length;
	__le16 reserved;
} __packed;
static_assert(sizeof(struct smbdx_xf_crypto_wire) ==
	      SMBDX_XF_CRYPTO_FIXED_LEN);

/**
 * struct smbdx_xf_caps - a received SMB2_RDMA_TRANSFORM_CAPABILITIES
 * @ids: SMBDX_XF_ENCRYPTION/SMBDX_XF_SIGNING for the known IDs listed
 * @count: TransformCount as received
 * @none: SMB2_RDMA_TRANSFORM_NONE was listed
 * @unknown: IDs listed that are not defined (each occurrence counted)
 * @dups: IDs listed more than once (each repetition counted)
 */
struct smbdx_xf_caps {
	u8 ids;
	bool none;
	u16 count;
	u16 unknown;
	u16 dups;
};

/**
 * struct smbdx_xf_crypto - one SMB2_RDMA_CRYPTO_TRANSFORM in host form
 * @type: SMBDX_XF_TYPE_ENCRYPTION or SMBDX_XF_TYPE_SIGNING
 * @sig_len: octets of @sig in use (at most SMBDX_XF_SIG_MAX)
 * @nonce_len: octets of @nonce in use (at most SMBDX_XF_NONCE_MAX)
 * @sig: the signature or authentication tag
 * @nonce: the nonce
 */
struct smbdx_xf_crypto {
	u16 type;
	u8 sig_len;
	u8 nonce_len;
	u8 sig[SMBDX_XF_SIG_MAX];
	u8 nonce[SMBDX_XF_NONCE_MAX];
};

/**
 * struct smbdx_xf_info - a decoded SMB2_RDMA_TRANSFORM
 * @channel: the inner Channel as received
 * @desc_off: RdmaDescriptorOffset (from the start of the transform)
 * @desc_len: RdmaDescriptorLength
 * @ndescs: descriptors at @desc_off (0 when none are expected)
 * @len: octets the transform and its crypto transform take, padding
 *	included when it was present (where a READ response's data would end)
 * @crypto: the crypto transform
 *
 * The descriptors are not copied: they are at @desc_off of the buffer
 * that was decoded, checked to lie inside it and to be 8-octet aligned
 * relative to its start.
 */
struct smbdx_xf_info {
	u32 channel;
	u32 desc_off;
	u32 desc_len;
	u32 ndescs;
	u32 len;
	struct smbdx_xf_crypto crypto;
};

/**
 * struct smbdx_xf_policy - what a received transform is checked against
 * @negotiated: SMBDX_XF_* transforms in Connection.RDMATransformIds
 * @encrypted: the message that carries the transform was encrypted
 * @sealed_cipher: Connection.CipherId (used when @encrypted)
 * @signed_msg: the message had SMB2_FLAGS_SIGNED (used when not @encrypted)
 * @sign_alg: Connection.SigningAlgorithmId (used when @signed_msg)
 */
struct smbdx_xf_policy {
	u8 negotiated;
	bool encrypted;
	u16 sealed_cipher;
	bool signed_msg;
	u16 sign_alg;
};

/**
 * enum smbdx_xf_verdict - what a received structure is worth
 * @SMBDX_XF_OK: valid
 * @SMBDX_XF_SHORT: the data ends inside a fixed part or inside an array
 *	or field its counts and lengths announce
 * @SMBDX_XF_NO_TRANSFORM: TransformCount is zero
 * @SMBDX_XF_BAD_ID: a negotiate response lists more IDs than were offered
 *	or an ID that was not offered
 * @SMBDX_XF_BAD_CHANNEL: the inner Channel of a WRITE's transform is not
 *	RDMA_V1 or RDMA_V1_INVALIDATE
 * @SMBDX_XF_BAD_TYPE: a crypto transform's TransformType is not defined
 * @SMBDX_XF_DUP_TYPE: more than one crypto transform (two of one type, or
 *	encryption with signing)
 * @SMBDX_XF_BAD_DESC: the descriptors are empty, not whole descriptors,
 *	not 8-octet aligned, overlap the transforms or run past the data
 * @SMBDX_XF_BAD_SIG_LEN: SignatureLength above 16, or not what the
 *	negotiated algorithm produces
 * @SMBDX_XF_BAD_NONCE_LEN: NonceLength above our limit, or not what the
 *	negotiated algorithm needs
 * @SMBDX_XF_NOT_NEGOTIATED: the transform's type was not negotiated on
 *	the connection (or nothing was)
 * @SMBDX_XF_WRONG_TYPE: the type does not match the protection of the
 *	message that carries it (encryption in a message not encrypted,
 *	signing in one encrypted or not signed)
 * @SMBDX_XF_UNSUPPORTED: the negotiated cipher or signing algorithm has
 *	no transform we implement (HMAC-SHA256; an unknown cipher)
 * @SMBDX_XF_MISMATCH: the payload did not verify or decrypt (reported by
 *	the caller's crypto; here for the status mapping)
 */
enum smbdx_xf_verdict {
	SMBDX_XF_OK,
	SMBDX_XF_SHORT,
	SMBDX_XF_NO_TRANSFORM,
	SMBDX_XF_BAD_ID,
	SMBDX_XF_BAD_CHANNEL,
	SMBDX_XF_BAD_TYPE,
	SMBDX_XF_DUP_TYPE,
	SMBDX_XF_BAD_DESC,
	SMBDX_XF_BAD_SIG_LEN,
	SMBDX_XF_BAD_NONCE_LEN,
	SMBDX_XF_NOT_NEGOTIATED,
	SMBDX_XF_WRONG_TYPE,
	SMBDX_XF_UNSUPPORTED,
	SMBDX_XF_MISMATCH,
};

#endif /* _SMBDIRECT_XFORM_H */
