//! `generate`.

use crate::args::{blocks, GenerateArgs};
use crate::CliResult;
use std::process::ExitCode;

pub fn run(a: &GenerateArgs) -> CliResult<ExitCode> {
    let spec = a.config.resolve()?;
    let all = a.block == "all";
    let list = blocks(&a.block)?;
    // Render everything first: nothing is written unless every block renders.
    let mut generated = Vec::new();
    for block in &list {
        generated.push((block, block.generate(&spec, &a.prefix)?));
    }
    crate::out::replace_dir(&a.out, |dir| {
        for (block, g) in &generated {
            let d = if all {
                dir.join(block.name)
            } else {
                dir.to_path_buf()
            };
            g.write_to(&d)?;
        }
        Ok(())
    })?;
    for (block, g) in &generated {
        let dir = if all {
            a.out.join(block.name)
        } else {
            a.out.clone()
        };
        println!(
            "{block}: {} ({}) -> {}",
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
