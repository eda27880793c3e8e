//! `generate`.

use crate::args::{BlocksArg, GenerateArgs};
use crate::CliResult;
use std::process::ExitCode;

pub fn run(a: &GenerateArgs) -> CliResult<ExitCode> {
    let spec = a.config.resolve()?;
    let blocks = a.block.blocks();
    for block in &blocks {
        let g = block.generate(&spec, "")?;
        let dir = if a.block == BlocksArg::All {
            a.out.join(block.name)
        } else {
            a.out.clone()
        };
        g.write_to(&dir)?;
        println!(
            "{}: {} ({}) -> {}",
            block,
            block.title,
            spec.name,
            dir.display()
        );
        for (name, text) in g.all_files() {
            println!(
                "  {name:24} {:>7} bytes  sha256 {}",
                text.len(),
                &rtlgen::sha256_hex(text.as_bytes())[..16]
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
