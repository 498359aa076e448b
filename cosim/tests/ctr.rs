//! `rtl/top/rocesec_ctr.sv` (stage `crypto`: E_K(J0) and the GCM keystream, `LANES` blocks per
//! word) against the model's AES (`rocesec_model::gcm::AesGcm::encrypt_block`, FIPS 197) and
//! the counter layout of SP 800-38D §7.1 steps 2–3: J0 = IV ‖ [1]_32, keystream block i =
//! E_K(IV ‖ [2 + i]_32). LANES 1 and 4; random jobs (inactive ones, zero-length keystreams),
//! a consumer that pops back to back or with random holds; every E_K(J0) and every keystream
//! block checked, in order.

use rocesec_cosim::rtl::ctr::{Ctr, CtrJob, CtrRun};
use rocesec_cosim::rtl::{SplitMix64, Top};
use rocesec_model::gcm::AesGcm;

fn jobs(rng: &mut SplitMix64, n: usize, max_nks: u64) -> Vec<CtrJob> {
    (0..n)
        .map(|_| {
            let mut iv = [0u8; 12];
            rng.fill(&mut iv);
            CtrJob {
                active: !rng.chance(1, 8),
                key: rng.block(),
                iv,
                nks: if rng.chance(1, 6) {
                    0
                } else {
                    1 + rng.below(max_nks) as u16
                },
            }
        })
        .collect()
}

fn ctr_block(iv: &[u8; 12], c: u32) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[..12].copy_from_slice(iv);
    b[12..].copy_from_slice(&c.to_be_bytes());
    b
}

/// Every E_K(J0) and keystream block of the active jobs, in job order.
fn check(name: &str, lanes: usize, jobs: &[CtrJob], r: &CtrRun) {
    let active: Vec<usize> = (0..jobs.len()).filter(|&i| jobs[i].active).collect();
    assert_eq!(r.ekj0.len(), active.len(), "{name}: number of E_K(J0)");
    for (&(j, e), &i) in r.ekj0.iter().zip(&active) {
        assert_eq!(j, i, "{name}: E_K(J0) order");
        let aes = AesGcm::new(&jobs[i].key).expect("AES-128 key");
        assert_eq!(
            e,
            aes.encrypt_block(&ctr_block(&jobs[i].iv, 1)),
            "{name}: E_K(J0) of job {i}"
        );
    }
    let mut want = Vec::new();
    for &i in &active {
        for w in 0..usize::from(jobs[i].nks).div_ceil(lanes) {
            want.push((i, w));
        }
    }
    assert_eq!(
        r.words.len(),
        want.len(),
        "{name}: number of keystream words"
    );
    for ((j, w, blocks), &(wi, ww)) in r.words.iter().zip(&want) {
        assert_eq!((*j, *w), (wi, ww), "{name}: keystream word order");
        let job = &jobs[wi];
        let aes = AesGcm::new(&job.key).expect("AES-128 key");
        for (lane, b) in blocks.iter().enumerate() {
            let idx = lanes * ww + lane;
            if idx < usize::from(job.nks) {
                let want_b = aes.encrypt_block(&ctr_block(&job.iv, 2 + idx as u32));
                assert_eq!(*b, want_b, "{name}: job {wi} keystream block {idx}");
            }
        }
    }
}

fn run(top: Top, n: usize, max_nks: u64, hold: (u64, u64), seed: u64) -> (usize, CtrRun) {
    let mut rng = SplitMix64::new(seed);
    let jobs = jobs(&mut rng, n, max_nks);
    let mut dut = Ctr::new(top);
    let lanes = dut.lanes();
    let r = dut.run(&jobs, hold, seed);
    check(&format!("{} hold {hold:?}", top.name()), lanes, &jobs, &r);
    (lanes, r)
}

#[test]
fn lanes_1_random_jobs() {
    run(Top::RocesecCtr1, 120, 40, (0, 1), 0xc7_0001);
    run(Top::RocesecCtr1, 120, 40, (1, 2), 0xc7_0002);
}

#[test]
fn lanes_4_random_jobs() {
    run(Top::RocesecCtr4, 150, 100, (0, 1), 0xc7_0004);
    run(Top::RocesecCtr4, 150, 100, (1, 3), 0xc7_0005);
    run(Top::RocesecCtr4, 100, 9, (3, 4), 0xc7_0006);
}

/// Long keystreams popped back to back: one word per cycle once the pipeline is full, except
/// the one issue cycle of each job's J0 (words / (words + jobs) is the bound).
#[test]
fn lanes_4_one_word_per_cycle() {
    let mut rng = SplitMix64::new(0xc7_0007);
    let mut js = jobs(&mut rng, 40, 1);
    for j in js.iter_mut() {
        j.active = true;
        j.nks = 256 + rng.below(256) as u16;
    }
    let mut dut = Ctr::new(Top::RocesecCtr4);
    let r = dut.run(&js, (0, 1), 1);
    check("rocesec_ctr_4 long", 4, &js, &r);
    let words = r.words.len() as f64;
    let bound = words / (words + js.len() as f64);
    let rate = r.pops as f64 / r.pop_span as f64;
    println!(
        "rocesec_ctr_4: {} words ({} blocks) in {} cycles: {rate:.4} words/cycle (bound {bound:.4})",
        r.pops,
        4 * r.pops,
        r.pop_span
    );
    assert!(
        rate >= bound - 1e-9,
        "keystream slower than one word per issue cycle"
    );
}
