// SPDX-License-Identifier: GPL-2.0
/*
 * smbd_test.ko, SMB2 interop (tests/vm/interop_*.sh,
 * Documentation/interop.rst): just enough of SMB2 ([MS-SMB2] 2.2.1.2,
 * 2.2.3, 2.2.4) to open a session with an independent server (the stock
 * ksmbd) and to recognise what an independent client (the stock cifs)
 * sends first.
 *
 * Every server connection records the first bytes of its first message and
 * counts the messages that begin with an SMB2 header (its listener keeps
 * totals that outlive its connections); a listener may hang up after a
 * number of messages (hangup=N), and a sink may answer every SMB2 request
 * with an error response, STATUS_NOT_SUPPORTED (refuse=1). The negotiate
 * command sends one SMB2 NEGOTIATE request as a client and checks the
 * server's response; everything in a response is checked against the
 * received length before it is used. With xform=N a 3.1.1 request also
 * carries an SMB2_RDMA_TRANSFORM_CAPABILITIES context, valid or malformed
 * (SVC_XFORM_*), and the response's context of that type, if any, is
 * checked with smbdirect's codec and printed ("rdma_transform: ...").
 *
 * Locking: svc_interop_recv() runs in a server connection's recv callback
 * (smbdirect's workqueue, one message at a time per connection, several
 * connections at once): it counts with atomics and records the first bytes
 * under svc_lock, once per connection and listener (first_len, set last
 * with WRITE_ONCE(), never goes back to 0, so later messages skip the
 * lock). The status file reads them under svc_lock. The negotiate command
 * runs with svc_mutex held; its connection is its own (pull mode, no
 * callbacks) and destroyed before it returns.
 */

#include <linux/mm.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uio.h>
#include <linux/unaligned.h>
#include <net/net_namespace.h>

#include "smbd_test.h"

#define SVC_SMB2_MAGIC		0x424d53fe	/* 0xfe 'S' 'M' 'B' */
#define SVC_SMB2_HDR_LEN	64
#define SVC_SMB2_NEGOTIATE	0x0000
#define SVC_SMB2_FLAG_RESPONSE	0x00000001	/* SMB2_FLAGS_SERVER_TO_REDIR */
#define SVC_SMB2_ERR_LEN	9		/* ERROR Response StructureSize */
#define SVC_STATUS_NOT_SUPPORTED 0xc00000bb
#define SVC_SMB2_SIGNING_ON	0x0001		/* SMB2_NEGOTIATE_SIGNING_ENABLED */
#define SVC_SMB2_CAP_LARGE_MTU	0x00000004
#define SVC_SMB2_NEG_REQ_LEN	36
#define SVC_SMB2_NEG_RSP_LEN	65
#define SVC_SMB311		0x0311
#define SVC_PREAUTH_CONTEXT	0x0001		/* SMB2_PREAUTH_INTEGRITY_CAPABILITIES */
#define SVC_PREAUTH_SHA512	0x0001
#define SVC_PREAUTH_SALT_LEN	32
#define SVC_NEG_TIMEOUT_MS	15000
#define SVC_NEG_RSP_MAX		65536
#define SVC_NEG_REQ_MAX		256

struct svc_smb2_hdr {
	__le32 protocol_id;
	__le16 structure_size;
	__le16 credit_charge;
	__le32 status;
	__le16 command;
	__le16 credits;
	__le32 flags;
	__le32 next_command;
	__le64 message_id;
	__le32 process_id;
	__le32 tree_id;
	__le64 session_id;
	u8 signature[16];
} __packed;
static_assert(sizeof(struct svc_smb2_hdr) == SVC_SMB2_HDR_LEN);

struct svc_smb2_neg_req {
	struct svc_smb2_hdr hdr;
	__le16 structure_size;
	__le16 dialect_count;
	__le16 security_mode;
	__le16 reserved;
	__le32 capabilities;
	u8 client_guid[16];
	__le32 context_offset;		/* ClientStartTime before 3.1.1 */
	__le16 context_count;
	__le16 reserved2;
	__le16 dialects[];
} __packed;
static_assert(sizeof(struct svc_smb2_neg_req) == SVC_SMB2_HDR_LEN + SVC_SMB2_NEG_REQ_LEN);

/* The fixed part of the response: StructureSize 65 counts one buffer byte. */
struct svc_smb2_neg_rsp {
	struct svc_smb2_hdr hdr;
	__le16 structure_size;
	__le16 security_mode;
	__le16 dialect;
	__le16 context_count;		/* 3.1.1 only */
	u8 server_guid[16];
	__le32 capabilities;
	__le32 max_transact_size;
	__le32 max_read_size;
	__le32 max_write_size;
	__le64 system_time;
	__le64 server_start_time;
	__le16 security_buffer_offset;
	__le16 security_buffer_length;
	__le32 context_offset;		/* 3.1.1 only */
} __packed;
static_assert(sizeof(struct svc_smb2_neg_rsp) == SVC_SMB2_HDR_LEN + SVC_SMB2_NEG_RSP_LEN - 1);

struct svc_smb2_context {
	__le16 type;
	__le16 data_length;
	__le32 reserved;
} __packed;

struct svc_preauth_context {
	struct svc_smb2_context ctx;
	__le16 hash_count;
	__le16 salt_length;
	__le16 hash;
	u8 salt[SVC_PREAUTH_SALT_LEN];
} __packed;

static const u16 svc_dialects[] = { 0x0202, 0x0210, 0x0300, 0x0302, SVC_SMB311 };

/* The ERROR Response ([MS-SMB2] 2.2.2) with no error data: one byte. */
struct svc_smb2_err_rsp {
	struct svc_smb2_hdr hdr;
	__le16 structure_size;
	u8 error_context_count;
	u8 reserved;
	__le32 byte_count;
	u8 error_data;
} __packed;

/* Does @buf (@len bytes) begin with an SMB2 header? */
static bool svc_is_smb2(const u8 *buf, u32 len)
{
	return len >= 6 && get_unaligned_le32(buf) == SVC_SMB2_MAGIC &&
	       get_unaligned_le16(buf + 4) == SVC_SMB2_HDR_LEN;
}

static void svc_seen_record(struct svc_interop_seen *seen, const u8 *buf,
			    u32 n)
{
	if (seen->first_len)
		return;
	memcpy(seen->first, buf, n);
	WRITE_ONCE(seen->first_len, n);
}

/*
 * Answer the request whose header is @req with an ERROR Response carrying
 * STATUS_NOT_SUPPORTED: same command and MessageId, one credit granted.
 * A send that fails ends the connection, which the test sees.
 */
static void svc_refuse(struct smbdx_conn *conn, const struct svc_smb2_hdr *req)
{
	struct svc_smb2_err_rsp rsp = {};
	struct kvec kv = { &rsp, sizeof(rsp) };
	struct iov_iter it;

	rsp.hdr.protocol_id = cpu_to_le32(SVC_SMB2_MAGIC);
	rsp.hdr.structure_size = cpu_to_le16(SVC_SMB2_HDR_LEN);
	rsp.hdr.status = cpu_to_le32(SVC_STATUS_NOT_SUPPORTED);
	rsp.hdr.command = req->command;
	rsp.hdr.credits = cpu_to_le16(1);
	rsp.hdr.flags = cpu_to_le32(SVC_SMB2_FLAG_RESPONSE);
	rsp.hdr.message_id = req->message_id;
	rsp.hdr.process_id = req->process_id;
	rsp.structure_size = cpu_to_le16(SVC_SMB2_ERR_LEN);
	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, sizeof(rsp));
	smbdx_send(conn, &it, 0, 0);
}

/**
 * svc_interop_recv() - what a server connection does with each message
 * @sc: the server connection
 * @msg: the message, counted already; freed here
 *
 * Note the first bytes and whether the message is SMB2, answer an SMB2
 * request with an error if the listener refuses, free the message, and
 * hang up once the listener's hangup=N messages have arrived.
 *
 * Context: the connection's recv callback (one message at a time per
 * connection); takes svc_lock.
 */
void svc_interop_recv(struct smbdx_test_sconn *sc, struct smbdx_msg *msg)
{
	u32 len = smbdx_msg_len(msg), n = min_t(u32, len, SVC_SMB2_HDR_LEN);
	u8 head[SVC_SMB2_HDR_LEN];
	struct iov_iter it;
	struct kvec kv = { head, n };

	iov_iter_kvec(&it, ITER_DEST, &kv, 1, n);
	n = smbdx_msg_copy(msg, 0, &it);
	smbdx_msg_free(msg);
	if (n == SVC_SMB2_HDR_LEN && svc_is_smb2(head, n)) {
		atomic64_inc(&sc->seen.smb2);
		atomic64_inc(&sc->tl->seen.smb2);
		if (sc->tl->refuse)
			svc_refuse(sc->conn, (struct svc_smb2_hdr *)head);
	}
	n = min_t(u32, n, SVC_FIRST_MAX);
	/* Only the first messages take the lock; first_len never goes back. */
	if (n && (!READ_ONCE(sc->seen.first_len) ||
		  !READ_ONCE(sc->tl->seen.first_len))) {
		spin_lock_bh(&svc_lock);
		svc_seen_record(&sc->seen, head, n);
		svc_seen_record(&sc->tl->seen, head, n);
		spin_unlock_bh(&svc_lock);
	}
	if (sc->tl->hangup && atomic64_read(&sc->msgs) >= sc->tl->hangup)
		smbdx_disconnect(sc->conn);
}

/**
 * svc_interop_show() - end a status line with what was seen
 * @m: the status file
 * @seen: a listener's or a server connection's record
 *
 * Prints " smb2=N first=HEX" (or "first=none") and the newline.
 *
 * Context: svc_lock held.
 */
void svc_interop_show(struct seq_file *m, struct svc_interop_seen *seen)
{
	seq_printf(m, " smb2=%lld first=", (long long)atomic64_read(&seen->smb2));
	if (seen->first_len)
		seq_printf(m, "%*phN\n", seen->first_len, seen->first);
	else
		seq_puts(m, "none\n");
}

/**
 * svc_interop_opt() - take an interop option (hangup, refuse, timeout_ms,
 *	smb311, xform)
 * @key: the option's name
 * @v: its value
 * @ia: set if @key is one of them
 *
 * Return: true if @key was an interop option.
 */
bool svc_interop_opt(const char *key, u32 v, struct svc_interop_args *ia)
{
	if (!strcmp(key, "xform"))
		ia->xform = v;
	else if (!strcmp(key, "hangup"))
		ia->hangup = v;
	else if (!strcmp(key, "refuse"))
		ia->refuse = v;
	else if (!strcmp(key, "timeout_ms"))
		ia->timeout_ms = v;
	else if (!strcmp(key, "smb311"))
		ia->smb311 = v;
	else
		return false;
	return true;
}

/*
 * Add the SMB2_RDMA_TRANSFORM_CAPABILITIES context of kind @xform
 * (SVC_XFORM_*) at @buf + @len, 8-aligned; returns the new length.
 */
static u32 svc_xform_build(u8 *buf, u32 len, u32 xform)
{
	struct svc_smb2_neg_req *req = (struct svc_smb2_neg_req *)buf;
	struct svc_smb2_context *ctx;
	u8 *data;
	int n;

	len = ALIGN(len, 8);
	ctx = (struct svc_smb2_context *)(buf + len);
	data = (u8 *)(ctx + 1);
	ctx->type = cpu_to_le16(SMBDX_XF_CTX_TYPE);
	switch (xform) {
	case SVC_XFORM_ZERO:		/* fixed part only, TransformCount 0 */
		n = SMBDX_XF_CAPS_FIXED_LEN;
		break;
	case SVC_XFORM_SHORT:		/* TransformCount 1 in 2 octets */
		put_unaligned_le16(1, data);
		n = 2;
		break;
	case SVC_XFORM_UNKNOWN:		/* two IDs nobody defines */
		put_unaligned_le16(2, data);
		put_unaligned_le16(0x0003, data + SMBDX_XF_CAPS_FIXED_LEN);
		put_unaligned_le16(0x7777, data + SMBDX_XF_CAPS_FIXED_LEN + 2);
		n = SMBDX_XF_CAPS_FIXED_LEN + 4;
		break;
	case SVC_XFORM_SIGNING:
		n = smbdx_xf_caps_encode(SMBDX_XF_SIGNING, data,
					 SMBDX_XF_CAPS_MAX_LEN);
		break;
	default:
		n = smbdx_xf_caps_encode(SMBDX_XF_ENCRYPTION | SMBDX_XF_SIGNING,
					 data, SMBDX_XF_CAPS_MAX_LEN);
		break;
	}
	ctx->data_length = cpu_to_le16(n);
	le16_add_cpu(&req->context_count, 1);
	return len + sizeof(*ctx) + n;
}

/* Build the request in @buf (room for SVC_NEG_REQ_MAX bytes); returns its length. */
static u32 svc_negotiate_build(u8 *buf, u32 ndialects, bool smb311, u32 xform)
{
	struct svc_smb2_neg_req *req = (struct svc_smb2_neg_req *)buf;
	struct svc_preauth_context *pa;
	u32 len, i;

	memset(buf, 0, SVC_NEG_REQ_MAX);
	req->hdr.protocol_id = cpu_to_le32(SVC_SMB2_MAGIC);
	req->hdr.structure_size = cpu_to_le16(SVC_SMB2_HDR_LEN);
	req->hdr.command = cpu_to_le16(SVC_SMB2_NEGOTIATE);
	req->hdr.credits = cpu_to_le16(31);
	req->structure_size = cpu_to_le16(SVC_SMB2_NEG_REQ_LEN);
	req->dialect_count = cpu_to_le16(ndialects);
	req->security_mode = cpu_to_le16(SVC_SMB2_SIGNING_ON);
	req->capabilities = cpu_to_le32(SVC_SMB2_CAP_LARGE_MTU);
	get_random_bytes(req->client_guid, sizeof(req->client_guid));
	for (i = 0; i < ndialects; i++)
		req->dialects[i] = cpu_to_le16(svc_dialects[i]);
	len = struct_size(req, dialects, ndialects);
	if (!smb311)
		return len;

	/* 3.1.1 needs a preauth integrity context, 8-byte aligned. */
	len = ALIGN(len, 8);
	req->context_offset = cpu_to_le32(len);
	req->context_count = cpu_to_le16(1);
	pa = (struct svc_preauth_context *)(buf + len);
	pa->ctx.type = cpu_to_le16(SVC_PREAUTH_CONTEXT);
	pa->ctx.data_length = cpu_to_le16(sizeof(*pa) - sizeof(pa->ctx));
	pa->hash_count = cpu_to_le16(1);
	pa->salt_length = cpu_to_le16(SVC_PREAUTH_SALT_LEN);
	pa->hash = cpu_to_le16(SVC_PREAUTH_SHA512);
	get_random_bytes(pa->salt, sizeof(pa->salt));
	len += sizeof(*pa);
	if (xform)
		len = svc_xform_build(buf, len, xform);
	return len;
}

/**
 * svc_smb2_negotiate_build() - an SMB2 NEGOTIATE request of every dialect
 * @buf: room for 256 bytes
 *
 * For the raw clients (rawc.c), whose server must have a response to send.
 *
 * Return: its length.
 */
u32 svc_smb2_negotiate_build(u8 *buf)
{
	return svc_negotiate_build(buf, ARRAY_SIZE(svc_dialects), true, 0);
}

/*
 * Check a response's SMB2_RDMA_TRANSFORM_CAPABILITIES (@data, @dlen
 * octets) against what the request of kind @xform offered (MS-SMB2
 * 3.2.5.2) and print what was agreed.
 */
static int svc_xform_check(const u8 *data, u32 dlen, u32 xform)
{
	u8 offered = 0, agreed;
	enum smbdx_xf_verdict v;

	if (xform == SVC_XFORM_BOTH)
		offered = SMBDX_XF_ENCRYPTION | SMBDX_XF_SIGNING;
	else if (xform == SVC_XFORM_SIGNING)
		offered = SMBDX_XF_SIGNING;
	v = smbdx_xf_caps_check_response(data, dlen, offered, &agreed);
	if (v != SMBDX_XF_OK) {
		svc_printf("error: RDMA transform context refused (verdict %d): %*phN\n",
			   v, (int)min_t(u32, dlen, 16), data);
		return -EBADMSG;
	}
	svc_printf("rdma_transform: count=%u agreed=%#x\n",
		   get_unaligned_le16(data), agreed);
	return 0;
}

/* Check the negotiate contexts of a 3.1.1 response. */
static int svc_negotiate_contexts(const u8 *buf, u32 len,
				  const struct svc_smb2_neg_rsp *rsp, u32 xform)
{
	u32 off = le32_to_cpu(rsp->context_offset);
	u32 count = le16_to_cpu(rsp->context_count), i, dlen = 0;
	const struct svc_preauth_context *pa;
	const struct svc_smb2_context *ctx;
	bool preauth = false, xf = false;
	int rc;

	if (!count || off < sizeof(*rsp) || off % 8) {
		svc_printf("error: 3.1.1 response with %u contexts at offset %u\n",
			   count, off);
		return -EBADMSG;
	}
	for (i = 0; i < count; i++, off = ALIGN(off + sizeof(*ctx) + dlen, 8)) {
		if (off > len || len - off < sizeof(*ctx)) {
			svc_printf("error: context %u at %u beyond the %u-byte message\n",
				   i, off, len);
			return -EBADMSG;
		}
		ctx = (const struct svc_smb2_context *)(buf + off);
		dlen = le16_to_cpu(ctx->data_length);
		if (len - off - sizeof(*ctx) < dlen) {
			svc_printf("error: context %u (type %u) of %u bytes overruns the message\n",
				   i, le16_to_cpu(ctx->type), dlen);
			return -EBADMSG;
		}
		svc_printf("context: type=%u length=%u\n", le16_to_cpu(ctx->type),
			   dlen);
		if (le16_to_cpu(ctx->type) == SMBDX_XF_CTX_TYPE) {
			if (xf) {
				svc_printf("error: two RDMA transform contexts\n");
				return -EBADMSG;
			}
			xf = true;
			rc = svc_xform_check((const u8 *)(ctx + 1), dlen, xform);
			if (rc)
				return rc;
		}
		if (le16_to_cpu(ctx->type) != SVC_PREAUTH_CONTEXT)
			continue;
		pa = (const struct svc_preauth_context *)ctx;
		if (dlen < 6 || le16_to_cpu(pa->hash_count) != 1 ||
		    le16_to_cpu(pa->hash) != SVC_PREAUTH_SHA512 ||
		    dlen - 6 < le16_to_cpu(pa->salt_length)) {
			svc_printf("error: bad preauth integrity context\n");
			return -EBADMSG;
		}
		svc_printf("preauth: hash=sha512 salt_length=%u\n",
			   le16_to_cpu(pa->salt_length));
		preauth = true;
	}
	if (!preauth) {
		svc_printf("error: 3.1.1 response without a preauth integrity context\n");
		return -EBADMSG;
	}
	if (!xf)
		svc_printf("rdma_transform: none\n");
	return 0;
}

/* Validate an SMB2 NEGOTIATE response of @len bytes to our request. */
static int svc_negotiate_check(const u8 *buf, u32 len, u32 ndialects,
			       u32 xform)
{
	const struct svc_smb2_neg_rsp *rsp = (const struct svc_smb2_neg_rsp *)buf;
	u32 status, flags, soff, slen, i;
	u16 dialect;

	if (len < SVC_SMB2_HDR_LEN || !svc_is_smb2(buf, len)) {
		svc_printf("error: not an SMB2 message (%u bytes, %*phN)\n", len,
			   (int)min_t(u32, len, 8), buf);
		return -EBADMSG;
	}
	status = le32_to_cpu(rsp->hdr.status);
	flags = le32_to_cpu(rsp->hdr.flags);
	svc_printf("response: %u bytes, command=%u status=0x%08x flags=0x%08x ",
		   len, le16_to_cpu(rsp->hdr.command), status, flags);
	svc_printf("message_id=%llu credits=%u\n",
		   le64_to_cpu(rsp->hdr.message_id), le16_to_cpu(rsp->hdr.credits));
	if (le16_to_cpu(rsp->hdr.command) != SVC_SMB2_NEGOTIATE ||
	    !(flags & SVC_SMB2_FLAG_RESPONSE) || rsp->hdr.message_id ||
	    rsp->hdr.next_command) {
		svc_printf("error: not the response to our NEGOTIATE\n");
		return -EBADMSG;
	}
	if (status) {
		svc_printf("error: the server refused: status 0x%08x\n", status);
		return -EREMOTEIO;
	}
	if (len < sizeof(*rsp) ||
	    le16_to_cpu(rsp->structure_size) != SVC_SMB2_NEG_RSP_LEN) {
		svc_printf("error: negotiate response body: StructureSize %u in %u bytes\n",
			   len >= sizeof(*rsp) ? le16_to_cpu(rsp->structure_size) : 0,
			   len);
		return -EBADMSG;
	}
	dialect = le16_to_cpu(rsp->dialect);
	for (i = 0; i < ndialects; i++)
		if (dialect == svc_dialects[i])
			break;
	if (i == ndialects) {
		svc_printf("error: dialect 0x%04x was not offered\n", dialect);
		return -EBADMSG;
	}
	soff = le16_to_cpu(rsp->security_buffer_offset);
	slen = le16_to_cpu(rsp->security_buffer_length);
	if (slen && (soff < sizeof(*rsp) || soff > len || len - soff < slen)) {
		svc_printf("error: security buffer %u+%u outside the %u-byte message\n",
			   soff, slen, len);
		return -EBADMSG;
	}
	svc_printf("dialect=0x%04x security_mode=0x%04x capabilities=0x%08x\n",
		   dialect, le16_to_cpu(rsp->security_mode),
		   le32_to_cpu(rsp->capabilities));
	svc_printf("max_transact_size=%u max_read_size=%u max_write_size=%u security_buffer=%u\n",
		   le32_to_cpu(rsp->max_transact_size),
		   le32_to_cpu(rsp->max_read_size),
		   le32_to_cpu(rsp->max_write_size), slen);
	if (dialect == SVC_SMB311)
		return svc_negotiate_contexts(buf, len, rsp, xform);
	return 0;
}

/**
 * svc_negotiate() - the negotiate command
 * @argc: number of arguments
 * @argv: the arguments after "negotiate": ADDR [PORT] [smb311=1]
 *	[xform=N] [timeout_ms=N] [OPTIONS]
 *
 * Connect, send one SMB2 NEGOTIATE request offering 2.0.2, 2.1, 3.0 and
 * 3.0.2 (and 3.1.1 with smb311=1) as one SMB Direct message, wait for one
 * message back and check that it is a valid, successful NEGOTIATE
 * response.
 *
 * Context: process context, with svc_mutex held.
 * Return: 0, -ETIMEDOUT (no answer), -EBADMSG (invalid response),
 * -EREMOTEIO (non-zero Status), or the connection's error.
 */
int svc_negotiate(int argc, char **argv)
{
	u32 ndialects, len, rlen;
	struct smbdx_conn *conn;
	struct smbdx_msg *msg;
	struct iov_iter it;
	struct svc_args a;
	struct kvec kv;
	u8 *buf;
	long tmo;
	int rc;

	rc = svc_parse(argc, argv, &a);
	if (rc)
		return rc;
	if (a.interop.xform > SVC_XFORM_MAX ||
	    (a.interop.xform && !a.interop.smb311)) {
		svc_printf("error: xform=%u needs smb311=1 and at most %u\n",
			   a.interop.xform, SVC_XFORM_MAX);
		return -EINVAL;
	}
	ndialects = ARRAY_SIZE(svc_dialects) - !a.interop.smb311;
	tmo = msecs_to_jiffies(a.interop.timeout_ms ?: SVC_NEG_TIMEOUT_MS);
	buf = kvmalloc(SVC_NEG_RSP_MAX, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	conn = smbdx_connect(&init_net, (struct sockaddr *)&a.addr, NULL, &a.cfg,
			     NULL, NULL);
	if (IS_ERR(conn)) {
		svc_printf("error: connect to %pISpc: %ld\n", &a.addr,
			   PTR_ERR(conn));
		kvfree(buf);
		return PTR_ERR(conn);
	}
	svc_printf("connected: ");
	svc_print_info(conn);

	len = svc_negotiate_build(buf, ndialects, a.interop.smb311,
				  a.interop.xform);
	kv.iov_base = buf;
	kv.iov_len = len;
	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, len);
	rc = smbdx_send(conn, &it, 0, 0);
	if (rc) {
		svc_printf("error: send: %d\n", rc);
		goto out;
	}
	svc_printf("sent SMB2 NEGOTIATE: %u bytes, %u dialects up to 0x%04x\n",
		   len, ndialects, svc_dialects[ndialects - 1]);

	rc = smbdx_recv_msg(conn, tmo, &msg);
	if (rc == -EAGAIN)
		rc = -ETIMEDOUT;
	if (rc) {
		svc_printf("error: no response: %d\n", rc);
		goto out;
	}
	rlen = smbdx_msg_len(msg);
	if (rlen > SVC_NEG_RSP_MAX) {
		svc_printf("error: a %u-byte response\n", rlen);
		smbdx_msg_free(msg);
		rc = -EMSGSIZE;
		goto out;
	}
	kv.iov_len = rlen;
	iov_iter_kvec(&it, ITER_DEST, &kv, 1, rlen);
	if (smbdx_msg_copy(msg, 0, &it) != rlen) {
		svc_printf("error: could not copy the %u-byte response\n", rlen);
		rc = -EFAULT;
	}
	smbdx_msg_free(msg);
	if (!rc)
		rc = svc_negotiate_check(buf, rlen, ndialects, a.interop.xform);
	if (!rc)
		svc_printf("valid SMB2 NEGOTIATE response\n");
out:
	smbdx_destroy(conn);
	kvfree(buf);
	return rc;
}
