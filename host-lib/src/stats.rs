//! Counters and events an application can read (`rocesec host-stats`).

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// Counters of a receiver or a sealed-memory client.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
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

/// One published counter set: who (`role`, e.g. `server`), which object (`source`, e.g.
/// `channel-rx`, `sealed`) and its [`Stats`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    /// The process's role.
    pub role: String,
    /// The counted object.
    pub source: String,
    /// Its counters.
    pub stats: Stats,
}

/// Prefix of a stats line in a log.
pub const LINE_PREFIX: &str = "rocesec-stats ";

impl Snapshot {
    /// The snapshot as one log line: `rocesec-stats {json}` (what `rocesec host-stats` reads).
    pub fn line(&self) -> String {
        // Serializing plain integers and strings cannot fail.
        format!(
            "{LINE_PREFIX}{}",
            serde_json::to_string(self).unwrap_or_default()
        )
    }
}

/// Every stats line in `log` (other lines are ignored).
///
/// # Errors
/// [`Error::Protocol`] for a stats line whose JSON does not parse (with its line number).
pub fn parse_lines(log: &str) -> Result<Vec<Snapshot>> {
    let mut v = Vec::new();
    for (n, l) in log.lines().enumerate() {
        if let Some(j) = l.trim_start().strip_prefix(LINE_PREFIX) {
            v.push(
                serde_json::from_str(j).map_err(|e| {
                    Error::Protocol(format!("line {}: bad stats record: {e}", n + 1))
                })?,
            );
        }
    }
    Ok(v)
}

/// A fixed-width table of snapshots (the `rocesec host-stats` view).
pub fn table(v: &[Snapshot]) -> String {
    let mut out = format!(
        "{:<10} {:<12} {:>8} {:>9} {:>7} {:>11} {:>9} {:>8} {:>9}\n",
        "role",
        "source",
        "ok",
        "auth-fail",
        "replay",
        "stale-epoch",
        "malformed",
        "refused",
        "rotations"
    );
    for s in v {
        let t = &s.stats;
        out += &format!(
            "{:<10} {:<12} {:>8} {:>9} {:>7} {:>11} {:>9} {:>8} {:>9}\n",
            s.role,
            s.source,
            t.ok,
            t.auth_fail,
            t.replay,
            t.stale_epoch,
            t.malformed,
            t.refused,
            t.rotations
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip_and_bad_records_are_errors() {
        let a = Snapshot {
            role: "client".into(),
            source: "sealed".into(),
            stats: Stats {
                ok: 3,
                auth_fail: 1,
                ..Stats::default()
            },
        };
        let log = format!("check client x: ok\n{}\nnoise\n", a.line());
        assert_eq!(parse_lines(&log).expect("parse"), vec![a.clone()]);
        let t = table(&[a]);
        assert!(t
            .lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("client") && l.contains(" 1 ")));
        let e = parse_lines("x\nrocesec-stats {broken").expect_err("bad json");
        assert!(e.to_string().contains("line 2"), "{e}");
    }
}
