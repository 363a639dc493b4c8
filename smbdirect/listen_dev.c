// SPDX-License-Identifier: GPL-2.0
/*
 * Listening on every RDMA device at the device's own port: what
 * smbdx_listen() does for a wildcard IPv4 address with port 0 (MS-SMBD 1.9:
 * 445 on InfiniBand/RoCE, 5445 on iWARP), for devices present and added
 * later.
 *
 * Why not one wildcard RDMA CM listener per port: a wildcard listener
 * listens on every device, and on an iWARP device a listen is a TCP listen
 * in the host's stack. Port 445 there collides with the SMB server's own
 * TCP listener on that interface (ksmbd binds one per interface): the
 * listen fails with -EADDRINUSE, and for an iWARP device added while such
 * a listener exists the RDMA CM fails to attach the device at all
 * (cma_add_one()), which leaves it unusable for every RDMA CM user. Linux
 * 6.12 cannot restrict a wildcard listener to one kind of device, so a
 * group listens on each address of each device instead.
 *
 * Normal operation: a group is a listener handle (lis->group) without a
 * cm_id of its own, with one child, an ordinary listener, per (IPv4
 * address of the net device of a usable device's port, that device's
 * default port). smbdx_lgroup_sync() works out which children the devices
 * and their addresses call for and makes the children match: children no
 * longer called for, or whose device went away, are destroyed, missing
 * ones are created. It runs once in smbdx_listen(), then from the group's
 * work item whenever a device is added or removed (device.c) or an IPv4
 * address is added or removed (inetaddr notifier), and once a second while
 * a listen keeps failing (binding right after `rdma link add` can fail
 * with -EADDRNOTAVAIL). A child calls the group's accept callback with
 * itself as the listener; its context is the group's.
 *
 * Locking: smbdx_lgroups_spin protects the list of groups; the inetaddr
 * notifier (RTNL held) and the device callbacks only queue the groups'
 * work under it. smbdx_lgroups_reg_lock serialises the notifier's
 * registration, which happens outside both. A group's mutex serialises its
 * syncs and its end and protects its children. A sync collects the
 * devices' net devices under smbdx_devices_lock, then their addresses
 * under the RTNL, then applies the result under the group's mutex: none
 * of these is held while another is taken.
 *
 * Transport recovery: a child whose device is removed loses its cm_id
 * (smbdx_listeners_device_removed()) and reports -ENODEV; the sync that
 * the removal triggers destroys it. Connections already accepted are the
 * upper layer's and are not affected by anything here.
 */

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/in.h>
#include <linux/inetdevice.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/net_namespace.h>

#include "smbd.h"

/* Delay before a sync that follows a failed listen. */
#define SMBDX_LGROUP_RETRY	HZ

/**
 * struct smbdx_lchild - one listener of a group
 * @node: entry in the group's children
 * @addr: address and port it listens on
 * @ibdev: the device the address belonged to when it was created (compared,
 *	never dereferenced)
 * @lis: the listener
 */
struct smbdx_lchild {
	struct list_head node;
	struct sockaddr_in addr;
	struct ib_device *ibdev;
	struct smbdx_listener *lis;
};

/**
 * struct smbdx_lgroup - the per-device listeners of a wildcard listener
 * @node: entry in smbdx_lgroups
 * @lis: the handle smbdx_listen() returned; holds the configuration,
 *	callbacks and context the children are created with
 * @net: network namespace (referenced)
 * @mutex: serialises syncs and the end; protects @children and @dying
 * @children: struct smbdx_lchild entries
 * @sync_work: runs smbdx_lgroup_sync()
 * @dying: smbdx_lgroup_stop() began; no more syncs
 */
struct smbdx_lgroup {
	struct list_head node;
	struct smbdx_listener *lis;
	struct net *net;
	struct mutex mutex;		/* syncs and the end; children, dying */
	struct list_head children;
	struct delayed_work sync_work;
	bool dying;
};

/* What a sync wants: one listener per entry. */
struct smbdx_lwant {
	struct sockaddr_in addr;
	struct ib_device *ibdev;
	bool have;
};

/* The groups; the notifier and the device callbacks walk it. */
static DEFINE_SPINLOCK(smbdx_lgroups_spin);
static LIST_HEAD(smbdx_lgroups);
/* Serialises the inetaddr notifier's registration (one per group alive). */
static DEFINE_MUTEX(smbdx_lgroups_reg_lock);
static unsigned int smbdx_lgroups_reg_users;

/**
 * smbdx_lgroups_kick() - have every group check its children soon
 *
 * Context: any but hard interrupt; called from the device callbacks and
 * the inetaddr notifier.
 */
void smbdx_lgroups_kick(void)
{
	struct smbdx_lgroup *g;

	spin_lock_bh(&smbdx_lgroups_spin);
	list_for_each_entry(g, &smbdx_lgroups, node)
		mod_delayed_work(smbdx_wq, &g->sync_work, 0);
	spin_unlock_bh(&smbdx_lgroups_spin);
}

static int smbdx_lgroups_inetaddr_event(struct notifier_block *nb,
					unsigned long event, void *ptr)
{
	if (event == NETDEV_UP || event == NETDEV_DOWN)
		smbdx_lgroups_kick();
	return NOTIFY_DONE;
}

static struct notifier_block smbdx_lgroups_nb = {
	.notifier_call = smbdx_lgroups_inetaddr_event,
};

/* Add @addr:@port on @ibdev to @w unless already there; grow as needed. */
static int smbdx_lwant_add(struct smbdx_lwant **w, int *n, int *cap,
			   __be32 addr, u16 port, struct ib_device *ibdev)
{
	struct smbdx_lwant *nw;
	int i;

	for (i = 0; i < *n; i++)
		if ((*w)[i].addr.sin_addr.s_addr == addr &&
		    (*w)[i].addr.sin_port == htons(port))
			return 0;
	if (*n == *cap) {
		nw = krealloc_array(*w, *cap ? 2 * *cap : 8, sizeof(**w),
				    GFP_KERNEL);
		if (!nw)
			return -ENOMEM;
		*w = nw;
		*cap = *cap ? 2 * *cap : 8;
	}
	memset(&(*w)[*n], 0, sizeof(**w));
	(*w)[*n].addr.sin_family = AF_INET;
	(*w)[*n].addr.sin_addr.s_addr = addr;
	(*w)[*n].addr.sin_port = htons(port);
	(*w)[*n].ibdev = ibdev;
	(*n)++;
	return 0;
}

/* The listeners the devices and their addresses call for. */
static int smbdx_lgroup_wanted(struct smbdx_lgroup *g, struct smbdx_lwant **out)
{
	struct smbdx_dev_netdev *nd;
	struct smbdx_lwant *w = NULL;
	const struct in_ifaddr *ifa;
	struct in_device *in_dev;
	int nnd, i, n = 0, cap = 0, rc = 0;

	nnd = smbdx_devices_netdevs(g->net, &nd);
	if (nnd < 0)
		return nnd;
	rtnl_lock();
	for (i = 0; i < nnd && !rc; i++) {
		in_dev = __in_dev_get_rtnl(nd[i].ndev);
		if (!in_dev)
			continue;
		in_dev_for_each_ifa_rtnl(ifa, in_dev) {
			rc = smbdx_lwant_add(&w, &n, &cap, ifa->ifa_local,
					     nd[i].port, nd[i].ibdev);
			if (rc)
				break;
		}
	}
	rtnl_unlock();
	for (i = 0; i < nnd; i++)
		dev_put(nd[i].ndev);
	kfree(nd);
	if (rc) {
		kfree(w);
		return rc;
	}
	*out = w;
	return n;
}

static bool smbdx_lchild_lost(struct smbdx_lchild *c)
{
	bool lost;

	spin_lock_bh(&c->lis->lock);
	lost = c->lis->error != 0;
	spin_unlock_bh(&c->lis->lock);
	return lost;
}

/* Make the children match what the devices call for. */
static void smbdx_lgroup_sync(struct smbdx_lgroup *g)
{
	struct smbdx_lchild *c, *tmp;
	struct smbdx_listener *lis;
	struct smbdx_lwant *w = NULL;
	bool retry = false;
	int n, i;

	n = smbdx_lgroup_wanted(g, &w);
	mutex_lock(&g->mutex);
	if (g->dying)
		goto out;
	if (n < 0) {
		retry = true;
		goto out;
	}
	list_for_each_entry_safe(c, tmp, &g->children, node) {
		for (i = 0; i < n; i++)
			if (w[i].addr.sin_addr.s_addr == c->addr.sin_addr.s_addr &&
			    w[i].addr.sin_port == c->addr.sin_port &&
			    w[i].ibdev == c->ibdev)
				break;
		if (i < n && !smbdx_lchild_lost(c)) {
			w[i].have = true;
			continue;
		}
		list_del(&c->node);
		smbdx_listener_destroy(c->lis);
		kfree(c);
	}
	for (i = 0; i < n; i++) {
		if (w[i].have)
			continue;
		c = kzalloc(sizeof(*c), GFP_KERNEL);
		if (!c) {
			retry = true;
			continue;
		}
		lis = smbdx_listen(g->net, (struct sockaddr *)&w[i].addr,
				   &g->lis->cfg, g->lis->ops, g->lis->ctx);
		if (IS_ERR(lis)) {
			pr_info_ratelimited("smbdirect: cannot listen on %pISpc yet: %ld\n",
					    &w[i].addr, PTR_ERR(lis));
			kfree(c);
			retry = true;
			continue;
		}
		c->addr = w[i].addr;
		c->ibdev = w[i].ibdev;
		c->lis = lis;
		list_add_tail(&c->node, &g->children);
	}
out:
	if (retry && !g->dying)
		mod_delayed_work(smbdx_wq, &g->sync_work, SMBDX_LGROUP_RETRY);
	mutex_unlock(&g->mutex);
	kfree(w);
}

static void smbdx_lgroup_sync_work(struct work_struct *work)
{
	smbdx_lgroup_sync(container_of(to_delayed_work(work),
				       struct smbdx_lgroup, sync_work));
}

/**
 * smbdx_lgroup_start() - make a listener listen on every device
 * @net: network namespace
 * @lis: a listener set up by smbdx_listen() for a wildcard address with
 *	port 0, without a cm_id; becomes the group's handle
 *
 * Creates the children for the devices and addresses present, then follows
 * them. A listen that fails is retried; the group is started anyway.
 *
 * Context: process, may sleep.
 *
 * Return: 0, -EAFNOSUPPORT for an IPv6 address, or -ENOMEM.
 */
int smbdx_lgroup_start(struct net *net, struct smbdx_listener *lis)
{
	struct smbdx_lgroup *g;
	int rc = 0;

	if (lis->addr.ss_family != AF_INET)
		return -EAFNOSUPPORT;
	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!g)
		return -ENOMEM;
	g->lis = lis;
	g->net = get_net(net);
	mutex_init(&g->mutex);
	INIT_LIST_HEAD(&g->children);
	INIT_DELAYED_WORK(&g->sync_work, smbdx_lgroup_sync_work);

	mutex_lock(&smbdx_lgroups_reg_lock);
	if (!smbdx_lgroups_reg_users)
		rc = register_inetaddr_notifier(&smbdx_lgroups_nb);
	if (!rc)
		smbdx_lgroups_reg_users++;
	mutex_unlock(&smbdx_lgroups_reg_lock);
	if (rc) {
		put_net(g->net);
		kfree(g);
		return rc;
	}
	lis->group = g;
	spin_lock_bh(&smbdx_lgroups_spin);
	list_add_tail(&g->node, &smbdx_lgroups);
	spin_unlock_bh(&smbdx_lgroups_spin);
	smbdx_lgroup_sync(g);
	return 0;
}

/**
 * smbdx_lgroup_owned_by() - a group whose callbacks are in a module
 * @mod: the module
 *
 * Return: the handle of a group not yet stopped whose listener_ops are in
 * @mod's memory, or NULL. The caller destroys it (smbdx_module_going()).
 *
 * Context: process; takes smbdx_lgroups_spin.
 */
struct smbdx_listener *smbdx_lgroup_owned_by(struct module *mod)
{
	struct smbdx_listener *lis = NULL;
	struct smbdx_lgroup *g;

	spin_lock_bh(&smbdx_lgroups_spin);
	list_for_each_entry(g, &smbdx_lgroups, node) {
		if (within_module((unsigned long)g->lis->ops, mod)) {
			lis = g->lis;
			break;
		}
	}
	spin_unlock_bh(&smbdx_lgroups_spin);
	return lis;
}

/**
 * smbdx_lgroup_stop() - stop a group's listeners and forget the group
 * @lis: the group's handle; smbdx_listener_destroy() frees it afterwards
 *
 * Context: process, may sleep.
 */
void smbdx_lgroup_stop(struct smbdx_listener *lis)
{
	struct smbdx_lgroup *g = lis->group;
	struct smbdx_lchild *c, *tmp;

	spin_lock_bh(&smbdx_lgroups_spin);
	list_del(&g->node);
	spin_unlock_bh(&smbdx_lgroups_spin);
	mutex_lock(&g->mutex);
	g->dying = true;
	mutex_unlock(&g->mutex);
	cancel_delayed_work_sync(&g->sync_work);

	list_for_each_entry_safe(c, tmp, &g->children, node) {
		list_del(&c->node);
		smbdx_listener_destroy(c->lis);
		kfree(c);
	}
	mutex_lock(&smbdx_lgroups_reg_lock);
	if (!--smbdx_lgroups_reg_users)
		unregister_inetaddr_notifier(&smbdx_lgroups_nb);
	mutex_unlock(&smbdx_lgroups_reg_lock);
	put_net(g->net);
	kfree(g);
	lis->group = NULL;
}
