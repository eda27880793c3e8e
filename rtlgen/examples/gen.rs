fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mut req = golden::spec::ConfigRequest::preset(&args[1]);
    for s in &args[3..] {
        req = req.with(s);
    }
    let spec = req.resolve().unwrap();
    let g = rtlgen::generate(&spec, golden::spec::Block::Ot).unwrap();
    g.write_to(std::path::Path::new(&args[2])).unwrap();
}
