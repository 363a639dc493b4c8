/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smbdirect.ko exported API: SMB Direct (MS-SMBD) connections over RDMA for
 * upper layers such as the SMB2 client (cifs) and server (ksmbd).
 *
 * A connection is a struct smbdx_conn, opaque to callers. It is created by
 * smbdx_connect() (active role, MS-SMBD 3.1.4.1) or handed to a listener's
 * accept callback once a peer has connected and negotiated (passive role,
 * 3.1.7.2). Its owner sends whole upper-layer messages with smbdx_send()
 * (3.1.4.2; the transport fragments them), receives whole reassembled
 * messages with smbdx_recv_msg() or through the recv callback,
 * queries the negotiated parameters with smbdx_conn_query() (3.1.4.7), is
 * told once about the loss of the connection (3.1.7.1) through the
 * disconnected callback, and ends with smbdx_destroy().
 *
 * Contexts and locking (each function's kernel-doc says more):
 *  - smbdx_connect(), smbdx_listen(), smbdx_listener_destroy(), smbdx_send(),
 *    smbdx_recv_msg(), smbdx_register(), smbdx_deregister(),
 *    smbdx_rdma_read(), smbdx_rdma_write(), smbdx_reg_len_floor(),
 *    smbdx_destroy() and the smbdx_push_*() functions but
 *    smbdx_push_query() sleep: process context only, no spinlock held.
 *  - smbdx_disconnect(), smbdx_conn_query(), smbdx_push_query(),
 *    smbdx_conn_error(),
 *    smbdx_conn_context()/smbdx_conn_set_context() and the smbdx_msg_*()
 *    functions never sleep and may be called from any context, including
 *    the callbacks; so do the smbdx_xf_*() functions of the RDMA
 *    transform's pure codec (xform.h), which touch only their arguments.
 *  - smbdx_xf_seal(), smbdx_xf_open(), smbdx_xf_sign() and
 *    smbdx_xf_verify() (the transform's cryptography) sleep: process
 *    context only; the caller's cipher or hash must not be rekeyed while
 *    they use it. So do smbdx_register_xform() and
 *    smbdx_rdma_write_xform(); smbdx_conn_set_xform() and
 *    smbdx_xform_count_rejected() never sleep, any context.
 *  - Callbacks (accept, recv, disconnected) run in process context on
 *    smbdirect's workqueue, one at a time per connection and in order, and
 *    may sleep; a callback may call any function of this API on its own
 *    connection, including smbdx_destroy() (but not smbdx_listener_destroy()
 *    on the listener it was accepted by).
 */
#ifndef _SMBDIRECT_SMBDIRECT_H
#define _SMBDIRECT_SMBDIRECT_H

#include <linux/types.h>
#include <linux/minmax.h>
#include <linux/socket.h>
#include <linux/uio.h>
#include <smbdirect/ns.h>
#include <smbdirect/pdu.h>
#include <smbdirect/xform.h>

struct net;
struct net_device;
struct seq_file;
struct smbdx_conn;
struct smbdx_listener;
struct smbdx_msg;
struct smbdx_reg;

/**
 * struct smbdx_conn_config - settings of one connection
 * @proto: MS-SMBD initial values (3.1.4.1 / 3.1.7.2): ReceiveCreditMax,
 *	SendCreditTarget, MaxSendSize, MaxReceiveSize, MaxFragmentedRecvSize,
 *	MaxReadWriteSize. Its keepalive_interval is ignored (see
 *	@keepalive_ms) and reported back in seconds.
 * @keepalive_ms: Connection.KeepaliveInterval, the Idle Connection Timer
 *	(3.1.2.2, 3.1.6.2), in milliseconds
 * @keepalive_wait_ms: how long to wait for any message after sending a
 *	keepalive request before terminating the connection (3.1.5.1 <4>)
 * @negotiate_timeout_ms: Negotiation Timer (3.1.2.1): 0 means the role's
 *	default (120 s active, 5 s passive, see the module parameters)
 * @io_timeout_ms: how long an API call may wait on the peer: smbdx_send*()
 *	for its message to be posted (send credits, room in the send queue),
 *	smbdx_rdma_read()/smbdx_rdma_write() and a registration or
 *	invalidation for their work requests to complete. When it expires
 *	the connection ends (cause send_timeout or wr_timeout) and the call
 *	returns -ETIMEDOUT, so a peer that keeps the connection alive but
 *	grants no credit, or never lets a work request finish, cannot hold
 *	a thread for longer
 * @recv_queue_max: bytes of received messages that may wait for, or be
 *	held by, the upper layer before smbdirect stops reposting receives
 *	(and so stops granting credits) until the upper layer frees some
 * @cm_caps: advertise smbdirect's capabilities in the RDMA CM private
 *	data of the connect request or the accept (IB and RoCE only, never
 *	on iWARP; Documentation/design.rst, "Capabilities in CM private
 *	data"). False takes the module parameter cm_caps. The peer's
 *	capabilities are read whatever this says.
 * @push_mode: experimental: advertise push mode (remote flush and atomic
 *	write, design.rst "Push mode") in those capabilities, so that a peer
 *	that advertised it too may use smbdx_push_*() with this end, and
 *	this end with it. Needs @cm_caps. False takes the module parameter
 *	push_mode.
 * @cm_caps_iwarp: with @cm_caps, also send the capabilities on iWARP when
 *	this end connects (after MS-SMBD's 8-octet IRD/ORD header), for a
 *	peer the operator knows to be smbdirect: a Linux 6.12 cifs or ksmbd
 *	takes anything but exactly 8 octets for "no IRD/ORD" and falls back
 *	to what MPA negotiated. An accepting end answers with its
 *	capabilities on iWARP exactly when the connect request carried a
 *	blob, whatever this says. False takes the module parameter
 *	cm_caps_iwarp.
 *
 * smbdx_conn_config_init() fills in the module parameters' values; callers
 * change what they need. Any field left 0 also takes the default.
 */
struct smbdx_conn_config {
	struct smbdx_proto_config proto;
	u32 keepalive_ms;
	u32 keepalive_wait_ms;
	u32 negotiate_timeout_ms;
	u32 io_timeout_ms;
	u32 recv_queue_max;
	bool cm_caps;
	bool push_mode;
	bool cm_caps_iwarp;
};

/**
 * struct smbdx_conn_ops - upper-layer callbacks of a connection
 * @recv: optional. A whole upper-layer message arrived; the callee owns
 *	@msg and must pass it to smbdx_msg_free() (at once or later). When set,
 *	every message goes to it and smbdx_recv_msg() must not be used.
 * @disconnected: optional. The connection was lost or refused after it was
 *	handed to the upper layer (3.1.7.1); @error is the first error
 *	(-ECONNRESET peer disconnect, -ETIMEDOUT keepalive, -EPROTO invalid
 *	message, -ENODEV device removal, ...). Called at most once and never
 *	after smbdx_destroy() returned. The owner still has to call
 *	smbdx_destroy().
 */
struct smbdx_conn_ops {
	void (*recv)(struct smbdx_conn *conn, struct smbdx_msg *msg);
	void (*disconnected)(struct smbdx_conn *conn, int error);
};

/**
 * struct smbdx_listener_ops - callbacks of a listener
 * @accept: required. A peer connected and negotiated successfully
 *	(3.1.5.6, 3.1.7.2). Return 0 to take ownership of @conn (the callee
 *	must eventually call smbdx_destroy() on it and may call
 *	smbdx_conn_set_context() first), or a negative errno to refuse it, in
 *	which case smbdirect disconnects and frees it. No message or loss is
 *	delivered on @conn before this returns.
 * @conn_ops: callbacks installed on every connection of this listener
 *	before it negotiates; may be NULL (pull mode, no loss callback)
 */
struct smbdx_listener_ops {
	int (*accept)(struct smbdx_listener *lis, struct smbdx_conn *conn);
	const struct smbdx_conn_ops *conn_ops;
};

/**
 * struct smbdx_conn_info - answer of smbdx_conn_query()
 * @params: negotiated parameters; MS-SMBD 3.1.4.7 asks for MaxSendSize,
 *	MaxFragmentedSendSize, MaxReceiveSize, MaxReadWriteSize and
 *	KeepaliveInterval (seconds), the rest is there for diagnostics
 * @keepalive_ms: idle timer in milliseconds
 * @iwarp: the connection runs over iWARP
 * @ird: inbound RDMA Read depth set on the connection
 * @ord: outbound RDMA Read depth set on the connection
 * @max_sge: send SGEs the device allows per work request (for the
 *	upper layer's own RDMA work in a later release)
 * @max_reg_len: bytes a registration is sure to cover with one Buffer
 *	Descriptor (one MR) whatever the buffer's offset in its first page,
 *	provided its pages have no gaps: (pages per MR - 1) * PAGE_SIZE. An
 *	upper layer that advertises one descriptor per request caps its I/O
 *	size to this (or to smbdx_reg_len_floor() when connections on other
 *	devices share that size) and registers with SMBDX_REG_ONE_DESC. One
 *	page more, @max_reg_len + PAGE_SIZE bytes, is one descriptor when the
 *	buffer starts on a page boundary and at most two at any offset (no
 *	gaps either): an upper layer that can send two registers with
 *	SMBDX_REG_MAX_DESCS(2) (cifs, where that size is a power of two).
 * @local: local address and port
 * @peer: peer address and port
 * @device: RDMA device name
 */
struct smbdx_conn_info {
	struct smbdx_proto_params params;
	u32 keepalive_ms;
	bool iwarp;
	u32 ird;
	u32 ord;
	u32 max_sge;
	u32 max_reg_len;
	struct sockaddr_storage local;
	struct sockaddr_storage peer;
	char device[64];
};

/* smbdx_send() flags */
#define SMBDX_SEND_INVALIDATE	0x1	/* @remote_token is valid (3.1.4.2) */

void smbdx_conn_config_init(struct smbdx_conn_config *cfg);

struct smbdx_conn *smbdx_connect(struct net *net, const struct sockaddr *dst,
				 const struct sockaddr *src,
			       const struct smbdx_conn_config *cfg,
			       const struct smbdx_conn_ops *ops, void *ctx);

struct smbdx_listener *smbdx_listen(struct net *net, const struct sockaddr *addr,
				    const struct smbdx_conn_config *cfg,
				  const struct smbdx_listener_ops *ops,
				  void *ctx);
void *smbdx_listener_context(struct smbdx_listener *lis);
int smbdx_listener_port(struct smbdx_listener *lis);
void smbdx_listener_destroy(struct smbdx_listener *lis);

int smbdx_send(struct smbdx_conn *conn, struct iov_iter *from, u32 remote_token,
	       unsigned int flags);
int smbdx_sendv(struct smbdx_conn *conn, struct iov_iter *iters,
		unsigned int niters, u32 remote_token, unsigned int flags);

int smbdx_recv_msg(struct smbdx_conn *conn, long timeout, struct smbdx_msg **msgp);

u32 smbdx_msg_len(const struct smbdx_msg *msg);
void smbdx_msg_iter(struct smbdx_msg *msg, struct iov_iter *iter);
size_t smbdx_msg_copy(struct smbdx_msg *msg, u32 offset, struct iov_iter *to);
bool smbdx_msg_invalidated(const struct smbdx_msg *msg, u32 *token);
void smbdx_msg_free(struct smbdx_msg *msg);

int smbdx_conn_query(struct smbdx_conn *conn, struct smbdx_conn_info *info);
int smbdx_conn_error(struct smbdx_conn *conn);
void *smbdx_conn_context(struct smbdx_conn *conn);
void smbdx_conn_set_context(struct smbdx_conn *conn, void *ctx);
u32 smbdx_conn_id(struct smbdx_conn *conn);
void smbdx_conn_show(struct smbdx_conn *conn, struct seq_file *m);

void smbdx_disconnect(struct smbdx_conn *conn);
void smbdx_destroy(struct smbdx_conn *conn);

bool smbdx_netdev_rdma_capable(struct net_device *ndev);
u32 smbdx_reg_len_floor(void);

/* smbdx_register() flags: the access the peer is given (3.1.4.3) */
#define SMBDX_REG_REMOTE_READ	0x1	/* the peer RDMA-reads the buffer */
#define SMBDX_REG_REMOTE_WRITE	0x2	/* the peer RDMA-writes into it */
#define SMBDX_REG_NOWAIT		0x4	/* -EAGAIN instead of waiting for MRs */
#define SMBDX_REG_POSTED		0x10	/* return once posted, not completed */
/*
 * A buffer that needs more descriptors than SMBDX_REG_MAX_DESCS() allows
 * (pieces with gaps) is copied into kernel pages, which are registered
 * instead (see smbdx_register()).
 */
#define SMBDX_REG_BOUNCE		0x20
/*
 * -EMSGSIZE if the buffer needs more than @n Buffer Descriptors (MRs); @n
 * above 255 counts as 255; without it (or with 0) as many as the
 * connection's pool holds.
 */
#define SMBDX_REG_DESCS_SHIFT	8
#define SMBDX_REG_DESCS_MASK	(0xffU << SMBDX_REG_DESCS_SHIFT)
#define SMBDX_REG_MAX_DESCS(n)	(min_t(unsigned int, (n), 0xff) << SMBDX_REG_DESCS_SHIFT)
#define SMBDX_REG_ONE_DESC	SMBDX_REG_MAX_DESCS(1)

struct smbdx_reg *smbdx_register(struct smbdx_conn *conn, struct iov_iter *iter,
				 unsigned int flags);
const struct smbdx_buffer_desc_v1 *smbdx_reg_descs(const struct smbdx_reg *reg,
						   u32 *count);
u32 smbdx_reg_len(const struct smbdx_reg *reg);
u32 smbdx_reg_token(const struct smbdx_reg *reg);
int smbdx_deregister(struct smbdx_reg *reg);

int smbdx_rdma_write(struct smbdx_conn *conn, struct iov_iter *from,
		     const struct smbdx_buffer_desc_v1 *descs, u32 ndescs,
		    u64 offset);
int smbdx_rdma_read(struct smbdx_conn *conn, struct iov_iter *to,
		    const struct smbdx_buffer_desc_v1 *descs, u32 ndescs,
		   u64 offset);

/* The MS-SMB2 RDMA transform's codec (smbdirect/xform.c, xform.h) */
int smbdx_xf_caps_encode(u8 ids, void *buf, u32 size);
enum smbdx_xf_verdict smbdx_xf_caps_decode(const void *data, u32 len,
					   struct smbdx_xf_caps *caps);
enum smbdx_xf_verdict smbdx_xf_caps_check_response(const void *data, u32 len,
						   u8 offered, u8 *agreed);
int smbdx_xf_lengths(u16 type, u16 alg, u8 *sig_len, u8 *nonce_len);
int smbdx_xf_crypto_prepare(struct smbdx_xf_crypto *cr, u16 type, u16 alg);
u32 smbdx_xf_info_len(u8 sig_len, u8 nonce_len, u32 ndescs);
int smbdx_xf_info_encode(const struct smbdx_xf_crypto *cr, u32 channel,
			 const struct smbdx_buffer_desc_v1 *descs, u32 ndescs,
			 void *buf, u32 size);
enum smbdx_xf_verdict smbdx_xf_info_decode(const void *buf, u32 len,
					   bool descs,
					   struct smbdx_xf_info *xi);
enum smbdx_xf_verdict smbdx_xf_info_check(const struct smbdx_xf_info *xi,
					  const struct smbdx_xf_policy *pol);
u32 smbdx_xf_status(enum smbdx_xf_verdict v, u16 type);

/* Its cryptography over an I/O iterator (smbdirect/xform_crypto.c) */
struct crypto_aead;
struct shash_desc;

/**
 * struct smbdx_xform - how smbdx_register_xform() transforms a payload
 * @type: SMBDX_XF_TYPE_ENCRYPTION (seal with @aead) or
 *	SMBDX_XF_TYPE_SIGNING (sign with @shash)
 * @cipher: encryption: the session's cipher ID (SMBDX_XF_AES128_CCM ...
 *	SMBDX_XF_AES256_GCM), which selects the IV layout
 * @aead: encryption: the sender's keyed "ccm(aes)" or "gcm(aes)",
 *	authsize 16
 * @nonce: encryption: the crypto transform's Nonce the caller chose (11
 *	octets for CCM, 12 for GCM)
 * @shash: signing: a descriptor of the sender's keyed "cmac(aes)"; its
 *	state is overwritten
 *
 * The fields of the other type are ignored. The caller keeps the objects
 * alive and unchanged for the duration of the call only.
 */
struct smbdx_xform {
	u16 type;
	u16 cipher;
	struct crypto_aead *aead;
	const u8 *nonce;
	struct shash_desc *shash;
};

int smbdx_xf_seal(struct crypto_aead *tfm, u16 cipher, const u8 *nonce,
		  const struct iov_iter *src, const struct iov_iter *dst,
		  size_t len, u8 *tag);
int smbdx_xf_open(struct crypto_aead *tfm, u16 cipher, const u8 *nonce,
		  const struct iov_iter *src, const struct iov_iter *dst,
		  size_t len, const u8 *tag);
int smbdx_xf_sign(struct shash_desc *desc, const struct iov_iter *it,
		  size_t len, u8 *sig);
int smbdx_xf_verify(struct shash_desc *desc, const struct iov_iter *it,
		    size_t len, const u8 *sig);

/* The transform's RDMA side (mr.c, rw.c, connection.c) */
struct smbdx_reg *smbdx_register_xform(struct smbdx_conn *conn,
				       struct iov_iter *iter,
				       unsigned int flags,
				       const struct smbdx_xform *xf, u8 *sig);
int smbdx_rdma_write_xform(struct smbdx_conn *conn, struct iov_iter *from,
			   const struct smbdx_buffer_desc_v1 *descs,
			   u32 ndescs, u64 offset, u16 type);
int smbdx_conn_set_xform(struct smbdx_conn *conn, u8 xforms);
void smbdx_xform_count_rejected(struct smbdx_conn *conn);
/*
 * Push mode (draft-talpey-rdma-commit; Documentation/design.rst, "Push
 * mode"), experimental: a responder registers a region of its memory
 * and hands its descriptor to the peer through the upper layer's own
 * protocol; the requester writes into it, makes ranges of it globally
 * visible or persistent, and places a 64-bit value atomically after
 * everything before it. Offered only when both peers advertised push
 * mode in the CM private data (struct smbdx_conn_config.push_mode);
 * otherwise every call says -EOPNOTSUPP.
 */
struct smbdx_push_region;
struct smbdx_push_target;

/* Access of a region, operations of a connection, flags of a commit */
#define SMBDX_PUSH_GLOBAL		0x01	/* flush to global visibility */
#define SMBDX_PUSH_PERSISTENT		0x02	/* flush to persistence */
#define SMBDX_PUSH_ATOMIC		0x04	/* atomic write of 64 bits */
/* smbdx_push_commit() and smbdx_push_flush() only */
#define SMBDX_PUSH_REGION		0x08	/* the range is the whole region */
#define SMBDX_PUSH_ATOMIC_PERSISTENT	0x10	/* the atomic value persistent too */

/**
 * enum smbdx_push_path - how a connection carries push mode
 * @SMBDX_PUSH_PATH_NONE: not at all (-EOPNOTSUPP)
 * @SMBDX_PUSH_PATH_MESSAGE: RDMA Write, then a commit request that the
 *	peer's smbdirect answers once done (every kernel and device)
 * @SMBDX_PUSH_PATH_NATIVE: RDMA Write, Flush and Atomic Write work
 *	requests, no round trip (not built yet)
 */
enum smbdx_push_path {
	SMBDX_PUSH_PATH_NONE,
	SMBDX_PUSH_PATH_MESSAGE,
	SMBDX_PUSH_PATH_NATIVE,
};

/**
 * struct smbdx_push_info - answer of smbdx_push_query()
 * @path: enum smbdx_push_path
 * @ops: SMBDX_PUSH_GLOBAL, _PERSISTENT, _ATOMIC: what this end may ask of
 *	the peer's regions (what the peer serves)
 * @served: the same bits: what this end serves the peer (what
 *	smbdx_push_register() may give a region)
 * @max_commits: commits this end may have outstanding at once (more
 *	callers wait)
 * @max_regions: regions this end may register on the connection
 * @max_targets: peer regions this end may attach on the connection
 * @max_region_len: largest region (one memory registration): as
 *	smbdx_conn_info.max_reg_len
 */
struct smbdx_push_info {
	u32 path;
	u32 ops;
	u32 served;
	u32 max_commits;
	u32 max_regions;
	u32 max_targets;
	u32 max_region_len;
};

/**
 * struct smbdx_push_desc - a region's descriptor, as the requester needs it
 * @region: the region's id, never reused on the connection
 * @token: its remote key
 * @offset: the address of its first byte for RDMA
 * @length: its length
 * @access: SMBDX_PUSH_GLOBAL, _PERSISTENT, _ATOMIC it was registered with
 *
 * Little-endian, ready to be carried to the peer by the upper layer.
 */
struct smbdx_push_desc {
	__le32 region;
	__le32 token;
	__le64 offset;
	__le32 length;
	__le32 access;
};

/**
 * struct smbdx_push_commit - what smbdx_push_commit() asks for
 * @offset: first byte of the range to flush, from the region's start
 * @length: bytes of it (both 0 with SMBDX_PUSH_REGION)
 * @atomic_offset: where the 64-bit value goes (8-byte aligned), from the
 *	region's start
 * @value: the value
 * @flags: SMBDX_PUSH_GLOBAL and/or _PERSISTENT for the range (or the
 *	whole region with SMBDX_PUSH_REGION), SMBDX_PUSH_ATOMIC for the value
 *	(with SMBDX_PUSH_ATOMIC_PERSISTENT to make it persistent too); at
 *	least one of the range and the value
 */
struct smbdx_push_commit {
	u64 offset;
	u64 length;
	u64 atomic_offset;
	u64 value;
	u32 flags;
};

int smbdx_push_query(struct smbdx_conn *conn, struct smbdx_push_info *info);
struct smbdx_push_region *smbdx_push_register(struct smbdx_conn *conn,
					      struct iov_iter *iter,
					      u32 access,
					      struct smbdx_push_desc *desc);
int smbdx_push_revoke(struct smbdx_push_region *region);
struct smbdx_push_target *smbdx_push_attach(struct smbdx_conn *conn,
					    const struct smbdx_push_desc *desc);
void smbdx_push_detach(struct smbdx_push_target *target);
int smbdx_push_write(struct smbdx_push_target *target, u64 offset,
		     struct iov_iter *from);
int smbdx_push_commit(struct smbdx_push_target *target,
		      const struct smbdx_push_commit *commit);
int smbdx_push_flush(struct smbdx_push_target *target, u64 offset,
		     u64 length, u32 flags);
int smbdx_push_atomic_write(struct smbdx_push_target *target, u64 offset,
			    u64 value, u32 flags);

#endif /* _SMBDIRECT_SMBDIRECT_H */
