/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * sqos_ioctl.h - CIFS_IOC_SQOS_CONTROL, the ioctl of our cifs build
 * (shim/6.12/client/cifs_sqos.c) that sends FSCTL_STORAGE_QOS_CONTROL
 * ([MS-SQOS]) on the SMB2 handle of an open file and records the outcome on
 * that handle, so that its I/O is counted for, and throttled to, its logical
 * flow. Shared by cifs and user space (tools/sqos-ctl).
 *
 * The request goes to the server as given (any bytes, any length up to
 * CIFS_SQOS_MAX_IN); the ioctl succeeds whenever the server answered, and
 * the answer's NTSTATUS is in @ntstatus. When it is STATUS_SUCCESS and the
 * request was a well-formed one that associates the handle with a logical
 * flow (SET_LOGICAL_FLOW_ID with a LogicalFlowID, or PROBE_POLICY on a
 * handle not yet associated), the handle joins that flow on the client; a
 * SET_LOGICAL_FLOW_ID with the NULL GUID takes it out. A response
 * (GET_STATUS) sets the flow's MaximumIoRate, BaseIoSize and status timer
 * (MS-SQOS 3.1.5.1). This needs sqos.ko, which cifs loads on demand;
 * without it the request is still sent but nothing is recorded.
 *
 * Only the open of a regular file can be tagged: MS-SQOS associates the
 * opens of files with flows, and cifs frees a directory's handle without
 * the final close that takes a handle out of its flow.
 *
 * Errors (errno) are local: EISDIR (a directory; nothing is sent), EBADF
 * (not an open regular file of a cifs mount), EOPNOTSUPP (SMB1 mount),
 * EINVAL (lengths, reserved fields), EFAULT, ENOMEM, or the transport's
 * error when no answer came.
 */
#ifndef _SMBDIRECT_SQOS_IOCTL_H
#define _SMBDIRECT_SQOS_IOCTL_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* Longest request and largest MaxOutputResponse the ioctl passes on */
#define CIFS_SQOS_MAX_IN	4096
#define CIFS_SQOS_MAX_OUT	4096

/* flags: the handle after the request */
#define CIFS_SQOS_TRACKED	0x00000001	/* in a client flow */
#define CIFS_SQOS_THROTTLED	0x00000002	/* its I/O is throttled */
#define CIFS_SQOS_BOUND		0x00000004	/* sqos.ko was available */

#define CIFS_SQOS_TIMER_NEVER	0xffffffffU

/**
 * struct cifs_sqos_control - argument of CIFS_IOC_SQOS_CONTROL
 * @in_ptr: in: address of the STORAGE_QOS_CONTROL_REQUEST to send
 * @out_ptr: in: address of @max_out bytes for the output
 * @in_len: in: length of the request (the spec's RequestSize)
 * @max_out: in: MaxOutputResponse of the SMB2 IOCTL (MaxResponseSize)
 * @out_len: out: bytes of output the server returned, copied to @out_ptr
 * @ntstatus: out: NTSTATUS of the server's answer
 * @flags: out: CIFS_SQOS_* state of the handle afterwards
 * @timer_ms: out: milliseconds until the flow's StatusRequestTimer
 *	expires, 0 if it has, CIFS_SQOS_TIMER_NEVER if it is not running
 * @max_rate: out: the flow's MaximumIoRate (0: not throttled)
 * @base_io_size: out: the flow's BaseIoSize
 * @reserved: in: zero
 * @flow_id: out: the LogicalFlowID of the handle's flow (zeros if none)
 */
struct cifs_sqos_control {
	__u64 in_ptr;
	__u64 out_ptr;
	__u32 in_len;
	__u32 max_out;
	__u32 out_len;
	__u32 ntstatus;
	__u32 flags;
	__u32 timer_ms;
	__u64 max_rate;
	__u32 base_io_size;
	__u32 reserved;
	__u8 flow_id[16];
};

#define CIFS_IOC_SQOS_CONTROL	_IOWR(0xCF, 0x51, struct cifs_sqos_control)

#endif /* _SMBDIRECT_SQOS_IOCTL_H */
