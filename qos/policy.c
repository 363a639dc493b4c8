// SPDX-License-Identifier: GPL-2.0
/*
 * policy.c - the policy store of sqos.ko: PolicyID -> {maximum, minimum}
 * normalized IOPS, configured at run time through configfs (policies/, see
 * configfs.c); the KUnit suites call sqos_server_policy_set() and its
 * siblings directly.
 *
 * A flow whose PolicyID is set takes its MaximumIoRate/MinimumIoRate from
 * the store; a flow whose PolicyID is unknown reports the status
 * StorageQoSUnknownPolicyId and is not limited. Every change to the store
 * re-resolves the flows that use the changed PolicyID, so a new maximum
 * takes effect on the next I/O.
 *
 * Locking: the store lives in sqos_server and is protected by
 * sqos_server.lock (a spinlock taken with irqsave, see flow.c). New entries
 * are allocated before the lock is taken; lookups are done with the lock
 * held.
 */
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/jhash.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kunit/visibility.h>
#include "sqos_internal.h"

static u32 sqos_policy_hash(const guid_t *id)
{
	return jhash(id, sizeof(*id), 0);
}

/**
 * sqos_policy_check() - is a policy-store entry acceptable
 * @id: PolicyID, must not be the NULL GUID
 * @max_iops: maximum, at most 10^9; 0 = no maximum
 * @min_iops: minimum, at most 10^9 and not above a non-zero maximum
 *
 * The bounds are those MS-SQOS note <4> applies to Limit/Reservation.
 *
 * Return: 0 or -EINVAL.
 */
int sqos_policy_check(const guid_t *id, u64 max_iops, u64 min_iops)
{
	if (!id || guid_is_null(id))
		return -EINVAL;
	if (max_iops > SQOS_MAX_IOPS || min_iops > SQOS_MAX_IOPS)
		return -EINVAL;
	if (max_iops && min_iops > max_iops)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sqos_policy_check);

/**
 * sqos_policy_find() - look up a PolicyID
 * @srv: server, with srv->lock held
 * @id: PolicyID
 *
 * Return: the entry or NULL.
 */
struct sqos_policy *sqos_policy_find(struct sqos_server *srv, const guid_t *id)
{
	struct sqos_policy *p;

	lockdep_assert_held(&srv->lock);
	hash_for_each_possible(srv->policies, p, node, sqos_policy_hash(id))
		if (guid_equal(&p->id, id))
			return p;
	return NULL;
}

/**
 * sqos_server_policy_set() - add or replace a policy-store entry
 * @srv: server
 * @id: PolicyID
 * @max_iops: MaximumIoRate for flows with this policy
 * @min_iops: MinimumIoRate for flows with this policy
 *
 * Context: process context (allocates with GFP_KERNEL).
 * Return: 0, -EINVAL (see sqos_policy_check()) or -ENOMEM.
 */
int sqos_server_policy_set(struct sqos_server *srv, const guid_t *id,
			   u64 max_iops, u64 min_iops)
{
	struct sqos_policy *p, *n;
	unsigned long flags;
	int ret;

	ret = sqos_policy_check(id, max_iops, min_iops);
	if (ret)
		return ret;
	n = kzalloc(sizeof(*n), GFP_KERNEL);
	if (!n)
		return -ENOMEM;
	n->id = *id;
	n->max_iops = max_iops;
	n->min_iops = min_iops;

	spin_lock_irqsave(&srv->lock, flags);
	p = sqos_policy_find(srv, id);
	if (p) {
		p->max_iops = max_iops;
		p->min_iops = min_iops;
	} else {
		hash_add(srv->policies, &n->node, sqos_policy_hash(id));
		srv->nr_policies++;
		n = NULL;
	}
	sqos_server_policy_changed(srv, id);
	spin_unlock_irqrestore(&srv->lock, flags);
	kfree(n);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sqos_server_policy_set);

/**
 * sqos_server_policy_delete() - remove a policy-store entry
 * @srv: server
 * @id: PolicyID
 *
 * Flows using @id keep running, report StorageQoSUnknownPolicyId and are
 * no longer limited.
 *
 * Return: 0 or -ENOENT.
 */
int sqos_server_policy_delete(struct sqos_server *srv, const guid_t *id)
{
	struct sqos_policy *p;
	unsigned long flags;

	spin_lock_irqsave(&srv->lock, flags);
	p = sqos_policy_find(srv, id);
	if (p) {
		hash_del(&p->node);
		srv->nr_policies--;
		sqos_server_policy_changed(srv, id);
	}
	spin_unlock_irqrestore(&srv->lock, flags);
	if (!p)
		return -ENOENT;
	kfree(p);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sqos_server_policy_delete);

/**
 * sqos_server_policy_clear() - empty the policy store
 * @srv: server
 */
void sqos_server_policy_clear(struct sqos_server *srv)
{
	struct sqos_policy *p;
	struct hlist_node *tmp;
	unsigned long flags;
	int bkt;

	spin_lock_irqsave(&srv->lock, flags);
	hash_for_each_safe(srv->policies, bkt, tmp, p, node) {
		hash_del(&p->node);
		srv->nr_policies--;
		kfree(p);
	}
	sqos_server_policy_changed(srv, NULL);
	spin_unlock_irqrestore(&srv->lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(sqos_server_policy_clear);

/**
 * sqos_server_policy_get() - read a policy-store entry
 * @srv: server
 * @id: PolicyID
 * @max_iops: maximum, if found
 * @min_iops: minimum, if found
 *
 * Return: 0 or -ENOENT.
 */
int sqos_server_policy_get(struct sqos_server *srv, const guid_t *id,
			   u64 *max_iops, u64 *min_iops)
{
	struct sqos_policy *p;
	unsigned long flags;
	int ret = -ENOENT;

	spin_lock_irqsave(&srv->lock, flags);
	p = sqos_policy_find(srv, id);
	if (p) {
		*max_iops = p->max_iops;
		*min_iops = p->min_iops;
		ret = 0;
	}
	spin_unlock_irqrestore(&srv->lock, flags);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(sqos_server_policy_get);

/**
 * sqos_server_walk_policies() - call @fn on every entry of the store
 * @srv: server
 * @fn: called with srv->lock held, interrupts off: must not sleep nor call
 *	back into sqos
 * @arg: passed to @fn
 */
void sqos_server_walk_policies(struct sqos_server *srv,
			       sqos_policy_visit_fn fn, void *arg)
{
	struct sqos_policy *p;
	unsigned long flags;
	int bkt;

	spin_lock_irqsave(&srv->lock, flags);
	hash_for_each(srv->policies, bkt, p, node)
		fn(arg, p);
	spin_unlock_irqrestore(&srv->lock, flags);
}
