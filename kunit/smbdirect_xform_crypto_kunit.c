// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the RDMA transform's cryptography over I/O iterators
 * (smbdirect/xform_crypto.c, Documentation/rdma-transform.rst step C).
 *
 * Known answers first: AES-CMAC on the NIST SP 800-38B / RFC 4493
 * examples, AES-GCM on McGrew and Viega's test case 3 (no associated
 * data), AES-CCM on a FIPS CAVS example with an 11-octet nonce and no
 * associated data (the same vectors the kernel's own crypto self-tests
 * use, so a mismatch means our iterator walk or IV layout is wrong, not
 * the cipher). Then iterator shapes: a payload scattered over pages at odd
 * offsets and lengths (bvec), over a vmalloc'ed buffer (kvec across
 * pages) and in one linear piece must give the same ciphertext, tag and
 * signature; sealing out of place and in place agree; opening restores the
 * plaintext; one flipped octet of payload, tag or nonce is refused with
 * -EBADMSG, and so is a wrong signature; the iterators are not advanced;
 * every bad argument is refused with -EINVAL before anything is touched.
 *
 * Pure: no device; it needs the kernel's aes, ccm, gcm and cmac (built in
 * on the test kernels; a missing one fails the suite, it does not skip).
 */

#include <crypto/aead.h>
#include <crypto/hash.h>
#include <kunit/test.h>
#include <linux/bvec.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/scatterlist.h>
#include <linux/string.h>
#include <linux/uio.h>
#include <linux/vmalloc.h>

#include <smbdirect/smbdirect.h>
#include <smbdirect/xform.h>

MODULE_IMPORT_NS(SMBDX_NS);

static const u8 cmac_key[16] = {
	0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6,
	0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c,
};

static const u8 cmac_msg[64] = {
	0x6b, 0xc1, 0xbe, 0xe2, 0x2e, 0x40, 0x9f, 0x96,
	0xe9, 0x3d, 0x7e, 0x11, 0x73, 0x93, 0x17, 0x2a,
	0xae, 0x2d, 0x8a, 0x57, 0x1e, 0x03, 0xac, 0x9c,
	0x9e, 0xb7, 0x6f, 0xac, 0x45, 0xaf, 0x8e, 0x51,
	0x30, 0xc8, 0x1c, 0x46, 0xa3, 0x5c, 0xe4, 0x11,
	0xe5, 0xfb, 0xc1, 0x19, 0x1a, 0x0a, 0x52, 0xef,
	0xf6, 0x9f, 0x24, 0x45, 0xdf, 0x4f, 0x9b, 0x17,
	0xad, 0x2b, 0x41, 0x7b, 0xe6, 0x6c, 0x37, 0x10,
};

static const struct {
	unsigned int len;
	u8 mac[16];
} cmac_vec[] = {
	{ 16, { 0x07, 0x0a, 0x16, 0xb4, 0x6b, 0x4d, 0x41, 0x44,
		0xf7, 0x9b, 0xdd, 0x9d, 0xd0, 0x4a, 0x28, 0x7c } },
	{ 40, { 0xdf, 0xa6, 0x67, 0x47, 0xde, 0x9a, 0xe6, 0x30,
		0x30, 0xca, 0x32, 0x61, 0x14, 0x97, 0xc8, 0x27 } },
	{ 64, { 0x51, 0xf0, 0xbe, 0xbf, 0x7e, 0x3b, 0x9d, 0x92,
		0xfc, 0x49, 0x74, 0x17, 0x79, 0x36, 0x3c, 0xfe } },
};

static const u8 gcm_key[16] = {
	0xfe, 0xff, 0xe9, 0x92, 0x86, 0x65, 0x73, 0x1c,
	0x6d, 0x6a, 0x8f, 0x94, 0x67, 0x30, 0x83, 0x08,
};

static const u8 gcm_nonce[12] = {
	0xca, 0xfe, 0xba, 0xbe, 0xfa, 0xce, 0xdb, 0xad,
	0xde, 0xca, 0xf8, 0x88,
};

static const u8 gcm_pt[64] = {
	0xd9, 0x31, 0x32, 0x25, 0xf8, 0x84, 0x06, 0xe5,
	0xa5, 0x59, 0x09, 0xc5, 0xaf, 0xf5, 0x26, 0x9a,
	0x86, 0xa7, 0xa9, 0x53, 0x15, 0x34, 0xf7, 0xda,
	0x2e, 0x4c, 0x30, 0x3d, 0x8a, 0x31, 0x8a, 0x72,
	0x1c, 0x3c, 0x0c, 0x95, 0x95, 0x68, 0x09, 0x53,
	0x2f, 0xcf, 0x0e, 0x24, 0x49, 0xa6, 0xb5, 0x25,
	0xb1, 0x6a, 0xed, 0xf5, 0xaa, 0x0d, 0xe6, 0x57,
	0xba, 0x63, 0x7b, 0x39, 0x1a, 0xaf, 0xd2, 0x55,
};

static const u8 gcm_ct[64 + 16] = {
	0x42, 0x83, 0x1e, 0xc2, 0x21, 0x77, 0x74, 0x24,
	0x4b, 0x72, 0x21, 0xb7, 0x84, 0xd0, 0xd4, 0x9c,
	0xe3, 0xaa, 0x21, 0x2f, 0x2c, 0x02, 0xa4, 0xe0,
	0x35, 0xc1, 0x7e, 0x23, 0x29, 0xac, 0xa1, 0x2e,
	0x21, 0xd5, 0x14, 0xb2, 0x54, 0x66, 0x93, 0x1c,
	0x7d, 0x8f, 0x6a, 0x5a, 0xac, 0x84, 0xaa, 0x05,
	0x1b, 0xa3, 0x0b, 0x39, 0x6a, 0x0a, 0xac, 0x97,
	0x3d, 0x58, 0xe0, 0x91, 0x47, 0x3f, 0x59, 0x85,
	0x4d, 0x5c, 0x2a, 0xf3, 0x27, 0xcd, 0x64, 0xa6,
	0x2c, 0xf3, 0x5a, 0xbd, 0x2b, 0xa6, 0xfa, 0xb4,
};

static const u8 ccm_key[16] = {
	0x83, 0xac, 0x54, 0x66, 0xc2, 0xeb, 0xe5, 0x05,
	0x2e, 0x01, 0xd1, 0xfc, 0x5d, 0x82, 0x66, 0x2e,
};

static const u8 ccm_nonce[11] = {
	0x96, 0xac, 0x59, 0x30, 0x07, 0xa1, 0xe2, 0xa2,
	0xc7, 0x55, 0x24,
};

static const u8 ccm_pt[32] = {
	0x19, 0xc8, 0x81, 0xf6, 0xe9, 0x86, 0xff, 0x93,
	0x0b, 0x78, 0x67, 0xe5, 0xbb, 0xb7, 0xfc, 0x6e,
	0x83, 0x77, 0xb3, 0xa6, 0x0c, 0x8c, 0x9f, 0x9c,
	0x35, 0x2e, 0xad, 0xe0, 0x62, 0xf9, 0x91, 0xa1,
};

static const u8 ccm_ct[32 + 16] = {
	0xab, 0x6f, 0xe1, 0x69, 0x1d, 0x19, 0x99, 0xa8,
	0x92, 0xa0, 0xc4, 0x6f, 0x7e, 0xe2, 0x8b, 0xb1,
	0x70, 0xbb, 0x8c, 0xa6, 0x4c, 0x6e, 0x97, 0x8a,
	0x57, 0x2b, 0xbe, 0x5d, 0x98, 0xa6, 0xb1, 0x32,
	0xda, 0x24, 0xea, 0xd9, 0xa1, 0x39, 0x98, 0xfd,
	0xa4, 0xbe, 0xd9, 0xf2, 0x1a, 0x6d, 0x22, 0xa8,
};

/* ---- helpers ---- */

static void xc_free_aead(void *p)
{
	crypto_free_aead(p);
}

static struct crypto_aead *xc_aead(struct kunit *test, u16 cipher,
				   const u8 *key, unsigned int klen)
{
	bool ccm = cipher == SMBDX_XF_AES128_CCM ||
		   cipher == SMBDX_XF_AES256_CCM;
	struct crypto_aead *tfm;

	tfm = crypto_alloc_aead(ccm ? "ccm(aes)" : "gcm(aes)", 0, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(tfm), "no %s: %ld",
			       ccm ? "ccm(aes)" : "gcm(aes)", PTR_ERR(tfm));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, xc_free_aead,
							tfm), 0);
	KUNIT_ASSERT_EQ(test, crypto_aead_setauthsize(tfm, 16), 0);
	KUNIT_ASSERT_EQ(test, crypto_aead_setkey(tfm, key, klen), 0);
	return tfm;
}

static void xc_free_shash(void *p)
{
	struct shash_desc *desc = p;

	crypto_free_shash(desc->tfm);
	kfree(desc);
}

static struct shash_desc *xc_hash(struct kunit *test, const char *alg,
				  const u8 *key, unsigned int klen)
{
	struct crypto_shash *tfm;
	struct shash_desc *desc;

	tfm = crypto_alloc_shash(alg, 0, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(tfm), "no %s: %ld", alg,
			       PTR_ERR(tfm));
	desc = kzalloc(sizeof(*desc) + crypto_shash_descsize(tfm), GFP_KERNEL);
	if (!desc)
		crypto_free_shash(tfm);
	KUNIT_ASSERT_NOT_NULL(test, desc);
	desc->tfm = tfm;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, xc_free_shash,
							desc), 0);
	KUNIT_ASSERT_EQ(test, crypto_shash_setkey(tfm, key, klen), 0);
	return desc;
}

static void xc_kvec(struct iov_iter *it, struct kvec *kv, void *buf,
		    size_t len, unsigned int dir)
{
	kv->iov_base = buf;
	kv->iov_len = len;
	iov_iter_kvec(it, dir, kv, 1, len);
}

/*
 * A scattered copy of a payload: pages of its own, each segment at an odd
 * offset, segment lengths cycling through @cuts (so that segments start
 * and end inside pages and some cross none, some one boundary).
 */
struct xc_scatter {
	struct bio_vec bv[64];
	struct page *pages[64];
	unsigned int n;
	size_t len;
};

static void xc_scatter_free(void *p)
{
	struct xc_scatter *s = p;
	unsigned int i;

	for (i = 0; i < s->n; i++)
		__free_page(s->pages[i]);
}

static struct xc_scatter *xc_scatter(struct kunit *test, const u8 *data,
				     size_t len)
{
	static const unsigned int cuts[] = { 1, 4000, 77, 2048, 3333, 9, 513 };
	struct xc_scatter *s;
	size_t done = 0;

	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, xc_scatter_free,
							s), 0);
	while (done < len) {
		unsigned int i = s->n;
		unsigned int off = (i * 37 + 5) % 64;
		size_t seg = min_t(size_t, len - done, cuts[i % ARRAY_SIZE(cuts)]);

		KUNIT_ASSERT_LT(test, i, ARRAY_SIZE(s->bv));
		seg = min_t(size_t, seg, PAGE_SIZE - off);
		s->pages[i] = alloc_page(GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, s->pages[i]);
		s->n++;
		memcpy(page_address(s->pages[i]) + off, data + done, seg);
		bvec_set_page(&s->bv[i], s->pages[i], seg, off);
		done += seg;
	}
	s->len = len;
	return s;
}

static void xc_scatter_iter(struct xc_scatter *s, struct iov_iter *it,
			    unsigned int dir)
{
	iov_iter_bvec(it, dir, s->bv, s->n, s->len);
}

static void xc_scatter_read(struct xc_scatter *s, u8 *out)
{
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		memcpy(out, page_address(s->pages[i]) + s->bv[i].bv_offset,
		       s->bv[i].bv_len);
		out += s->bv[i].bv_len;
	}
}

static u8 *xc_random(struct kunit *test, size_t len, u64 seed)
{
	struct rnd_state rs;
	u8 *p = kunit_kmalloc(test, len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	prandom_seed_state(&rs, seed);
	prandom_bytes_state(&rs, p, len);
	return p;
}

/* ---- known answers ---- */

static void xc_cmac_vectors(struct kunit *test)
{
	struct shash_desc *desc = xc_hash(test, "cmac(aes)", cmac_key, 16);
	struct iov_iter it;
	struct kvec kv;
	unsigned int i;
	u8 sig[16];

	for (i = 0; i < ARRAY_SIZE(cmac_vec); i++) {
		memset(sig, 0, sizeof(sig));
		xc_kvec(&it, &kv, (void *)cmac_msg, cmac_vec[i].len, ITER_SOURCE);
		KUNIT_ASSERT_EQ(test, smbdx_xf_sign(desc, &it, cmac_vec[i].len,
						    sig), 0);
		KUNIT_EXPECT_MEMEQ(test, sig, cmac_vec[i].mac, 16);
		KUNIT_EXPECT_EQ(test, iov_iter_count(&it),
				(size_t)cmac_vec[i].len);
		KUNIT_EXPECT_EQ(test, smbdx_xf_verify(desc, &it,
						      cmac_vec[i].len,
						      cmac_vec[i].mac), 0);
		sig[i] ^= 0x80;
		KUNIT_EXPECT_EQ(test, smbdx_xf_verify(desc, &it,
						      cmac_vec[i].len, sig),
				-EBADMSG);
	}
}

static void xc_aead_vector(struct kunit *test, u16 cipher, const u8 *key,
			   const u8 *nonce, const u8 *pt, const u8 *ct,
			   size_t len)
{
	struct crypto_aead *tfm = xc_aead(test, cipher, key, 16);
	struct iov_iter src, dst;
	struct kvec ks, kd;
	u8 *buf, *out, tag[16];

	buf = kunit_kmalloc(test, len, GFP_KERNEL);
	out = kunit_kmalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, out);

	/* in place */
	memcpy(buf, pt, len);
	xc_kvec(&src, &ks, buf, len, ITER_SOURCE);
	KUNIT_ASSERT_EQ(test, smbdx_xf_seal(tfm, cipher, nonce, &src, NULL,
					    len, tag), 0);
	KUNIT_EXPECT_MEMEQ(test, buf, ct, len);
	KUNIT_EXPECT_MEMEQ(test, tag, ct + len, 16);
	KUNIT_EXPECT_EQ(test, iov_iter_count(&src), len);
	KUNIT_ASSERT_EQ(test, smbdx_xf_open(tfm, cipher, nonce, &src, NULL,
					    len, tag), 0);
	KUNIT_EXPECT_MEMEQ(test, buf, pt, len);

	/* out of place, both ways */
	memcpy(buf, pt, len);
	memset(out, 0, len);
	xc_kvec(&src, &ks, buf, len, ITER_SOURCE);
	xc_kvec(&dst, &kd, out, len, ITER_DEST);
	KUNIT_ASSERT_EQ(test, smbdx_xf_seal(tfm, cipher, nonce, &src, &dst,
					    len, tag), 0);
	KUNIT_EXPECT_MEMEQ(test, out, ct, len);
	KUNIT_EXPECT_MEMEQ(test, buf, pt, len);
	KUNIT_EXPECT_MEMEQ(test, tag, ct + len, 16);
	memset(buf, 0, len);
	xc_kvec(&src, &ks, out, len, ITER_SOURCE);
	xc_kvec(&dst, &kd, buf, len, ITER_DEST);
	KUNIT_ASSERT_EQ(test, smbdx_xf_open(tfm, cipher, nonce, &src, &dst,
					    len, tag), 0);
	KUNIT_EXPECT_MEMEQ(test, buf, pt, len);
}

static void xc_gcm_vector(struct kunit *test)
{
	xc_aead_vector(test, SMBDX_XF_AES128_GCM, gcm_key, gcm_nonce, gcm_pt,
		       gcm_ct, sizeof(gcm_pt));
}

static void xc_ccm_vector(struct kunit *test)
{
	xc_aead_vector(test, SMBDX_XF_AES128_CCM, ccm_key, ccm_nonce, ccm_pt,
		       ccm_ct, sizeof(ccm_pt));
}

/* ---- shapes and tampering, each cipher at 128 and 256 bits ---- */

static const u16 xc_ciphers[] = {
	SMBDX_XF_AES128_CCM, SMBDX_XF_AES128_GCM,
	SMBDX_XF_AES256_CCM, SMBDX_XF_AES256_GCM,
};

static void xc_cipher_desc(const u16 *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "cipher %u", *c);
}

KUNIT_ARRAY_PARAM(xc_cipher, xc_ciphers, xc_cipher_desc);

KUNIT_DEFINE_ACTION_WRAPPER(xc_vfree, vfree, const void *);

/* 2 pages and a bit: crosses pages in every representation */
#define XC_LEN	(2 * 4096 + 1234)

static void xc_aead_shapes(struct kunit *test)
{
	u16 cipher = *(const u16 *)test->param_value;
	bool wide = cipher == SMBDX_XF_AES256_CCM ||
		    cipher == SMBDX_XF_AES256_GCM;
	unsigned int nlen = (cipher == SMBDX_XF_AES128_CCM ||
			     cipher == SMBDX_XF_AES256_CCM) ? 11 : 12;
	u8 *key = xc_random(test, 32, 1);
	u8 *pt = xc_random(test, XC_LEN, 2);
	u8 *nonce = xc_random(test, 16, 3);
	struct crypto_aead *tfm = xc_aead(test, cipher, key, wide ? 32 : 16);
	u8 tag_lin[16], tag_sc[16], tag_vm[16], bad[16];
	u8 *lin, *back, *vm;
	struct xc_scatter *sc;
	struct iov_iter it, it2;
	struct kvec kv, kv2;

	lin = kunit_kmalloc(test, XC_LEN, GFP_KERNEL);
	back = kunit_kmalloc(test, XC_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, lin);
	KUNIT_ASSERT_NOT_NULL(test, back);
	vm = vmalloc(XC_LEN + 100);
	KUNIT_ASSERT_NOT_NULL(test, vm);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, xc_vfree, vm),
			0);

	/* linear, in place */
	memcpy(lin, pt, XC_LEN);
	xc_kvec(&it, &kv, lin, XC_LEN, ITER_SOURCE);
	KUNIT_ASSERT_EQ(test, smbdx_xf_seal(tfm, cipher, nonce, &it, NULL,
					    XC_LEN, tag_lin), 0);
	KUNIT_EXPECT_NE(test, memcmp(lin, pt, XC_LEN), 0);

	/* scattered pages, in place: the same ciphertext and tag */
	sc = xc_scatter(test, pt, XC_LEN);
	KUNIT_EXPECT_GT(test, sc->n, 4U);
	xc_scatter_iter(sc, &it, ITER_SOURCE);
	KUNIT_ASSERT_EQ(test, smbdx_xf_seal(tfm, cipher, nonce, &it, NULL,
					    XC_LEN, tag_sc), 0);
	KUNIT_EXPECT_EQ(test, iov_iter_count(&it), (size_t)XC_LEN);
	xc_scatter_read(sc, back);
	KUNIT_EXPECT_MEMEQ(test, back, lin, XC_LEN);
	KUNIT_EXPECT_MEMEQ(test, tag_sc, tag_lin, 16);

	/* scattered ciphertext into a vmalloc'ed buffer at an odd offset */
	xc_scatter_iter(sc, &it, ITER_SOURCE);
	xc_kvec(&it2, &kv2, vm + 100, XC_LEN, ITER_DEST);
	KUNIT_ASSERT_EQ(test, smbdx_xf_open(tfm, cipher, nonce, &it, &it2,
					    XC_LEN, tag_sc), 0);
	KUNIT_EXPECT_MEMEQ(test, vm + 100, pt, XC_LEN);

	/* vmalloc'ed plaintext sealed into the scattered pages */
	xc_kvec(&it, &kv, vm + 100, XC_LEN, ITER_SOURCE);
	xc_scatter_iter(sc, &it2, ITER_DEST);
	KUNIT_ASSERT_EQ(test, smbdx_xf_seal(tfm, cipher, nonce, &it, &it2,
					    XC_LEN, tag_vm), 0);
	KUNIT_EXPECT_MEMEQ(test, tag_vm, tag_lin, 16);
	xc_scatter_read(sc, back);
	KUNIT_EXPECT_MEMEQ(test, back, lin, XC_LEN);

	/* tampering: payload (first, middle, last octet), tag, nonce */
	xc_kvec(&it, &kv, lin, XC_LEN, ITER_SOURCE);
	lin[XC_LEN / 2] ^= 1;
	KUNIT_EXPECT_EQ(test, smbdx_xf_open(tfm, cipher, nonce, &it, NULL,
					    XC_LEN, tag_lin), -EBADMSG);
	memcpy(lin, back, XC_LEN);
	lin[0] ^= 0x40;
	KUNIT_EXPECT_EQ(test, smbdx_xf_open(tfm, cipher, nonce, &it, NULL,
					    XC_LEN, tag_lin), -EBADMSG);
	memcpy(lin, back, XC_LEN);
	lin[XC_LEN - 1] ^= 0x02;
	KUNIT_EXPECT_EQ(test, smbdx_xf_open(tfm, cipher, nonce, &it, NULL,
					    XC_LEN, tag_lin), -EBADMSG);
	memcpy(lin, back, XC_LEN);
	memcpy(bad, tag_lin, 16);
	bad[15] ^= 0x10;
	KUNIT_EXPECT_EQ(test, smbdx_xf_open(tfm, cipher, nonce, &it, NULL,
					    XC_LEN, bad), -EBADMSG);
	memcpy(lin, back, XC_LEN);
	nonce[nlen - 1] ^= 1;
	KUNIT_EXPECT_EQ(test, smbdx_xf_open(tfm, cipher, nonce, &it, NULL,
					    XC_LEN, tag_lin), -EBADMSG);
	nonce[nlen - 1] ^= 1;
	/* an octet past the nonce's length is not part of it */
	memcpy(lin, back, XC_LEN);
	nonce[nlen] ^= 1;
	KUNIT_EXPECT_EQ(test, smbdx_xf_open(tfm, cipher, nonce, &it, NULL,
					    XC_LEN, tag_lin), 0);
	KUNIT_EXPECT_MEMEQ(test, lin, pt, XC_LEN);
}

static void xc_cmac_shapes(struct kunit *test)
{
	u8 *key = xc_random(test, 16, 4);
	u8 *pt = xc_random(test, XC_LEN, 5);
	struct shash_desc *desc = xc_hash(test, "cmac(aes)", key, 16);
	struct xc_scatter *sc;
	u8 sig_lin[16], sig_sc[16];
	struct iov_iter it;
	struct kvec kv;
	size_t len;

	sc = xc_scatter(test, pt, XC_LEN);
	for (len = 1; len <= XC_LEN; len = len * 3 + 1) {
		xc_kvec(&it, &kv, pt, len, ITER_SOURCE);
		KUNIT_ASSERT_EQ(test, smbdx_xf_sign(desc, &it, len, sig_lin), 0);
		xc_scatter_iter(sc, &it, ITER_SOURCE);
		KUNIT_ASSERT_EQ(test, smbdx_xf_sign(desc, &it, len, sig_sc), 0);
		KUNIT_EXPECT_MEMEQ_MSG(test, sig_sc, sig_lin, 16, "len %zu", len);
		KUNIT_EXPECT_EQ(test, smbdx_xf_verify(desc, &it, len, sig_lin),
				0);
	}
	/* one flipped octet anywhere is caught */
	xc_scatter_iter(sc, &it, ITER_SOURCE);
	KUNIT_ASSERT_EQ(test, smbdx_xf_sign(desc, &it, XC_LEN, sig_sc), 0);
	((u8 *)page_address(sc->pages[3]))[sc->bv[3].bv_offset] ^= 0x20;
	KUNIT_EXPECT_EQ(test, smbdx_xf_verify(desc, &it, XC_LEN, sig_sc),
			-EBADMSG);
}

/* ---- refusals ---- */

static void xc_refusals(struct kunit *test)
{
	struct crypto_aead *gcm = xc_aead(test, SMBDX_XF_AES128_GCM, gcm_key, 16);
	struct shash_desc *cmac = xc_hash(test, "cmac(aes)", cmac_key, 16);
	struct shash_desc *hmac = xc_hash(test, "hmac(sha256)", cmac_key, 16);
	u8 *buf = kunit_kzalloc(test, 64, GFP_KERNEL);
	u8 tag[16] = {}, sig[16] = {};
	struct iov_iter it, ub;
	struct kvec kv;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	xc_kvec(&it, &kv, buf, 64, ITER_SOURCE);
	iov_iter_ubuf(&ub, ITER_SOURCE, (void __user *)0x10000, 64);

	KUNIT_EXPECT_EQ(test, smbdx_xf_seal(gcm, SMBDX_XF_AES128_GCM, gcm_nonce,
					    &it, NULL, 0, tag), -EINVAL);
	KUNIT_EXPECT_EQ(test, smbdx_xf_seal(gcm, SMBDX_XF_AES128_GCM, gcm_nonce,
					    &it, NULL, 65, tag), -EINVAL);
	KUNIT_EXPECT_EQ(test, smbdx_xf_seal(gcm, 0, gcm_nonce, &it, NULL, 64,
					    tag), -EINVAL);
	KUNIT_EXPECT_EQ(test, smbdx_xf_seal(gcm, 5, gcm_nonce, &it, NULL, 64,
					    tag), -EINVAL);
	KUNIT_EXPECT_EQ(test, smbdx_xf_seal(gcm, SMBDX_XF_AES128_GCM, gcm_nonce,
					    &ub, NULL, 64, tag), -EINVAL);
	KUNIT_EXPECT_EQ(test, smbdx_xf_seal(gcm, SMBDX_XF_AES128_GCM, gcm_nonce,
					    &it, &ub, 64, tag), -EINVAL);
	KUNIT_EXPECT_EQ(test, smbdx_xf_seal(gcm, SMBDX_XF_AES128_GCM, NULL,
					    &it, NULL, 64, tag), -EINVAL);
	KUNIT_EXPECT_EQ(test, smbdx_xf_seal(NULL, SMBDX_XF_AES128_GCM,
					    gcm_nonce, &it, NULL, 64, tag),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, smbdx_xf_open(gcm, SMBDX_XF_AES128_GCM, gcm_nonce,
					    &it, NULL, 64, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, smbdx_xf_open(gcm, SMBDX_XF_AES128_GCM, gcm_nonce,
					    &it, NULL, SMBDX_XF_PAYLOAD_MAX + 1,
					    tag), -EINVAL);
	/* an authsize other than 16 */
	KUNIT_ASSERT_EQ(test, crypto_aead_setauthsize(gcm, 12), 0);
	KUNIT_EXPECT_EQ(test, smbdx_xf_seal(gcm, SMBDX_XF_AES128_GCM, gcm_nonce,
					    &it, NULL, 64, tag), -EINVAL);
	/* nothing was written by any refusal */
	KUNIT_EXPECT_TRUE(test, !memchr_inv(buf, 0, 64));
	KUNIT_EXPECT_TRUE(test, !memchr_inv(tag, 0, 16));

	KUNIT_EXPECT_EQ(test, smbdx_xf_sign(cmac, &it, 0, sig), -EINVAL);
	KUNIT_EXPECT_EQ(test, smbdx_xf_sign(cmac, &it, 65, sig), -EINVAL);
	KUNIT_EXPECT_EQ(test, smbdx_xf_sign(cmac, &ub, 64, sig), -EINVAL);
	KUNIT_EXPECT_EQ(test, smbdx_xf_sign(cmac, &it, 64, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, smbdx_xf_sign(NULL, &it, 64, sig), -EINVAL);
	KUNIT_EXPECT_EQ(test, smbdx_xf_verify(cmac, &it, 64, NULL), -EINVAL);
	/* HMAC-SHA256's 32 octets do not fit the transform's Signature */
	KUNIT_EXPECT_EQ(test, smbdx_xf_sign(hmac, &it, 64, sig), -EINVAL);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(sig, 0, 16));
}

static struct kunit_case xc_cases[] = {
	KUNIT_CASE(xc_cmac_vectors),
	KUNIT_CASE(xc_gcm_vector),
	KUNIT_CASE(xc_ccm_vector),
	KUNIT_CASE_PARAM(xc_aead_shapes, xc_cipher_gen_params),
	KUNIT_CASE(xc_cmac_shapes),
	KUNIT_CASE(xc_refusals),
	{}
};

static struct kunit_suite xc_suite = {
	.name = "smbdirect_xform_crypto",
	.test_cases = xc_cases,
};

kunit_test_suite(xc_suite);

MODULE_DESCRIPTION("KUnit tests for the RDMA transform's cryptography");
MODULE_LICENSE("GPL");
