// SPDX-License-Identifier: GPL-2.0
/*
 * smbdirect.ko: SMB Direct (MS-SMBD) transport over RDMA for cifs and ksmbd.
 *
 * Module init and exit. Init creates the debugfs root and registers the
 * ib_client; exit undoes both in reverse order. debugfs files are removed
 * before the client is unregistered: debugfs_remove_recursive() waits for
 * readers in progress, so no reader can walk the device list while the RDMA
 * core tears it down.
 */

#include <linux/module.h>
#include <linux/debugfs.h>

#include "smbd.h"

struct dentry *smbd_debugfs_root;

DEFINE_SHOW_ATTRIBUTE(smbd_devices);

static int __init smbd_init(void)
{
	int rc;

	smbd_debugfs_root = debugfs_create_dir("smbdirect", NULL);

	rc = smbd_device_init();
	if (rc) {
		debugfs_remove_recursive(smbd_debugfs_root);
		return rc;
	}

	debugfs_create_file("devices", 0444, smbd_debugfs_root, NULL,
			    &smbd_devices_fops);
	return 0;
}

static void __exit smbd_exit(void)
{
	debugfs_remove_recursive(smbd_debugfs_root);
	smbd_device_exit();
}

module_init(smbd_init);
module_exit(smbd_exit);

MODULE_DESCRIPTION("SMB Direct (MS-SMBD) transport over RDMA");
MODULE_LICENSE("GPL");
