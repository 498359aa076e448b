//! The transport under a protected QP: a small trait so that the same logic runs over libibverbs
//! (feature `verbs`) or in-process for unit tests ([`Loopback`]).

use crate::error::{Error, Result};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What one side of an RC connection tells the other (inside the TLS channel) to connect the QP
/// pair: its QP number, start PSN, GID and path MTU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Endpoint {
    /// QP number (24 bits).
    pub qpn: u32,
    /// First PSN this side sends (24 bits).
    pub psn: u32,
    /// GID of the port (the RoCEv2 GID: IPv4-mapped or IPv6 address).
    pub gid: [u8; 16],
    /// Active path MTU of the port in bytes (256..4096).
    pub mtu: u32,
}

/// A remote memory region as the peer advertised it (inside the TLS channel).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RemoteMr {
    /// Remote virtual address of byte 0.
    pub va: u64,
    /// rkey.
    pub rkey: u32,
    /// Length in bytes.
    pub len: u64,
}

/// Two-sided and one-sided operations of one connected QP.
pub trait Transport {
    /// Post a SEND of `msg` and wait for its completion.
    ///
    /// # Errors
    /// [`Error::Verbs`] (or the backend's error) when the operation fails.
    fn send(&mut self, msg: &[u8]) -> Result<()>;
    /// Wait for one received message, copy it into `buf` and return its length.
    ///
    /// # Errors
    /// As [`Transport::send`]; [`Error::BufferTooSmall`].
    fn recv(&mut self, buf: &mut [u8]) -> Result<usize>;
    /// RDMA WRITE `data` at `va` of `mr`.
    ///
    /// # Errors
    /// As [`Transport::send`]; the remote side refuses accesses outside the MR.
    fn write(&mut self, mr: &RemoteMr, va: u64, data: &[u8]) -> Result<()>;
    /// RDMA READ `out.len()` bytes at `va` of `mr`.
    ///
    /// # Errors
    /// As [`Transport::write`].
    fn read(&mut self, mr: &RemoteMr, va: u64, out: &mut [u8]) -> Result<()>;
}

#[derive(Default)]
struct Shared {
    queues: [VecDeque<Vec<u8>>; 2],
    memory: [Vec<u8>; 2],
    mr: [Option<RemoteMr>; 2],
}

/// An in-process pair of connected endpoints with one registered MR each; tests can reach into
/// the memory (as a malicious lessor would) with [`Loopback::memory`].
#[derive(Clone)]
pub struct Loopback {
    side: usize,
    shared: Arc<Mutex<Shared>>,
    recv_wait: Duration,
}

impl Loopback {
    /// Two connected endpoints; each registers an MR of `mr_len` bytes at `va` with `rkey`.
    pub fn pair(va: u64, mr_len: usize, rkeys: [u32; 2]) -> (Self, Self) {
        let mut s = Shared::default();
        for ((mem, mr), rkey) in s.memory.iter_mut().zip(s.mr.iter_mut()).zip(rkeys) {
            *mem = vec![0; mr_len];
            *mr = Some(RemoteMr {
                va,
                rkey,
                len: mr_len as u64,
            });
        }
        let shared = Arc::new(Mutex::new(s));
        (
            Self {
                side: 0,
                shared: shared.clone(),
                recv_wait: Duration::ZERO,
            },
            Self {
                side: 1,
                shared,
                recv_wait: Duration::ZERO,
            },
        )
    }

    /// Let [`Transport::recv`] wait up to `wait` for a message (as a posted receive on a real
    /// QP does) instead of failing at once; for peers running in different threads.
    #[must_use]
    pub fn with_recv_wait(mut self, wait: Duration) -> Self {
        self.recv_wait = wait;
        self
    }

    /// The MR this endpoint registered (to advertise to the peer).
    pub fn local_mr(&self) -> Option<RemoteMr> {
        self.shared.lock().ok().and_then(|s| s.mr[self.side])
    }

    /// Run `f` on this endpoint's own registered memory.
    pub fn memory<R>(&self, f: impl FnOnce(&mut Vec<u8>) -> R) -> Option<R> {
        self.shared
            .lock()
            .ok()
            .map(|mut s| f(&mut s.memory[self.side]))
    }

    /// Invalidate this endpoint's MR (what the owner does when a grant expires or is revoked).
    pub fn deregister(&self) {
        if let Ok(mut s) = self.shared.lock() {
            s.mr[self.side] = None;
        }
    }

    fn remote_range(
        &self,
        s: &Shared,
        mr: &RemoteMr,
        va: u64,
        len: usize,
    ) -> Result<std::ops::Range<usize>> {
        let peer = 1 - self.side;
        match s.mr[peer] {
            Some(m) if m.rkey == mr.rkey => {
                let start = va
                    .checked_sub(m.va)
                    .ok_or(Error::Verbs("remote access error".into()))?;
                let end = start
                    .checked_add(len as u64)
                    .ok_or(Error::Verbs("remote access error".into()))?;
                if end > m.len {
                    return Err(Error::Verbs(
                        "remote access error (IBV_WC_REM_ACCESS_ERR)".into(),
                    ));
                }
                Ok(start as usize..end as usize)
            }
            _ => Err(Error::Verbs(
                "remote access error: invalid rkey (IBV_WC_REM_ACCESS_ERR)".into(),
            )),
        }
    }
}

impl Transport for Loopback {
    fn send(&mut self, msg: &[u8]) -> Result<()> {
        let mut s = self
            .shared
            .lock()
            .map_err(|_| Error::Verbs("poisoned".into()))?;
        s.queues[1 - self.side].push_back(msg.to_vec());
        Ok(())
    }

    fn recv(&mut self, buf: &mut [u8]) -> Result<usize> {
        let t0 = Instant::now();
        let m = loop {
            let mut s = self
                .shared
                .lock()
                .map_err(|_| Error::Verbs("poisoned".into()))?;
            if let Some(m) = s.queues[self.side].pop_front() {
                break m;
            }
            drop(s);
            if t0.elapsed() >= self.recv_wait {
                return Err(Error::Verbs("no message (RNR)".into()));
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        if m.len() > buf.len() {
            return Err(Error::BufferTooSmall {
                need: m.len(),
                have: buf.len(),
            });
        }
        buf[..m.len()].copy_from_slice(&m);
        Ok(m.len())
    }

    fn write(&mut self, mr: &RemoteMr, va: u64, data: &[u8]) -> Result<()> {
        let mut s = self
            .shared
            .lock()
            .map_err(|_| Error::Verbs("poisoned".into()))?;
        let r = self.remote_range(&s, mr, va, data.len())?;
        s.memory[1 - self.side][r].copy_from_slice(data);
        Ok(())
    }

    fn read(&mut self, mr: &RemoteMr, va: u64, out: &mut [u8]) -> Result<()> {
        let s = self
            .shared
            .lock()
            .map_err(|_| Error::Verbs("poisoned".into()))?;
        let r = self.remote_range(&s, mr, va, out.len())?;
        out.copy_from_slice(&s.memory[1 - self.side][r]);
        Ok(())
    }
}
