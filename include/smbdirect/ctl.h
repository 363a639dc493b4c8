/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * smbdirect's generic netlink family "smbdirect" (smbdirect/ctl.c): the
 * kernel interface of "smbdctl check". Shared by the module and user space;
 * its YNL description is Documentation/netlink/specs/smbdirect.yaml.
 *
 * One command, SMBDX_CTL_CMD_CHECK (CAP_NET_ADMIN): connect to
 * SMBDX_CTL_A_ADDR, negotiate, disconnect, and answer with the result, the
 * step reached, the cause of a failure and the negotiated parameters. The
 * request is acknowledged at once; the answer, a SMBDX_CTL_CMD_CHECK
 * message with the request's sequence number, follows when the check has
 * ended (it may come before the acknowledgment).
 */
#ifndef _SMBDIRECT_CTL_H
#define _SMBDIRECT_CTL_H

#define SMBDX_CTL_FAMILY_NAME		"smbdirect"
#define SMBDX_CTL_FAMILY_VERSION	1

/* Longest and default SMBDX_CTL_A_TIMEOUT_MS of a check. */
#define SMBDX_CTL_TIMEOUT_MAX_MS	30000
#define SMBDX_CTL_TIMEOUT_DEF_MS	10000

enum {
	SMBDX_CTL_A_UNSPEC,
	SMBDX_CTL_A_ADDR,		/* string: peer IPv4 or IPv6 address */
	SMBDX_CTL_A_PORT,		/* u16: peer port; 0: the device's */
	SMBDX_CTL_A_SRC,		/* string: local address to bind */
	SMBDX_CTL_A_TIMEOUT_MS,		/* u32: Negotiation Timer */
	SMBDX_CTL_A_RESULT,		/* s32: 0 or a negative errno */
	SMBDX_CTL_A_STEP,		/* string: state reached (smbdx_state_str) */
	SMBDX_CTL_A_CAUSE,		/* string: cause name (debugfs "errors") */
	SMBDX_CTL_A_CAUSE_TEXT,		/* string: what the cause means */
	SMBDX_CTL_A_DEVICE,		/* string: RDMA device */
	SMBDX_CTL_A_IWARP,		/* u8: the device is iWARP */
	SMBDX_CTL_A_LOCAL,		/* string: local address:port */
	SMBDX_CTL_A_PEER,		/* string: peer address:port */
	SMBDX_CTL_A_CONN_ID,		/* u32: the connection's number */
	SMBDX_CTL_A_ELAPSED_US,		/* u32: time the check took */
	SMBDX_CTL_A_PROTOCOL,		/* u32: Connection.Protocol (3.1.4.7) */
	SMBDX_CTL_A_MAX_SEND_SIZE,	/* u32 */
	SMBDX_CTL_A_MAX_RECEIVE_SIZE,	/* u32 */
	SMBDX_CTL_A_MAX_FRAGMENTED_SEND_SIZE,	/* u32 */
	SMBDX_CTL_A_MAX_FRAGMENTED_RECV_SIZE,	/* u32 */
	SMBDX_CTL_A_MAX_READ_WRITE_SIZE,	/* u32 */
	SMBDX_CTL_A_KEEPALIVE_INTERVAL,	/* u32: seconds */
	SMBDX_CTL_A_RECV_CREDIT_MAX,	/* u32 */
	SMBDX_CTL_A_SEND_CREDIT_TARGET,	/* u32 */
	SMBDX_CTL_A_SEND_CREDITS,	/* u32: credits the peer granted */
	SMBDX_CTL_A_IRD,		/* u32 */
	SMBDX_CTL_A_ORD,		/* u32 */

	__SMBDX_CTL_A_MAX,
	SMBDX_CTL_A_MAX = __SMBDX_CTL_A_MAX - 1
};

enum {
	SMBDX_CTL_CMD_UNSPEC,
	SMBDX_CTL_CMD_CHECK,

	__SMBDX_CTL_CMD_MAX,
	SMBDX_CTL_CMD_MAX = __SMBDX_CTL_CMD_MAX - 1
};

#endif /* _SMBDIRECT_CTL_H */
