// SPDX-License-Identifier: GPL-2.0
/*
 * smbdirect.ko: SMB Direct (MS-SMBD) transport over RDMA for cifs and ksmbd.
 *
 * The module's entry and exit only: init and exit, the module notifier
 * below, the workqueue all of smbdirect's deferred work runs on and the
 * debugfs root (both live exactly as long as the module, and their
 * creation and teardown are steps of the sequences below), and the
 * tracepoints' definitions. This file is the roof of smbdirect.ko: it
 * calls the other files and no file calls it. The module parameters are in
 * config.c, the counters in stats.c, the cause names in causes.c
 * (Documentation/design.rst "Files").
 *
 * Normal operation: init creates the workqueue and the debugfs root,
 * registers the ib_client (which starts tracking devices), creates the
 * global debugfs files and registers the generic netlink family (ctl.c).
 * Module parameters (config.c) are read when a connection or listener is
 * created; changing them affects only later ones.
 *
 * Transport recovery / unload: the module cannot be unloaded while an
 * upper layer that links against it is loaded, and upper layers destroy
 * their connections and listeners before they go. What may remain are
 * release work items of connections whose last reference was just dropped,
 * so exit first unregisters the netlink family (waiting for a check in
 * progress), then drains the workqueue, then removes debugfs (waiting for
 * readers), then unregisters the ib_client and destroys the workqueue.
 *
 * An upper layer that leaves a listener or connection behind when its
 * module goes would have its callbacks called in freed memory (a
 * connection's upcall work, a listener's accept). A module notifier
 * destroys, when a module has gone (MODULE_STATE_GOING, after its exit
 * function returned), the groups, listeners and handed-over connections
 * whose callbacks are in that module's memory, and logs an error that
 * names the module: the leak is the upper layer's bug, the crash need not
 * be. Connections in pull mode have no callbacks and are not attributed.
 *
 * Concurrency: init and exit run once each, in process context; nothing of
 * the module runs before init registers it or after exit unregistered it
 * (the ordering above). The notifier runs in process context and takes the
 * listener and connection list locks only through the lookups of listen.c
 * and connection.c, one object at a time.
 */

#include <linux/module.h>
#include <linux/debugfs.h>

#include "smbd.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

struct dentry *smbdx_debugfs_root;
struct workqueue_struct *smbdx_wq;

/* Destroy what a module that has gone left behind (top of the file). */
static int smbdx_module_going(struct notifier_block *nb, unsigned long action,
			      void *data)
{
	struct module *mod = data;
	struct smbdx_listener *lis;
	struct smbdx_conn *conn;
	u32 nlis = 0, nconns = 0;

	if (action != MODULE_STATE_GOING || mod == THIS_MODULE)
		return NOTIFY_DONE;
	/* Groups first: their children carry the same callbacks. */
	while ((lis = smbdx_lgroup_owned_by(mod)) ||
	       (lis = smbdx_listener_owned_by(mod))) {
		smbdx_listener_destroy(lis);
		nlis++;
	}
	/* Then the connections, those the listeners accepted included. */
	while ((conn = smbdx_conn_owned_by(mod))) {
		smbdx_destroy(conn);
		smbdx_conn_put(conn);
		nconns++;
	}
	if (nlis || nconns)
		pr_err("smbdirect: module %s went with %u listener(s) and %u connection(s) of its own; destroyed them\n",
		       mod->name, nlis, nconns);
	return NOTIFY_DONE;
}

static struct notifier_block smbdx_module_nb = {
	.notifier_call = smbdx_module_going,
};

static int __init smbdx_init(void)
{
	int rc;

	smbdx_wq = alloc_workqueue("smbdirect", WQ_MEM_RECLAIM, 0);
	if (!smbdx_wq)
		return -ENOMEM;

	smbdx_debugfs_root = debugfs_create_dir("smbdirect", NULL);

	rc = smbdx_device_init();
	if (rc) {
		debugfs_remove_recursive(smbdx_debugfs_root);
		destroy_workqueue(smbdx_wq);
		return rc;
	}

	smbdx_debugfs_init();
	smbdx_fault_init(smbdx_debugfs_root);

	rc = smbdx_ctl_init();
	if (rc) {
		debugfs_remove_recursive(smbdx_debugfs_root);
		smbdx_device_exit();
		destroy_workqueue(smbdx_wq);
		return rc;
	}
	register_module_notifier(&smbdx_module_nb);
	return 0;
}

static void __exit smbdx_exit(void)
{
	unregister_module_notifier(&smbdx_module_nb);
	smbdx_ctl_exit();
	drain_workqueue(smbdx_wq);
	debugfs_remove_recursive(smbdx_debugfs_root);
	smbdx_device_exit();
	destroy_workqueue(smbdx_wq);
}

module_init(smbdx_init);
module_exit(smbdx_exit);

MODULE_DESCRIPTION("SMB Direct (MS-SMBD) transport over RDMA");
MODULE_LICENSE("GPL");
