//! Counters and events an application can read (`rocesec host-stats`).

use crate::error::{Error, Result};
use serde::Serialize;

/// Counters of a receiver or a sealed-memory client.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Stats {
    /// Messages or blocks accepted.
    pub ok: u64,
    /// Authentication failures.
    pub auth_fail: u64,
    /// Replays.
    pub replay: u64,
    /// Messages under a retired or unknown epoch.
    pub stale_epoch: u64,
    /// Malformed messages.
    pub malformed: u64,
    /// Accesses refused: outside the grant, expired or revoked grants.
    pub refused: u64,
    /// Epoch promotions seen by this receiver.
    pub rotations: u64,
}

impl Stats {
    /// Count the outcome of one operation.
    pub fn count<T>(&mut self, r: &Result<T>) {
        match r {
            Ok(_) => self.ok += 1,
            Err(Error::AuthFail) => self.auth_fail += 1,
            Err(Error::Replay) => self.replay += 1,
            Err(Error::StaleEpoch) => self.stale_epoch += 1,
            Err(Error::OutOfRange | Error::Expired | Error::Revoked) => self.refused += 1,
            Err(_) => self.malformed += 1,
        }
    }
}
