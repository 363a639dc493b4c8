// SPDX-License-Identifier: GPL-2.0
/*
 * Live KUnit suite: smbdx_netdev_rdma_capable() (smbdirect/netdev.c,
 * device.c) on the test VM's interfaces. The port net devices of rxe and
 * siw are capable; the veth peer without an RDMA device and the loopback
 * are not; a team master on top of rxe's interface (and a team on that
 * team) is capable, a team on the veth peer is not. The team masters are
 * stand-ins: net devices flagged IFF_TEAM and linked as masters with
 * netdev_master_upper_dev_link(), as the team driver links its ports, so
 * the walk through bonds and teams runs without the team driver.
 * tests/vm/netdev_stack.sh covers real VLANs and bonds.
 */

#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

#include <net/net_namespace.h>
#include <smbdirect/smbdirect.h>

/* The test VM's interfaces (tests/vm/lib.sh). */
static char *rxe_netdev = "smbd-v0";
module_param(rxe_netdev, charp, 0444);
MODULE_PARM_DESC(rxe_netdev, "net device under the rxe device");
static char *siw_netdev = "smbd-d0";
module_param(siw_netdev, charp, 0444);
MODULE_PARM_DESC(siw_netdev, "net device under the siw device");
static char *rxe_peer = "smbd-v1";
module_param(rxe_peer, charp, 0444);
MODULE_PARM_DESC(rxe_peer, "the other end of the rxe device's veth pair (no RDMA device)");

static netdev_tx_t nd_xmit(struct sk_buff *skb, struct net_device *dev)
{
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops nd_team_ops = {
	.ndo_start_xmit = nd_xmit,
};

static struct net_device *nd_get(struct kunit *test, const char *name)
{
	struct net_device *ndev = dev_get_by_name(&init_net, name);

	KUNIT_ASSERT_NOT_NULL_MSG(test, ndev, "no interface %s", name);
	return ndev;
}

static bool nd_capable(struct kunit *test, const char *name)
{
	struct net_device *ndev = nd_get(test, name);
	bool capable = smbdx_netdev_rdma_capable(ndev);

	dev_put(ndev);
	return capable;
}

struct nd_team {
	struct net_device *upper;
	struct net_device *lower;
};

static void nd_team_free(void *p)
{
	struct nd_team *t = p;

	rtnl_lock();
	netdev_upper_dev_unlink(t->lower, t->upper);
	rtnl_unlock();
	dev_put(t->lower);
	unregister_netdev(t->upper);
	free_netdev(t->upper);
}

/* A team master stand-in with @lower as its port; removed after the case. */
static struct net_device *nd_team_on(struct kunit *test, struct net_device *lower)
{
	struct nd_team *t;
	int rc;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	t->upper = alloc_netdev(0, "smbdteam%d", NET_NAME_ENUM, ether_setup);
	KUNIT_ASSERT_NOT_NULL(test, t->upper);
	t->upper->netdev_ops = &nd_team_ops;
	t->upper->priv_flags |= IFF_TEAM;
	eth_hw_addr_random(t->upper);
	rc = register_netdev(t->upper);
	if (rc)
		free_netdev(t->upper);
	KUNIT_ASSERT_EQ(test, rc, 0);
	rtnl_lock();
	rc = netdev_master_upper_dev_link(lower, t->upper, NULL, NULL, NULL);
	rtnl_unlock();
	if (rc) {
		unregister_netdev(t->upper);
		free_netdev(t->upper);
	}
	KUNIT_ASSERT_EQ(test, rc, 0);
	dev_hold(lower);
	t->lower = lower;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, nd_team_free, t), 0);
	return t->upper;
}

static void smbdx_netdev_port_interfaces(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, nd_capable(test, rxe_netdev));
	KUNIT_EXPECT_TRUE(test, nd_capable(test, siw_netdev));
}

static void smbdx_netdev_not_rdma(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, nd_capable(test, rxe_peer));
	KUNIT_EXPECT_FALSE(test, nd_capable(test, "lo"));
}

static void smbdx_netdev_team(struct kunit *test)
{
	struct net_device *port = nd_get(test, rxe_netdev);
	struct net_device *team, *team2;

	team = nd_team_on(test, port);
	dev_put(port);
	KUNIT_EXPECT_TRUE(test, smbdx_netdev_rdma_capable(team));
	team2 = nd_team_on(test, team);
	KUNIT_EXPECT_TRUE(test, smbdx_netdev_rdma_capable(team2));
	/* The walk goes down only: the port does not reach its master's. */
	KUNIT_EXPECT_TRUE(test, nd_capable(test, rxe_netdev));
}

static void smbdx_netdev_team_without_rdma(struct kunit *test)
{
	struct net_device *peer = nd_get(test, rxe_peer);
	struct net_device *team;

	team = nd_team_on(test, peer);
	dev_put(peer);
	KUNIT_EXPECT_FALSE(test, smbdx_netdev_rdma_capable(team));
}

/* ksmbd asks with the RTNL held. */
static void smbdx_netdev_under_rtnl(struct kunit *test)
{
	struct net_device *port = nd_get(test, rxe_netdev);
	bool capable;

	rtnl_lock();
	capable = smbdx_netdev_rdma_capable(port);
	rtnl_unlock();
	dev_put(port);
	KUNIT_EXPECT_TRUE(test, capable);
}

static struct kunit_case netdev_live_cases[] = {
	KUNIT_CASE(smbdx_netdev_port_interfaces),
	KUNIT_CASE(smbdx_netdev_not_rdma),
	KUNIT_CASE(smbdx_netdev_team),
	KUNIT_CASE(smbdx_netdev_team_without_rdma),
	KUNIT_CASE(smbdx_netdev_under_rtnl),
	{}
};

static struct kunit_suite netdev_live_suite = {
	.name = "smbdirect_netdev_live",
	.test_cases = netdev_live_cases,
};

kunit_test_suite(netdev_live_suite);

MODULE_DESCRIPTION("Live test of smbdirect's RDMA-capable interfaces (VLAN, bond, team)");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(SMBDX_NS);
