//! Header values out of their domain, and blocks that break the kernel's rules, are refused naming
//! the line.

use super::*;

// ---- Hostile input: values out of their domain, rules between them, mutated traces ------

/// A header of tracer version 5 with `extra` header lines appended, then `body`.
fn with_header(extra: &str, body: &str) -> String {
    format!(
        "-kernel name = k\n-kernel id = 1\n-grid dim = (2,1,1)\n-block dim = (64,1,1)\n\
         {extra}#traces format = ...\n{body}"
    )
}

#[test]
fn header_values_out_of_their_domain_name_the_key_and_line() {
    for (extra, words) in [
        (
            "-shmem = 4294967296\n",
            "`-shmem = 4294967296`: a whole number from 0 to 4294967295",
        ),
        ("-nregs = 4294967296\n", "`-nregs = 4294967296`"),
        ("-nregs = -1\n", "`-nregs = -1`"),
        (
            "-binary version = 99999999999\n",
            "`-binary version = 99999999999`",
        ),
        (
            "-cuda stream id = 18446744073709551616\n",
            "from 0 to 18446744073709551615",
        ),
        (
            "-accelsim tracer version = 4294967301\n",
            "knows versions 3, 4, 5 and the legacy",
        ),
        ("-accelsim tracer version = 6\n", "knows versions 3, 4, 5"),
        ("-accelsim tracer version = 2\n", "knows versions 3, 4, 5"),
        ("-accelsim tracer version = 0\n", "knows versions 3, 4, 5"),
        ("-accelsim tracer version = 1.2\n", "knows versions 3, 4, 5"),
        ("-enable lineinfo = 2\n", "`-enable lineinfo = 2`: 0 or 1"),
        ("-shmem base_addr = 0xzz\n", "a hex address"),
        (
            "-grid dim = (2,1,1)\n",
            "`-grid dim` is given twice (first at line 3)",
        ),
    ] {
        let e = read(&with_header(extra, "")).expect_err(extra);
        assert_eq!(e.line, 5, "{extra}: {e}");
        assert!(e.to_string().contains(words), "{extra}: {e} lacks {words}");
    }
    for (grid, block, words) in [
        (
            "(0,1,1)",
            "(32,1,1)",
            "`-grid dim = (0,1,1)`: (x,y,z), each from 1 to 2147483647",
        ),
        (
            "(2147483648,1,1)",
            "(32,1,1)",
            "`-grid dim = (2147483648,1,1)`",
        ),
        ("(1,65536,1)", "(32,1,1)", "65535 (y)"),
        ("(4294967296,1,1)", "(32,1,1)", "`-grid dim"),
        (
            "(1,1,1)",
            "(65536,65537,1)",
            "`-block dim = (65536,65537,1)`: (x,y,z), each from 1 to 1024",
        ),
        ("(1,1,1)", "(1,1,65)", "64 (z)"),
        ("(1,1,1)", "(0,1,1)", "`-block dim = (0,1,1)`"),
        (
            "(1,1,1)",
            "(1024,2,1)",
            "2048 threads a block; CUDA's limit is 1024",
        ),
    ] {
        let text = format!("-kernel name = k\n-grid dim = {grid}\n-block dim = {block}\n#x\n");
        let e = read(&text).expect_err(&text);
        assert!(e.to_string().contains(words), "{e} lacks {words}");
        assert!(e.line >= 2, "{e}");
    }
    let e = read("-kernel name = k\n-block dim = (32,1,1)\n#x\n").unwrap_err();
    assert!(e.to_string().contains("no `-grid dim`"), "{e}");
    // The limits themselves are legal: a grid claiming 2^62 blocks reads (its one block's
    // id is remembered, not the grid).
    let t = "-kernel name = k\n-grid dim = (2147483647,65535,65535)\n-block dim = (1024,1,1)\n\
             -accelsim tracer version = 3\n#x\n#BEGIN_TB\nthread block = 2147483646,65534,65534\n\
             warp = 31\ninsts = 1\n0000 ffffffff 0 EXIT 0 0\n#END_TB\n";
    let b = read(t).unwrap();
    assert_eq!(b[0].id, [2147483646, 65534, 65534]);
    assert_eq!(b[0].warps.len(), 32);
}

#[test]
fn blocks_breaking_the_kernels_rules_are_refused_naming_the_line() {
    let exit = "0000 ffffffff 0 EXIT 0 0 0\n";
    let tb = |id: &str, body: &str| format!("#BEGIN_TB\nthread block = {id}\n{body}#END_TB\n");
    let w0 = format!("warp = 0\ninsts = 1\n{exit}");
    for (body, line, words) in [
        (
            tb("2,0,0", &w0),
            8,
            "thread block (2,0,0) is outside the grid (2,1,1)",
        ),
        (tb("0,1,0", &w0), 8, "outside the grid"),
        (
            format!("{}{}", tb("1,0,0", &w0), tb("1,0,0", &w0)),
            14,
            "thread block (1,0,0) is given twice",
        ),
        (
            tb("0,0,0", &format!("{w0}{w0}")),
            12,
            "`warp = 0` is given twice in the block (first at line 9)",
        ),
        (
            tb("0,0,0", "warp = 2\ninsts = 0\n"),
            9,
            "a block of 64 threads has 2 warps",
        ),
        (
            tb("0,0,0", "warp = 0\ninsts = 0\n"),
            11,
            "thread block (0,0,0) holds no instruction",
        ),
        (String::new(), 6, "the kernel holds no thread block"),
        ("\n\n".to_string(), 8, "the kernel holds no thread block"),
        (
            tb(
                "0,0,0",
                "warp = 0\ninsts = 1\n0000 ffffffff 1 R256 MOV 0 0 0\n",
            ),
            11,
            "`R256` is not a register (R0 to R255",
        ),
        (
            tb(
                "0,0,0",
                "warp = 0\ninsts = 1\n0000 ffffffff 0 IADD3 2 R1 R65536 0 0\n",
            ),
            11,
            "`R65536` is not a register",
        ),
        (
            tb(
                "0,0,0",
                "warp = 0\ninsts = 1\n0000 ffffffff 1 R1 MOV 5 R1 R1 R1 R1 R1 0 0\n",
            ),
            11,
            "register count from 0 to 4",
        ),
    ] {
        let e = read(&with_header("-accelsim tracer version = 5\n", &body)).expect_err(&body);
        assert_eq!(e.line, line, "{body}: {e}");
        assert!(e.to_string().contains(words), "{e} lacks {words}");
    }
    // A last warp of 8 lanes: a mask within them reads, one beyond them is refused.
    let forty = |mask: &str| {
        format!(
            "-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (40,1,1)\n\
             -accelsim tracer version = 5\n#x\n#BEGIN_TB\nthread block = 0,0,0\nwarp = 1\n\
             insts = 1\n0000 {mask} 0 STG.E 1 R2 4 1 0x100 4 0\n#END_TB\n"
        )
    };
    let b = read(&forty("000000ff")).unwrap();
    assert_eq!(b[0].warps[1][0].addrs.len(), 8);
    let e = read(&forty("000001ff")).unwrap_err();
    assert_eq!(e.line, 10);
    assert!(
        e.to_string().contains("lanes beyond the block's threads"),
        "{e}"
    );
    // Line numbers and legacy thread-block fields must be there; a line number is a number.
    let e = read(&format!(
        "{}#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n\
         x7 0040 ffffffff 0 EXIT 0 0\n#END_TB\n",
        header(4, true)
    ))
    .unwrap_err();
    assert!(e.to_string().contains("`x7` is not a line number"), "{e}");
}
