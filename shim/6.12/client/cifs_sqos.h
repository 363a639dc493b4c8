/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cifs_sqos.h - MS-SQOS Storage QoS on the client (cifs_sqos.c): the
 * CIFS_IOC_SQOS_CONTROL ioctl and the throttling of handles tagged with a
 * logical flow. Included by cifsglob.h (shim/6.12/cifs-sqos.patch), so
 * only what its structures need.
 *
 * Locking: see cifs_sqos.c.
 */
#ifndef _CIFS_SQOS_H
#define _CIFS_SQOS_H

#include <linux/types.h>
#include <linux/workqueue.h>

struct file;
struct cifsFileInfo;
struct cifs_io_subrequest;
struct cifs_sqos_flow;
struct cifs_sqos_handle;
struct netfs_io_subrequest;

/**
 * struct cifs_sqos_io - Storage QoS state of one READ or WRITE subrequest
 * @flow: the client flow it was charged to (holds a reference), or NULL
 * @queued_ns: when cifs first tried to issue it
 * @issued_ns: when it was sent (after any delay)
 * @issue: the issue function to call again when a delay has passed
 * @dwork: runs @issue after the delay
 * @admitted: counted already; a second call to the issue function (after
 *	the delay, or a retry) goes straight on
 */
struct cifs_sqos_io {
	struct cifs_sqos_flow *flow;
	u64 queued_ns;
	u64 issued_ns;
	void (*issue)(struct netfs_io_subrequest *subreq);
	struct delayed_work dwork;
	bool admitted;
};

long cifs_sqos_ioctl(struct file *filep, void __user *arg);
bool cifs_sqos_defer(struct cifs_io_subrequest *sub, struct cifsFileInfo *cfile,
		     size_t bytes,
		     void (*issue)(struct netfs_io_subrequest *subreq));
void cifs_sqos_io_end(struct cifs_io_subrequest *sub);
void cifs_sqos_close(struct cifsFileInfo *cfile);
bool cifs_sqos_tagged(struct cifsFileInfo *cfile);
void cifs_sqos_reopened(struct cifsFileInfo *cfile);

#endif /* _CIFS_SQOS_H */
