use golden::mc::stimulus::{warp_loads, LoadClass};
use golden::mc::system::MemSystem;
use golden::spec::ConfigRequest;
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let spec = ConfigRequest::preset(&a[1])
        .with(&format!("mc.scheduler={}", a[2]))
        .resolve()
        .unwrap();
    let per_cycle =
        golden::mc::stimulus::random_service_rate(&spec) * f64::from(spec.dram.channels) * 1.3;
    let loads = (200_000.0 * per_cycle / 20.5) as usize;
    let reqs = warp_loads(&spec, LoadClass::Hoa, loads, 1.3, 1);
    let n = reqs.len();
    let t = std::time::Instant::now();
    let mut sys = MemSystem::new(&spec, reqs).unwrap();
    sys.run(u64::MAX, None).unwrap();
    let s = t.elapsed().as_secs_f64();
    unsafe { println!("real {} absorb {} quiet {}", golden::mc::system::REAL, golden::mc::system::ABSORB, golden::mc::system::QUIET); }
    println!("{} reqs {:.3} s {:.0} req/s", n, s, n as f64 / s);
}
