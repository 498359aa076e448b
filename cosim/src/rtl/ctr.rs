//! Driver for `rtl/top/rocesec_ctr.sv` (stage `crypto`: E_K(J0) and the AES-CTR keystream of
//! every job, `LANES` blocks per word), built with `NumJobs` = 8 and `KsDepth` = 64.
//!
//! The driver plays the caller's job table: job `i` is written to slot `i % 8` (`job_push_i`)
//! once job `i - 8` is complete (visited and, when active, its E_K(J0) received and all its
//! keystream words popped), and `job_*` is answered for the slot the block presents.

use super::{Port, Sim, SplitMix64, Top};

/// Job slots of the test builds.
pub const SLOTS: usize = 8;

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
            sim,
        };
        s.sim.set_u64(s.push, 0);
        s.sim.set_u64(s.ks_pop, 0);
        s.sim.reset();
        s
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
            let sim = &mut self.sim;
            sim.set_u64(self.active, u64::from(cur.is_some_and(|j| j.active)));
            sim.set_bytes(self.key, &cur.map_or([0; 16], |j| j.key));
            sim.set_bytes(self.iv, &cur.map_or([0; 12], |j| j.iv));
            sim.set_u64(self.nks, cur.map_or(0, |j| u64::from(j.nks)));
            // write the next job once its slot is free
            let push = pushed < jobs.len()
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
        }
        r.cycles = self.sim.cycles() - start;
        r
    }
}
