/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksmbd's SMB Direct transport for Linux 6.12, on smbdirect.ko.
 *
 * This header replaces fs/smb/server/transport_rdma.h when ksmbd.ko is
 * built by scripts/build-smb-modules.sh. It declares what the rest of ksmbd
 * uses of the transport (server start and stop, the RDMA capability of a
 * network device for FSCTL_QUERY_NETWORK_INTERFACE_INFO, the largest RDMA
 * read or write, the MS-SMB2 RDMA transforms agreed on a connection);
 * shim/6.12/server/transport_rdma.c implements it on
 * smbdirect.ko's exported API.
 *
 * Concurrency: see transport_rdma.c.
 */
#ifndef __KSMBD_TRANSPORT_RDMA_H__
#define __KSMBD_TRANSPORT_RDMA_H__

#include <linux/errno.h>
#include <linux/types.h>

struct net_device;
struct ksmbd_conn;

#ifdef CONFIG_SMB_SERVER_SMBDIRECT
int ksmbd_rdma_init(void);
void ksmbd_rdma_stop_listening(void);
void ksmbd_rdma_destroy(void);
bool ksmbd_rdma_capable_netdev(struct net_device *netdev);
void init_smbd_max_io_size(unsigned int sz);
unsigned int get_smbd_max_read_write_size(void);
bool ksmbd_rdma_conn(struct ksmbd_conn *kc);
int ksmbd_rdma_xform_set(struct ksmbd_conn *kc, u8 ids);
u8 ksmbd_rdma_xform_get(struct ksmbd_conn *kc);
#else
static inline int ksmbd_rdma_init(void)
{
	return 0;
}

static inline void ksmbd_rdma_stop_listening(void)
{
}

static inline void ksmbd_rdma_destroy(void)
{
}

static inline bool ksmbd_rdma_capable_netdev(struct net_device *netdev)
{
	return false;
}

static inline void init_smbd_max_io_size(unsigned int sz)
{
}

static inline unsigned int get_smbd_max_read_write_size(void)
{
	return 0;
}

static inline bool ksmbd_rdma_conn(struct ksmbd_conn *kc)
{
	return false;
}

static inline int ksmbd_rdma_xform_set(struct ksmbd_conn *kc, u8 ids)
{
	return -ENOTCONN;
}

static inline u8 ksmbd_rdma_xform_get(struct ksmbd_conn *kc)
{
	return 0;
}
#endif

#endif /* __KSMBD_TRANSPORT_RDMA_H__ */
