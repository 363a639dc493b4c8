// SPDX-License-Identifier: GPL-2.0
/*
 * Socket addresses and SMB Direct ports: the port of an IPv4 or IPv6
 * address, and the default port of the RDMA device an address belongs to
 * (MS-SMBD 1.9: 5445 on iWARP, 445 on InfiniBand and RoCE; devlimits.c
 * decides which one a device uses, the module parameters iwarp_port and
 * ib_port may move them).
 *
 * Normal operation: smbdx_connect() asks for the device's port once the
 * address has resolved; smbdx_listen() with port 0 binds a probe cm_id to
 * learn the device the address belongs to.
 *
 * Concurrency: the sockaddr helpers only touch their arguments. The port
 * lookups sleep (the device list's mutex, the RDMA CM); the probe cm_id has
 * a handler of its own that ignores every event, so a device removal or
 * address change while it exists touches nothing of ours.
 */

#include <linux/in.h>
#include <linux/in6.h>
#include <net/ipv6.h>

#include "smbd.h"

/**
 * smbdx_sockaddr_len() - the length of an AF_INET or AF_INET6 address
 * @sa: the address
 *
 * Return: sizeof(struct sockaddr_in) or sizeof(struct sockaddr_in6).
 */
size_t smbdx_sockaddr_len(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET ? sizeof(struct sockaddr_in) :
					  sizeof(struct sockaddr_in6);
}

/**
 * smbdx_sockaddr_port() - the port of an AF_INET or AF_INET6 address
 * @sa: the address
 *
 * Return: the port in host byte order.
 */
int smbdx_sockaddr_port(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)sa)->sin_port);
	return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
}

/**
 * smbdx_sockaddr_set_port() - set the port of an AF_INET or AF_INET6 address
 * @sa: the address
 * @port: the port in host byte order
 */
void smbdx_sockaddr_set_port(struct sockaddr *sa, int port)
{
	if (sa->sa_family == AF_INET)
		((struct sockaddr_in *)sa)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)sa)->sin6_port = htons(port);
}

/**
 * smbdx_sockaddr_any() - is this the wildcard address
 * @sa: an AF_INET or AF_INET6 address
 *
 * Return: true for INADDR_ANY and in6addr_any.
 */
bool smbdx_sockaddr_any(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ((const struct sockaddr_in *)sa)->sin_addr.s_addr ==
		       htonl(INADDR_ANY);
	return ipv6_addr_any(&((const struct sockaddr_in6 *)sa)->sin6_addr);
}

/**
 * smbdx_port_of() - the SMB Direct port of a device's transport
 * @l: the device's limits
 *
 * Return: iwarp_port for a device on the iWARP port, else ib_port.
 */
int smbdx_port_of(const struct smbdx_dev_limits *l)
{
	return l->port == SMBDX_PORT_IWARP ? smbdx_iwarp_port : smbdx_ib_port;
}

/**
 * smbdx_device_port() - the default port of an RDMA device
 * @ibdev: a device smbdirect knows
 *
 * Context: process, may sleep.
 *
 * Return: the port, or -ENODEV if smbdirect does not know the device.
 */
int smbdx_device_port(struct ib_device *ibdev)
{
	struct smbdx_dev_limits l;

	if (!smbdx_device_limits(ibdev, &l))
		return -ENODEV;
	return smbdx_port_of(&l);
}

/* The probe cm_id of smbdx_addr_port() has nothing to tell anyone. */
static int smbdx_probe_cm_handler(struct rdma_cm_id *id,
				  struct rdma_cm_event *event)
{
	return 0;
}

/**
 * smbdx_addr_port() - the default port of the device an address belongs to
 * @net: network namespace
 * @addr: a local, non-wildcard IPv4 or IPv6 address
 *
 * Context: process, may sleep.
 *
 * Return: the port, or a negative errno (-EADDRNOTAVAIL when no RDMA device
 * has the address).
 */
int smbdx_addr_port(struct net *net, const struct sockaddr *addr)
{
	struct sockaddr_storage ss = {};
	struct rdma_cm_id *id;
	int rc;

	memcpy(&ss, addr, smbdx_sockaddr_len(addr));
	id = rdma_create_id(net, smbdx_probe_cm_handler, NULL, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	rc = rdma_bind_addr(id, (struct sockaddr *)&ss);
	if (!rc)
		rc = id->device ? smbdx_device_port(id->device) : -EADDRNOTAVAIL;
	rdma_destroy_id(id);
	return rc;
}
