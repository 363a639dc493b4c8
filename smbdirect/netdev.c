// SPDX-License-Identifier: GPL-2.0
/*
 * Which network interfaces reach an RDMA port: the answer behind
 * smbdx_netdev_rdma_capable() (device.c; ksmbd asks it before advertising
 * RDMA on an interface), the "portN_netdevs" of debugfs "devices" and the
 * debugfs "netdevs" file.
 *
 * An interface reaches port P of device D when
 *  - it is P's net device (RoCE, iWARP: ib_device_get_netdev()), or sits on
 *    it through VLANs, bonds and teams, at any depth (a VLAN on a bond of
 *    two RoCE ports, say): the RDMA core gives the addresses of such upper
 *    interfaces GIDs on the port, and RDMA CM resolves them to it. The walk
 *    goes down: a VLAN to its real device (vlan_dev_real_dev()), a bond or
 *    team master to each of its ports. Other stacked devices (macvlan,
 *    bridges, tunnels) end the walk: RDMA traffic does not pass them.
 *  - or, on InfiniBand, it is an IPoIB interface (or one on IPoIB
 *    interfaces: a bond of ib0 and ib1) whose hardware address carries a
 *    GID of port P (bytes 4-19 of the 20-byte address); IPoIB interfaces
 *    are not a port's net device.
 *
 * Locking: the walk down from an interface runs under RCU (the adjacency
 * lists are RCU lists) and takes a reference on every interface it
 * returns; a port's net device comes with a reference too. GID tables are
 * read under their own rwlock (ib_find_gid()). Nothing here sleeps or takes
 * the RTNL, so all of it may run with the RTNL held (ksmbd holds it) and
 * with smbdx_devices_lock held.
 */

#include <linux/debugfs.h>
#include <linux/if_arp.h>
#include <linux/if_infiniband.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_verbs.h>

#include "smbd.h"

static void smbdx_lowers_add(struct net_device *ndev, struct smbdx_lowers *l,
			     int depth)
{
	struct list_head *iter;
	struct net_device *lower;

	if (l->n == ARRAY_SIZE(l->dev))
		return;
	dev_hold(ndev);
	l->dev[l->n++] = ndev;
	if (depth >= MAX_NEST_DEV)
		return;
	if (is_vlan_dev(ndev)) {
		smbdx_lowers_add(rdma_vlan_dev_real_dev(ndev), l, depth + 1);
	} else if (netif_is_lag_master(ndev)) {
		iter = &ndev->adj_list.lower;
		while ((lower = netdev_next_lower_dev_rcu(ndev, &iter)))
			smbdx_lowers_add(lower, l, depth + 1);
	}
}

/**
 * smbdx_lowers_get() - an interface and what it sits on for RDMA
 * @ndev: the interface
 * @l: gets @ndev first, then every device below it through VLANs, bonds
 *	and teams (at most ARRAY_SIZE(@l->dev)), each with a reference
 *
 * Context: any; release with smbdx_lowers_put().
 */
void smbdx_lowers_get(struct net_device *ndev, struct smbdx_lowers *l)
{
	l->n = 0;
	rcu_read_lock();
	smbdx_lowers_add(ndev, l, 0);
	rcu_read_unlock();
}

/**
 * smbdx_lowers_put() - drop the references of smbdx_lowers_get()
 * @l: the interfaces
 */
void smbdx_lowers_put(struct smbdx_lowers *l)
{
	while (l->n)
		dev_put(l->dev[--l->n]);
}

/**
 * smbdx_lowers_on_port() - do these interfaces reach a port
 * @l: from smbdx_lowers_get()
 * @ibdev: the RDMA device
 * @port: its port
 * @pdev: the port's net device (ib_device_get_netdev()), or NULL
 *
 * Context: any.
 *
 * Return: the interface of @l that is @pdev or an IPoIB interface with a
 * GID of @port, or NULL.
 */
struct net_device *smbdx_lowers_on_port(const struct smbdx_lowers *l,
					struct ib_device *ibdev, u32 port,
					struct net_device *pdev)
{
	union ib_gid gid;
	unsigned int i;
	u32 gport;

	for (i = 0; i < l->n; i++) {
		struct net_device *d = l->dev[i];

		if (pdev && d == pdev)
			return d;
		if (d->type != ARPHRD_INFINIBAND || !rdma_protocol_ib(ibdev, port) ||
		    d->addr_len != INFINIBAND_ALEN)
			continue;
		memcpy(&gid, d->dev_addr + 4, sizeof(gid));
		if (!ib_find_gid(ibdev, &gid, &gport, NULL) && gport == port)
			return d;
	}
	return NULL;
}

/*
 * The interfaces of the initial network namespace, each with a reference
 * (RDMA devices and ksmbd live there). Return: their number; *@out is
 * kfree()d by the caller after dev_put() on each.
 */
static unsigned int smbdx_netdevs_get(struct net_device ***out)
{
	struct net_device *ndev, **v;
	unsigned int n = 0, max = 0;

	rcu_read_lock();
	for_each_netdev_rcu(&init_net, ndev)
		max++;
	rcu_read_unlock();
	v = kcalloc(max + 16, sizeof(*v), GFP_KERNEL);
	if (!v) {
		*out = NULL;
		return 0;
	}
	rcu_read_lock();
	for_each_netdev_rcu(&init_net, ndev) {
		if (n == max + 16)
			break;
		dev_hold(ndev);
		v[n++] = ndev;
	}
	rcu_read_unlock();
	*out = v;
	return n;
}

/**
 * smbdx_port_netdevs_show() - print " portN_netdevs=a,b" for debugfs "devices"
 * @m: the seq_file
 * @ibdev: the RDMA device
 * @port: its port
 * @pdev: the port's net device, or NULL
 *
 * Lists every interface of the initial namespace that reaches the port,
 * the port's own net device included; prints nothing when there is none.
 *
 * Context: process, may sleep.
 */
void smbdx_port_netdevs_show(struct seq_file *m, struct ib_device *ibdev,
			     u32 port, struct net_device *pdev)
{
	struct smbdx_lowers *l;
	struct net_device **v;
	unsigned int n, i;
	bool first = true;

	l = kmalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return;
	n = smbdx_netdevs_get(&v);
	for (i = 0; i < n; i++) {
		smbdx_lowers_get(v[i], l);
		if (smbdx_lowers_on_port(l, ibdev, port, pdev)) {
			if (first)
				seq_printf(m, " port%u_netdevs=%s", port, netdev_name(v[i]));
			else
				seq_printf(m, ",%s", netdev_name(v[i]));
			first = false;
		}
		smbdx_lowers_put(l);
	}
	for (i = 0; i < n; i++)
		dev_put(v[i]);
	kfree(v);
	kfree(l);
}

/* debugfs "netdevs": every interface, and the RDMA port it reaches. */
static int smbdx_netdevs_show(struct seq_file *m, void *unused)
{
	struct smbdx_netdev_hit hit;
	struct net_device **v;
	unsigned int n, i;

	n = smbdx_netdevs_get(&v);
	for (i = 0; i < n; i++) {
		seq_printf(m, "%s", netdev_name(v[i]));
		if (smbdx_netdev_find(v[i], &hit))
			seq_printf(m, " rdma_capable=%d device=%s port=%u through=%s verdict=%s\n",
				   hit.usable, hit.device, hit.port, hit.through,
				   hit.verdict);
		else
			seq_puts(m, " rdma_capable=0\n");
	}
	for (i = 0; i < n; i++)
		dev_put(v[i]);
	kfree(v);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(smbdx_netdevs);

/**
 * smbdx_netdev_debugfs_init() - create debugfs "netdevs"
 * @root: smbdirect's debugfs directory
 */
void smbdx_netdev_debugfs_init(struct dentry *root)
{
	debugfs_create_file("netdevs", 0444, root, NULL, &smbdx_netdevs_fops);
}
