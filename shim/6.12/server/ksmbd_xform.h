/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksmbd's side of the MS-SMB2 RDMA transform (Documentation/rdma-transform.rst,
 * step E): what the hunks of shim/6.12/ksmbd-xform.patch call. The
 * transform's codec and cryptography are smbdirect.ko's (smbdx_xf_*());
 * this glue owns the SMB semantics: the module parameter, the keys, the
 * statuses, when a READ is transformed.
 *
 * Concurrency: see ksmbd_xform.c.
 */
#ifndef __KSMBD_XFORM_H__
#define __KSMBD_XFORM_H__

#include <linux/types.h>

struct ksmbd_conn;
struct ksmbd_work;
struct smb2_neg_context;
struct smb2_negotiate_rsp;
struct smb2_read_req;
struct smb2_write_req;

int ksmbd_xform_decode_neg(struct ksmbd_conn *conn,
			   const struct smb2_neg_context *pctx, int ctxt_len);
int ksmbd_xform_assemble_neg(struct ksmbd_conn *conn,
			     struct smb2_negotiate_rsp *rsp, int ctxt_size,
			     int *count);
bool ksmbd_xform_write_channel(__le32 channel);
int ksmbd_xform_write_check(struct ksmbd_work *work,
			    struct smb2_write_req *req);
int ksmbd_xform_rdma_read(struct ksmbd_work *work, struct smb2_write_req *req,
			  void *buf, unsigned int len);
__le32 ksmbd_xform_write_status(struct smb2_write_req *req, int err);
int ksmbd_xform_read(struct ksmbd_work *work, struct smb2_read_req *req,
		     void **buf, ssize_t *nbytes, ssize_t *remain);

#endif /* __KSMBD_XFORM_H__ */
