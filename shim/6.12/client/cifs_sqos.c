// SPDX-License-Identifier: GPL-2.0
/*
 * cifs_sqos.c - MS-SQOS Storage QoS on the client (MS-SQOS 3.1): the
 * CIFS_IOC_SQOS_CONTROL ioctl (include/smbdirect/sqos_ioctl.h) sends
 * FSCTL_STORAGE_QOS_CONTROL on the SMB2 handle of an open file and records
 * the logical flow on that handle; the READs and WRITEs of a handle whose
 * flow has a MaximumIoRate are then held to it, and the flow's status timer
 * asks the server for GET_STATUS | UPDATE_COUNTERS with the counters of all
 * its handles. The protocol rules are sqos.ko's client helpers.
 *
 * The call sites in cifs's own sources (shim/6.12/cifs-sqos.patch):
 *   ioctl.c  cifs_ioctl()            -> cifs_sqos_ioctl()
 *   file.c   cifs_issue_read(), cifs_issue_write() -> cifs_sqos_defer()
 *            cifs_free_subrequest()  -> cifs_sqos_io_end()
 *            _cifsFileInfo_put()     -> cifs_sqos_close() (final put)
 *            cifs_close()            -> cifs_sqos_tagged(): a tagged handle
 *                is closed at once, never kept for deferred close and
 *                handed to the next open() of the file
 *            cifs_reopen_file()      -> cifs_sqos_reopened(): the handle's
 *                new server open joins its flow again
 *
 * Only the open of a regular file joins a flow: the ioctl refuses a
 * directory (EISDIR). cifs gives a directory's open a cifsFileInfo too
 * (after a listing), but cifs_closedir() frees it without the final
 * _cifsFileInfo_put(), so a directory's handle could never leave its flow;
 * MS-SQOS speaks of the opens of files (virtual disks), not of listings.
 *
 * Client flows are kept by LogicalFlowID (the initiator owns its flows,
 * 3.1.1.1): handles of any mount tagged with the same ID share one flow, its
 * limiter, its counters and its timer. A flow lives while a handle is in it
 * or an I/O charged to it is in flight.
 *
 * Throttling (3.1.7.1): cifs_sqos_defer() charges the subrequest to its
 * handle's flow; when the flow is over its rate the issue is deferred to a
 * delayed work on cifsiod_wq instead of sleeping, so a throttled handle
 * never holds up the thread that issues it (writeback of other files, a
 * readahead, the submitter of asynchronous I/O). The module parameter
 * sqos_throttle (cifs.sqos_throttle, default Y) turns the delays off while
 * the counters and the protocol go on.
 *
 * Binding: cifs does not depend on sqos.ko. The ioctl loads it on demand
 * (symbol_request(sqos_get_ops)); one reference is held for each client
 * flow and for each ioctl in progress, so sqos.ko can be unloaded when no
 * handle is tagged.
 *
 * Locking: cifs_sqos_lock (spinlock, irqsave: a subrequest may end in any
 * context) protects the binding, the flow list, every flow's fields (its
 * policy copy too) and handle list, each handle's lost flag, and
 * cifsFileInfo.sqos. Nothing else is taken under it (a policy copy is
 * allocated before and freed after it); the status work takes a tcon_link
 * reference under it (an atomic increment) instead of a reference on a
 * handle. A flow whose last reference goes is
 * unlisted at once and freed by a work item that first waits for its
 * status work (cancel_delayed_work_sync()), so the status work never holds
 * a reference of its own.
 */
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <smbdirect/sqos.h>
#include <smbdirect/sqos_ioctl.h>

#include "cifsglob.h"
#include "cifs_debug.h"
#include "cifsproto.h"
#include "smb2proto.h"
#include "cifs_sqos.h"

static bool sqos_throttle = true;
module_param(sqos_throttle, bool, 0644);
MODULE_PARM_DESC(sqos_throttle,
		 "Hold handles tagged with a Storage QoS logical flow to its MaximumIoRate (default Y)");

/**
 * struct cifs_sqos_flow - the client's state of one logical flow
 * @node: in cifs_sqos_flows
 * @id: LogicalFlowID
 * @ref: handles in the flow plus I/Os charged to it
 * @nr_handles: handles in the flow
 * @handles: its struct cifs_sqos_handle
 * @dying: unlisted; @free_work will free it
 * @cf: sqos.ko's client state: counters, MaximumIoRate, BaseIoSize,
 *	StatusRequestTimer, limiter
 * @timer: StatusRequestTimer: runs cifs_sqos_status_work()
 * @free_work: frees the flow after its last reference
 * @policy: the last SET_POLICY the server accepted on one of its handles,
 *	sent again when a handle is associated anew; NULL if none
 */
struct cifs_sqos_flow {
	struct list_head node;
	guid_t id;
	unsigned int ref;
	unsigned int nr_handles;
	struct list_head handles;
	bool dying;
	struct sqos_client_flow cf;
	struct delayed_work timer;
	struct work_struct free_work;
	struct cifs_sqos_policy *policy;
};

/**
 * struct cifs_sqos_policy - what a SET_POLICY set on the server's flow
 * @policy_id: PolicyID
 * @initiator_id: InitiatorID
 * @limit: Limit
 * @reservation: Reservation
 * @name_len: InitiatorNameLength
 * @node_name_len: InitiatorNodeNameLength
 * @names: InitiatorName, then InitiatorNodeName (UTF-16LE bytes)
 */
struct cifs_sqos_policy {
	guid_t policy_id;
	guid_t initiator_id;
	u64 limit;
	u64 reservation;
	u16 name_len;
	u16 node_name_len;
	u8 names[];
};

/**
 * struct cifs_sqos_handle - a handle (cifsFileInfo) in a flow
 * @node: in its flow's handles
 * @flow: the flow
 * @cfile: the handle
 * @lost: cifs reopened the handle after a reconnection: the server's open
 *	is a new one, not associated with the flow, until the status work
 *	sends SET_LOGICAL_FLOW_ID (and the flow's policy) on it again
 */
struct cifs_sqos_handle {
	struct list_head node;
	struct cifs_sqos_flow *flow;
	struct cifsFileInfo *cfile;
	bool lost;
};

static DEFINE_SPINLOCK(cifs_sqos_lock);
static LIST_HEAD(cifs_sqos_flows);
static const struct sqos_ops *cifs_sqos_ops;
static unsigned long cifs_sqos_users;

/* ---- binding to sqos.ko ---- */

/* sqos.ko's table with a use counted (loading it if needed), or NULL */
static const struct sqos_ops *cifs_sqos_get(void)
{
	const struct sqos_ops *(*get)(void);
	const struct sqos_ops *ops;
	unsigned long flags;

	spin_lock_irqsave(&cifs_sqos_lock, flags);
	ops = cifs_sqos_ops;
	if (ops)
		cifs_sqos_users++;
	spin_unlock_irqrestore(&cifs_sqos_lock, flags);
	if (ops)
		return ops;

	get = symbol_request(sqos_get_ops);
	if (!get)
		return NULL;
	spin_lock_irqsave(&cifs_sqos_lock, flags);
	ops = cifs_sqos_ops;
	if (!ops) {
		cifs_sqos_ops = get();
		ops = cifs_sqos_ops;
		get = NULL;
	}
	cifs_sqos_users++;
	spin_unlock_irqrestore(&cifs_sqos_lock, flags);
	if (get)
		symbol_put(sqos_get_ops);
	return ops;
}

static void cifs_sqos_put(void)
{
	unsigned long flags;
	bool last;

	spin_lock_irqsave(&cifs_sqos_lock, flags);
	last = !--cifs_sqos_users;
	if (last)
		cifs_sqos_ops = NULL;
	spin_unlock_irqrestore(&cifs_sqos_lock, flags);
	if (last)
		symbol_put(sqos_get_ops);
}

/* ---- flows ---- */

static u64 cifs_sqos_now(void)
{
	return ktime_get_ns();
}

static struct cifs_sqos_flow *cifs_sqos_find(const guid_t *id)
{
	struct cifs_sqos_flow *f;

	lockdep_assert_held(&cifs_sqos_lock);
	list_for_each_entry(f, &cifs_sqos_flows, node)
		if (guid_equal(&f->id, id))
			return f;
	return NULL;
}

/* Run the status work when the flow's StatusRequestTimer expires. */
static void cifs_sqos_arm(struct cifs_sqos_flow *f, u64 now)
{
	u64 when = f->cf.timer_ns;

	lockdep_assert_held(&cifs_sqos_lock);
	if (f->dying || !f->nr_handles || when == SQOS_TIMER_NEVER)
		return;
	mod_delayed_work(cifsiod_wq, &f->timer,
			 when > now ? nsecs_to_jiffies(when - now) + 1 : 0);
}

static void cifs_sqos_free_work(struct work_struct *work)
{
	struct cifs_sqos_flow *f = container_of(work, struct cifs_sqos_flow,
						free_work);

	cancel_delayed_work_sync(&f->timer);
	kfree(f->policy);
	kfree(f);
	cifs_sqos_put();
}

static void cifs_sqos_flow_put_locked(struct cifs_sqos_flow *f)
{
	lockdep_assert_held(&cifs_sqos_lock);
	if (--f->ref)
		return;
	list_del(&f->node);
	f->dying = true;
	queue_work(cifsiod_wq, &f->free_work);
}

static int cifs_sqos_send(unsigned int xid, struct cifs_tcon *tcon,
			  u64 persistent_fid, u64 volatile_fid, void *in,
			  u32 in_len, u32 max_out, void *out, u32 *out_len,
			  u32 *ntstatus);

/* The first of @f's handles that cifs reopened, or NULL */
static struct cifs_sqos_handle *cifs_sqos_lost(struct cifs_sqos_flow *f)
{
	struct cifs_sqos_handle *h;

	lockdep_assert_held(&cifs_sqos_lock);
	list_for_each_entry(h, &f->handles, node)
		if (h->lost)
			return h;
	return NULL;
}

/*
 * The request that associates a reopened handle with its flow again
 * (3.1.4.1: an open not associated yet must send SET_LOGICAL_FLOW_ID):
 * with the flow's last accepted policy, GET_STATUS, and whatever the timer
 * asks for. Into @in (SQOS_REQUEST_MAX_SIZE bytes); returns its length.
 */
static int cifs_sqos_build_rejoin(const struct sqos_ops *ops,
				  struct cifs_sqos_flow *f, u8 *in,
				  u32 *max_out, u64 now)
{
	struct sqos_client_args args = {
		.options = STORAGE_QOS_CONTROL_FLAG_SET_LOGICAL_FLOW_ID |
			   STORAGE_QOS_CONTROL_FLAG_GET_STATUS,
	};
	struct cifs_sqos_policy *p = f->policy;

	lockdep_assert_held(&cifs_sqos_lock);
	if (now >= f->cf.timer_ns)
		args.options |= ops->client_timer_options(&f->cf, now);
	if (p) {
		args.options |= STORAGE_QOS_CONTROL_FLAG_SET_POLICY;
		args.policy_id = p->policy_id;
		args.initiator_id = p->initiator_id;
		args.limit = p->limit;
		args.reservation = p->reservation;
		args.name = p->names;
		args.name_len = p->name_len;
		args.node_name = p->names + p->name_len;
		args.node_name_len = p->node_name_len;
	}
	return ops->client_build_request(&f->cf, &args, in,
					 SQOS_REQUEST_MAX_SIZE, max_out, now);
}

/*
 * StatusRequestTimer expired (3.1.6): GET_STATUS | UPDATE_COUNTERS with
 * the counters of all the flow's handles, on one of its handles. An idle
 * flow waits for its next I/O (cifs_sqos_defer() runs this again). A
 * handle cifs reopened goes first, whatever the timer says: the request
 * of cifs_sqos_build_rejoin() on it, and the work runs again at once while
 * another one is left.
 */
static void cifs_sqos_status_work(struct work_struct *work)
{
	struct cifs_sqos_flow *f = container_of(to_delayed_work(work),
						struct cifs_sqos_flow, timer);
	struct sqos_client_args args = { .handle_associated = true };
	struct cifs_sqos_handle *h, *lost = NULL;
	u32 max_out = 0, out_len = 0, nt = 0;
	struct tcon_link *tlink = NULL;
	u8 out[SQOS_RESPONSE_SIZE];
	const struct sqos_ops *ops;
	u64 pfid = 0, vfid = 0, now;
	unsigned long flags;
	unsigned int xid;
	int len = -EINVAL, rc;
	u8 *in;

	in = kmalloc(SQOS_REQUEST_MAX_SIZE, GFP_KERNEL);
	spin_lock_irqsave(&cifs_sqos_lock, flags);
	ops = cifs_sqos_ops;
	now = cifs_sqos_now();
	if (!in) {
		/* 3.1.5.1's failure interval, as for a request that failed */
		ops->client_handle_response(&f->cf, SQOS_NT_INVALID_PARAMETER,
					    NULL, 0, now, NULL);
		cifs_sqos_arm(f, now);
	} else if (!f->dying && f->nr_handles) {
		lost = cifs_sqos_lost(f);
		if (lost) {
			len = cifs_sqos_build_rejoin(ops, f, in, &max_out, now);
		} else if (now < f->cf.timer_ns) {
			cifs_sqos_arm(f, now);
		} else {
			args.options = ops->client_timer_options(&f->cf, now);
			if (args.options)
				len = ops->client_build_request(&f->cf, &args,
								in,
								SQOS_REQUEST_MAX_SIZE,
								&max_out, now);
		}
	}
	if (len > 0) {
		h = lost ? lost : list_first_entry(&f->handles,
						   struct cifs_sqos_handle,
						   node);
		h->lost = false;
		pfid = h->cfile->fid.persistent_fid;
		vfid = h->cfile->fid.volatile_fid;
		tlink = cifs_get_tlink(h->cfile->tlink);
	}
	spin_unlock_irqrestore(&cifs_sqos_lock, flags);
	if (len <= 0) {
		kfree(in);
		return;
	}

	xid = get_xid();
	rc = cifs_sqos_send(xid, tlink_tcon(tlink), pfid, vfid, in, len,
			    max_out, out, &out_len, &nt);
	free_xid(xid);
	cifs_put_tlink(tlink);
	kfree(in);

	spin_lock_irqsave(&cifs_sqos_lock, flags);
	now = cifs_sqos_now();
	/* No answer at all counts as a failure too: retry in 10 s. */
	ops->client_handle_response(&f->cf, rc ? SQOS_NT_INVALID_PARAMETER : nt,
				    out, rc ? 0 : out_len, now, NULL);
	if (lost && (rc || nt != SQOS_NT_SUCCESS)) {
		/*
		 * Not associated: try again with the timer. @lost may have
		 * left the flow meanwhile (then it is not in the list).
		 */
		list_for_each_entry(h, &f->handles, node)
			if (h == lost)
				h->lost = true;
	}
	cifs_sqos_arm(f, now);
	if (lost && !rc && nt == SQOS_NT_SUCCESS && !f->dying &&
	    cifs_sqos_lost(f))
		mod_delayed_work(cifsiod_wq, &f->timer, 0);
	spin_unlock_irqrestore(&cifs_sqos_lock, flags);
}

/* Unlink @cfile from its flow; the caller frees what this returns. */
static struct cifs_sqos_handle *cifs_sqos_unlink(struct cifsFileInfo *cfile)
{
	struct cifs_sqos_handle *h = cfile->sqos;
	struct cifs_sqos_flow *f;

	lockdep_assert_held(&cifs_sqos_lock);
	if (!h)
		return NULL;
	cfile->sqos = NULL;
	f = h->flow;
	list_del(&h->node);
	if (!--f->nr_handles)
		cancel_delayed_work(&f->timer);
	cifs_sqos_flow_put_locked(f);
	return h;
}

/* Take @cfile out of its flow, if it is in one. */
static void cifs_sqos_detach(struct cifsFileInfo *cfile)
{
	struct cifs_sqos_handle *h;
	unsigned long flags;

	spin_lock_irqsave(&cifs_sqos_lock, flags);
	h = cifs_sqos_unlink(cfile);
	spin_unlock_irqrestore(&cifs_sqos_lock, flags);
	kfree(h);
}

/*
 * Put @cfile in flow @id, creating the flow, and out of the flow it was in
 * (in one step: two ioctls on one handle at once leave it in one flow).
 * The caller holds a use of sqos.ko.
 */
static int cifs_sqos_attach(const struct sqos_ops *ops,
			    struct cifsFileInfo *cfile, const guid_t *id)
{
	struct cifs_sqos_handle *h, *old;
	struct cifs_sqos_flow *nf, *f;
	unsigned long flags;

	nf = kzalloc(sizeof(*nf), GFP_KERNEL);
	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!nf || !h) {
		kfree(nf);
		kfree(h);
		return -ENOMEM;
	}
	nf->id = *id;
	INIT_LIST_HEAD(&nf->handles);
	INIT_DELAYED_WORK(&nf->timer, cifs_sqos_status_work);
	INIT_WORK(&nf->free_work, cifs_sqos_free_work);
	ops->client_flow_init(&nf->cf, id, cifs_sqos_now());

	spin_lock_irqsave(&cifs_sqos_lock, flags);
	f = cifs_sqos_find(id);
	if (!f) {
		f = nf;
		nf = NULL;
		list_add(&f->node, &cifs_sqos_flows);
		/* The flow's use of sqos.ko; dropped by its free work */
		cifs_sqos_users++;
	}
	f->ref++;
	f->nr_handles++;
	old = cifs_sqos_unlink(cfile);
	h->flow = f;
	h->cfile = cfile;
	list_add_tail(&h->node, &f->handles);
	cfile->sqos = h;
	spin_unlock_irqrestore(&cifs_sqos_lock, flags);
	kfree(old);
	kfree(nf);
	return 0;
}

/*
 * A copy of the policy an accepted SET_POLICY request (@req, decoded from
 * the @in_len bytes at @in) set, or NULL if its names are not ones
 * cifs_sqos_build_rejoin() could send again.
 */
static struct cifs_sqos_policy *
cifs_sqos_policy_of(const struct sqos_request *req, const u8 *in, u32 in_len)
{
	u32 nl = req->name_len, nnl = req->node_name_len;
	struct cifs_sqos_policy *p;

	if (nl > STORAGE_QOS_INITIATOR_NAME_SIZE || (nl & 1) ||
	    nnl > STORAGE_QOS_INITIATOR_NAME_SIZE || (nnl & 1) ||
	    (nl && (req->name_off > in_len ||
		    nl > in_len - req->name_off)) ||
	    (nnl && (req->node_name_off > in_len ||
		     nnl > in_len - req->node_name_off)))
		return NULL;
	p = kmalloc(struct_size(p, names, nl + nnl), GFP_KERNEL);
	if (!p)
		return NULL;
	p->policy_id = req->policy_id;
	p->initiator_id = req->initiator_id;
	p->limit = req->limit;
	p->reservation = req->reservation;
	p->name_len = nl;
	p->node_name_len = nnl;
	if (nl)
		memcpy(p->names, in + req->name_off, nl);
	if (nnl)
		memcpy(p->names + nl, in + req->node_name_off, nnl);
	return p;
}

/*
 * What the server's answer to the request at @in (@in_len bytes, decoded
 * as @req) means for the handle and its flow (3.1.5.1)
 */
static void cifs_sqos_apply(const struct sqos_ops *ops,
			    struct cifsFileInfo *cfile,
			    const struct sqos_request *req, const u8 *in,
			    u32 in_len, u32 nt, const void *out, u32 out_len)
{
	struct cifs_sqos_policy *policy = NULL;
	struct cifs_sqos_flow *f;
	unsigned long flags;
	bool move = false;
	guid_t cur = {};
	u64 now;

	spin_lock_irqsave(&cifs_sqos_lock, flags);
	if (cfile->sqos)
		cur = cfile->sqos->flow->id;
	if (nt == SQOS_NT_SUCCESS) {
		if (req->options & STORAGE_QOS_CONTROL_FLAG_SET_LOGICAL_FLOW_ID)
			move = !guid_equal(&cur, &req->flow_id);
		else if ((req->options & STORAGE_QOS_CONTROL_FLAG_PROBE_POLICY) &&
			 !cfile->sqos)
			move = !guid_is_null(&req->flow_id);
	}
	spin_unlock_irqrestore(&cifs_sqos_lock, flags);

	if (move) {
		if (guid_is_null(&req->flow_id))
			cifs_sqos_detach(cfile);
		else if (cifs_sqos_attach(ops, cfile, &req->flow_id))
			cifs_dbg(VFS, "Storage QoS: no memory to track the flow of a handle\n");
	}
	if (nt == SQOS_NT_SUCCESS &&
	    (req->options & STORAGE_QOS_CONTROL_FLAG_SET_POLICY))
		policy = cifs_sqos_policy_of(req, in, in_len);

	spin_lock_irqsave(&cifs_sqos_lock, flags);
	f = cfile->sqos ? cfile->sqos->flow : NULL;
	if (f && policy)
		swap(f->policy, policy);
	if (f) {
		now = cifs_sqos_now();
		if (nt != SQOS_NT_SUCCESS || out_len)
			ops->client_handle_response(&f->cf, nt, out, out_len,
						    now, NULL);
		else if ((move ||
			  (req->options & STORAGE_QOS_CONTROL_FLAG_SET_POLICY)) &&
			 f->cf.timer_ns > now + NSEC_PER_SEC)
			/*
			 * A new policy (3.1.6) or a new flow without its
			 * status: ask for it within 1 s.
			 */
			f->cf.timer_ns = now + NSEC_PER_SEC;
		cifs_sqos_arm(f, now);
	}
	spin_unlock_irqrestore(&cifs_sqos_lock, flags);
	kfree(policy);
}

/* The handle's state for the ioctl's caller */
static void cifs_sqos_report(struct cifsFileInfo *cfile,
			     struct cifs_sqos_control *c)
{
	struct cifs_sqos_flow *f;
	unsigned long flags;
	u64 now;

	spin_lock_irqsave(&cifs_sqos_lock, flags);
	f = cfile->sqos ? cfile->sqos->flow : NULL;
	c->timer_ms = CIFS_SQOS_TIMER_NEVER;
	if (f) {
		now = cifs_sqos_now();
		c->flags |= CIFS_SQOS_TRACKED;
		if (f->cf.max_rate && READ_ONCE(sqos_throttle))
			c->flags |= CIFS_SQOS_THROTTLED;
		c->max_rate = f->cf.max_rate;
		c->base_io_size = f->cf.base_io_size;
		memcpy(c->flow_id, &f->id, sizeof(c->flow_id));
		if (f->cf.timer_ns != SQOS_TIMER_NEVER)
			c->timer_ms = f->cf.timer_ns > now ?
				min_t(u64, div_u64(f->cf.timer_ns - now,
						   NSEC_PER_MSEC),
				      CIFS_SQOS_TIMER_NEVER - 1) : 0;
	}
	spin_unlock_irqrestore(&cifs_sqos_lock, flags);
}

/*
 * One SMB2 IOCTL FSCTL_STORAGE_QOS_CONTROL on a handle. Return: 0 when
 * the server answered (*ntstatus is its status; on success the output, at
 * most @max_out bytes, is in @out), or a negative errno when it did not.
 */
static int cifs_sqos_send(unsigned int xid, struct cifs_tcon *tcon,
			  u64 persistent_fid, u64 volatile_fid, void *in,
			  u32 in_len, u32 max_out, void *out, u32 *out_len,
			  u32 *ntstatus)
{
	struct kvec iov[SMB2_IOCTL_IOV_SIZE] = {};
	struct smb_rqst rqst = { .rq_iov = iov,
				 .rq_nvec = SMB2_IOCTL_IOV_SIZE };
	int resp_buftype = CIFS_NO_BUFFER, flags = 0, rc;
	struct TCP_Server_Info *server;
	struct kvec rsp_iov = {};
	struct smb2_ioctl_rsp *rsp;
	struct smb2_hdr *hdr;
	u32 off, len;

	*out_len = 0;
	server = cifs_pick_channel(tcon->ses);
	if (!server)
		return -EIO;
	if (smb3_encryption_required(tcon))
		flags |= CIFS_TRANSFORM_REQ;
	rc = SMB2_ioctl_init(tcon, server, &rqst, persistent_fid, volatile_fid,
			     FSCTL_STORAGE_QOS_CONTROL, in, in_len, max_out);
	if (rc)
		return rc;
	rc = cifs_send_recv(xid, tcon->ses, server, &rqst, &resp_buftype,
			    flags, &rsp_iov);
	hdr = rsp_iov.iov_base;
	if (!hdr || rsp_iov.iov_len < sizeof(*hdr)) {
		if (!rc)
			rc = -EIO;
		goto out;
	}
	/* The server answered: its status is the outcome, whatever rc says. */
	rc = 0;
	*ntstatus = le32_to_cpu(hdr->Status);
	if (*ntstatus != SQOS_NT_SUCCESS)
		goto out;
	rsp = rsp_iov.iov_base;
	if (rsp_iov.iov_len < sizeof(*rsp)) {
		rc = -EIO;
		goto out;
	}
	len = le32_to_cpu(rsp->OutputCount);
	off = le32_to_cpu(rsp->OutputOffset);
	if (!len)
		goto out;
	if (len > max_out || off > rsp_iov.iov_len ||
	    len > rsp_iov.iov_len - off) {
		rc = -EIO;
		goto out;
	}
	memcpy(out, (u8 *)rsp + off, len);
	*out_len = len;
out:
	SMB2_ioctl_free(&rqst);
	free_rsp_buf(resp_buftype, rsp_iov.iov_base);
	return rc;
}

/**
 * cifs_sqos_ioctl() - CIFS_IOC_SQOS_CONTROL on an open file
 * @filep: the file; its SMB2 handle gets the FSCTL
 * @arg: struct cifs_sqos_control in user space
 *
 * Only a regular file's open can be tagged: a directory's handle is freed
 * by cifs_closedir() without the final put that takes a handle out of its
 * flow (cifs_sqos_close()), so it is refused before anything is sent.
 *
 * Return: 0 when the server answered (its NTSTATUS is in the argument),
 * otherwise a negative errno (include/smbdirect/sqos_ioctl.h): -EISDIR
 * for a directory, -EBADF for any other open that is not a regular file's.
 */
long cifs_sqos_ioctl(struct file *filep, void __user *arg)
{
	umode_t mode = file_inode(filep)->i_mode;
	struct cifsFileInfo *cfile = filep->private_data;
	const struct sqos_ops *ops;
	struct cifs_sqos_control c;
	struct sqos_request req;
	struct cifs_tcon *tcon;
	bool decoded = false;
	void *in = NULL, *out;
	unsigned int xid;
	u32 out_len = 0, nt = 0;
	int rc;

	if (S_ISDIR(mode))
		return -EISDIR;
	if (!S_ISREG(mode) || !cfile || !cfile->tlink)
		return -EBADF;
	tcon = tlink_tcon(cfile->tlink);
	if (tcon->ses->server->vals->protocol_id < SMB20_PROT_ID)
		return -EOPNOTSUPP;
	if (copy_from_user(&c, arg, sizeof(c)))
		return -EFAULT;
	if (c.in_len > CIFS_SQOS_MAX_IN || c.max_out > CIFS_SQOS_MAX_OUT ||
	    c.reserved)
		return -EINVAL;
	if (c.in_len) {
		in = memdup_user(u64_to_user_ptr(c.in_ptr), c.in_len);
		if (IS_ERR(in))
			return PTR_ERR(in);
	}
	out = kzalloc(max_t(u32, c.max_out, 1), GFP_KERNEL);
	if (!out) {
		kfree(in);
		return -ENOMEM;
	}

	ops = cifs_sqos_get();
	if (ops)
		decoded = !ops->request_decode(in, c.in_len, &req);
	xid = get_xid();
	rc = cifs_sqos_send(xid, tcon, cfile->fid.persistent_fid,
			    cfile->fid.volatile_fid, in, c.in_len, c.max_out,
			    out, &out_len, &nt);
	free_xid(xid);
	if (rc)
		goto out;
	if (decoded)
		cifs_sqos_apply(ops, cfile, &req, in, c.in_len, nt, out,
				out_len);

	c.out_len = out_len;
	c.ntstatus = nt;
	c.flags = ops ? CIFS_SQOS_BOUND : 0;
	c.max_rate = 0;
	c.base_io_size = 0;
	memset(c.flow_id, 0, sizeof(c.flow_id));
	cifs_sqos_report(cfile, &c);
	if ((out_len && copy_to_user(u64_to_user_ptr(c.out_ptr), out, out_len)) ||
	    copy_to_user(arg, &c, sizeof(c)))
		rc = -EFAULT;
out:
	if (ops)
		cifs_sqos_put();
	kfree(out);
	kfree(in);
	return rc;
}

/* Deferred issue of a throttled subrequest */
static void cifs_sqos_issue_work(struct work_struct *work)
{
	struct cifs_sqos_io *q = container_of(to_delayed_work(work),
					      struct cifs_sqos_io, dwork);
	struct cifs_io_subrequest *sub = container_of(q,
						      struct cifs_io_subrequest,
						      sqos);

	q->issued_ns = cifs_sqos_now();
	q->issue(&sub->subreq);
}

/**
 * cifs_sqos_defer() - charge a READ or WRITE to its handle's flow
 * @sub: the subrequest about to be issued
 * @cfile: the handle it goes out on
 * @bytes: its length (over SMB Direct, the RDMA length)
 * @issue: the function issuing it, called again after a delay
 *
 * Counts the I/O in the flow's counters and, when the flow's MaximumIoRate
 * calls for it, delays the issue (MS-SQOS 3.1.7.1). A flow whose status
 * timer expired while it was idle asks for its status now (3.1.6).
 *
 * Return: true if the issue was deferred: the caller must return at once;
 * false to issue now.
 */
bool cifs_sqos_defer(struct cifs_io_subrequest *sub, struct cifsFileInfo *cfile,
		     size_t bytes,
		     void (*issue)(struct netfs_io_subrequest *subreq))
{
	struct cifs_sqos_io *q = &sub->sqos;
	struct cifs_sqos_flow *f = NULL;
	unsigned long flags;
	u64 now, delay = 0;

	if (q->admitted || !cfile || !READ_ONCE(cfile->sqos))
		return false;
	now = cifs_sqos_now();
	spin_lock_irqsave(&cifs_sqos_lock, flags);
	if (cfile->sqos) {
		f = cfile->sqos->flow;
		f->ref++;
		delay = cifs_sqos_ops->client_io_start(&f->cf, bytes, now);
		if (f->cf.timer_ns <= now)
			cifs_sqos_arm(f, now);
	}
	spin_unlock_irqrestore(&cifs_sqos_lock, flags);
	q->flow = f;
	q->admitted = true;
	q->queued_ns = now;
	if (!delay || !READ_ONCE(sqos_throttle)) {
		q->issued_ns = now;
		return false;
	}
	q->issue = issue;
	INIT_DELAYED_WORK(&q->dwork, cifs_sqos_issue_work);
	queue_delayed_work(cifsiod_wq, &q->dwork, nsecs_to_jiffies(delay) + 1);
	return true;
}

/**
 * cifs_sqos_io_end() - a subrequest is being freed
 * @sub: the subrequest
 *
 * Adds its latency, with and without the time it was held back, to the
 * flow's counters (100 ns units) and drops its reference on the flow.
 */
void cifs_sqos_io_end(struct cifs_io_subrequest *sub)
{
	struct cifs_sqos_io *q = &sub->sqos;
	struct cifs_sqos_flow *f = q->flow;
	unsigned long flags;
	u64 now, issued;

	if (!f)
		return;
	q->flow = NULL;
	now = cifs_sqos_now();
	issued = q->issued_ns ? q->issued_ns : now;
	spin_lock_irqsave(&cifs_sqos_lock, flags);
	cifs_sqos_ops->client_io_done(&f->cf,
				      div_u64(now - min(now, q->queued_ns), 100),
				      div_u64(now - min(now, issued), 100));
	cifs_sqos_flow_put_locked(f);
	spin_unlock_irqrestore(&cifs_sqos_lock, flags);
}

/**
 * cifs_sqos_close() - the final put of a handle: it leaves its flow
 * @cfile: the handle
 */
void cifs_sqos_close(struct cifsFileInfo *cfile)
{
	if (READ_ONCE(cfile->sqos))
		cifs_sqos_detach(cfile);
}

/**
 * cifs_sqos_tagged() - is a handle in a logical flow
 * @cfile: the handle
 *
 * Return: true if CIFS_IOC_SQOS_CONTROL put it in one.
 */
bool cifs_sqos_tagged(struct cifsFileInfo *cfile)
{
	return READ_ONCE(cfile->sqos);
}

/**
 * cifs_sqos_reopened() - cifs reopened a handle after a reconnection
 * @cfile: the handle, with its new SMB2 file id
 *
 * The server's new open is not in the handle's flow: the flow's status
 * work associates it again (SET_LOGICAL_FLOW_ID, the flow's last accepted
 * SET_POLICY, GET_STATUS) as soon as it can run. Until then the client
 * keeps throttling the handle at the rate it last got.
 */
void cifs_sqos_reopened(struct cifsFileInfo *cfile)
{
	struct cifs_sqos_flow *f;
	unsigned long flags;

	if (!READ_ONCE(cfile->sqos))
		return;
	spin_lock_irqsave(&cifs_sqos_lock, flags);
	if (cfile->sqos) {
		f = cfile->sqos->flow;
		cfile->sqos->lost = true;
		if (!f->dying)
			mod_delayed_work(cifsiod_wq, &f->timer, 0);
	}
	spin_unlock_irqrestore(&cifs_sqos_lock, flags);
}
