// SPDX-License-Identifier: GPL-2.0
/*
 * The MS-SMB2 RDMA transform's cryptography over an I/O iterator
 * (Documentation/rdma-transform.rst, step C): the payload that moves by
 * RDMA read or write is encrypted with the session's AEAD cipher (AES-CCM
 * or AES-GCM, 128 or 256 bits, empty associated data, the 16-octet tag
 * carried as the crypto transform's Signature) or signed with AES-CMAC
 * (16 octets, no nonce). The cifs and ksmbd shims own the keys and the
 * transform objects; these functions only walk the data.
 *
 * The payload is described by iterators of the kinds smbdx_register()
 * takes (bvec, kvec, folioq, xarray; never user-backed ones, which would
 * have to be pinned here), turned into one flat scatterlist with
 * extract_iter_to_sg(): an AEAD computes one tag over the whole payload,
 * so the payload cannot be cut into separate requests. The list holds at
 * most one entry per page of the payload plus one for the tag (64 KiB of
 * entries for an 8 MiB I/O), allocated with kvmalloc_array().
 *
 * Neither iterator is advanced: the caller goes on to register or hand on
 * the same data.
 *
 * smbdx_xf_copy_sign() is smbdirect's own (mr.c's transformed
 * registration, smbdx_register_xform()): it copies a payload into pages and
 * signs the copy in the same walk, each page hashed right after it was
 * filled, so that the signature covers exactly what the peer will read.
 *
 * Concurrency: no state of its own. The caller's transform object
 * (struct crypto_aead) must not have its key changed while a call uses
 * it, and a struct shash_desc is used by one call at a time. Every
 * function may sleep (GFP_NOFS allocations, an asynchronous cipher is
 * waited for); process context only.
 */

#include <crypto/aead.h>
#include <crypto/algapi.h>
#include <crypto/hash.h>
#include <linux/bvec.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include <smbdirect/smbdirect.h>

#include "smbd.h"

/* IV of ccm(aes): flags octet L' = 3 (a 4-octet length field), then the nonce */
#define XF_CCM_IV_FLAGS		3

/* What the transform objects need from memory the crypto API may map */
struct xf_aead_bufs {
	u8 iv[16];
	u8 tag[SMBDX_XF_TAG_LEN];
};

static bool xf_iter_ok(const struct iov_iter *it, size_t len)
{
	if (!it || user_backed_iter(it) || iov_iter_count(it) < len)
		return false;
	switch (iov_iter_type(it)) {
	case ITER_BVEC:
	case ITER_KVEC:
	case ITER_FOLIOQ:
	case ITER_XARRAY:
		return true;
	default:
		return false;
	}
}

/*
 * One flat list of @len octets of @it (not advanced), with room for
 * @extra more entries after them; the end is not marked.
 */
static int xf_sg_build(const struct iov_iter *it, size_t len,
		       unsigned int extra, struct sg_table *t)
{
	struct iov_iter copy = *it;
	struct scatterlist *sgl;
	unsigned int max;
	ssize_t got;
	size_t done = 0;
	int npages;

	iov_iter_truncate(&copy, len);
	npages = iov_iter_npages(&copy, INT_MAX);
	if (npages <= 0)
		return -EINVAL;
	max = npages + extra;
	sgl = kvmalloc_array(max, sizeof(*sgl), GFP_NOFS);
	if (!sgl)
		return -ENOMEM;
	sg_init_table(sgl, max);
	t->sgl = sgl;
	t->nents = 0;
	t->orig_nents = max;
	while (done < len && t->nents < (unsigned int)npages) {
		got = extract_iter_to_sg(&copy, len - done, t,
					 npages - t->nents, 0);
		if (got <= 0)
			break;
		done += got;
	}
	if (done != len) {
		kvfree(sgl);
		t->sgl = NULL;
		return -EIO;
	}
	return 0;
}

static void xf_sg_end(struct sg_table *t)
{
	sg_mark_end(&t->sgl[t->nents - 1]);
}

static void xf_sg_add(struct sg_table *t, void *buf, unsigned int len)
{
	sg_unmark_end(&t->sgl[t->nents - 1]);
	sg_set_buf(&t->sgl[t->nents], buf, len);
	t->nents++;
	xf_sg_end(t);
}

static int xf_aead_iv(u16 cipher, const u8 *nonce, u8 *iv)
{
	memset(iv, 0, 16);
	switch (cipher) {
	case SMBDX_XF_AES128_CCM:
	case SMBDX_XF_AES256_CCM:
		iv[0] = XF_CCM_IV_FLAGS;
		memcpy(iv + 1, nonce, SMBDX_XF_CCM_NONCE_LEN);
		return 0;
	case SMBDX_XF_AES128_GCM:
	case SMBDX_XF_AES256_GCM:
		memcpy(iv, nonce, SMBDX_XF_GCM_NONCE_LEN);
		return 0;
	default:
		return -EINVAL;
	}
}

/* Encrypt (@seal) or decrypt @len octets of @src into @dst (or in place). */
static int xf_aead(struct crypto_aead *tfm, u16 cipher, const u8 *nonce,
		   const struct iov_iter *src, const struct iov_iter *dst,
		   size_t len, u8 *tag, bool seal)
{
	struct sg_table st = {}, dt = {};
	struct aead_request *req = NULL;
	struct xf_aead_bufs *b;
	DECLARE_CRYPTO_WAIT(wait);
	bool inplace = !dst;
	int rc;

	if (!tfm || !nonce || !tag || !len || len > SMBDX_XF_PAYLOAD_MAX ||
	    crypto_aead_authsize(tfm) != SMBDX_XF_TAG_LEN ||
	    !xf_iter_ok(src, len) || (dst && !xf_iter_ok(dst, len)))
		return -EINVAL;
	b = kzalloc(sizeof(*b), GFP_NOFS);
	if (!b)
		return -ENOMEM;
	rc = xf_aead_iv(cipher, nonce, b->iv);
	if (rc)
		goto out;
	rc = xf_sg_build(src, len, 1, &st);
	if (rc)
		goto out;
	if (!inplace) {
		rc = xf_sg_build(dst, len, 1, &dt);
		if (rc)
			goto out;
	}
	/*
	 * The tag follows the payload: in the destination when sealing,
	 * in the source when opening (and so also in the destination when
	 * the two are one list).
	 */
	if (seal) {
		xf_sg_end(&st);
		if (!inplace)
			xf_sg_add(&dt, b->tag, SMBDX_XF_TAG_LEN);
		else
			xf_sg_add(&st, b->tag, SMBDX_XF_TAG_LEN);
	} else {
		memcpy(b->tag, tag, SMBDX_XF_TAG_LEN);
		xf_sg_add(&st, b->tag, SMBDX_XF_TAG_LEN);
		if (!inplace)
			xf_sg_end(&dt);
	}

	req = aead_request_alloc(tfm, GFP_NOFS);
	if (!req) {
		rc = -ENOMEM;
		goto out;
	}
	aead_request_set_callback(req, CRYPTO_TFM_REQ_MAY_BACKLOG |
				  CRYPTO_TFM_REQ_MAY_SLEEP,
				  crypto_req_done, &wait);
	aead_request_set_ad(req, 0);
	aead_request_set_crypt(req, st.sgl, inplace ? st.sgl : dt.sgl,
			       seal ? len : len + SMBDX_XF_TAG_LEN, b->iv);
	if (seal)
		rc = crypto_wait_req(crypto_aead_encrypt(req), &wait);
	else
		rc = crypto_wait_req(crypto_aead_decrypt(req), &wait);
	if (!rc && seal)
		memcpy(tag, b->tag, SMBDX_XF_TAG_LEN);
out:
	aead_request_free(req);
	kvfree(dt.sgl);
	kvfree(st.sgl);
	kfree_sensitive(b);
	return rc;
}

/**
 * smbdx_xf_seal() - encrypt an RDMA transform's payload
 * @tfm: the sender's keyed AEAD ("ccm(aes)" or "gcm(aes)", authsize 16)
 * @cipher: the session's cipher ID (SMBDX_XF_AES128_CCM ... AES256_GCM):
 *	selects the IV layout
 * @nonce: the crypto transform's Nonce (11 octets for CCM, 12 for GCM)
 * @src: the plaintext, at least @len octets (not advanced)
 * @dst: where the ciphertext goes, at least @len octets (not advanced), or
 *	NULL to encrypt @src in place
 * @len: octets of payload, 1 to SMBDX_XF_PAYLOAD_MAX
 * @tag: receives the 16-octet authentication tag (the Signature)
 *
 * No associated data: only the payload is transformed; the SMB2 message
 * that carries the transform is protected on its own.
 *
 * Context: process, may sleep.
 *
 * Return: 0; -EINVAL (a bad argument, an unknown cipher, a user-backed
 * iterator, a transform whose authsize is not 16), -ENOMEM, or the
 * cipher's error.
 */
int smbdx_xf_seal(struct crypto_aead *tfm, u16 cipher, const u8 *nonce,
		  const struct iov_iter *src, const struct iov_iter *dst,
		  size_t len, u8 *tag)
{
	return xf_aead(tfm, cipher, nonce, src, dst, len, tag, true);
}
EXPORT_SYMBOL_NS_GPL(smbdx_xf_seal, SMBDX_NS);

/**
 * smbdx_xf_open() - decrypt and authenticate an RDMA transform's payload
 * @tfm: the receiver's keyed AEAD (the sender's key), authsize 16
 * @cipher: the session's cipher ID, as for smbdx_xf_seal()
 * @nonce: the received crypto transform's Nonce
 * @src: the ciphertext, at least @len octets (not advanced)
 * @dst: where the plaintext goes (not advanced), or NULL for in place
 * @len: octets of payload, 1 to SMBDX_XF_PAYLOAD_MAX
 * @tag: the received 16-octet Signature
 *
 * On -EBADMSG the destination holds no plaintext the caller may use: it
 * must fail the I/O and never hand those octets on.
 *
 * Context: process, may sleep.
 *
 * Return: 0 when the tag verified; -EBADMSG when it did not (the payload,
 * tag or nonce was changed, or the key is wrong); -EINVAL, -ENOMEM, or the
 * cipher's error.
 */
int smbdx_xf_open(struct crypto_aead *tfm, u16 cipher, const u8 *nonce,
		  const struct iov_iter *src, const struct iov_iter *dst,
		  size_t len, const u8 *tag)
{
	return xf_aead(tfm, cipher, nonce, src, dst, len, (u8 *)tag, false);
}
EXPORT_SYMBOL_NS_GPL(smbdx_xf_open, SMBDX_NS);

/* The arguments every AES-CMAC computation needs: 0 or -EINVAL. */
static int xf_mac_check(struct shash_desc *desc, const struct iov_iter *it,
			size_t len, const u8 *out)
{
	if (!desc || !desc->tfm || !out || !len ||
	    len > SMBDX_XF_PAYLOAD_MAX ||
	    crypto_shash_digestsize(desc->tfm) != SMBDX_XF_TAG_LEN ||
	    !xf_iter_ok(it, len))
		return -EINVAL;
	return 0;
}

static int xf_mac(struct shash_desc *desc, const struct iov_iter *it,
		  size_t len, u8 *out)
{
	struct sg_mapping_iter m;
	struct sg_table t = {};
	int rc;

	rc = xf_mac_check(desc, it, len, out);
	if (rc)
		return rc;
	rc = xf_sg_build(it, len, 0, &t);
	if (rc)
		return rc;
	xf_sg_end(&t);
	rc = crypto_shash_init(desc);
	if (rc)
		goto out;
	sg_miter_start(&m, t.sgl, t.nents, SG_MITER_FROM_SG);
	while (!rc && sg_miter_next(&m))
		rc = crypto_shash_update(desc, m.addr, m.length);
	sg_miter_stop(&m);
	if (!rc)
		rc = crypto_shash_final(desc, out);
out:
	kvfree(t.sgl);
	return rc;
}

/**
 * smbdx_xf_sign() - sign an RDMA transform's payload with AES-CMAC
 * @desc: a descriptor of the sender's keyed "cmac(aes)" (16-octet digest);
 *	its state is overwritten
 * @it: the payload, at least @len octets (not advanced)
 * @len: octets of payload, 1 to SMBDX_XF_PAYLOAD_MAX
 * @sig: receives the 16-octet signature
 *
 * Context: process, may sleep.
 *
 * Return: 0; -EINVAL (bad argument, a digest that is not 16 octets, such
 * as HMAC-SHA256's, which the transform cannot carry), -ENOMEM, or the
 * hash's error.
 */
int smbdx_xf_sign(struct shash_desc *desc, const struct iov_iter *it,
		  size_t len, u8 *sig)
{
	return xf_mac(desc, it, len, sig);
}
EXPORT_SYMBOL_NS_GPL(smbdx_xf_sign, SMBDX_NS);

/**
 * smbdx_xf_verify() - check an RDMA transform payload's AES-CMAC signature
 * @desc: a descriptor of the receiver's "cmac(aes)" keyed with the
 *	sender's signing key; its state is overwritten
 * @it: the payload as received, at least @len octets (not advanced)
 * @len: octets of payload, 1 to SMBDX_XF_PAYLOAD_MAX
 * @sig: the received 16-octet Signature
 *
 * The comparison takes the same time whatever octet differs.
 *
 * Context: process, may sleep.
 *
 * Return: 0 when it matches, -EBADMSG when not; otherwise as
 * smbdx_xf_sign().
 */
int smbdx_xf_verify(struct shash_desc *desc, const struct iov_iter *it,
		    size_t len, const u8 *sig)
{
	u8 mac[SMBDX_XF_TAG_LEN];
	int rc;

	if (!sig)
		return -EINVAL;
	rc = xf_mac(desc, it, len, mac);
	if (!rc && crypto_memneq(mac, sig, sizeof(mac)))
		rc = -EBADMSG;
	memzero_explicit(mac, sizeof(mac));
	return rc;
}
EXPORT_SYMBOL_NS_GPL(smbdx_xf_verify, SMBDX_NS);

/**
 * smbdx_xf_copy_sign() - copy a payload into pages and sign the copy
 * @desc: as for smbdx_xf_sign(); its state is overwritten
 * @src: the payload, at least @len octets (not advanced; read even if it
 *	was set up as a destination)
 * @bv: the pages the copy goes to, each from its offset for its length
 *	(smbdirect's bounce pages: whole pages from offset 0 but the last)
 * @nbv: entries of @bv; together at least @len octets
 * @len: octets of payload, 1 to SMBDX_XF_PAYLOAD_MAX
 * @sig: receives the 16-octet AES-CMAC signature of the copy
 *
 * One pass: each page is hashed right after it was filled, while it is
 * still in the cache. The signature is that of the copy, so a caller's
 * buffer that changes meanwhile (a page-cache page written again) never
 * makes the copy and its signature disagree.
 *
 * Context: process, may sleep (the caller's hash may).
 *
 * Return: 0; -EINVAL for a bad argument (as smbdx_xf_sign(), or pages that
 * hold less than @len), -EIO if @src ended early, or the hash's error.
 * @sig is written only on success.
 */
int smbdx_xf_copy_sign(struct shash_desc *desc, const struct iov_iter *src,
		       const struct bio_vec *bv, u32 nbv, size_t len, u8 *sig)
{
	struct iov_iter from;
	size_t done = 0, chunk;
	u32 i;
	u8 *p;
	int rc;

	rc = xf_mac_check(desc, src, len, sig);
	if (rc || !bv)
		return rc ? rc : -EINVAL;
	from = *src;
	from.data_source = ITER_SOURCE;
	rc = crypto_shash_init(desc);
	for (i = 0; !rc && done < len; i++) {
		if (i >= nbv || !bv[i].bv_len ||
		    bv[i].bv_offset + bv[i].bv_len > PAGE_SIZE)
			return -EINVAL;
		chunk = min_t(size_t, len - done, bv[i].bv_len);
		if (copy_page_from_iter(bv[i].bv_page, bv[i].bv_offset, chunk,
					&from) != chunk)
			return -EIO;
		p = kmap_local_page(bv[i].bv_page);
		rc = crypto_shash_update(desc, p + bv[i].bv_offset, chunk);
		kunmap_local(p);
		done += chunk;
	}
	if (!rc)
		rc = crypto_shash_final(desc, sig);
	return rc;
}
