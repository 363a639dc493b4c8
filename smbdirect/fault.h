/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smbdirect's fault points: named places where the kernel's
 * fault-injection framework (Documentation/fault-injection/) can make an
 * allocation, a post or a completion fail, drop a CM event, or corrupt
 * a transformed payload, so that the transport's recovery (and the
 * receiver's checks) can be tested (kunit/smbdirect_fault_live_kunit.c)
 * and exercised by an administrator at run time through
 * /sys/kernel/debug/smbdirect/fault/<name>/ (probability, interval, times,
 * ...; admin-guide.rst).
 *
 * Without CONFIG_FAULT_INJECTION smbdx_fault() is a constant false and the
 * points cost nothing.
 *
 * Concurrency: smbdx_fault() may be called from any context; the
 * framework's counters are atomic.
 */
#ifndef _SMBDX_FAULT_H
#define _SMBDX_FAULT_H

#include <linux/types.h>

struct dentry;

/**
 * enum smbdx_fault - a fault point
 * @SMBDX_FAULT_SEND_ALLOC: allocating a send buffer (smbdx_send*(), the
 *	send loop's credit and keepalive messages)
 * @SMBDX_FAULT_POST_SEND: posting a Send
 * @SMBDX_FAULT_POST_RECV: posting a Receive
 * @SMBDX_FAULT_MSG_ALLOC: allocating a received message's pages in the
 *	receive completion
 * @SMBDX_FAULT_REG_ALLOC: the allocations of smbdx_register()
 * @SMBDX_FAULT_MR_POST: posting REG_MR or LOCAL_INV work requests
 * @SMBDX_FAULT_MR_WC: a REG_MR or LOCAL_INV completes with an error
 * @SMBDX_FAULT_RW_ALLOC: allocating an RDMA read/write chunk
 * @SMBDX_FAULT_RW_POST: posting RDMA read/write work requests
 * @SMBDX_FAULT_CM_EVENT: a CM event of a connection is dropped
 * @SMBDX_FAULT_XFORM_TAMPER: not a failure but a corruption: one octet
 *	of an RDMA transform's payload is flipped after it was sealed or
 *	signed, before the peer can read it (smbdx_register_xform() in its
 *	bounce pages, smbdx_rdma_write_xform() in the peer's buffer), so that
 *	the receiver's check must refuse it
 * @SMBDX_FAULT_COUNT: number of fault points
 */
enum smbdx_fault {
	SMBDX_FAULT_SEND_ALLOC,
	SMBDX_FAULT_POST_SEND,
	SMBDX_FAULT_POST_RECV,
	SMBDX_FAULT_MSG_ALLOC,
	SMBDX_FAULT_REG_ALLOC,
	SMBDX_FAULT_MR_POST,
	SMBDX_FAULT_MR_WC,
	SMBDX_FAULT_RW_ALLOC,
	SMBDX_FAULT_RW_POST,
	SMBDX_FAULT_CM_EVENT,
	SMBDX_FAULT_XFORM_TAMPER,
	SMBDX_FAULT_COUNT
};

#ifdef CONFIG_FAULT_INJECTION
bool smbdx_fault(enum smbdx_fault f);
void smbdx_fault_init(struct dentry *root);
const char *smbdx_fault_name(enum smbdx_fault f);
void smbdx_fault_arm(enum smbdx_fault f, int times);
int smbdx_fault_left(enum smbdx_fault f);
#else
static inline bool smbdx_fault(enum smbdx_fault f)
{
	return false;
}

static inline void smbdx_fault_init(struct dentry *root)
{
}
#endif

#endif /* _SMBDX_FAULT_H */
