// SPDX-License-Identifier: GPL-2.0
/*
 * ksmbd's side of the MS-SMB2 RDMA transform (Documentation/rdma-transform.rst,
 * step E), called from the hunks of shim/6.12/ksmbd-xform.patch:
 *
 *  - NEGOTIATE (MS-SMB2 3.3.5.4): a 3.1.1 request's
 *    SMB2_RDMA_TRANSFORM_CAPABILITIES context (2.2.3.1.6) is decoded with
 *    smbdirect's codec when the module parameter rdma_transform is on and
 *    the connection is SMB Direct (ours); a malformed one fails the
 *    NEGOTIATE with STATUS_INVALID_PARAMETER; the IDs both sides support
 *    are kept in the transport (transport_rdma.c) and answered with the
 *    same context; none in common, no context (open question 6).
 *  - WRITE with SMB2_CHANNEL_RDMA_TRANSFORM (3.3.5.13): the channel
 *    information (2.2.43, 2.2.43.1) is decoded and checked against the
 *    connection and the request's protection before anything is read;
 *    the payload is RDMA-read into ksmbd's buffer as for RDMA_V1, then
 *    verified (AES-CMAC, the channel's signing key) or decrypted in place
 *    (the session's decryption key, ccm(aes) or gcm(aes) by the
 *    connection's cipher) before ksmbd writes it to the file. A refusal
 *    fails that WRITE alone with the status of rdma-transform.rst's table.
 *  - READ on an RDMA_V1(_INVALIDATE) channel (3.3.5.12) whose response is
 *    encrypted or signed, on a connection that agreed the matching
 *    transform: the data is encrypted (the session's encryption key, a
 *    random nonce) or signed in place, RDMA-written, and the response
 *    carries SMB2_READFLAG_RESPONSE_RDMA_TRANSFORM with the transform in
 *    its Buffer. Signing algorithms without a transform (HMAC-SHA256,
 *    AES-GMAC) keep today's path (plain RDMA).
 *
 * With rdma_transform off (the default) nothing here changes what ksmbd
 * does: the context is skipped as Linux's ksmbd skips it, channel 3 is
 * what it is to Linux's ksmbd, and no READ is transformed.
 *
 * Concurrency: the module parameter is read with READ_ONCE() (it may
 * change at any time; a WRITE decides once whether channel 3 is ours, and
 * only a NEGOTIATE records transforms); the agreed transforms are the
 * transport's (transport_rdma.c). Keys are the session's and channel's,
 * which ksmbd holds for the request; transform objects come from ksmbd's
 * crypto context pool, one request each. The counters are atomics. All
 * functions run in a request worker (process context, may sleep).
 */

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <crypto/aead.h>
#include <crypto/hash.h>
#include <smbdirect/smbdirect.h>

#include "glob.h"
#include "connection.h"
#include "ksmbd_work.h"
#include "smb_common.h"
#include "smb2pdu.h"
#include "crypto_ctx.h"
#include "mgmt/user_session.h"
#include "transport_rdma.h"
#include "ksmbd_xform.h"

static bool rdma_transform;
module_param(rdma_transform, bool, 0644);
MODULE_PARM_DESC(rdma_transform,
		 "Answer the MS-SMB2 RDMA transform on SMB Direct 3.1.1 connections (default: off, experimental)");

/*
 * What the transform did, for the tests and the administrator.
 * TODO(i31 step D, branch i31-xfd): count through smbdirect's xform
 * counters (smbdx_conn_set_xform() and the per-connection xform_sealed,
 * xform_signed, xform_rejected) once they are on main; until then these
 * module-wide ones, read through the parameter rdma_transform_stats.
 */
static atomic64_t kx_sealed, kx_signed, kx_opened, kx_verified, kx_rejected;

static int kx_stats_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "sealed=%lld signed=%lld opened=%lld verified=%lld rejected=%lld\n",
			  (long long)atomic64_read(&kx_sealed),
			  (long long)atomic64_read(&kx_signed),
			  (long long)atomic64_read(&kx_opened),
			  (long long)atomic64_read(&kx_verified),
			  (long long)atomic64_read(&kx_rejected));
}

static const struct kernel_param_ops kx_stats_ops = {
	.get = kx_stats_get,
};
module_param_cb(rdma_transform_stats, &kx_stats_ops, NULL, 0444);
MODULE_PARM_DESC(rdma_transform_stats,
		 "RDMA transform counters: payloads sealed, signed, opened, verified, WRITEs rejected");

/*
 * The errnos a refused transformed WRITE carries to smb2_write()'s error
 * path besides -EINVAL (STATUS_INVALID_PARAMETER): neither is returned by
 * the file system's write path, and they are mapped back only for a WRITE
 * with SMB2_CHANNEL_RDMA_TRANSFORM (ksmbd_xform_write_status()).
 */
#define KX_ERR_BAD_SIGNATURE	EKEYREJECTED	/* STATUS_INVALID_SIGNATURE */
#define KX_ERR_BAD_TAG		EKEYREVOKED	/* STATUS_AUTH_TAG_MISMATCH */

static int kx_refuse(enum smbdx_xf_verdict v, u16 type)
{
	atomic64_inc(&kx_rejected);
	switch (smbdx_xf_status(v, type)) {
	case SMBDX_XF_STATUS_INVALID_SIGNATURE:
		return -KX_ERR_BAD_SIGNATURE;
	case SMBDX_XF_STATUS_AUTH_TAG_MISMATCH:
		return -KX_ERR_BAD_TAG;
	default:
		return -EINVAL;
	}
}

/**
 * ksmbd_xform_decode_neg() - a NEGOTIATE's SMB2_RDMA_TRANSFORM_CAPABILITIES
 * @conn: the connection negotiating (dialect 3.1.1)
 * @pctx: the context, its DataLength checked to lie in the request
 * @ctxt_len: the context's length: its 8-octet header and DataLength
 *
 * Ignored (as Linux's ksmbd ignores it) when rdma_transform is off or the
 * connection is not SMB Direct. Otherwise the data is decoded (3.3.5.4)
 * and the transforms both sides support are recorded on the connection;
 * unknown IDs are not common, NONE and repetitions are ignored.
 *
 * Context: the NEGOTIATE (conn->srv_mutex held).
 * Return: 0, or -EINVAL when the context is malformed (data shorter than
 * its fixed part or its IDs, TransformCount zero): the caller fails the
 * NEGOTIATE with STATUS_INVALID_PARAMETER.
 */
int ksmbd_xform_decode_neg(struct ksmbd_conn *conn,
			   const struct smb2_neg_context *pctx, int ctxt_len)
{
	struct smbdx_xf_caps caps;
	enum smbdx_xf_verdict v;
	u8 ids;

	if (!READ_ONCE(rdma_transform) || conn->dialect != SMB311_PROT_ID ||
	    !ksmbd_rdma_conn(conn))
		return 0;
	if (ctxt_len < (int)sizeof(*pctx))
		return -EINVAL;
	v = smbdx_xf_caps_decode((const u8 *)pctx + sizeof(*pctx),
				 ctxt_len - sizeof(*pctx), &caps);
	if (v != SMBDX_XF_OK) {
		ksmbd_debug(RDMA, "malformed RDMA transform context (%d)\n", v);
		ksmbd_rdma_xform_set(conn, 0);
		return -EINVAL;
	}
	ids = caps.ids & SMBDX_XF_KNOWN;
	ksmbd_debug(RDMA, "RDMA transform: offered %#x, agreed %#x\n",
		    caps.ids, ids);
	return ksmbd_rdma_xform_set(conn, ids);
}

/**
 * ksmbd_xform_assemble_neg() - add SMB2_RDMA_TRANSFORM_CAPABILITIES to a
 *	NEGOTIATE response
 * @conn: the connection
 * @rsp: the response, NegotiateContextOffset set
 * @ctxt_size: octets of contexts already at NegotiateContextOffset
 * @count: the number of contexts, incremented when one is added
 *
 * Only when the request's context left transforms in common; the context
 * starts at the next 8-octet boundary. A response buffer too small for it
 * (it is not: the contexts end well inside ksmbd's small buffer) leaves
 * the context out and the connection without transforms.
 *
 * Context: the NEGOTIATE (conn->srv_mutex held).
 * Return: the octets of contexts with the new one.
 */
int ksmbd_xform_assemble_neg(struct ksmbd_conn *conn,
			     struct smb2_negotiate_rsp *rsp, int ctxt_size,
			     int *count)
{
	u8 ids = ksmbd_rdma_xform_get(conn);
	struct smb2_neg_context *ctx;
	u32 off, base;
	int n;

	if (!ids)
		return ctxt_size;
	base = le32_to_cpu(rsp->NegotiateContextOffset);
	off = round_up(ctxt_size, 8);
	if (4 + base + off + sizeof(*ctx) + SMBDX_XF_CAPS_MAX_LEN >
	    MAX_CIFS_SMALL_BUFFER_SIZE) {
		ksmbd_rdma_xform_set(conn, 0);
		return ctxt_size;
	}
	ctx = (struct smb2_neg_context *)((u8 *)rsp + base + off);
	n = smbdx_xf_caps_encode(ids, (u8 *)ctx + sizeof(*ctx),
				 SMBDX_XF_CAPS_MAX_LEN);
	if (n < 0) {
		ksmbd_rdma_xform_set(conn, 0);
		return ctxt_size;
	}
	ctx->ContextType = SMB2_RDMA_TRANSFORM_CAPABILITIES;
	ctx->DataLength = cpu_to_le16(n);
	ctx->Reserved = 0;
	(*count)++;
	return off + sizeof(*ctx) + n;
}

/**
 * ksmbd_xform_write_channel() - is a WRITE's Channel the RDMA transform's
 * @channel: the request's Channel
 *
 * Context: any.
 * Return: true for SMB2_CHANNEL_RDMA_TRANSFORM while rdma_transform is on
 * (the WRITE is then an RDMA WRITE, checked by ksmbd_xform_write_check()).
 */
bool ksmbd_xform_write_channel(__le32 channel)
{
	return channel == SMB2_CHANNEL_RDMA_TRANSFORM && READ_ONCE(rdma_transform);
}

/* What a transform in @req must agree with */
static void kx_policy(struct ksmbd_work *work, const struct smb2_hdr *hdr,
		      struct smbdx_xf_policy *pol)
{
	struct ksmbd_conn *conn = work->conn;

	pol->negotiated = ksmbd_rdma_xform_get(conn);
	pol->encrypted = work->encrypted;
	pol->sealed_cipher = le16_to_cpu(conn->cipher_type);
	pol->signed_msg = !!(hdr->Flags & SMB2_FLAGS_SIGNED);
	pol->sign_alg = le16_to_cpu(conn->signing_algorithm);
}

/* Decode and check a WRITE's channel information; *@ci: where it starts */
static enum smbdx_xf_verdict kx_write_decode(struct ksmbd_work *work,
					     struct smb2_write_req *req,
					     struct smbdx_xf_info *xi,
					     const u8 **ci)
{
	u32 off = le16_to_cpu(req->WriteChannelInfoOffset);
	u32 len = le16_to_cpu(req->WriteChannelInfoLength);
	struct smbdx_xf_policy pol;
	enum smbdx_xf_verdict v;
	u32 msg_len;

	memset(xi, 0, sizeof(*xi));
	if (req->hdr.NextCommand)
		msg_len = le32_to_cpu(req->hdr.NextCommand);
	else
		msg_len = get_rfc1002_len(work->request_buf) -
			  work->next_smb2_rcv_hdr_off;
	if (work->conn->dialect != SMB311_PROT_ID || !work->sess)
		return SMBDX_XF_NOT_NEGOTIATED;
	if (off < offsetof(struct smb2_write_req, Buffer) || off > msg_len ||
	    len > msg_len - off)
		return SMBDX_XF_SHORT;
	*ci = (const u8 *)req + off;
	v = smbdx_xf_info_decode(*ci, len, true, xi);
	if (v != SMBDX_XF_OK)
		return v;
	kx_policy(work, &req->hdr, &pol);
	v = smbdx_xf_info_check(xi, &pol);
	/* Signing: AES-CMAC only (ksmbd signs 3.x with it; GMAC is open) */
	if (v == SMBDX_XF_OK && xi->crypto.type == SMBDX_XF_TYPE_SIGNING &&
	    pol.sign_alg != SMBDX_XF_AES_CMAC)
		v = SMBDX_XF_UNSUPPORTED;
	return v;
}

/**
 * ksmbd_xform_write_check() - check a WRITE's RDMA transform before the
 *	WRITE goes on
 * @work: the request
 * @req: the WRITE, its Channel an RDMA channel
 *
 * Nothing to do for RDMA_V1(_INVALIDATE). For SMB2_CHANNEL_RDMA_TRANSFORM
 * (3.3.5.13): the channel information must lie in the request and decode,
 * its type must have been agreed and match the request's protection (an
 * encryption transform in an encrypted request, a signing one in a signed
 * request that is not encrypted), its algorithm must have a transform and
 * its lengths be that algorithm's. With an inner RDMA_V1_INVALIDATE
 * channel the response invalidates the first descriptor's token, as for
 * the plain channel.
 *
 * Context: a request worker.
 * Return: 0, or a negative errno for smb2_write()'s error path (mapped by
 * ksmbd_xform_write_status(), -EINVAL otherwise).
 */
int ksmbd_xform_write_check(struct ksmbd_work *work, struct smb2_write_req *req)
{
	struct smbdx_xf_info xi;
	enum smbdx_xf_verdict v;
	const u8 *ci = NULL;

	if (req->Channel != SMB2_CHANNEL_RDMA_TRANSFORM)
		return 0;
	v = kx_write_decode(work, req, &xi, &ci);
	if (v != SMBDX_XF_OK) {
		ksmbd_debug(RDMA, "WRITE's RDMA transform refused (%d)\n", v);
		return kx_refuse(v, xi.crypto.type);
	}
	work->need_invalidate_rkey = xi.channel == SMBDX_XF_CHANNEL_RDMA_V1_INV;
	if (work->need_invalidate_rkey)
		work->remote_key = get_unaligned_le32(ci + xi.desc_off +
				offsetof(struct smb2_buffer_desc_v1, token));
	return 0;
}

/* An AEAD of ksmbd's pool for the connection's cipher, keyed with @key */
static struct ksmbd_crypto_ctx *kx_aead(struct ksmbd_conn *conn, const u8 *key,
					struct crypto_aead **tfm)
{
	bool gcm = conn->cipher_type == SMB2_ENCRYPTION_AES128_GCM ||
		   conn->cipher_type == SMB2_ENCRYPTION_AES256_GCM;
	bool k256 = conn->cipher_type == SMB2_ENCRYPTION_AES256_GCM ||
		    conn->cipher_type == SMB2_ENCRYPTION_AES256_CCM;
	struct ksmbd_crypto_ctx *ctx;

	ctx = gcm ? ksmbd_crypto_ctx_find_gcm() : ksmbd_crypto_ctx_find_ccm();
	if (!ctx)
		return NULL;
	*tfm = gcm ? CRYPTO_GCM(ctx) : CRYPTO_CCM(ctx);
	if (crypto_aead_setkey(*tfm, key, k256 ? SMB3_GCM256_CRYPTKEY_SIZE :
				SMB3_GCM128_CRYPTKEY_SIZE) ||
	    crypto_aead_setauthsize(*tfm, SMB2_SIGNATURE_SIZE)) {
		ksmbd_release_crypto_ctx(ctx);
		return NULL;
	}
	return ctx;
}

/* A cmac(aes) of ksmbd's pool keyed with the channel's signing key */
static struct ksmbd_crypto_ctx *kx_cmac(struct ksmbd_work *work)
{
	struct ksmbd_crypto_ctx *ctx;
	struct channel *chann;

	chann = lookup_chann_list(work->sess, work->conn);
	if (!chann)
		return NULL;
	ctx = ksmbd_crypto_ctx_find_cmacaes();
	if (!ctx)
		return NULL;
	if (crypto_shash_setkey(CRYPTO_CMACAES_TFM(ctx), chann->smb3signingkey,
				SMB2_CMACAES_SIZE)) {
		ksmbd_release_crypto_ctx(ctx);
		return NULL;
	}
	return ctx;
}

/*
 * Seal or sign (@send) @len octets at @buf in place into @cr's Signature,
 * or open or verify them against it; -EBADMSG when they do not verify.
 */
static int kx_crypt(struct ksmbd_work *work, struct smbdx_xf_crypto *cr,
		    void *buf, size_t len, bool send)
{
	struct ksmbd_conn *conn = work->conn;
	struct ksmbd_crypto_ctx *ctx;
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct crypto_aead *tfm;
	struct iov_iter it;
	u16 cipher = le16_to_cpu(conn->cipher_type);
	int rc;

	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, len);
	if (cr->type == SMBDX_XF_TYPE_ENCRYPTION) {
		ctx = kx_aead(conn, send ? work->sess->smb3encryptionkey :
			      work->sess->smb3decryptionkey, &tfm);
		if (!ctx)
			return -ENOMEM;
		if (send)
			rc = smbdx_xf_seal(tfm, cipher, cr->nonce, &it, NULL,
					   len, cr->sig);
		else
			rc = smbdx_xf_open(tfm, cipher, cr->nonce, &it, NULL,
					   len, cr->sig);
	} else {
		ctx = kx_cmac(work);
		if (!ctx)
			return -ENOMEM;
		if (send)
			rc = smbdx_xf_sign(CRYPTO_CMACAES(ctx), &it, len, cr->sig);
		else
			rc = smbdx_xf_verify(CRYPTO_CMACAES(ctx), &it, len,
					     cr->sig);
	}
	ksmbd_release_crypto_ctx(ctx);
	return rc;
}

/**
 * ksmbd_xform_rdma_read() - RDMA-read a WRITE's data, and check it if it
 *	was transformed
 * @work: the request
 * @req: the WRITE (RDMA_V1, RDMA_V1_INVALIDATE or, accepted by
 *	ksmbd_xform_write_check(), SMB2_CHANNEL_RDMA_TRANSFORM)
 * @buf: ksmbd's buffer for the data
 * @len: its length (RemainingBytes)
 *
 * A plain RDMA channel is read as Linux's ksmbd reads it. A transformed
 * WRITE is checked again (the same verdicts), read from the descriptors
 * inside the transform, and verified or decrypted in place: @buf holds
 * the plaintext only when this returns 0.
 *
 * Context: a request worker.
 * Return: 0; the RDMA read's error; a refusal's errno as
 * ksmbd_xform_write_check() (STATUS_INVALID_SIGNATURE or
 * STATUS_AUTH_TAG_MISMATCH for data that does not verify or decrypt).
 */
int ksmbd_xform_rdma_read(struct ksmbd_work *work, struct smb2_write_req *req,
			  void *buf, unsigned int len)
{
	struct smbdx_xf_info xi;
	enum smbdx_xf_verdict v;
	const u8 *ci = NULL;
	int rc;

	if (req->Channel != SMB2_CHANNEL_RDMA_TRANSFORM)
		return ksmbd_conn_rdma_read(work->conn, buf, len,
				(struct smb2_buffer_desc_v1 *)((char *)req +
				le16_to_cpu(req->WriteChannelInfoOffset)),
				le16_to_cpu(req->WriteChannelInfoLength));
	v = kx_write_decode(work, req, &xi, &ci);
	if (v != SMBDX_XF_OK)
		return kx_refuse(v, xi.crypto.type);
	rc = ksmbd_conn_rdma_read(work->conn, buf, len,
				  (struct smb2_buffer_desc_v1 *)(ci + xi.desc_off),
				  xi.desc_len);
	if (rc < 0 || !len)
		return rc;
	rc = kx_crypt(work, &xi.crypto, buf, len, false);
	if (rc == -EBADMSG) {
		ksmbd_debug(RDMA, "WRITE's RDMA payload does not verify\n");
		return kx_refuse(SMBDX_XF_MISMATCH, xi.crypto.type);
	}
	if (rc)
		return rc;
	atomic64_inc(xi.crypto.type == SMBDX_XF_TYPE_ENCRYPTION ? &kx_opened :
		     &kx_verified);
	return 0;
}

/**
 * ksmbd_xform_write_status() - the status of a WRITE that failed
 * @req: the WRITE
 * @err: its error
 *
 * Context: any.
 * Return: STATUS_INVALID_SIGNATURE or STATUS_AUTH_TAG_MISMATCH for a
 * transformed WRITE refused with them, otherwise 0 (smb2_write() maps
 * @err as it always does).
 */
__le32 ksmbd_xform_write_status(struct smb2_write_req *req, int err)
{
	if (req->Channel != SMB2_CHANNEL_RDMA_TRANSFORM)
		return 0;
	if (err == -KX_ERR_BAD_SIGNATURE)
		return cpu_to_le32(SMBDX_XF_STATUS_INVALID_SIGNATURE);
	if (err == -KX_ERR_BAD_TAG)
		return cpu_to_le32(SMBDX_XF_STATUS_AUTH_TAG_MISMATCH);
	return 0;
}

/**
 * ksmbd_xform_read() - transform a READ's data before it is RDMA-written
 * @work: the request
 * @req: the READ
 * @buf: the data ksmbd read (ksmbd's buffer); on success replaced by the
 *	transform for the response's Buffer, on failure freed and NULL
 * @nbytes: octets of data in @buf; on success the transform's length
 * @remain: on success the octets RDMA-written (DataRemaining)
 *
 * Applies when rdma_transform is on, the channel is RDMA_V1 or
 * RDMA_V1_INVALIDATE, the response will be encrypted (the session
 * encrypts and the request was encrypted) or else signed (the session
 * signs or the request was signed), the matching transform was agreed,
 * and the algorithm has one (AES-CCM, AES-GCM, AES-CMAC). The data is
 * sealed (the session's encryption key, a random nonce of the cipher's
 * length) or signed (the channel's signing key) in place, RDMA-written,
 * and replaced by an SMB2_RDMA_TRANSFORM (inner Channel NONE) and its
 * crypto transform; the caller answers with
 * SMB2_READFLAG_RESPONSE_RDMA_TRANSFORM.
 *
 * Context: a request worker.
 * Return: 1 when the data was transformed and written; 0 when the
 * transform does not apply (the caller goes on as Linux's ksmbd does);
 * a negative errno (the READ fails).
 */
int ksmbd_xform_read(struct ksmbd_work *work, struct smb2_read_req *req,
		     void **buf, ssize_t *nbytes, ssize_t *remain)
{
	struct ksmbd_conn *conn = work->conn;
	struct smb2_buffer_desc_v1 *desc;
	struct smbdx_xf_crypto cr;
	u16 type, alg;
	u8 ids;
	u32 tlen;
	void *t;
	int rc;

	if (!READ_ONCE(rdma_transform) || *nbytes <= 0 || !work->sess ||
	    (req->Channel != SMB2_CHANNEL_RDMA_V1 &&
	     req->Channel != SMB2_CHANNEL_RDMA_V1_INVALIDATE))
		return 0;
	ids = ksmbd_rdma_xform_get(conn);
	if (work->sess->enc && work->encrypted) {
		type = SMBDX_XF_TYPE_ENCRYPTION;
		alg = le16_to_cpu(conn->cipher_type);
		if (!(ids & SMBDX_XF_ENCRYPTION))
			return 0;
	} else if (work->sess->sign || (req->hdr.Flags & SMB2_FLAGS_SIGNED)) {
		type = SMBDX_XF_TYPE_SIGNING;
		alg = le16_to_cpu(conn->signing_algorithm);
		if (!(ids & SMBDX_XF_SIGNING))
			return 0;
	} else {
		return 0;
	}
	if (smbdx_xf_crypto_prepare(&cr, type, alg))
		return 0;

	tlen = smbdx_xf_info_len(cr.sig_len, cr.nonce_len, 0);
	t = kvzalloc(tlen, KSMBD_DEFAULT_GFP);
	rc = t ? kx_crypt(work, &cr, *buf, *nbytes, true) : -ENOMEM;
	desc = (struct smb2_buffer_desc_v1 *)((char *)req +
		le16_to_cpu(req->ReadChannelInfoOffset));
	if (!rc)
		rc = ksmbd_conn_rdma_write(conn, *buf, *nbytes, desc,
					   le16_to_cpu(req->ReadChannelInfoLength));
	if (!rc) {
		rc = smbdx_xf_info_encode(&cr, SMBDX_XF_CHANNEL_NONE, NULL, 0,
					  t, tlen);
		rc = rc < 0 ? rc : 0;
	}
	kvfree(*buf);
	*buf = NULL;
	if (rc) {
		kvfree(t);
		return rc;
	}
	atomic64_inc(type == SMBDX_XF_TYPE_ENCRYPTION ? &kx_sealed : &kx_signed);
	*buf = t;
	*remain = *nbytes;
	*nbytes = tlen;
	return 1;
}
