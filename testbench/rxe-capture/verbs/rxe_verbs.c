// SPDX-License-Identifier: Apache-2.0
// rxe_verbs: drive RoCEv2 cases that stock tools (perftest, ibv_*_pingpong) cannot produce.
//
// One process opens two verbs devices (requester -a, responder -b; in the rxe-capture guest these
// are rxe1 and rxe0 on the two ends of a veth pair), connects one RC (or UD) QP on each, and runs
// a list of operations from the requester to the responder, one at a time, waiting for every
// completion under a deadline. Because both QPs live in this process there is no out-of-band
// exchange, and the initial PSN is free: `-p 0xfffff0` makes the 24-bit PSN wrap after 16
// packets.
//
// Operations (-o, comma separated, each `op:bytes[xcount]`):
//   send, send_imm, write, write_imm, read, cas, faa, send_inv (SEND with Invalidate of a freshly
//   bound type-2 memory window), send_rnr (SEND posted 50 ms before its receive: RNR NAKs) (RC),
//   and send, send_imm (UD).
//   bytes may be 0 (zero-length message: no SGE), 1 or 3 (pad count 3 and 1), up to -m.
//   cas and faa are 8-byte atomics (bytes is ignored).
//
// Exit status: 0 when every work request completed with IBV_WC_SUCCESS, 1 otherwise.
// Built on the host against libibverbs (`gcc -O2 rxe_verbs.c -libverbs`) and run in the guest.
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <infiniband/verbs.h>

#define PORT 1
#define QKEY 0x11111111u

struct side {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx; /* extended send API: BIND_MW and SEND with Invalidate */
	struct ibv_mr *mr;
	struct ibv_mw *mw;
	struct ibv_ah *ah; /* UD: address handle towards the other side */
	union ibv_gid gid;
	enum ibv_mtu mtu;
	uint8_t *buf;
	size_t len;
};

static int g_gid_idx = 1;
static uint32_t g_psn = 0;
static int g_ud = 0;
static size_t g_max = 16384;
static int g_deadline_s = 10;
static int g_verbose = 0;
static int g_rnr_timer = 12;

static void die(const char *what)
{
	fprintf(stderr, "rxe_verbs: %s: %s\n", what, strerror(errno));
	exit(1);
}

static struct ibv_context *open_dev(const char *name)
{
	int n = 0;
	struct ibv_device **l = ibv_get_device_list(&n);
	if (!l)
		die("ibv_get_device_list");
	for (int i = 0; i < n; i++) {
		if (!strcmp(ibv_get_device_name(l[i]), name)) {
			struct ibv_context *c = ibv_open_device(l[i]);
			ibv_free_device_list(l);
			if (!c)
				die("ibv_open_device");
			return c;
		}
	}
	fprintf(stderr, "rxe_verbs: device %s not found\n", name);
	exit(1);
}

static void setup(struct side *s, const char *dev)
{
	struct ibv_port_attr pa;
	s->name = dev;
	s->ctx = open_dev(dev);
	if (ibv_query_port(s->ctx, PORT, &pa))
		die("ibv_query_port");
	s->mtu = pa.active_mtu;
	if (ibv_query_gid(s->ctx, PORT, g_gid_idx, &s->gid))
		die("ibv_query_gid");
	s->pd = ibv_alloc_pd(s->ctx);
	if (!s->pd)
		die("ibv_alloc_pd");
	s->cq = ibv_create_cq(s->ctx, 256, NULL, NULL, 0);
	if (!s->cq)
		die("ibv_create_cq");
	s->len = g_max + 4096;
	s->buf = aligned_alloc(4096, s->len);
	if (!s->buf)
		die("aligned_alloc");
	for (size_t i = 0; i < s->len; i++)
		s->buf[i] = (uint8_t)(i * 7 + (s->name[3]));
	s->mr = ibv_reg_mr(s->pd, s->buf, s->len,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND);
	if (!s->mr)
		die("ibv_reg_mr");
	struct ibv_qp_init_attr_ex ia = {
		.send_cq = s->cq,
		.recv_cq = s->cq,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64, .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = g_ud ? IBV_QPT_UD : IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = s->pd,
		.send_ops_flags = IBV_QP_EX_WITH_SEND |
				  (g_ud ? 0 : IBV_QP_EX_WITH_SEND_WITH_INV | IBV_QP_EX_WITH_BIND_MW),
	};
	s->qp = ibv_create_qp_ex(s->ctx, &ia);
	if (!s->qp)
		die("ibv_create_qp_ex");
	s->qpx = ibv_qp_to_qp_ex(s->qp);
}

static void connect_qp(struct side *s, struct side *peer)
{
	struct ibv_qp_attr a;
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = PORT;
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
	if (g_ud) {
		a.qkey = QKEY;
		mask |= IBV_QP_QKEY;
	} else {
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_ATOMIC;
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	if (ibv_modify_qp(s->qp, &a, mask))
		die("modify INIT");

	struct ibv_ah_attr ah = {
		.is_global = 1,
		.port_num = PORT,
		.grh = { .dgid = peer->gid, .sgid_index = g_gid_idx, .hop_limit = 64 },
	};
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_RTR;
	mask = IBV_QP_STATE;
	if (!g_ud) {
		a.path_mtu = s->mtu < peer->mtu ? s->mtu : peer->mtu;
		a.dest_qp_num = peer->qp->qp_num;
		a.rq_psn = g_psn;
		a.max_dest_rd_atomic = 16;
		a.min_rnr_timer = (uint8_t)g_rnr_timer;
		a.ah_attr = ah;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	}
	if (ibv_modify_qp(s->qp, &a, mask))
		die("modify RTR");

	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = g_psn;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (!g_ud) {
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 16;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
	}
	if (ibv_modify_qp(s->qp, &a, mask))
		die("modify RTS");
	if (g_ud) {
		s->ah = ibv_create_ah(s->pd, &ah);
		if (!s->ah)
			die("ibv_create_ah");
	}
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Wait for one completion on s->cq; return 0 on IBV_WC_SUCCESS. */
static int wait_wc(struct side *s, const char *what, uint32_t *imm, int *has_imm)
{
	struct ibv_wc wc;
	double end = now() + g_deadline_s;
	for (;;) {
		int n = ibv_poll_cq(s->cq, 1, &wc);
		if (n < 0)
			die("ibv_poll_cq");
		if (n == 1)
			break;
		if (now() > end) {
			fprintf(stderr, "rxe_verbs: %s: no completion on %s within %d s\n", what,
				s->name, g_deadline_s);
			return 1;
		}
		usleep(100);
	}
	if (wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "rxe_verbs: %s: %s completion status %s (%d) opcode %d\n", what,
			s->name, ibv_wc_status_str(wc.status), wc.status, wc.opcode);
		return 1;
	}
	if (imm)
		*imm = ntohl(wc.imm_data);
	if (has_imm)
		*has_imm = !!(wc.wc_flags & IBV_WC_WITH_IMM);
	return 0;
}

static int post_recv(struct side *s, size_t bytes)
{
	/* UD receives carry a 40-byte GRH in front of the payload. */
	size_t extra = g_ud ? 40 : 0;
	struct ibv_sge sge = { .addr = (uintptr_t)s->buf, .length = (uint32_t)(bytes + extra),
			       .lkey = s->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 }, *bad;
	if (ibv_post_recv(s->qp, &wr, &bad)) {
		fprintf(stderr, "rxe_verbs: ibv_post_recv: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

/* Responder side: bind a type-2 memory window so that SEND with Invalidate has an rkey to kill. */
static int bind_mw(struct side *s, uint32_t *rkey)
{
	/* a fresh window per bind: the provider does not track the rkey of a re-bound window */
	if (s->mw)
		ibv_dealloc_mw(s->mw);
	s->mw = ibv_alloc_mw(s->pd, IBV_MW_TYPE_2);
	if (!s->mw) {
		fprintf(stderr, "rxe_verbs: ibv_alloc_mw: %s\n", strerror(errno));
		return 1;
	}
	/* the legacy ibv_post_send path of the rxe provider drops the bind fields: use ibv_wr_* */
	struct ibv_mw_bind_info bi = {
		.mr = s->mr,
		.addr = (uintptr_t)s->buf,
		.length = 4096,
		.mw_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	};
	uint32_t nk = ibv_inc_rkey(s->mw->rkey);
	ibv_wr_start(s->qpx);
	s->qpx->wr_id = 9;
	s->qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(s->qpx, s->mw, nk, &bi);
	if (ibv_wr_complete(s->qpx)) {
		fprintf(stderr, "rxe_verbs: BIND_MW: %s\n", strerror(errno));
		return 1;
	}
	if (wait_wc(s, "bind_mw", NULL, NULL))
		return 1;
	*rkey = nk;
	return 0;
}

static int run_op(struct side *rq, struct side *rs, const char *op, size_t bytes, unsigned seq)
{
	struct ibv_sge sge = { .addr = (uintptr_t)rq->buf, .length = (uint32_t)bytes,
			       .lkey = rq->mr->lkey };
	struct ibv_send_wr wr, *bad;
	int need_recv = 0;
	memset(&wr, 0, sizeof wr);
	wr.wr_id = seq;
	wr.sg_list = &sge;
	wr.num_sge = bytes ? 1 : 0;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.imm_data = htonl(0xc0de0000u | (seq & 0xffff));
	uint64_t raddr = (uintptr_t)rs->buf;

	if (!strcmp(op, "send")) {
		wr.opcode = IBV_WR_SEND;
		need_recv = 1;
	} else if (!strcmp(op, "send_rnr")) {
		/* no receive posted yet: the responder answers RNR NAK until one appears 50 ms later */
		wr.opcode = IBV_WR_SEND;
		if (ibv_post_send(rq->qp, &wr, &bad)) {
			fprintf(stderr, "rxe_verbs: ibv_post_send send_rnr: %s\n", strerror(errno));
			return 1;
		}
		usleep(50000);
		if (post_recv(rs, bytes))
			return 1;
		int rc = wait_wc(rq, "send_rnr", NULL, NULL) | wait_wc(rs, "send_rnr", NULL, NULL);
		if (g_verbose)
			printf("send_rnr:%zu #%u %s\n", bytes, seq, rc ? "FAILED" : "ok");
		return rc;
	} else if (!strcmp(op, "send_imm")) {
		wr.opcode = IBV_WR_SEND_WITH_IMM;
		need_recv = 1;
	} else if (!strcmp(op, "send_inv")) {
		uint32_t rkey;
		if (bind_mw(rs, &rkey))
			return 1;
		if (post_recv(rs, bytes))
			return 1;
		ibv_wr_start(rq->qpx);
		rq->qpx->wr_id = seq;
		rq->qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send_inv(rq->qpx, rkey);
		if (bytes)
			ibv_wr_set_sge(rq->qpx, rq->mr->lkey, (uintptr_t)rq->buf, (uint32_t)bytes);
		else
			ibv_wr_set_sge_list(rq->qpx, 0, NULL);
		if (ibv_wr_complete(rq->qpx)) {
			fprintf(stderr, "rxe_verbs: SEND_WITH_INV: %s\n", strerror(errno));
			return 1;
		}
		char what[64];
		snprintf(what, sizeof what, "%s:%zu #%u rkey 0x%08x", op, bytes, seq, rkey);
		int rc = wait_wc(rq, what, NULL, NULL) | wait_wc(rs, what, NULL, NULL);
		if (g_verbose)
			printf("%s %s\n", what, rc ? "FAILED" : "ok");
		return rc;
	} else if (!strcmp(op, "write") || !strcmp(op, "write_imm")) {
		wr.opcode = op[5] ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rs->mr->rkey;
		need_recv = op[5] != 0;
	} else if (!strcmp(op, "read")) {
		wr.opcode = IBV_WR_RDMA_READ;
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rs->mr->rkey;
	} else if (!strcmp(op, "cas") || !strcmp(op, "faa")) {
		sge.length = 8;
		wr.num_sge = 1;
		wr.opcode = op[0] == 'c' ? IBV_WR_ATOMIC_CMP_AND_SWP : IBV_WR_ATOMIC_FETCH_AND_ADD;
		wr.wr.atomic.remote_addr = raddr + 64; /* 8-byte aligned */
		wr.wr.atomic.rkey = rs->mr->rkey;
		uint64_t cur;
		memcpy(&cur, rs->buf + 64, 8);
		wr.wr.atomic.compare_add = op[0] == 'c' ? cur : 0x10001; /* CAS that succeeds */
		wr.wr.atomic.swap = 0x5eed000000000000ull | seq;
	} else {
		fprintf(stderr, "rxe_verbs: unknown op %s\n", op);
		return 2;
	}
	if (g_ud) {
		if (wr.opcode != IBV_WR_SEND && wr.opcode != IBV_WR_SEND_WITH_IMM) {
			fprintf(stderr, "rxe_verbs: op %s is not valid on UD\n", op);
			return 2;
		}
		wr.wr.ud.ah = rq->ah;
		wr.wr.ud.remote_qpn = rs->qp->qp_num;
		wr.wr.ud.remote_qkey = QKEY;
	}
	if (need_recv && post_recv(rs, bytes))
		return 1;
	if (ibv_post_send(rq->qp, &wr, &bad)) {
		fprintf(stderr, "rxe_verbs: ibv_post_send %s:%zu: %s\n", op, bytes, strerror(errno));
		return 1;
	}
	char what[64];
	snprintf(what, sizeof what, "%s:%zu #%u", op, bytes, seq);
	int rc = wait_wc(rq, what, NULL, NULL);
	if (need_recv) {
		uint32_t imm = 0;
		int has_imm = 0;
		rc |= wait_wc(rs, what, &imm, &has_imm);
		if (!rc && has_imm != (strstr(op, "_imm") != NULL)) {
			fprintf(stderr, "rxe_verbs: %s: immediate flag mismatch\n", what);
			rc = 1;
		}
	}
	if (g_verbose)
		printf("%s %s\n", what, rc ? "FAILED" : "ok");
	return rc;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: rxe_verbs -a REQ_DEV -b RESP_DEV [-g GID_INDEX] [-p START_PSN] [-u] [-m MAX]\n"
		"                 [-t DEADLINE_S] [-r MIN_RNR_TIMER] [-v] -o op:bytes[xN],...\n"
		"  ops: send send_imm send_inv send_rnr write write_imm read cas faa\n"
		"       (UD: send send_imm)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *da = NULL, *db = NULL;
	char *ops = NULL;
	int c;
	while ((c = getopt(argc, argv, "a:b:g:p:um:o:t:r:v")) != -1) {
		switch (c) {
		case 'a': da = optarg; break;
		case 'b': db = optarg; break;
		case 'g': g_gid_idx = atoi(optarg); break;
		case 'p': g_psn = (uint32_t)strtoul(optarg, NULL, 0) & 0xffffff; break;
		case 'u': g_ud = 1; break;
		case 'm': g_max = strtoul(optarg, NULL, 0); break;
		case 'o': ops = strdup(optarg); break;
		case 't': g_deadline_s = atoi(optarg); break;
		case 'r': g_rnr_timer = atoi(optarg); break;
		case 'v': g_verbose = 1; break;
		default: usage();
		}
	}
	if (!da || !db || !ops)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct side A, B;
	memset(&A, 0, sizeof A);
	memset(&B, 0, sizeof B);
	setup(&A, da);
	setup(&B, db);
	connect_qp(&A, &B);
	connect_qp(&B, &A);
	printf("rxe_verbs: %s qpn 0x%06x -> %s qpn 0x%06x, %s, mtu %d, start psn 0x%06x\n", da,
	       A.qp->qp_num, db, B.qp->qp_num, g_ud ? "UD" : "RC", 128 << A.mtu, g_psn);

	unsigned seq = 0, fails = 0, total = 0;
	for (char *save = NULL, *tok = strtok_r(ops, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char op[32];
		size_t bytes = 0;
		unsigned count = 1;
		char *colon = strchr(tok, ':');
		if (!colon || colon - tok >= (long)sizeof op)
			usage();
		memcpy(op, tok, colon - tok);
		op[colon - tok] = 0;
		bytes = strtoul(colon + 1, &colon, 0);
		if (*colon == 'x')
			count = (unsigned)strtoul(colon + 1, NULL, 0);
		if (bytes > g_max) {
			fprintf(stderr, "rxe_verbs: %s: %zu bytes exceeds -m %zu\n", tok, bytes, g_max);
			return 2;
		}
		for (unsigned i = 0; i < count; i++, total++) {
			int rc = run_op(&A, &B, op, bytes, seq++);
			if (rc == 2)
				return 2;
			fails += rc != 0;
			if (rc && !g_ud)
				goto out; /* an RC error moves the QP to the error state */
		}
	}
out:
	printf("rxe_verbs: %u operations, %u failed\n", total, fails);
	return fails ? 1 : 0;
}
