// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA device lifetime: smbdirect's ib_client.
 *
 * Normal operation: the RDMA core calls smbd_ib_add() for every device that
 * exists when the client registers and for every device added later, and
 * smbd_ib_remove() when a device goes away (rdma link delete, driver unload)
 * or when the client unregisters. Each device gets a struct smbd_device with
 * the limits smbdirect derives from its attributes.
 *
 * Device removal: smbd_ib_remove() first ends every connection and
 * listener on the device (smbd_conns_device_removed(),
 * smbd_listeners_device_removed(): drain, free, destroy the cm_ids), then
 * forgets the device. The RDMA core removes clients in the reverse order
 * of registration, so this runs before the RDMA CM's own removal, which
 * waits for every cm_id on the device to be destroyed; the CM's
 * DEVICE_REMOVAL event is handled as well, for ids created while this ran.
 *
 * Locking: smbd_devices_lock (a mutex) protects smbd_devices. It is taken by
 * the add/remove callbacks (process context, may sleep) and by debugfs
 * readers. ib_query_port() is called with it held, which is allowed: it
 * sleeps at most, and never calls back into this client. The RDMA core
 * serialises add and remove of one device, and remove does not return
 * before the entry is off the list, so a reader holding the mutex never
 * sees a device that is being freed.
 */

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <rdma/ib_verbs.h>

#include "smbd.h"

static DEFINE_MUTEX(smbd_devices_lock);
static LIST_HEAD(smbd_devices);

static struct ib_client smbd_ib_client;

static int smbd_ib_add(struct ib_device *ibdev)
{
	struct smbd_device *sdev;
	bool iwarp;

	sdev = kzalloc(sizeof(*sdev), GFP_KERNEL);
	if (!sdev)
		return -ENOMEM;

	sdev->ibdev = ibdev;
	iwarp = rdma_node_get_transport(ibdev->node_type) == RDMA_TRANSPORT_IWARP;
	smbd_dev_limits_compute(&ibdev->attrs, iwarp, &sdev->limits);
	ib_set_client_data(ibdev, &smbd_ib_client, sdev);

	mutex_lock(&smbd_devices_lock);
	list_add_tail(&sdev->list, &smbd_devices);
	mutex_unlock(&smbd_devices_lock);

	dev_info(&ibdev->dev, "smbdirect: added (%s)\n",
		 smbd_dev_verdict_str(sdev->limits.verdict));
	return 0;
}

static void smbd_ib_remove(struct ib_device *ibdev, void *client_data)
{
	struct smbd_device *sdev = client_data;

	smbd_listeners_device_removed(ibdev);
	smbd_conns_device_removed(ibdev);

	mutex_lock(&smbd_devices_lock);
	list_del(&sdev->list);
	mutex_unlock(&smbd_devices_lock);

	dev_info(&ibdev->dev, "smbdirect: removed\n");
	kfree(sdev);
}

static struct ib_client smbd_ib_client = {
	.name = "smbdirect",
	.add = smbd_ib_add,
	.remove = smbd_ib_remove,
};

static const char *smbd_node_type_str(unsigned int node_type)
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

static const char *smbd_port_state_str(enum ib_port_state state)
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

static void smbd_show_ports(struct seq_file *m, struct ib_device *ibdev)
{
	struct ib_port_attr pattr;
	struct net_device *ndev;
	u32 port;

	rdma_for_each_port(ibdev, port) {
		if (ib_query_port(ibdev, port, &pattr)) {
			seq_printf(m, " port%u=error", port);
			continue;
		}
		seq_printf(m, " port%u=%s", port, smbd_port_state_str(pattr.state));
		ndev = ib_device_get_netdev(ibdev, port);
		if (ndev) {
			seq_printf(m, " port%u_netdev=%s", port, netdev_name(ndev));
			dev_put(ndev);
		}
	}
}

/**
 * smbd_devices_show() - debugfs "devices": one line per RDMA device
 * @m: seq_file to print to
 * @unused: unused
 *
 * Each line is the device name followed by key=value pairs: node type,
 * transport, state of each port (queried now) and its net device, the raw
 * device limits smbdirect depends on (SGEs, fast-registration page list
 * length, IRD/ORD) and smbdirect's verdict.
 *
 * Return: 0.
 */
int smbd_devices_show(struct seq_file *m, void *unused)
{
	struct smbd_device *sdev;

	mutex_lock(&smbd_devices_lock);
	list_for_each_entry(sdev, &smbd_devices, list) {
		struct ib_device *ibdev = sdev->ibdev;
		const struct ib_device_attr *a = &ibdev->attrs;
		const struct smbd_dev_limits *l = &sdev->limits;

		seq_printf(m, "%s node=%s transport=%s", dev_name(&ibdev->dev),
			   smbd_node_type_str(ibdev->node_type),
			   l->iwarp ? "iwarp" : "ib");
		smbd_show_ports(m, ibdev);
		seq_printf(m, " max_send_sge=%d max_recv_sge=%d max_sge_rd=%d",
			   a->max_send_sge, a->max_recv_sge, a->max_sge_rd);
		seq_printf(m, " max_fast_reg_page_list_len=%u frwr_depth=%u",
			   a->max_fast_reg_page_list_len, l->frwr_depth);
		seq_printf(m, " max_qp_rd_atom=%d max_qp_init_rd_atom=%d ird=%u ord=%u",
			   a->max_qp_rd_atom, a->max_qp_init_rd_atom, l->ird, l->ord);
		seq_printf(m, " max_qp_wr=%d max_cqe=%d port=%u verdict=%s\n",
			   a->max_qp_wr, a->max_cqe, l->port,
			   smbd_dev_verdict_str(l->verdict));
	}
	mutex_unlock(&smbd_devices_lock);
	return 0;
}

/**
 * smbd_device_limits() - what smbdirect may use of a device
 * @ibdev: the device
 * @out: its limits
 *
 * Return: true if the device is known (added and not being removed).
 */
bool smbd_device_limits(struct ib_device *ibdev, struct smbd_dev_limits *out)
{
	struct smbd_device *sdev;
	bool found = false;

	mutex_lock(&smbd_devices_lock);
	list_for_each_entry(sdev, &smbd_devices, list) {
		if (sdev->ibdev == ibdev) {
			*out = sdev->limits;
			found = true;
			break;
		}
	}
	mutex_unlock(&smbd_devices_lock);
	return found;
}

/**
 * smbd_netdev_rdma_capable() - is there a usable RDMA device on a netdev
 * @ndev: network device
 *
 * What an SMB server asks before it advertises RDMA on an interface (ksmbd's
 * ksmbd_rdma_capable_netdev()).
 *
 * Context: process, may sleep.
 *
 * Return: true if a port of a device smbdirect can use is bound to @ndev.
 */
bool smbd_netdev_rdma_capable(struct net_device *ndev)
{
	struct smbd_device *sdev;
	struct net_device *pdev;
	bool found = false;
	u32 port;

	mutex_lock(&smbd_devices_lock);
	list_for_each_entry(sdev, &smbd_devices, list) {
		if (sdev->limits.verdict != SMBD_DEV_OK)
			continue;
		rdma_for_each_port(sdev->ibdev, port) {
			pdev = ib_device_get_netdev(sdev->ibdev, port);
			if (pdev == ndev)
				found = true;
			if (pdev)
				dev_put(pdev);
		}
		if (found)
			break;
	}
	mutex_unlock(&smbd_devices_lock);
	return found;
}
EXPORT_SYMBOL_GPL(smbd_netdev_rdma_capable);

/**
 * smbd_device_init() - start tracking RDMA devices
 *
 * Return: 0 or a negative errno from ib_register_client().
 */
int smbd_device_init(void)
{
	return ib_register_client(&smbd_ib_client);
}

/**
 * smbd_device_exit() - stop tracking RDMA devices
 *
 * The RDMA core calls smbd_ib_remove() for every device before this returns.
 */
void smbd_device_exit(void)
{
	ib_unregister_client(&smbd_ib_client);
}
