// SPDX-License-Identifier: GPL-2.0
/*
 * The MS-SMB2 RDMA transform's codec (Documentation/rdma-transform.rst):
 * the negotiate context data SMB2_RDMA_TRANSFORM_CAPABILITIES (2.2.3.1.6)
 * and the channel information SMB2_RDMA_TRANSFORM (2.2.43) with its
 * SMB2_RDMA_CRYPTO_TRANSFORM (2.2.43.1), for the cifs and ksmbd shims.
 *
 * Context data, little-endian: TransformCount (2, never 0), two reserved
 * fields (2 + 4), then TransformCount 16-bit IDs. A receiver learns the
 * known IDs (ENCRYPTION 1, SIGNING 2), whether NONE (0) was listed, and
 * how many IDs were unknown or repeated; unknown IDs are not common to
 * both sides and so simply drop out (3.3.5.4). Octets after the IDs, within
 * the context's DataLength, are ignored.
 *
 * Channel information: the 16-octet SMB2_RDMA_TRANSFORM (descriptor
 * offset and length, inner Channel, TransformCount), then the crypto
 * transforms from octet 16: 8 fixed octets, Signature, Nonce, zero padding
 * to the next multiple of 8 counted from the transform's first octet; then,
 * in a WRITE request, the buffer descriptors at the 8-aligned
 * RdmaDescriptorOffset. Exactly one crypto transform is valid (a second one
 * is either a repeated type or encryption with signing, both refused by
 * 3.3.5.13). A READ response carries the same structures without
 * descriptors; its inner Channel, offset and length mean nothing and are
 * not looked at.
 *
 * Checks happen in two stages: smbdx_xf_info_decode() refuses whatever is
 * malformed in itself; smbdx_xf_info_check() compares a well-formed
 * transform with the connection's negotiated state and the protection of
 * the message that carried it. smbdx_xf_status() maps either stage's
 * verdict to the server's NTSTATUS.
 *
 * Hostile input: every decoder takes the received length, never reads
 * past it, computes every end in 64 bits, and writes its result only
 * through the output argument.
 *
 * Concurrency: pure code, no locking and no shared state; every function
 * touches only its arguments and may run in any context. Nothing sleeps or
 * allocates; smbdx_xf_crypto_prepare() draws random bytes.
 */

#include <linux/align.h>
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/string.h>
#include <linux/unaligned.h>

#include <smbdirect/smbdirect.h>
#include <smbdirect/xform.h>

/* The SMBDX_XF_* bit of a TransformType or ID (1 or 2), 0 for others. */
static u8 xf_bit(u32 type)
{
	if (type == SMBDX_XF_TYPE_ENCRYPTION)
		return SMBDX_XF_ENCRYPTION;
	if (type == SMBDX_XF_TYPE_SIGNING)
		return SMBDX_XF_SIGNING;
	return 0;
}

/* Octets a crypto transform takes with its padding. */
static u32 xf_crypto_len(u32 sig_len, u32 nonce_len)
{
	return ALIGN(SMBDX_XF_CRYPTO_FIXED_LEN + sig_len + nonce_len,
		     SMBDX_XF_ALIGN);
}

/**
 * smbdx_xf_caps_encode() - write SMB2_RDMA_TRANSFORM_CAPABILITIES data
 * @ids: SMBDX_XF_ENCRYPTION and/or SMBDX_XF_SIGNING, at least one
 * @buf: the context's Data field (any alignment)
 * @size: octets available at @buf
 *
 * Writes TransformCount, the zeroed reserved fields and the IDs in
 * ascending order (MS-SMB2 2.2.3.1.6). The caller writes the context
 * header (type SMBDX_XF_CTX_TYPE, DataLength the return value) and pads
 * the next context to 8 octets. A server answers with the IDs common to
 * both sides, and sends no context at all when there are none.
 *
 * Context: any.
 * Return: octets written (10 or 12), -EINVAL (nothing written) for an
 * empty or unknown @ids, -ENOSPC (nothing written) if @size is too small.
 */
int smbdx_xf_caps_encode(u8 ids, void *buf, u32 size)
{
	u32 n = hweight8(ids), len = SMBDX_XF_CAPS_FIXED_LEN + 2 * n;
	u8 *p = buf;
	u32 id;

	if (!ids || (ids & ~SMBDX_XF_KNOWN))
		return -EINVAL;
	if (size < len)
		return -ENOSPC;
	put_unaligned_le16(n, p);
	put_unaligned_le16(0, p + 2);
	put_unaligned_le32(0, p + 4);
	p += SMBDX_XF_CAPS_FIXED_LEN;
	for (id = SMBDX_XF_ID_ENCRYPTION; id <= SMBDX_XF_ID_SIGNING; id++) {
		if (ids & xf_bit(id)) {
			put_unaligned_le16(id, p);
			p += 2;
		}
	}
	return len;
}
EXPORT_SYMBOL_NS_GPL(smbdx_xf_caps_encode, SMBDX_NS);

/**
 * smbdx_xf_caps_decode() - parse SMB2_RDMA_TRANSFORM_CAPABILITIES data
 * @data: the context's Data field as received (any alignment)
 * @len: its DataLength, already checked to lie inside the message
 * @caps: what it lists; all zero unless SMBDX_XF_OK
 *
 * Refuses data shorter than the fixed part, a TransformCount of zero, and
 * an ID array that runs past @len (3.3.5.4: the server fails the NEGOTIATE
 * with STATUS_INVALID_PARAMETER). Unknown IDs, NONE and repeated IDs are
 * accepted and counted; octets after the array are ignored.
 *
 * Context: any.
 * Return: SMBDX_XF_OK, SMBDX_XF_SHORT or SMBDX_XF_NO_TRANSFORM.
 */
enum smbdx_xf_verdict smbdx_xf_caps_decode(const void *data, u32 len,
					   struct smbdx_xf_caps *caps)
{
	struct smbdx_xf_caps c = {};
	const u8 *p = data;
	u32 i, count;

	memset(caps, 0, sizeof(*caps));
	if (!data || len < SMBDX_XF_CAPS_FIXED_LEN)
		return SMBDX_XF_SHORT;
	count = get_unaligned_le16(p);
	if (!count)
		return SMBDX_XF_NO_TRANSFORM;
	if ((len - SMBDX_XF_CAPS_FIXED_LEN) / 2 < count)
		return SMBDX_XF_SHORT;

	c.count = count;
	p += SMBDX_XF_CAPS_FIXED_LEN;
	for (i = 0; i < count; i++, p += 2) {
		u32 id = get_unaligned_le16(p);
		u8 bit = xf_bit(id);

		if (id == SMBDX_XF_ID_NONE) {
			if (c.none)
				c.dups++;
			c.none = true;
		} else if (!bit) {
			c.unknown++;
		} else if (c.ids & bit) {
			c.dups++;
		} else {
			c.ids |= bit;
		}
	}
	*caps = c;
	return SMBDX_XF_OK;
}
EXPORT_SYMBOL_NS_GPL(smbdx_xf_caps_decode, SMBDX_NS);

/**
 * smbdx_xf_caps_check_response() - the client's check of the server's
 *	SMB2_RDMA_TRANSFORM_CAPABILITIES
 * @data: the response context's Data field (any alignment)
 * @len: its DataLength, already checked to lie inside the message
 * @offered: the SMBDX_XF_* IDs the client sent
 * @agreed: the IDs both sides support (Connection.RDMATransformIds); 0
 *	unless SMBDX_XF_OK
 *
 * On top of smbdx_xf_caps_decode()'s checks, a response that lists more
 * IDs than were offered, or any ID that was not offered (NONE and unknown
 * IDs included), is refused (3.2.5.2: the client returns an error to its
 * caller). An ID repeated within the offered count is accepted.
 *
 * Context: any.
 * Return: SMBDX_XF_OK, SMBDX_XF_SHORT, SMBDX_XF_NO_TRANSFORM or
 * SMBDX_XF_BAD_ID.
 */
enum smbdx_xf_verdict smbdx_xf_caps_check_response(const void *data, u32 len,
						   u8 offered, u8 *agreed)
{
	struct smbdx_xf_caps c;
	enum smbdx_xf_verdict v;

	*agreed = 0;
	offered &= SMBDX_XF_KNOWN;
	v = smbdx_xf_caps_decode(data, len, &c);
	if (v != SMBDX_XF_OK)
		return v;
	if (c.count > hweight8(offered) || c.none || c.unknown ||
	    (c.ids & ~offered))
		return SMBDX_XF_BAD_ID;
	*agreed = c.ids;
	return SMBDX_XF_OK;
}
EXPORT_SYMBOL_NS_GPL(smbdx_xf_caps_check_response, SMBDX_NS);

/**
 * smbdx_xf_lengths() - Signature and Nonce lengths of a crypto transform
 * @type: SMBDX_XF_TYPE_ENCRYPTION or SMBDX_XF_TYPE_SIGNING
 * @alg: Connection.CipherId for encryption, Connection.SigningAlgorithmId
 *	for signing
 * @sig_len: the SignatureLength the algorithm gives
 * @nonce_len: the NonceLength it needs
 *
 * Encryption: AES-CCM 16 and 11, AES-GCM 16 and 12 (the nonce lengths of
 * 2.2.41, which the server enforces for the transform, 3.3.5.13). Signing:
 * AES-CMAC 16 and 0, AES-GMAC 16 and 12. HMAC-SHA256 gives 32 octets,
 * more than a crypto transform may carry, and is not supported.
 *
 * Context: any.
 * Return: 0; -EINVAL for an unknown @type; -EOPNOTSUPP for an algorithm
 * without a transform (both lengths are then 0).
 */
int smbdx_xf_lengths(u16 type, u16 alg, u8 *sig_len, u8 *nonce_len)
{
	*sig_len = 0;
	*nonce_len = 0;
	if (type == SMBDX_XF_TYPE_ENCRYPTION) {
		switch (alg) {
		case SMBDX_XF_AES128_CCM:
		case SMBDX_XF_AES256_CCM:
			*nonce_len = SMBDX_XF_CCM_NONCE_LEN;
			break;
		case SMBDX_XF_AES128_GCM:
		case SMBDX_XF_AES256_GCM:
			*nonce_len = SMBDX_XF_GCM_NONCE_LEN;
			break;
		default:
			return -EOPNOTSUPP;
		}
	} else if (type == SMBDX_XF_TYPE_SIGNING) {
		switch (alg) {
		case SMBDX_XF_AES_CMAC:
			break;
		case SMBDX_XF_AES_GMAC:
			*nonce_len = SMBDX_XF_GMAC_NONCE_LEN;
			break;
		default:
			return -EOPNOTSUPP;
		}
	} else {
		return -EINVAL;
	}
	*sig_len = SMBDX_XF_TAG_LEN;
	return 0;
}
EXPORT_SYMBOL_NS_GPL(smbdx_xf_lengths, SMBDX_NS);

/**
 * smbdx_xf_crypto_prepare() - start a crypto transform to send
 * @cr: filled: the type, the lengths, a zero Signature, the nonce
 * @type: SMBDX_XF_TYPE_ENCRYPTION or SMBDX_XF_TYPE_SIGNING
 * @alg: Connection.CipherId or Connection.SigningAlgorithmId
 *
 * The nonce of an encryption transform is random, drawn like the SMB2
 * TRANSFORM_HEADER nonces of the session's encrypted messages (the spec
 * leaves it to the implementation but forbids reuse within the session,
 * and both use Session.EncryptionKey). AES-CMAC needs none. AES-GMAC is
 * refused: how its nonce must differ from the message signature's is an
 * open question (rdma-transform.rst). The caller computes the Signature.
 *
 * Context: any.
 * Return: 0, -EINVAL for an unknown @type, -EOPNOTSUPP for an algorithm
 * we do not transform with (@cr is then all zero).
 */
int smbdx_xf_crypto_prepare(struct smbdx_xf_crypto *cr, u16 type, u16 alg)
{
	u8 sig_len, nonce_len;
	int rc;

	memset(cr, 0, sizeof(*cr));
	rc = smbdx_xf_lengths(type, alg, &sig_len, &nonce_len);
	if (rc)
		return rc;
	if (type == SMBDX_XF_TYPE_SIGNING && alg != SMBDX_XF_AES_CMAC)
		return -EOPNOTSUPP;
	cr->type = type;
	cr->sig_len = sig_len;
	cr->nonce_len = nonce_len;
	if (nonce_len)
		get_random_bytes(cr->nonce, nonce_len);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(smbdx_xf_crypto_prepare, SMBDX_NS);

/**
 * smbdx_xf_info_len() - octets of an encoded SMB2_RDMA_TRANSFORM
 * @sig_len: SignatureLength of its crypto transform
 * @nonce_len: NonceLength of its crypto transform
 * @ndescs: buffer descriptors that follow (0 in a READ response; more
 *	than SMBDX_XF_MAX_DESCS, which no transform can carry, count as that
 *	many)
 *
 * Context: any.
 * Return: 16 + the crypto transform padded to 8 + 16 per descriptor.
 */
u32 smbdx_xf_info_len(u8 sig_len, u8 nonce_len, u32 ndescs)
{
	return SMBDX_XF_HDR_LEN + xf_crypto_len(sig_len, nonce_len) +
	       min_t(u32, ndescs, SMBDX_XF_MAX_DESCS) *
	       SMBDX_BUFFER_DESC_V1_LEN;
}
EXPORT_SYMBOL_NS_GPL(smbdx_xf_info_len, SMBDX_NS);

/**
 * smbdx_xf_info_encode() - write an SMB2_RDMA_TRANSFORM with one crypto
 *	transform and its descriptors
 * @cr: the crypto transform (type 1 or 2, lengths at most 16)
 * @channel: SMBDX_XF_CHANNEL_RDMA_V1 or _RDMA_V1_INV with descriptors (a
 *	WRITE request's channel information), SMBDX_XF_CHANNEL_NONE without
 *	(a READ response's Buffer)
 * @descs: @ndescs descriptors as they go on the wire (NULL when none)
 * @ndescs: 0 to SMBDX_XF_MAX_DESCS
 * @buf: where the structures go (any alignment; the 8-octet boundaries
 *	are counted from @buf)
 * @size: octets available at @buf
 *
 * The crypto transform follows the 16-octet header, padded with zeros to
 * a multiple of 8; the descriptors follow it. Reserved fields are zero.
 * With SMBDX_XF_CHANNEL_NONE the descriptor offset and length are zero.
 *
 * Context: any.
 * Return: octets written (smbdx_xf_info_len()); -EINVAL (nothing
 * written) for an unknown type, a length above 16, or a channel that does
 * not match @ndescs; -ENOSPC (nothing written) if @size is too small.
 */
int smbdx_xf_info_encode(const struct smbdx_xf_crypto *cr, u32 channel,
			 const struct smbdx_buffer_desc_v1 *descs, u32 ndescs,
			 void *buf, u32 size)
{
	u32 clen, len, doff = 0, dlen = 0;
	u8 *p = buf;

	if (!xf_bit(cr->type) || cr->sig_len > SMBDX_XF_SIG_MAX ||
	    cr->nonce_len > SMBDX_XF_NONCE_MAX)
		return -EINVAL;
	if (ndescs) {
		if ((channel != SMBDX_XF_CHANNEL_RDMA_V1 &&
		     channel != SMBDX_XF_CHANNEL_RDMA_V1_INV) ||
		    !descs || ndescs > SMBDX_XF_MAX_DESCS)
			return -EINVAL;
	} else if (channel != SMBDX_XF_CHANNEL_NONE) {
		return -EINVAL;
	}
	clen = xf_crypto_len(cr->sig_len, cr->nonce_len);
	len = smbdx_xf_info_len(cr->sig_len, cr->nonce_len, ndescs);
	if (size < len)
		return -ENOSPC;
	if (ndescs) {
		doff = SMBDX_XF_HDR_LEN + clen;
		dlen = ndescs * SMBDX_BUFFER_DESC_V1_LEN;
	}

	memset(p, 0, SMBDX_XF_HDR_LEN + clen);
	put_unaligned_le16(doff, p);
	put_unaligned_le16(dlen, p + 2);
	put_unaligned_le32(channel, p + 4);
	put_unaligned_le16(1, p + 8);
	p += SMBDX_XF_HDR_LEN;
	put_unaligned_le16(cr->type, p);
	put_unaligned_le16(cr->sig_len, p + 2);
	put_unaligned_le16(cr->nonce_len, p + 4);
	p += SMBDX_XF_CRYPTO_FIXED_LEN;
	memcpy(p, cr->sig, cr->sig_len);
	memcpy(p + cr->sig_len, cr->nonce, cr->nonce_len);
	if (ndescs)
		memcpy((u8 *)buf + doff, descs, dlen);
	return len;
}
EXPORT_SYMBOL_NS_GPL(smbdx_xf_info_encode, SMBDX_NS);

/**
 * smbdx_xf_info_decode() - parse a received SMB2_RDMA_TRANSFORM
 * @buf: a WRITE request's channel information, or a READ response's
 *	Buffer at DataOffset (any alignment; 8-octet boundaries are counted
 *	from @buf)
 * @len: its length (WriteChannelInfoLength, or DataLength), already
 *	checked to lie inside the message
 * @descs: true for a WRITE request: descriptors must follow
 * @xi: the transform; all zero unless SMBDX_XF_OK
 *
 * Checks, in order: the 16-octet header fits (SMBDX_XF_SHORT);
 * TransformCount is not zero (SMBDX_XF_NO_TRANSFORM); each crypto
 * transform's fixed part, Signature and Nonce fit (SMBDX_XF_SHORT), its
 * type is defined (SMBDX_XF_BAD_TYPE), its SignatureLength is at most 16
 * (SMBDX_XF_BAD_SIG_LEN) and its NonceLength at most 16
 * (SMBDX_XF_BAD_NONCE_LEN); there is only one (SMBDX_XF_DUP_TYPE). With
 * @descs: the inner Channel is RDMA_V1 or RDMA_V1_INVALIDATE
 * (SMBDX_XF_BAD_CHANNEL), and the descriptors are at least one whole
 * descriptor, start 8-aligned at or after the end of the crypto transform
 * and end inside @len (SMBDX_XF_BAD_DESC). Without @descs the inner
 * Channel, offset and length are not looked at. The final padding may be
 * absent; its content is ignored, as are the reserved fields.
 *
 * Context: any.
 * Return: the first verdict that applies, or SMBDX_XF_OK.
 */
enum smbdx_xf_verdict smbdx_xf_info_decode(const void *buf, u32 len,
					   bool descs,
					   struct smbdx_xf_info *xi)
{
	struct smbdx_xf_info x = {};
	const u8 *p = buf;
	u64 pos = SMBDX_XF_HDR_LEN, end = 0;
	u32 count, i;

	memset(xi, 0, sizeof(*xi));
	if (!buf || len < SMBDX_XF_HDR_LEN)
		return SMBDX_XF_SHORT;
	x.desc_off = get_unaligned_le16(p);
	x.desc_len = get_unaligned_le16(p + 2);
	x.channel = get_unaligned_le32(p + 4);
	count = get_unaligned_le16(p + 8);
	if (!count)
		return SMBDX_XF_NO_TRANSFORM;

	/* Each pass consumes at least 8 octets, so it ends within len / 8. */
	for (i = 0; i < count; i++) {
		const u8 *c;
		u32 type, sig_len, nonce_len;

		if (pos + SMBDX_XF_CRYPTO_FIXED_LEN > len)
			return SMBDX_XF_SHORT;
		c = p + pos;
		type = get_unaligned_le16(c);
		sig_len = get_unaligned_le16(c + 2);
		nonce_len = get_unaligned_le16(c + 4);
		end = pos + SMBDX_XF_CRYPTO_FIXED_LEN + sig_len + nonce_len;
		if (end > len)
			return SMBDX_XF_SHORT;
		if (!xf_bit(type))
			return SMBDX_XF_BAD_TYPE;
		if (sig_len > SMBDX_XF_SIG_MAX)
			return SMBDX_XF_BAD_SIG_LEN;
		if (nonce_len > SMBDX_XF_NONCE_MAX)
			return SMBDX_XF_BAD_NONCE_LEN;
		if (i == 0) {
			c += SMBDX_XF_CRYPTO_FIXED_LEN;
			x.crypto.type = type;
			x.crypto.sig_len = sig_len;
			x.crypto.nonce_len = nonce_len;
			memcpy(x.crypto.sig, c, sig_len);
			memcpy(x.crypto.nonce, c + sig_len, nonce_len);
			x.len = ALIGN(end, SMBDX_XF_ALIGN) <= len ?
				ALIGN(end, SMBDX_XF_ALIGN) : end;
		}
		pos = ALIGN(end, SMBDX_XF_ALIGN);
	}
	if (count > 1)
		return SMBDX_XF_DUP_TYPE;

	if (descs) {
		/* end is the first crypto transform's, padding excluded */
		if (x.channel != SMBDX_XF_CHANNEL_RDMA_V1 &&
		    x.channel != SMBDX_XF_CHANNEL_RDMA_V1_INV)
			return SMBDX_XF_BAD_CHANNEL;
		if (!x.desc_len || x.desc_len % SMBDX_BUFFER_DESC_V1_LEN ||
		    x.desc_off % SMBDX_XF_ALIGN || x.desc_off < end ||
		    (u64)x.desc_off + x.desc_len > len)
			return SMBDX_XF_BAD_DESC;
		x.ndescs = x.desc_len / SMBDX_BUFFER_DESC_V1_LEN;
	}
	*xi = x;
	return SMBDX_XF_OK;
}
EXPORT_SYMBOL_NS_GPL(smbdx_xf_info_decode, SMBDX_NS);

/**
 * smbdx_xf_info_check() - check a decoded transform against the
 *	connection and the message that carried it
 * @xi: a transform smbdx_xf_info_decode() accepted
 * @pol: the negotiated transforms and the message's protection
 *
 * In order: its type was negotiated (SMBDX_XF_NOT_NEGOTIATED); an
 * encryption transform comes in an encrypted message, a signing transform
 * in a signed one that is not encrypted (SMBDX_XF_WRONG_TYPE); the
 * negotiated algorithm has a transform (SMBDX_XF_UNSUPPORTED); the
 * Signature and Nonce have exactly its lengths (SMBDX_XF_BAD_SIG_LEN,
 * SMBDX_XF_BAD_NONCE_LEN). 3.3.5.13 and 3.2.5.11; a WRITE or a READ
 * response that passes may be verified or decrypted.
 *
 * Context: any.
 * Return: the first verdict that applies, or SMBDX_XF_OK.
 */
enum smbdx_xf_verdict smbdx_xf_info_check(const struct smbdx_xf_info *xi,
					  const struct smbdx_xf_policy *pol)
{
	const struct smbdx_xf_crypto *cr = &xi->crypto;
	u8 bit = xf_bit(cr->type);
	u8 sig_len, nonce_len;
	u16 alg;

	if (!bit)
		return SMBDX_XF_BAD_TYPE;
	if (!(pol->negotiated & bit))
		return SMBDX_XF_NOT_NEGOTIATED;
	if (cr->type == SMBDX_XF_TYPE_ENCRYPTION) {
		if (!pol->encrypted)
			return SMBDX_XF_WRONG_TYPE;
		alg = pol->sealed_cipher;
	} else {
		if (pol->encrypted || !pol->signed_msg)
			return SMBDX_XF_WRONG_TYPE;
		alg = pol->sign_alg;
	}
	if (smbdx_xf_lengths(cr->type, alg, &sig_len, &nonce_len))
		return SMBDX_XF_UNSUPPORTED;
	if (cr->sig_len != sig_len)
		return SMBDX_XF_BAD_SIG_LEN;
	if (cr->nonce_len != nonce_len)
		return SMBDX_XF_BAD_NONCE_LEN;
	return SMBDX_XF_OK;
}
EXPORT_SYMBOL_NS_GPL(smbdx_xf_info_check, SMBDX_NS);

/**
 * smbdx_xf_status() - the server's NTSTATUS for a verdict on a WRITE's
 *	transform
 * @v: the verdict of smbdx_xf_info_decode(), smbdx_xf_info_check() or
 *	the caller's crypto (SMBDX_XF_MISMATCH)
 * @type: the crypto transform's TransformType (for the lengths and the
 *	mismatch)
 *
 * Malformed structures and a transform that does not fit the connection
 * or the message are STATUS_INVALID_PARAMETER; wrong Signature or Nonce
 * lengths and a failed decryption of an encryption transform are
 * STATUS_AUTH_TAG_MISMATCH; the same for a signing transform, and a
 * signature that does not verify, are STATUS_INVALID_SIGNATURE
 * (3.3.5.13; rdma-transform.rst, "Failures and their status codes"). The
 * client fails a READ whose response's transform is refused with
 * STATUS_INVALID_NETWORK_RESPONSE whatever the verdict (3.2.5.11) and
 * does not need this.
 *
 * Context: any.
 * Return: 0 for SMBDX_XF_OK, the NTSTATUS in host order otherwise.
 */
u32 smbdx_xf_status(enum smbdx_xf_verdict v, u16 type)
{
	switch (v) {
	case SMBDX_XF_OK:
		return 0;
	case SMBDX_XF_BAD_SIG_LEN:
	case SMBDX_XF_BAD_NONCE_LEN:
	case SMBDX_XF_MISMATCH:
		if (type == SMBDX_XF_TYPE_ENCRYPTION)
			return SMBDX_XF_STATUS_AUTH_TAG_MISMATCH;
		if (type == SMBDX_XF_TYPE_SIGNING)
			return SMBDX_XF_STATUS_INVALID_SIGNATURE;
		return SMBDX_XF_STATUS_INVALID_PARAMETER;
	default:
		return SMBDX_XF_STATUS_INVALID_PARAMETER;
	}
}
EXPORT_SYMBOL_NS_GPL(smbdx_xf_status, SMBDX_NS);
