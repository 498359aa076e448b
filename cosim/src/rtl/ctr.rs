//! Driver for `rtl/top/rocesec_ctr.sv` (stage `crypto`: E_K(J0) and the AES-CTR keystream of
//! every job, `LANES` blocks per word), built with `NumJobs` = 8 and `KsDepth` = 64.
//!
//! The driver plays the caller's job table: job `i` is written to slot `i % 8` (`job_push_i`)
//! once job `i - 8` is complete (visited and, when active, its E_K(J0) received and all its
//! keystream words popped), and `job_*` is answered for the slot the block presents.
//!
//! It also plays the key cache: round keys 1..10 of job `i`'s key (FIPS 197 §5.2, expanded here
//! by [`aes128_round_keys`]) are written through `rk_*`, one round per cycle, into round-key slot
//! `i % RK_SLOTS` before job `i` is written, and a slot is rewritten only after the job that
//! used it is complete. The jobs' first `RK_SLOTS` slots are written before the run starts.

use super::{Port, Sim, SplitMix64, Top};

/// Job slots of the test builds.
pub const SLOTS: usize = 8;

/// Round-key slots of the test builds (`rocesec_pkg::RkSlots`).
pub const RK_SLOTS: usize = 128;

/// The AES S-box (FIPS 197 §5.1.1): the inverse in GF(2^8) mod x^8 + x^4 + x^3 + x + 1, then the
/// affine map.
fn sbox(x: u8) -> u8 {
    let mul = |mut a: u8, mut b: u8| -> u8 {
        let mut p = 0u8;
        while b != 0 {
            if b & 1 != 0 {
                p ^= a;
            }
            a = (a << 1) ^ if a & 0x80 != 0 { 0x1b } else { 0 };
            b >>= 1;
        }
        p
    };
    // x^254 = x^-1 (0 for 0)
    let mut inv = 1u8;
    for _ in 0..254 {
        inv = mul(inv, x);
    }
    let inv = if x == 0 { 0 } else { inv };
    inv ^ inv.rotate_left(1) ^ inv.rotate_left(2) ^ inv.rotate_left(3) ^ inv.rotate_left(4) ^ 0x63
}

/// AES-128 key expansion (FIPS 197 §5.2): round keys 0..10, each as 16 bytes (word 4r first).
/// The test side's reference for what `rocesec_key_cache` writes into the round-key RAMs.
pub fn aes128_round_keys(key: &[u8; 16]) -> [[u8; 16]; 11] {
    let mut w = [[0u8; 4]; 44];
    for (i, wi) in w.iter_mut().take(4).enumerate() {
        wi.copy_from_slice(&key[4 * i..4 * i + 4]);
    }
    let mut rcon = 1u8;
    for i in 4..44 {
        let mut t = w[i - 1];
        if i % 4 == 0 {
            t = [sbox(t[1]) ^ rcon, sbox(t[2]), sbox(t[3]), sbox(t[0])];
            rcon = (rcon << 1) ^ if rcon & 0x80 != 0 { 0x1b } else { 0 };
        }
        for b in 0..4 {
            w[i][b] = w[i - 4][b] ^ t[b];
        }
    }
    let mut rk = [[0u8; 16]; 11];
    for (r, k) in rk.iter_mut().enumerate() {
        for c in 0..4 {
            k[4 * c..4 * c + 4].copy_from_slice(&w[4 * r + c]);
        }
    }
    rk
}

/// One job as the caller's job table holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CtrJob {
    /// The frame is processed (else the generator skips the job).
    pub active: bool,
    /// AES-128 key.
    pub key: [u8; 16],
    /// 96-bit IV.
    pub iv: [u8; 12],
    /// Keystream blocks.
    pub nks: u16,
}

/// The outcome of [`Ctr::run`].
#[derive(Clone, Debug, Default)]
pub struct CtrRun {
    /// `(job index, E_K(J0))` in the order they left.
    pub ekj0: Vec<(usize, [u8; 16])>,
    /// Popped keystream words in order, lane 0 first, each `(job index, word index, blocks)`.
    pub words: Vec<(usize, usize, Vec<[u8; 16]>)>,
    /// Cycles in which a word was popped.
    pub pops: u64,
    /// Cycles from the first to the last pop, both counted.
    pub pop_span: u64,
    /// Clock cycles simulated.
    pub cycles: u64,
}

/// A verilated `rocesec_ctr`.
pub struct Ctr {
    sim: Sim,
    lanes: usize,
    push: Port,
    slot: Port,
    active: Port,
    key: Port,
    iv: Port,
    nks: Port,
    ekj0_valid: Port,
    ekj0_slot: Port,
    ekj0_data: Port,
    ks_valid: Port,
    ks_data: Port,
    ks_pop: Port,
    rk: Port,
    rk_we: Port,
    rk_slot: Port,
    rk_round: Port,
    rk_data: Port,
}

impl Ctr {
    /// Build a variant and reset it.
    ///
    /// # Panics
    /// If `top` is not a `rocesec_ctr` variant.
    pub fn new(top: Top) -> Self {
        let lanes = match top {
            Top::RocesecCtr1 => 1,
            Top::RocesecCtr4 => 4,
            _ => panic!("{} is not a rocesec_ctr variant", top.name()),
        };
        let sim = Sim::new(top);
        let mut s = Self {
            lanes,
            push: sim.pin("job_push_i"),
            slot: sim.pin("job_slot_o"),
            active: sim.pin("job_active_i"),
            key: sim.pin("job_key_i"),
            iv: sim.pin("job_iv_i"),
            nks: sim.pin("job_nks_i"),
            ekj0_valid: sim.pin("ekj0_valid_o"),
            ekj0_slot: sim.pin("ekj0_slot_o"),
            ekj0_data: sim.pin("ekj0_data_o"),
            ks_valid: sim.pin("ks_valid_o"),
            ks_data: sim.pin("ks_data_o"),
            ks_pop: sim.pin("ks_pop_i"),
            rk: sim.pin("job_rk_i"),
            rk_we: sim.pin("rk_we_i"),
            rk_slot: sim.pin("rk_slot_i"),
            rk_round: sim.pin("rk_round_i"),
            rk_data: sim.pin("rk_data_i"),
            sim,
        };
        s.sim.set_u64(s.push, 0);
        s.sim.set_u64(s.ks_pop, 0);
        s.sim.set_u64(s.rk_we, 0);
        s.sim.reset();
        s
    }

    /// Drive the round-key write port for this cycle: round `round` of `key` into `slot`, or
    /// nothing (`None`).
    fn drive_rk(&mut self, w: Option<(usize, usize, &[u8; 16])>) {
        let sim = &mut self.sim;
        match w {
            Some((slot, round, k)) => {
                sim.set_u64(self.rk_we, 1);
                sim.set_u64(self.rk_slot, slot as u64);
                sim.set_u64(self.rk_round, round as u64);
                sim.set_bytes(self.rk_data, k);
            }
            None => {
                sim.set_u64(self.rk_we, 0);
                sim.set_bytes(self.rk_data, &[0; 16]);
            }
        }
    }

    /// Keystream blocks per word.
    pub fn lanes(&self) -> usize {
        self.lanes
    }

    /// Run `jobs`; each cycle the consumer refuses a valid word with probability
    /// `hold.0 / hold.1` (`SplitMix64::new(seed)`).
    ///
    /// # Panics
    /// If the block does not finish within 200 cycles per job plus 4 per keystream block (a
    /// hang).
    pub fn run(&mut self, jobs: &[CtrJob], hold: (u64, u64), seed: u64) -> CtrRun {
        let l = self.lanes;
        let words_of = |j: &CtrJob| -> usize {
            if j.active {
                usize::from(j.nks).div_ceil(l)
            } else {
                0
            }
        };
        let mut rng = SplitMix64::new(seed);
        let mut r = CtrRun::default();
        let mut pushed = 0usize;
        let mut visit = 0usize; // the job the generator is at
        let mut ekj0_seen = vec![false; jobs.len()];
        let mut popped = vec![0usize; jobs.len()];
        let mut pop_job = 0usize; // job whose keystream words are next in the FIFO
        let mut first_pop: Option<u64> = None;
        let limit: u64 = jobs.iter().map(|j| 200 + 4 * u64::from(j.nks)).sum::<u64>() + 1000;
        let complete = |i: usize, visit: usize, e: &[bool], p: &[usize]| -> bool {
            visit > i && (!jobs[i].active || (e[i] && p[i] == words_of(&jobs[i])))
        };
        let mut buf = vec![0u8; 16 * l];
        // round keys: job k's into slot k % RK_SLOTS, one round per cycle; the first RK_SLOTS
        // jobs' before the run
        let rks: Vec<[[u8; 16]; 11]> = jobs.iter().map(|j| aes128_round_keys(&j.key)).collect();
        let mut rk_next = (0usize, 1usize); // (job, round) to write next
        while rk_next.0 < jobs.len().min(RK_SLOTS) {
            let (k, rd) = rk_next;
            self.drive_rk(Some((k % RK_SLOTS, rd, &rks[k][rd])));
            self.sim.tick();
            rk_next = if rd == 10 { (k + 1, 1) } else { (k, rd + 1) };
        }
        self.drive_rk(None);
        let start = self.sim.cycles();
        loop {
            // skip the keystream of jobs without words
            while pop_job < jobs.len() && popped[pop_job] == words_of(&jobs[pop_job]) {
                pop_job += 1;
            }
            let all_done = pushed == jobs.len()
                && (0..jobs.len()).all(|i| complete(i, visit, &ekj0_seen, &popped));
            if all_done {
                break;
            }
            assert!(self.sim.cycles() - start < limit, "rocesec_ctr hangs");
            // the generator's position: it moves one job at a time
            let slot = self.sim.get_u64(self.slot) as usize;
            if visit < pushed && slot == (visit + 1) % SLOTS {
                visit += 1;
            }
            // job table read at job_slot_o
            let cur = (visit < pushed).then(|| jobs[visit]);
            // the next job's round keys once the job that used the slot is complete
            let (k, rd) = rk_next;
            let rk_write = k < jobs.len()
                && (k < RK_SLOTS || complete(k - RK_SLOTS, visit, &ekj0_seen, &popped));
            self.drive_rk(rk_write.then(|| (k % RK_SLOTS, rd, &rks[k][rd])));
            let sim = &mut self.sim;
            sim.set_u64(self.active, u64::from(cur.is_some_and(|j| j.active)));
            sim.set_bytes(self.key, &cur.map_or([0; 16], |j| j.key));
            sim.set_u64(self.rk, (visit % RK_SLOTS) as u64);
            sim.set_bytes(self.iv, &cur.map_or([0; 12], |j| j.iv));
            sim.set_u64(self.nks, cur.map_or(0, |j| u64::from(j.nks)));
            // write the next job once its slot is free and its round keys are written (2 cycles
            // before the block reads them)
            let push = pushed < jobs.len()
                && rk_next.0 > pushed
                && (pushed < SLOTS || complete(pushed - SLOTS, visit, &ekj0_seen, &popped));
            sim.set_u64(self.push, u64::from(push));
            sim.eval();
            let pop = sim.get_u64(self.ks_valid) == 1 && !rng.chance(hold.0, hold.1);
            sim.set_u64(self.ks_pop, u64::from(pop));
            sim.eval();
            if pop {
                sim.get_bytes(self.ks_data, &mut buf);
                // lane j in bits [128j +: 128]: big-endian port bytes hold lane LANES-1 first
                let blocks: Vec<[u8; 16]> = (0..l)
                    .map(|j| {
                        let off = 16 * (l - 1 - j);
                        let mut b = [0u8; 16];
                        b.copy_from_slice(&buf[off..off + 16]);
                        b
                    })
                    .collect();
                let now = sim.cycles();
                first_pop.get_or_insert(now);
                r.pop_span = now - first_pop.unwrap_or(now) + 1;
                r.pops += 1;
                let job = pop_job.min(jobs.len().saturating_sub(1));
                r.words.push((job, popped[job], blocks));
                popped[job] += 1;
            }
            if sim.get_u64(self.ekj0_valid) == 1 {
                let s = sim.get_u64(self.ekj0_slot) as usize;
                let mut e = [0u8; 16];
                sim.get_bytes(self.ekj0_data, &mut e);
                // the oldest pushed active job of that slot still waiting for it
                let j = (0..pushed)
                    .find(|&i| i % SLOTS == s && jobs[i].active && !ekj0_seen[i])
                    .unwrap_or(usize::MAX);
                if j != usize::MAX {
                    ekj0_seen[j] = true;
                }
                r.ekj0.push((j, e));
            }
            sim.tick();
            if push {
                pushed += 1;
            }
            if rk_write {
                rk_next = if rd == 10 { (k + 1, 1) } else { (k, rd + 1) };
            }
        }
        r.cycles = self.sim.cycles() - start;
        r
    }
}

#[cfg(test)]
mod tests {
    use super::{aes128_round_keys, sbox};

    /// FIPS 197 §5.1.1 (Figure 7) entries and the Appendix A.1 key expansion of
    /// 2b7e1516 28aed2a6 abf71588 09cf4f3c.
    #[test]
    fn key_expansion_matches_fips_197_appendix_a1() {
        assert_eq!((sbox(0x00), sbox(0x53), sbox(0xff)), (0x63, 0xed, 0x16));
        let key = [
            0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6, 0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf,
            0x4f, 0x3c,
        ];
        let rk = aes128_round_keys(&key);
        assert_eq!(rk[0], key);
        assert_eq!(
            rk[1],
            [
                0xa0, 0xfa, 0xfe, 0x17, 0x88, 0x54, 0x2c, 0xb1, 0x23, 0xa3, 0x39, 0x39, 0x2a, 0x6c,
                0x76, 0x05
            ]
        );
        assert_eq!(
            rk[10],
            [
                0xd0, 0x14, 0xf9, 0xa8, 0xc9, 0xee, 0x25, 0x89, 0xe1, 0x3f, 0x0c, 0xc8, 0xb6, 0x63,
                0x0c, 0xa6
            ]
        );
    }
}
