/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smbdirect internal declarations shared between the files of smbdirect.ko.
 */
#ifndef _SMBD_H
#define _SMBD_H

#include <linux/list.h>
#include <linux/seq_file.h>

#include "devlimits.h"

struct ib_device;
struct dentry;

/**
 * struct smbd_device - an RDMA device smbdirect is attached to
 * @list: entry in the device list (protected by the device list mutex)
 * @ibdev: the device; valid until the ib_client remove callback returns
 * @limits: what smbdirect may use of it, computed when it was added
 */
struct smbd_device {
	struct list_head list;
	struct ib_device *ibdev;
	struct smbd_dev_limits limits;
};

extern struct dentry *smbd_debugfs_root;

int smbd_device_init(void);
void smbd_device_exit(void);
int smbd_devices_show(struct seq_file *m, void *unused);

#endif /* _SMBD_H */
