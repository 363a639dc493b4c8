/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cifs's SMB Direct interface for Linux 6.12, on smbdirect.ko.
 *
 * This header replaces fs/smb/client/smbdirect.h when cifs.ko is built by
 * scripts/build-smb-modules.sh. It declares what the rest of cifs uses of
 * its SMB Direct transport (the smbd_*() functions, struct smbd_connection
 * and struct smbd_mr with the few fields cifs reads, the writable tunables
 * of /proc/fs/cifs) and nothing else; shim/6.12/client/smbdirect.c maps
 * all of it onto smbdirect.ko's exported API (include/smbdirect/smbdirect.h).
 *
 * Concurrency: see smbdirect.c. The fields cifs reads directly are written
 * once, before smbd_get_connection() returns the connection.
 */
#ifndef _SMBDIRECT_H
#define _SMBDIRECT_H

#ifdef CONFIG_CIFS_SMB_DIRECT
#define cifs_rdma_enabled(server)	((server)->rdma)

#include <linux/kref.h>
#include "cifsglob.h"
#include "../common/smbdirect/smbdirect.h"

struct seq_file;
struct smbdx_conn;
struct smbdx_msg;
struct smbdx_reg;

/* Tunables under /proc/fs/cifs, read when a connection is made. */
extern int rdma_readwrite_threshold;
extern int smbd_max_frmr_depth;
extern int smbd_keep_alive_interval;
extern int smbd_max_receive_size;
extern int smbd_max_fragmented_recv_size;
extern int smbd_max_send_size;
extern int smbd_send_credit_target;
extern int smbd_receive_credit_max;

/**
 * struct smbd_connection - cifs's handle on one SMB Direct connection
 * @socket: negotiated parameters in the form cifs reads them
 *	(smb2ops.c sizes rsize and wsize from @socket.parameters)
 * @socket.parameters: MaxReadWriteSize there is capped to what
 *	@max_descs buffer descriptors cover
 * @rdma_readwrite_threshold: I/O of at least this many bytes goes through
 *	RDMA read/write (smb2pdu.c)
 * @max_frmr_depth: pages one registration may span (file.c's segment limit)
 * @max_descs: buffer descriptors one READ or WRITE may carry (1 or
 *	SMBD_MAX_DESCS)
 * @conn: the smbdirect.ko connection
 * @ref: one for the TCP_Server_Info (dropped by smbd_destroy() an RCU grace
 *	period after it cleared server->smbd_conn), one per smbd_register_mr()
 *	in progress (taken under RCU)
 * @msg: message being read by smbd_recv(), NULL at a message boundary
 * @msg_len: its length
 * @pos: bytes of the stream form of @msg (4-byte length, then the
 *	message) smbd_recv() has returned
 * @len_be: @msg_len big-endian, the stream's 4-byte length field
 */
struct smbd_connection {
	struct {
		struct smbdirect_socket_parameters parameters;
	} socket;
	int rdma_readwrite_threshold;
	int max_frmr_depth;
	unsigned int max_descs;

	struct smbdx_conn *conn;
	struct kref ref;
	struct smbdx_msg *msg;
	u32 msg_len;
	u32 pos;
	__be32 len_be;
};

/*
 * Most Buffer Descriptors V1 ([MS-SMBD] 2.2.3.1) in one SMB2 READ or WRITE
 * (its channel info, [MS-SMB2] 2.2.19, 2.2.21): a buffer of the I/O size
 * that does not start on a page boundary takes two (smbdirect.c).
 */
#define SMBD_MAX_DESCS	2

/**
 * struct smbd_mr - a buffer registered for the server's RDMA read or write
 * @reg: the smbdirect.ko registration; smb2pdu.c copies its descriptors
 *	into the request with smbd_mr_put_descs()
 */
struct smbd_mr {
	struct smbdx_reg *reg;
};

struct smbd_connection *smbd_get_connection(struct TCP_Server_Info *server,
					    struct sockaddr *dstaddr);
int smbd_reconnect(struct TCP_Server_Info *server);
void smbd_destroy(struct TCP_Server_Info *server);

int smbd_recv(struct smbd_connection *info, struct msghdr *msg);
int smbd_send(struct TCP_Server_Info *server, int num_rqst,
	      struct smb_rqst *rqst);

struct smbd_mr *smbd_register_mr_at(struct smbd_connection **slot,
				    struct iov_iter *iter, bool writing,
				    bool need_invalidate);
/*
 * cifs calls smbd_register_mr(server->smbd_conn, ...) without its server
 * lock; a reconnection may free that connection between cifs's read of the
 * field and the call. The macro passes the field's address instead, so
 * that the shim reads it under RCU (smbdirect.c). Any argument that is not
 * an lvalue fails to compile.
 */
#define smbd_register_mr(info, iter, writing, need_invalidate) \
	smbd_register_mr_at(&(info), iter, writing, need_invalidate)
int smbd_deregister_mr(struct smbd_mr *mr);
unsigned int smbd_mr_put_descs(const struct smbd_mr *mr, void *buf);

void smbd_debug_show(struct seq_file *m, struct smbd_connection *info);

#else
#define cifs_rdma_enabled(server)	((void)(server), 0)
struct smbd_connection {};
static inline void *smbd_get_connection(struct TCP_Server_Info *server,
					struct sockaddr *dstaddr)
{
	return NULL;
}

static inline int smbd_reconnect(struct TCP_Server_Info *server)
{
	return -1;
}

static inline void smbd_destroy(struct TCP_Server_Info *server)
{
}

static inline int smbd_recv(struct smbd_connection *info, struct msghdr *msg)
{
	return -1;
}

static inline int smbd_send(struct TCP_Server_Info *server, int num_rqst,
			    struct smb_rqst *rqst)
{
	return -1;
}
#endif

#endif /* _SMBDIRECT_H */
