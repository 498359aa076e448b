//! libibverbs backend (feature `verbs`): safe wrappers over `rdma-sys` for one RC connection on
//! a RoCE device (Soft-RoCE rxe or a NIC), and its [`Transport`] implementation.
//!
//! Objects and their owners: [`Context`] (an opened device) ← [`Pd`] ← [`MemoryRegion`],
//! [`Connection`] (CQs, RC QP, registered send/receive buffers). Each holds an `Rc` of its
//! parent, so a parent is freed only after every child (the order libibverbs requires).
//!
//! Every verbs failure is [`Error::Verbs`] naming the call and the errno (or the work-completion
//! status). This is the only module of the crate with `unsafe`; each block says why it is sound.

use crate::backend::{Endpoint, RemoteMr, Transport};
use crate::demo::Lease;
use crate::device::NO_DEVICE_HINT;
use crate::error::{Error, Result};
use rdma_sys as sys;
use std::alloc::Layout;
use std::ffi::{c_int, CStr};
use std::ptr::{self, NonNull};
use std::rc::Rc;
use std::time::{Duration, Instant};

/// `Error::Verbs` for `call` failing with `errno`.
fn verr(call: &str, errno: i32) -> Error {
    let e = std::io::Error::from_raw_os_error(errno);
    Error::Verbs(format!("{call}: errno {errno} ({e})"))
}

/// `Error::Verbs` for `call` from the thread's errno (calls that return NULL or -1).
fn last_err(call: &str) -> Error {
    verr(
        call,
        std::io::Error::last_os_error().raw_os_error().unwrap_or(0),
    )
}

/// A call that returns 0 or an errno value (ibv_modify_qp, post_send, ...).
fn check_rc(call: &str, rc: c_int) -> Result<()> {
    if rc == 0 {
        Ok(())
    } else if rc < 0 {
        Err(last_err(call))
    } else {
        Err(verr(call, rc))
    }
}

/// Name of a work-completion status (as `ibv_wc_status_str`, without the FFI call).
pub fn wc_status_name(status: u32) -> &'static str {
    use sys::ibv_wc_status::*;
    match status {
        IBV_WC_SUCCESS => "success",
        IBV_WC_LOC_LEN_ERR => "local length error",
        IBV_WC_LOC_QP_OP_ERR => "local QP operation error",
        IBV_WC_LOC_PROT_ERR => "local protection error",
        IBV_WC_WR_FLUSH_ERR => "Work Request Flushed Error",
        IBV_WC_BAD_RESP_ERR => "bad response error",
        IBV_WC_LOC_ACCESS_ERR => "local access error",
        IBV_WC_REM_INV_REQ_ERR => "remote invalid request error",
        IBV_WC_REM_ACCESS_ERR => "remote access error",
        IBV_WC_REM_OP_ERR => "remote operation error",
        IBV_WC_RETRY_EXC_ERR => "transport retry counter exceeded",
        IBV_WC_RNR_RETRY_EXC_ERR => "RNR retry counter exceeded",
        IBV_WC_REM_ABORT_ERR => "remote aborted error",
        IBV_WC_RESP_TIMEOUT_ERR => "response timeout error",
        IBV_WC_GENERAL_ERR => "general error",
        _ => "other error",
    }
}

/// `Error::Verbs` for a failed work completion of `op`.
fn wc_err(op: &str, status: u32, vendor: u32) -> Error {
    Error::Verbs(format!(
        "ibv_poll_cq: {op} completed with status {status} ({}), vendor error {vendor:#x}",
        wc_status_name(status)
    ))
}

/// Path MTU in bytes → `ibv_mtu` value; `None` for anything but 256, 512, 1024, 2048, 4096.
pub fn mtu_enum(bytes: u32) -> Option<u32> {
    match bytes {
        256 => Some(sys::ibv_mtu::IBV_MTU_256),
        512 => Some(sys::ibv_mtu::IBV_MTU_512),
        1024 => Some(sys::ibv_mtu::IBV_MTU_1024),
        2048 => Some(sys::ibv_mtu::IBV_MTU_2048),
        4096 => Some(sys::ibv_mtu::IBV_MTU_4096),
        _ => None,
    }
}

/// `ibv_mtu` value → bytes (0 for an unknown value).
pub fn mtu_bytes(mtu: u32) -> u32 {
    match mtu {
        1..=5 => 128 << mtu,
        _ => 0,
    }
}

/// Check `[va, va+len)` against the MR the peer advertised, before posting anything.
///
/// # Errors
/// [`Error::OutOfRange`] when the range leaves the MR or wraps.
pub fn check_remote(mr: &RemoteMr, va: u64, len: usize) -> Result<()> {
    let end = va.checked_add(len as u64).ok_or(Error::OutOfRange)?;
    let mr_end = mr.va.checked_add(mr.len).ok_or(Error::OutOfRange)?;
    if va < mr.va || end > mr_end {
        return Err(Error::OutOfRange);
    }
    Ok(())
}

// --- device ---------------------------------------------------------------------------------

/// An opened RDMA device.
pub struct Context {
    ctx: NonNull<sys::ibv_context>,
    name: String,
}

impl Context {
    /// Open the device called `name` (e.g. `rxe0`).
    ///
    /// # Errors
    /// [`Error::NoDevice`] when there is no device or none of that name (the message lists the
    /// devices found); [`Error::Verbs`] when listing or opening fails.
    pub fn open(name: &str) -> Result<Rc<Self>> {
        let mut n: c_int = 0;
        // SAFETY: `n` is a valid out-pointer; the list is freed below with
        // ibv_free_device_list and not used after.
        let list = unsafe { sys::ibv_get_device_list(&mut n) };
        if list.is_null() {
            return Err(last_err("ibv_get_device_list"));
        }
        let mut names = Vec::new();
        let mut found = ptr::null_mut();
        for i in 0..usize::try_from(n).unwrap_or(0) {
            // SAFETY: the list holds `n` valid device pointers (libibverbs contract).
            let dev = unsafe { *list.add(i) };
            // SAFETY: `dev` is a valid device; the name is a NUL-terminated string owned by it,
            // copied before the list is freed.
            let dn = unsafe { CStr::from_ptr(sys::ibv_get_device_name(dev)) }
                .to_string_lossy()
                .into_owned();
            if dn == name {
                found = dev;
            }
            names.push(dn);
        }
        let opened = if found.is_null() {
            None
        } else {
            // SAFETY: `found` is a device of the still-allocated list.
            Some(NonNull::new(unsafe { sys::ibv_open_device(found) }))
        };
        let err = last_err("ibv_open_device");
        // SAFETY: `list` came from ibv_get_device_list; an opened context stays valid after the
        // list is freed (libibverbs contract).
        unsafe { sys::ibv_free_device_list(list) };
        match opened {
            None if names.is_empty() => Err(Error::NoDevice(NO_DEVICE_HINT.into())),
            None => Err(Error::NoDevice(format!(
                "no device {name:?}; found: {}",
                names.join(", ")
            ))),
            Some(None) => Err(err),
            Some(Some(ctx)) => Ok(Rc::new(Self {
                ctx,
                name: name.into(),
            })),
        }
    }

    /// Device name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Active MTU of `port` in bytes, and whether the port is active.
    ///
    /// # Errors
    /// [`Error::Verbs`] (`ibv_query_port`).
    pub fn port(&self, port: u8) -> Result<(u32, bool)> {
        // SAFETY: ibv_port_attr is plain C data for which all-zero is a valid value.
        let mut attr: sys::ibv_port_attr = unsafe { std::mem::zeroed() };
        // SAFETY: the context is open; `attr` is a valid out-pointer of the right type.
        let rc = unsafe { sys::___ibv_query_port(self.ctx.as_ptr(), port, &mut attr) };
        check_rc("ibv_query_port", rc)?;
        Ok((
            mtu_bytes(attr.active_mtu),
            attr.state == sys::ibv_port_state::IBV_PORT_ACTIVE,
        ))
    }

    /// GID `index` of `port`.
    ///
    /// # Errors
    /// [`Error::Verbs`] (`ibv_query_gid`).
    pub fn gid(&self, port: u8, index: u8) -> Result<[u8; 16]> {
        let mut gid = sys::ibv_gid { raw: [0; 16] };
        // SAFETY: the context is open; `gid` is a valid out-pointer.
        let rc =
            unsafe { sys::ibv_query_gid(self.ctx.as_ptr(), port, c_int::from(index), &mut gid) };
        check_rc("ibv_query_gid", rc)?;
        // SAFETY: both union members are plain bytes; `raw` covers all 16.
        Ok(unsafe { gid.raw })
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: opened by ibv_open_device; every child holds an Rc of this, so none is left.
        unsafe { sys::ibv_close_device(self.ctx.as_ptr()) };
    }
}

/// A protection domain.
pub struct Pd {
    pd: NonNull<sys::ibv_pd>,
    ctx: Rc<Context>,
}

impl Pd {
    /// Allocate a protection domain on `ctx`.
    ///
    /// # Errors
    /// [`Error::Verbs`] (`ibv_alloc_pd`).
    pub fn new(ctx: &Rc<Context>) -> Result<Rc<Self>> {
        // SAFETY: the context is open.
        let pd = NonNull::new(unsafe { sys::ibv_alloc_pd(ctx.ctx.as_ptr()) })
            .ok_or_else(|| last_err("ibv_alloc_pd"))?;
        Ok(Rc::new(Self {
            pd,
            ctx: ctx.clone(),
        }))
    }

    /// The device this PD belongs to.
    pub fn context(&self) -> &Rc<Context> {
        &self.ctx
    }
}

impl Drop for Pd {
    fn drop(&mut self) {
        // SAFETY: allocated by ibv_alloc_pd; MRs and QPs hold an Rc of this, so none is left.
        unsafe { sys::ibv_dealloc_pd(self.pd.as_ptr()) };
    }
}

// --- memory ---------------------------------------------------------------------------------

/// Page-aligned memory registered with a PD. The device may read and write it at any time while
/// registered, so the library never hands out references into it: bytes go in and out by copy
/// ([`MemoryRegion::read_local`], [`MemoryRegion::write_local`]).
pub struct MemoryRegion {
    mr: Option<NonNull<sys::ibv_mr>>,
    buf: NonNull<u8>,
    layout: Layout,
    len: usize,
    lkey: u32,
    rkey: u32,
    _pd: Rc<Pd>,
}

/// Access rights of a memory region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Local use only (send/receive buffers, READ targets).
    Local,
    /// The peer may RDMA READ and WRITE it.
    RemoteReadWrite,
}

impl MemoryRegion {
    /// Allocate `len` zeroed bytes (page-aligned) and register them.
    ///
    /// # Errors
    /// [`Error::Verbs`] (`ibv_reg_mr`, or the allocation).
    pub fn new(pd: &Rc<Pd>, len: usize, access: Access) -> Result<Self> {
        let layout = Layout::from_size_align(len.max(1), 4096)
            .map_err(|e| Error::Verbs(format!("allocation of {len} bytes: {e}")))?;
        // SAFETY: the layout has a non-zero size.
        let buf = NonNull::new(unsafe { std::alloc::alloc_zeroed(layout) })
            .ok_or_else(|| Error::Verbs(format!("allocation of {len} bytes failed")))?;
        let mut flags = sys::ibv_access_flags::IBV_ACCESS_LOCAL_WRITE;
        if access == Access::RemoteReadWrite {
            flags = flags
                | sys::ibv_access_flags::IBV_ACCESS_REMOTE_READ
                | sys::ibv_access_flags::IBV_ACCESS_REMOTE_WRITE;
        }
        // SAFETY: `buf` points to `len` bytes that stay allocated until after ibv_dereg_mr
        // (Drop deregisters before it frees); the PD is alive (held below).
        let mr =
            unsafe { sys::ibv_reg_mr(pd.pd.as_ptr(), buf.as_ptr().cast(), len, flags.0 as c_int) };
        let Some(mr) = NonNull::new(mr) else {
            let e = last_err("ibv_reg_mr");
            // SAFETY: allocated above with this layout, never registered.
            unsafe { std::alloc::dealloc(buf.as_ptr(), layout) };
            return Err(e);
        };
        // SAFETY: ibv_reg_mr returned a valid MR.
        let (lkey, rkey) = unsafe { ((*mr.as_ptr()).lkey, (*mr.as_ptr()).rkey) };
        Ok(Self {
            mr: Some(mr),
            buf,
            layout,
            len,
            lkey,
            rkey,
            _pd: pd.clone(),
        })
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for a zero-length region.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Virtual address of byte 0 (what the peer puts in its RETH).
    pub fn addr(&self) -> u64 {
        self.buf.as_ptr() as u64
    }

    /// Local key.
    pub fn lkey(&self) -> u32 {
        self.lkey
    }

    /// The region as the peer addresses it; `None` once deregistered.
    pub fn remote(&self) -> Option<RemoteMr> {
        self.mr.map(|_| RemoteMr {
            va: self.addr(),
            rkey: self.rkey,
            len: self.len as u64,
        })
    }

    fn range(&self, off: usize, n: usize) -> Result<()> {
        match off.checked_add(n) {
            Some(end) if end <= self.len => Ok(()),
            _ => Err(Error::BufferTooSmall {
                need: off.saturating_add(n),
                have: self.len,
            }),
        }
    }

    /// Copy `out.len()` bytes at `off` out of the region.
    ///
    /// # Errors
    /// [`Error::BufferTooSmall`] past the end.
    pub fn read_local(&self, off: usize, out: &mut [u8]) -> Result<()> {
        self.range(off, out.len())?;
        // SAFETY: in bounds (checked); `out` cannot overlap the region (no reference into it is
        // ever handed out). The device may write concurrently only if the peer breaks the
        // protocol; the bytes read are then garbage but the memory stays valid.
        unsafe {
            ptr::copy_nonoverlapping(self.buf.as_ptr().add(off), out.as_mut_ptr(), out.len())
        };
        Ok(())
    }

    /// Copy `data` into the region at `off`.
    ///
    /// # Errors
    /// [`Error::BufferTooSmall`] past the end.
    pub fn write_local(&mut self, off: usize, data: &[u8]) -> Result<()> {
        self.range(off, data.len())?;
        // SAFETY: as in read_local, with the copy reversed.
        unsafe { ptr::copy_nonoverlapping(data.as_ptr(), self.buf.as_ptr().add(off), data.len()) };
        Ok(())
    }

    /// Deregister (the rkey stops working); the memory stays allocated until drop.
    ///
    /// # Errors
    /// [`Error::Verbs`] (`ibv_dereg_mr`).
    pub fn deregister(&mut self) -> Result<()> {
        if let Some(mr) = self.mr.take() {
            // SAFETY: registered by ibv_reg_mr and not yet deregistered (`take`).
            let rc = unsafe { sys::ibv_dereg_mr(mr.as_ptr()) };
            check_rc("ibv_dereg_mr", rc)?;
        }
        Ok(())
    }
}

impl Drop for MemoryRegion {
    fn drop(&mut self) {
        let _ = self.deregister();
        // SAFETY: allocated in `new` with `layout`; deregistered above, so the device no longer
        // touches it.
        unsafe { std::alloc::dealloc(self.buf.as_ptr(), self.layout) };
    }
}

impl Lease for MemoryRegion {
    fn remote(&self) -> Option<RemoteMr> {
        MemoryRegion::remote(self)
    }
    fn read_local(&self, off: usize, out: &mut [u8]) -> Result<()> {
        MemoryRegion::read_local(self, off, out)
    }
    fn flip_local(&mut self, off: usize, mask: u8) -> Result<()> {
        let mut b = [0u8; 1];
        MemoryRegion::read_local(self, off, &mut b)?;
        b[0] ^= mask;
        self.write_local(off, &b)
    }
    fn deregister(&mut self) -> Result<()> {
        MemoryRegion::deregister(self)
    }
}

// --- completion queue -----------------------------------------------------------------------

struct Cq {
    cq: NonNull<sys::ibv_cq>,
    _ctx: Rc<Context>,
}

impl Cq {
    fn new(ctx: &Rc<Context>, depth: usize) -> Result<Self> {
        let depth = c_int::try_from(depth).map_err(|_| Error::Verbs("CQ too deep".into()))?;
        // SAFETY: the context is open; no completion channel, no user context.
        let cq = unsafe {
            sys::ibv_create_cq(ctx.ctx.as_ptr(), depth, ptr::null_mut(), ptr::null_mut(), 0)
        };
        Ok(Self {
            cq: NonNull::new(cq).ok_or_else(|| last_err("ibv_create_cq"))?,
            _ctx: ctx.clone(),
        })
    }

    /// Poll one completion, waiting up to `timeout`: (wr_id, byte_len) of a successful one.
    fn poll(&self, op: &str, timeout: Duration) -> Result<(u64, u32)> {
        let t0 = Instant::now();
        let mut spins = 0u32;
        loop {
            // SAFETY: ibv_wc is plain C data for which all-zero is a valid value.
            let mut wc: sys::ibv_wc = unsafe { std::mem::zeroed() };
            // SAFETY: the CQ is alive; its context's ops table is filled by the provider
            // (ibv_poll_cq is this inline call in <infiniband/verbs.h>).
            let poll = unsafe { (*(*self.cq.as_ptr()).context).ops.poll_cq }
                .ok_or_else(|| Error::Verbs("ibv_poll_cq: provider has no poll_cq".into()))?;
            // SAFETY: valid CQ; room for exactly one completion in `wc`.
            let n = unsafe { poll(self.cq.as_ptr(), 1, &mut wc) };
            if n < 0 {
                return Err(verr("ibv_poll_cq", -n));
            }
            if n == 1 {
                if wc.status != sys::ibv_wc_status::IBV_WC_SUCCESS {
                    return Err(wc_err(op, wc.status, wc.vendor_err));
                }
                return Ok((wc.wr_id, wc.byte_len));
            }
            if t0.elapsed() >= timeout {
                return Err(Error::Verbs(format!(
                    "ibv_poll_cq: no completion for {op} within {timeout:?}"
                )));
            }
            spins += 1;
            if spins < 64 {
                std::thread::yield_now();
            } else {
                std::thread::sleep(Duration::from_micros(200));
            }
        }
    }
}

impl Drop for Cq {
    fn drop(&mut self) {
        // SAFETY: created by ibv_create_cq; the QP using it is destroyed first (it is dropped
        // before the CQs in `Connection`).
        unsafe { sys::ibv_destroy_cq(self.cq.as_ptr()) };
    }
}

// --- RC connection --------------------------------------------------------------------------

/// Parameters of a [`Connection`].
#[derive(Clone, Debug)]
pub struct ConnConfig {
    /// Port number (1 for rxe).
    pub port: u8,
    /// GID index of the RoCEv2 GID to use (`rdma link`/sysfs: IPv4-mapped is 1 on rxe).
    pub gid_index: u8,
    /// Largest message or RDMA transfer per work request, in bytes.
    pub max_msg: usize,
    /// Receive buffers kept posted.
    pub recv_depth: usize,
    /// How long to wait for one completion.
    pub timeout: Duration,
    /// First PSN this side sends (24 bits).
    pub psn: u32,
}

impl Default for ConnConfig {
    fn default() -> Self {
        Self {
            port: 1,
            gid_index: 1,
            max_msg: 64 * 1024,
            recv_depth: 64,
            timeout: Duration::from_secs(20),
            psn: 0,
        }
    }
}

/// One RC QP with its CQs and registered buffers: SEND/RECV through posted receive buffers,
/// RDMA WRITE/READ through a staging buffer.
pub struct Connection {
    qp: NonNull<sys::ibv_qp>,
    // Dropped after the QP (field order), as libibverbs requires.
    send_cq: Cq,
    recv_cq: Cq,
    staging: MemoryRegion,
    recv_bufs: MemoryRegion,
    cfg: ConnConfig,
    local: Endpoint,
    next_wr: u64,
    _pd: Rc<Pd>,
}

impl Connection {
    /// Create the CQs and an RC QP on `pd`, move it to INIT and post the receive buffers.
    ///
    /// # Errors
    /// [`Error::Verbs`] naming the failing call; [`Error::Protocol`] for a port MTU the QP
    /// cannot use.
    pub fn new(pd: &Rc<Pd>, cfg: ConnConfig) -> Result<Self> {
        let ctx = pd.context();
        let (mtu, active) = ctx.port(cfg.port)?;
        if !active {
            return Err(Error::Verbs(format!(
                "port {} of {} is not active",
                cfg.port,
                ctx.name()
            )));
        }
        let gid = ctx.gid(cfg.port, cfg.gid_index)?;
        let send_cq = Cq::new(ctx, 16)?;
        let recv_cq = Cq::new(ctx, cfg.recv_depth + 1)?;
        let staging = MemoryRegion::new(pd, cfg.max_msg, Access::Local)?;
        let recv_bufs = MemoryRegion::new(pd, cfg.max_msg * cfg.recv_depth, Access::Local)?;
        let depth = u32::try_from(cfg.recv_depth).map_err(|_| Error::Verbs("depth".into()))?;
        // SAFETY: ibv_qp_init_attr is plain C data for which all-zero is a valid value.
        let mut init: sys::ibv_qp_init_attr = unsafe { std::mem::zeroed() };
        init.send_cq = send_cq.cq.as_ptr();
        init.recv_cq = recv_cq.cq.as_ptr();
        init.qp_type = sys::ibv_qp_type::IBV_QPT_RC;
        init.sq_sig_all = 0;
        init.cap.max_send_wr = 8;
        init.cap.max_recv_wr = depth;
        init.cap.max_send_sge = 1;
        init.cap.max_recv_sge = 1;
        // SAFETY: PD and CQs are alive and outlive the QP (held by the Connection).
        let qp = NonNull::new(unsafe { sys::ibv_create_qp(pd.pd.as_ptr(), &mut init) })
            .ok_or_else(|| last_err("ibv_create_qp"))?;
        // SAFETY: ibv_create_qp returned a valid QP.
        let qpn = unsafe { (*qp.as_ptr()).qp_num };
        let mut c = Self {
            qp,
            send_cq,
            recv_cq,
            staging,
            recv_bufs,
            local: Endpoint {
                qpn,
                psn: cfg.psn & 0xFF_FFFF,
                gid,
                mtu,
            },
            cfg,
            next_wr: 1,
            _pd: pd.clone(),
        };
        // SAFETY: ibv_qp_attr is plain C data for which all-zero is a valid value.
        let mut a: sys::ibv_qp_attr = unsafe { std::mem::zeroed() };
        a.qp_state = sys::ibv_qp_state::IBV_QPS_INIT;
        a.pkey_index = 0;
        a.port_num = c.cfg.port;
        a.qp_access_flags = (sys::ibv_access_flags::IBV_ACCESS_LOCAL_WRITE
            | sys::ibv_access_flags::IBV_ACCESS_REMOTE_READ
            | sys::ibv_access_flags::IBV_ACCESS_REMOTE_WRITE)
            .0;
        use sys::ibv_qp_attr_mask as M;
        c.modify(
            "ibv_modify_qp(INIT)",
            &mut a,
            M::IBV_QP_STATE | M::IBV_QP_PKEY_INDEX | M::IBV_QP_PORT | M::IBV_QP_ACCESS_FLAGS,
        )?;
        for slot in 0..c.cfg.recv_depth {
            c.post_recv(slot)?;
        }
        Ok(c)
    }

    /// This side's endpoint (send it to the peer inside TLS).
    pub fn local(&self) -> Endpoint {
        self.local
    }

    fn modify(
        &mut self,
        call: &str,
        a: &mut sys::ibv_qp_attr,
        mask: sys::ibv_qp_attr_mask,
    ) -> Result<()> {
        // SAFETY: valid QP; `a` is a fully initialised attribute block.
        let rc = unsafe { sys::ibv_modify_qp(self.qp.as_ptr(), a, mask.0 as c_int) };
        check_rc(call, rc)
    }

    /// Move the QP to RTR and RTS towards `peer` (path MTU: the smaller of the two).
    ///
    /// # Errors
    /// [`Error::Verbs`] (`ibv_modify_qp(RTR)` / `(RTS)`); [`Error::Protocol`] for a bad MTU.
    pub fn connect(&mut self, peer: &Endpoint) -> Result<()> {
        let mtu = mtu_enum(self.local.mtu.min(peer.mtu)).ok_or_else(|| {
            Error::Protocol(format!("path MTU {} / {}", self.local.mtu, peer.mtu))
        })?;
        use sys::ibv_qp_attr_mask as M;
        // SAFETY: ibv_qp_attr is plain C data for which all-zero is a valid value.
        let mut a: sys::ibv_qp_attr = unsafe { std::mem::zeroed() };
        a.qp_state = sys::ibv_qp_state::IBV_QPS_RTR;
        a.path_mtu = mtu;
        a.dest_qp_num = peer.qpn;
        a.rq_psn = peer.psn & 0xFF_FFFF;
        a.max_dest_rd_atomic = 1;
        a.min_rnr_timer = 12;
        a.ah_attr.is_global = 1;
        a.ah_attr.grh.dgid = sys::ibv_gid { raw: peer.gid };
        a.ah_attr.grh.sgid_index = self.cfg.gid_index;
        a.ah_attr.grh.hop_limit = 64;
        a.ah_attr.port_num = self.cfg.port;
        self.modify(
            "ibv_modify_qp(RTR)",
            &mut a,
            M::IBV_QP_STATE
                | M::IBV_QP_AV
                | M::IBV_QP_PATH_MTU
                | M::IBV_QP_DEST_QPN
                | M::IBV_QP_RQ_PSN
                | M::IBV_QP_MAX_DEST_RD_ATOMIC
                | M::IBV_QP_MIN_RNR_TIMER,
        )?;
        // SAFETY: as above.
        let mut a: sys::ibv_qp_attr = unsafe { std::mem::zeroed() };
        a.qp_state = sys::ibv_qp_state::IBV_QPS_RTS;
        a.timeout = 14;
        a.retry_cnt = 7;
        a.rnr_retry = 7;
        a.sq_psn = self.local.psn;
        a.max_rd_atomic = 1;
        self.modify(
            "ibv_modify_qp(RTS)",
            &mut a,
            M::IBV_QP_STATE
                | M::IBV_QP_TIMEOUT
                | M::IBV_QP_RETRY_CNT
                | M::IBV_QP_RNR_RETRY
                | M::IBV_QP_SQ_PSN
                | M::IBV_QP_MAX_QP_RD_ATOMIC,
        )
    }

    fn post_recv(&mut self, slot: usize) -> Result<()> {
        let mut sge = sys::ibv_sge {
            addr: self.recv_bufs.addr() + (slot * self.cfg.max_msg) as u64,
            length: u32::try_from(self.cfg.max_msg).map_err(|_| Error::Verbs("max_msg".into()))?,
            lkey: self.recv_bufs.lkey(),
        };
        let mut wr = sys::ibv_recv_wr {
            wr_id: slot as u64,
            next: ptr::null_mut(),
            sg_list: &mut sge,
            num_sge: 1,
        };
        let mut bad = ptr::null_mut();
        // SAFETY: valid QP whose context's ops table the provider filled (ibv_post_recv is this
        // inline call in <infiniband/verbs.h>).
        let post = unsafe { (*(*self.qp.as_ptr()).context).ops.post_recv }
            .ok_or_else(|| Error::Verbs("ibv_post_recv: provider has no post_recv".into()))?;
        // SAFETY: `wr` and `sge` live across the call (the provider copies them); the SGE lies
        // inside the registered receive buffers.
        let rc = unsafe { post(self.qp.as_ptr(), &mut wr, &mut bad) };
        check_rc("ibv_post_recv", rc)
    }

    /// Post one signalled send-queue work request over `staging[..len]` and wait for it.
    fn post_send_wait(
        &mut self,
        op: &str,
        opcode: sys::ibv_wr_opcode::Type,
        len: usize,
        remote: Option<(u64, u32)>,
    ) -> Result<()> {
        let mut sge = sys::ibv_sge {
            addr: self.staging.addr(),
            length: u32::try_from(len).map_err(|_| Error::Verbs("length".into()))?,
            lkey: self.staging.lkey(),
        };
        // SAFETY: ibv_send_wr is plain C data (pointers, integers, unions of them) for which
        // all-zero is a valid value.
        let mut wr: sys::ibv_send_wr = unsafe { std::mem::zeroed() };
        let id = self.next_wr;
        self.next_wr += 1;
        wr.wr_id = id;
        wr.sg_list = &mut sge;
        wr.num_sge = i32::from(len > 0);
        wr.opcode = opcode;
        wr.send_flags = sys::ibv_send_flags::IBV_SEND_SIGNALED.0;
        if let Some((remote_addr, rkey)) = remote {
            wr.wr.rdma = sys::rdma_t { remote_addr, rkey };
        }
        let mut bad = ptr::null_mut();
        // SAFETY: as in post_recv (ibv_post_send).
        let post = unsafe { (*(*self.qp.as_ptr()).context).ops.post_send }
            .ok_or_else(|| Error::Verbs("ibv_post_send: provider has no post_send".into()))?;
        // SAFETY: `wr` and `sge` live across the call; the SGE lies inside the staging MR.
        let rc = unsafe { post(self.qp.as_ptr(), &mut wr, &mut bad) };
        check_rc(&format!("ibv_post_send({op})"), rc)?;
        let (got, _) = self.send_cq.poll(op, self.cfg.timeout)?;
        if got != id {
            return Err(Error::Verbs(format!(
                "ibv_poll_cq: {op}: completion for wr {got}, expected {id}"
            )));
        }
        Ok(())
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        // SAFETY: created by ibv_create_qp, destroyed once; CQs and MRs are dropped after.
        unsafe { sys::ibv_destroy_qp(self.qp.as_ptr()) };
    }
}

impl Transport for Connection {
    fn send(&mut self, msg: &[u8]) -> Result<()> {
        if msg.len() > self.cfg.max_msg {
            return Err(Error::BufferTooSmall {
                need: msg.len(),
                have: self.cfg.max_msg,
            });
        }
        self.staging.write_local(0, msg)?;
        self.post_send_wait("SEND", sys::ibv_wr_opcode::IBV_WR_SEND, msg.len(), None)
    }

    fn recv(&mut self, buf: &mut [u8]) -> Result<usize> {
        let (slot, n) = self.recv_cq.poll("RECV", self.cfg.timeout)?;
        let (slot, n) = (slot as usize, n as usize);
        let r = if n > buf.len() {
            Err(Error::BufferTooSmall {
                need: n,
                have: buf.len(),
            })
        } else {
            self.recv_bufs
                .read_local(slot * self.cfg.max_msg, &mut buf[..n])
                .map(|()| n)
        };
        self.post_recv(slot)?;
        r
    }

    fn write(&mut self, mr: &RemoteMr, va: u64, data: &[u8]) -> Result<()> {
        check_remote(mr, va, data.len())?;
        for (i, chunk) in data.chunks(self.cfg.max_msg).enumerate() {
            self.staging.write_local(0, chunk)?;
            let at = va + (i * self.cfg.max_msg) as u64;
            self.post_send_wait(
                "RDMA WRITE",
                sys::ibv_wr_opcode::IBV_WR_RDMA_WRITE,
                chunk.len(),
                Some((at, mr.rkey)),
            )?;
        }
        Ok(())
    }

    fn read(&mut self, mr: &RemoteMr, va: u64, out: &mut [u8]) -> Result<()> {
        check_remote(mr, va, out.len())?;
        let step = self.cfg.max_msg;
        for (i, chunk) in out.chunks_mut(step).enumerate() {
            let at = va + (i * step) as u64;
            self.post_send_wait(
                "RDMA READ",
                sys::ibv_wr_opcode::IBV_WR_RDMA_READ,
                chunk.len(),
                Some((at, mr.rkey)),
            )?;
            self.staging.read_local(0, chunk)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mtu_values_round_trip() {
        for b in [256, 512, 1024, 2048, 4096] {
            assert_eq!(mtu_bytes(mtu_enum(b).expect("mtu")), b);
        }
        assert_eq!(mtu_enum(1500), None);
        assert_eq!(mtu_bytes(0), 0);
    }

    #[test]
    fn errors_name_the_call_and_the_errno() {
        let e = verr("ibv_modify_qp(RTR)", 22).to_string();
        assert!(
            e.contains("ibv_modify_qp(RTR)") && e.contains("errno 22"),
            "{e}"
        );
        let e = check_rc("ibv_post_send(SEND)", 12)
            .expect_err("rc 12")
            .to_string();
        assert!(e.contains("ibv_post_send(SEND): errno 12"), "{e}");
        let e = wc_err("RDMA READ", sys::ibv_wc_status::IBV_WC_REM_ACCESS_ERR, 0).to_string();
        assert!(
            e.contains("RDMA READ") && e.contains("remote access error"),
            "{e}"
        );
    }

    #[test]
    fn remote_ranges_outside_the_advertised_mr_are_refused_before_posting() {
        let mr = RemoteMr {
            va: 0x1000,
            rkey: 1,
            len: 0x100,
        };
        assert!(check_remote(&mr, 0x1000, 0x100).is_ok());
        assert!(matches!(
            check_remote(&mr, 0x1001, 0x100),
            Err(Error::OutOfRange)
        ));
        assert!(matches!(
            check_remote(&mr, 0xFFF, 1),
            Err(Error::OutOfRange)
        ));
        assert!(matches!(
            check_remote(&mr, u64::MAX, 2),
            Err(Error::OutOfRange)
        ));
    }

    #[test]
    fn opening_a_missing_device_is_no_device() {
        // On a machine without RDMA devices (or without this name) this is NoDevice, never a
        // crash; ibv_get_device_list may also fail outright without the kernel modules.
        match Context::open("rocesec-no-such-device") {
            Err(Error::NoDevice(_) | Error::Verbs(_)) => {}
            Err(e) => panic!("unexpected {e}"),
            Ok(_) => panic!("opened a device that does not exist"),
        }
    }
}
