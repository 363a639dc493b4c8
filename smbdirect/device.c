// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA device lifetime: smbdirect's ib_client.
 *
 * Normal operation: the RDMA core calls smbdx_ib_add() for every device that
 * exists when the client registers and for every device added later, and
 * smbdx_ib_remove() when a device goes away (rdma link delete, driver unload)
 * or when the client unregisters. Each device gets a struct smbdx_device with
 * the limits smbdirect derives from its attributes.
 *
 * Device removal: smbdx_ib_remove() first ends every connection and
 * listener on the device (smbdx_conns_device_removed(),
 * smbdx_listeners_device_removed(): drain, free, destroy the cm_ids), then
 * forgets the device. The RDMA core removes clients in the reverse order
 * of registration, so this runs before the RDMA CM's own removal, which
 * waits for every cm_id on the device to be destroyed; the CM's
 * DEVICE_REMOVAL event is handled as well, for ids created while this ran.
 *
 * Locking: smbdx_devices_lock (a mutex) protects smbdx_devices. It is taken by
 * the add/remove callbacks (process context, may sleep), by debugfs readers,
 * by smbdx_reg_len_floor() and by smbdx_netdev_rdma_capable(), which ksmbd
 * calls with the RTNL held: nothing that may take the RTNL (ib_query_port()
 * on rxe does) is called with it held. The RDMA core serialises add and remove of one device, and
 * remove does not return before the entry is off the list, so a reader
 * holding the mutex never sees a device that is being freed.
 */

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <rdma/ib_verbs.h>
#include <kunit/visibility.h>

#include "smbd.h"

static DEFINE_MUTEX(smbdx_devices_lock);
static LIST_HEAD(smbdx_devices);

static struct ib_client smbdx_ib_client;

static int smbdx_ib_add(struct ib_device *ibdev)
{
	struct smbdx_device *sdev;
	bool iwarp;

	sdev = kzalloc(sizeof(*sdev), GFP_KERNEL);
	if (!sdev)
		return -ENOMEM;

	sdev->ibdev = ibdev;
	iwarp = rdma_node_get_transport(ibdev->node_type) == RDMA_TRANSPORT_IWARP;
	smbdx_dev_limits_compute(&ibdev->attrs, iwarp, &sdev->limits);
	ib_set_client_data(ibdev, &smbdx_ib_client, sdev);

	mutex_lock(&smbdx_devices_lock);
	list_add_tail(&sdev->list, &smbdx_devices);
	mutex_unlock(&smbdx_devices_lock);

	ibdev_info(ibdev, KBUILD_MODNAME ": added (%s)\n",
		   smbdx_dev_verdict_str(sdev->limits.verdict));
	/* Wildcard listeners with port 0 listen on it too. */
	smbdx_lgroups_kick();
	return 0;
}

static void smbdx_ib_remove(struct ib_device *ibdev, void *client_data)
{
	struct smbdx_device *sdev = client_data;

	smbdx_listeners_device_removed(ibdev);
	smbdx_conns_device_removed(ibdev);

	mutex_lock(&smbdx_devices_lock);
	list_del(&sdev->list);
	mutex_unlock(&smbdx_devices_lock);

	ibdev_info(ibdev, KBUILD_MODNAME ": removed\n");
	kfree(sdev);
	smbdx_lgroups_kick();
}

static struct ib_client smbdx_ib_client = {
	.name = "smbdirect",
	.add = smbdx_ib_add,
	.remove = smbdx_ib_remove,
};

static const char *smbdx_node_type_str(unsigned int node_type)
{
	switch (node_type) {
	case RDMA_NODE_IB_CA:
		return "ca";
	case RDMA_NODE_IB_SWITCH:
		return "switch";
	case RDMA_NODE_IB_ROUTER:
		return "router";
	case RDMA_NODE_RNIC:
		return "rnic";
	case RDMA_NODE_USNIC:
		return "usnic";
	case RDMA_NODE_USNIC_UDP:
		return "usnic-udp";
	}
	return "unknown";
}

static const char *smbdx_port_state_str(enum ib_port_state state)
{
	switch (state) {
	case IB_PORT_NOP:
		return "NOP";
	case IB_PORT_DOWN:
		return "DOWN";
	case IB_PORT_INIT:
		return "INIT";
	case IB_PORT_ARMED:
		return "ARMED";
	case IB_PORT_ACTIVE:
		return "ACTIVE";
	case IB_PORT_ACTIVE_DEFER:
		return "ACTIVE_DEFER";
	}
	return "unknown";
}

static void smbdx_show_ports(struct seq_file *m, struct ib_device *ibdev)
{
	struct ib_port_attr pattr;
	struct net_device *ndev;
	u32 port;

	rdma_for_each_port(ibdev, port) {
		if (ib_query_port(ibdev, port, &pattr)) {
			seq_printf(m, " port%u=error", port);
			continue;
		}
		seq_printf(m, " port%u=%s", port, smbdx_port_state_str(pattr.state));
		ndev = ib_device_get_netdev(ibdev, port);
		if (ndev)
			seq_printf(m, " port%u_netdev=%s", port, netdev_name(ndev));
		smbdx_port_netdevs_show(m, ibdev, port, ndev);
		if (ndev)
			dev_put(ndev);
	}
}

/**
 * smbdx_devices_show() - debugfs "devices": one line per RDMA device
 * @m: seq_file to print to
 * @unused: unused
 *
 * Each line is the device name followed by key=value pairs: node type,
 * transport, state of each port (queried now) and its net device, the raw
 * device limits smbdirect depends on (SGEs, fast-registration page list
 * length, IRD/ORD), the bytes one registration surely covers (reg_len)
 * and smbdirect's verdict.
 *
 * The ports are queried without smbdx_devices_lock, holding a reference
 * on each device instead: a provider's query_port may take the RTNL (rxe
 * does), and smbdx_netdev_rdma_capable() is called with the RTNL held and
 * takes smbdx_devices_lock.
 *
 * Return: 0, or -ENOMEM.
 */
int smbdx_devices_show(struct seq_file *m, void *unused)
{
	struct smbdx_dev_snap {
		struct ib_device *ibdev;
		struct smbdx_dev_limits limits;
	} *snap;
	struct smbdx_device *sdev;
	unsigned int n = 0, i;

	mutex_lock(&smbdx_devices_lock);
	list_for_each_entry(sdev, &smbdx_devices, list)
		n++;
	snap = kcalloc(max(n, 1U), sizeof(*snap), GFP_KERNEL);
	if (!snap) {
		mutex_unlock(&smbdx_devices_lock);
		return -ENOMEM;
	}
	n = 0;
	list_for_each_entry(sdev, &smbdx_devices, list) {
		if (!ib_device_try_get(sdev->ibdev))
			continue;
		snap[n].ibdev = sdev->ibdev;
		snap[n].limits = sdev->limits;
		n++;
	}
	mutex_unlock(&smbdx_devices_lock);

	for (i = 0; i < n; i++) {
		struct ib_device *ibdev = snap[i].ibdev;
		const struct ib_device_attr *a = &ibdev->attrs;
		const struct smbdx_dev_limits *l = &snap[i].limits;

		seq_printf(m, "%s node=%s transport=%s", dev_name(&ibdev->dev),
			   smbdx_node_type_str(ibdev->node_type),
			   l->iwarp ? "iwarp" : "ib");
		smbdx_show_ports(m, ibdev);
		seq_printf(m, " max_send_sge=%d max_recv_sge=%d max_sge_rd=%d",
			   a->max_send_sge, a->max_recv_sge, a->max_sge_rd);
		seq_printf(m, " max_fast_reg_page_list_len=%u frwr_depth=%u reg_len=%u",
			   a->max_fast_reg_page_list_len, l->frwr_depth,
			   smbdx_dev_reg_len(l, PAGE_SIZE));
		seq_printf(m, " max_qp_rd_atom=%d max_qp_init_rd_atom=%d ird=%u ord=%u",
			   a->max_qp_rd_atom, a->max_qp_init_rd_atom, l->ird, l->ord);
		seq_printf(m, " max_qp_wr=%d max_cqe=%d port=%u verdict=%s\n",
			   a->max_qp_wr, a->max_cqe, l->port,
			   smbdx_dev_verdict_str(l->verdict));
		ib_device_put(ibdev);
	}
	kfree(snap);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_devices_show);

/**
 * smbdx_device_limits() - what smbdirect may use of a device
 * @ibdev: the device
 * @out: its limits
 *
 * Return: true if the device is known (added and not being removed).
 */
bool smbdx_device_limits(struct ib_device *ibdev, struct smbdx_dev_limits *out)
{
	struct smbdx_device *sdev;
	bool found = false;

	mutex_lock(&smbdx_devices_lock);
	list_for_each_entry(sdev, &smbdx_devices, list) {
		if (sdev->ibdev == ibdev) {
			*out = sdev->limits;
			found = true;
			break;
		}
	}
	mutex_unlock(&smbdx_devices_lock);
	return found;
}

/**
 * smbdx_devices_netdevs() - the net devices of the usable devices' ports
 * @net: only net devices in this namespace
 * @out: set to a kcalloc()ed array the caller frees, after dev_put() on
 *	each entry's net device
 *
 * For listening on every device at its default port (listen_dev.c).
 *
 * Context: process, may sleep; takes smbdx_devices_lock.
 *
 * Return: the number of entries, or -ENOMEM.
 */
int smbdx_devices_netdevs(struct net *net, struct smbdx_dev_netdev **out)
{
	struct smbdx_dev_netdev *nd;
	struct smbdx_device *sdev;
	struct net_device *ndev;
	unsigned int max = 0;
	int n = 0;
	u32 port;

	mutex_lock(&smbdx_devices_lock);
	list_for_each_entry(sdev, &smbdx_devices, list)
		max += rdma_end_port(sdev->ibdev) - rdma_start_port(sdev->ibdev) + 1;
	nd = kcalloc(max(max, 1U), sizeof(*nd), GFP_KERNEL);
	if (!nd) {
		mutex_unlock(&smbdx_devices_lock);
		return -ENOMEM;
	}
	list_for_each_entry(sdev, &smbdx_devices, list) {
		if (sdev->limits.verdict != SMBDX_DEV_OK)
			continue;
		rdma_for_each_port(sdev->ibdev, port) {
			ndev = ib_device_get_netdev(sdev->ibdev, port);
			if (!ndev)
				continue;
			if (!net_eq(dev_net(ndev), net)) {
				dev_put(ndev);
				continue;
			}
			nd[n].ndev = ndev;
			nd[n].ibdev = sdev->ibdev;
			nd[n].port = smbdx_port_of(&sdev->limits);
			n++;
		}
	}
	mutex_unlock(&smbdx_devices_lock);
	*out = nd;
	return n;
}

/**
 * smbdx_netdev_find() - the RDMA port an interface reaches
 * @ndev: the interface
 * @hit: filled in when the interface reaches a port: with a port of a
 *	device smbdirect can use if there is one
 *
 * An interface reaches a port when it is the port's net device, sits on it
 * through VLANs, bonds or teams, or is an IPoIB interface with a GID of
 * the port (netdev.c).
 *
 * Context: process, may sleep; may be called with the RTNL held (takes
 * smbdx_devices_lock only to take a reference on each device).
 *
 * Return: true if @ndev reaches a port of a device smbdirect knows.
 */
bool smbdx_netdev_find(struct net_device *ndev, struct smbdx_netdev_hit *hit)
{
	struct smbdx_dev_ref {
		struct ib_device *ibdev;
		enum smbdx_dev_verdict verdict;
	} *snap;
	struct smbdx_device *sdev;
	struct net_device *pdev, *on;
	struct smbdx_lowers *l;
	unsigned int n = 0, i;
	bool found = false;
	u32 port;

	l = kmalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return false;
	mutex_lock(&smbdx_devices_lock);
	list_for_each_entry(sdev, &smbdx_devices, list)
		n++;
	snap = kcalloc(max(n, 1U), sizeof(*snap), GFP_KERNEL);
	n = 0;
	if (snap) {
		list_for_each_entry(sdev, &smbdx_devices, list) {
			if (!ib_device_try_get(sdev->ibdev))
				continue;
			snap[n].ibdev = sdev->ibdev;
			snap[n].verdict = sdev->limits.verdict;
			n++;
		}
	}
	mutex_unlock(&smbdx_devices_lock);

	smbdx_lowers_get(ndev, l);
	for (i = 0; i < n; i++) {
		struct ib_device *ibdev = snap[i].ibdev;
		bool usable = snap[i].verdict == SMBDX_DEV_OK;

		rdma_for_each_port(ibdev, port) {
			if (found && (hit->usable || !usable))
				break;
			pdev = ib_device_get_netdev(ibdev, port);
			on = smbdx_lowers_on_port(l, ibdev, port, pdev);
			if (on) {
				strscpy(hit->device, dev_name(&ibdev->dev), sizeof(hit->device));
				strscpy(hit->through, netdev_name(on), sizeof(hit->through));
				hit->port = port;
				hit->usable = usable;
				hit->verdict = smbdx_dev_verdict_str(snap[i].verdict);
				found = true;
			}
			if (pdev)
				dev_put(pdev);
		}
		ib_device_put(ibdev);
	}
	smbdx_lowers_put(l);
	kfree(snap);
	kfree(l);
	return found;
}

/**
 * smbdx_reg_len_floor() - what a registration covers on every usable device
 *
 * The smallest &smbdx_conn_info.max_reg_len that a connection on any usable
 * RDMA device present now has: the bytes one Buffer Descriptor surely
 * covers whichever device a connection runs on. An upper layer that sizes
 * the I/O of several connections from one of them (cifs fixes a mount's
 * rsize and wsize from its first channel, and a multichannel session may
 * add channels on other devices) caps that size to this, so that no
 * channel gets a request it cannot register. A device added later with
 * smaller MRs lowers it for later connections only.
 *
 * Context: process, may sleep (takes the device list's mutex).
 *
 * Return: bytes, or 0 when no usable device is present.
 */
u32 smbdx_reg_len_floor(void)
{
	struct smbdx_device *sdev;
	u32 floor = 0, len;

	mutex_lock(&smbdx_devices_lock);
	list_for_each_entry(sdev, &smbdx_devices, list) {
		len = smbdx_dev_reg_len(&sdev->limits, PAGE_SIZE);
		if (len && (!floor || len < floor))
			floor = len;
	}
	mutex_unlock(&smbdx_devices_lock);
	return floor;
}
EXPORT_SYMBOL_NS_GPL(smbdx_reg_len_floor, SMBDX_NS);

/**
 * smbdx_netdev_rdma_capable() - is there a usable RDMA device on a netdev
 * @ndev: network device
 *
 * What an SMB server asks before it advertises RDMA on an interface (ksmbd's
 * ksmbd_rdma_capable_netdev(), called with the RTNL held while ksmbd lists
 * the interfaces for FSCTL_QUERY_NETWORK_INTERFACE_INFO). The interface
 * may be the RDMA port's own net device, a VLAN, bond or team on top of it
 * (at any depth), or an IPoIB interface (smbdx_netdev_find()).
 *
 * Context: process, may sleep; may be called with the RTNL held.
 *
 * Return: true if @ndev reaches a port of a device smbdirect can use.
 */
bool smbdx_netdev_rdma_capable(struct net_device *ndev)
{
	struct smbdx_netdev_hit hit;

	return smbdx_netdev_find(ndev, &hit) && hit.usable;
}
EXPORT_SYMBOL_NS_GPL(smbdx_netdev_rdma_capable, SMBDX_NS);

/**
 * smbdx_device_init() - start tracking RDMA devices
 *
 * Return: 0 or a negative errno from ib_register_client().
 */
int smbdx_device_init(void)
{
	return ib_register_client(&smbdx_ib_client);
}

/**
 * smbdx_device_exit() - stop tracking RDMA devices
 *
 * The RDMA core calls smbdx_ib_remove() for every device before this returns.
 */
void smbdx_device_exit(void)
{
	ib_unregister_client(&smbdx_ib_client);
}
