//! Command trace tests: lines round-trip, and a bad line is named.

use super::*;

// ---------------------------------------------------------------------------------------------
// Trace format

#[test]
fn trace_lines_round_trip() {
    let cmds = [
        Command::act(3, 4095),
        Command::pre(15),
        Command::prea(),
        Command::rd(1, 2, 3),
        Command::wr(1, 2, 4),
        Command::rda(0, 9, 63),
        Command::wra(7, 8, 1),
        Command::refresh(),
    ];
    let mut w = CommandTrace::new(Vec::new());
    for (i, c) in cmds.iter().enumerate() {
        w.record(&TraceCmd::new(1000 + i as u64, 5, c)).unwrap();
    }
    assert_eq!(w.written(), 8);
    let text = String::from_utf8(w.into_inner().unwrap()).unwrap();
    assert!(text.starts_with("1000,5,3,ACT,4095,0\n1001,5,15,PRE,0,0\n1002,5,0,PREA,0,0\n"));
    let parsed = parse_trace(&format!("# header\n\n{text}")).unwrap();
    let back: Vec<Command> = parsed.iter().map(TraceCmd::command).collect();
    assert_eq!(back, cmds);
    assert_eq!(parsed[7].cycle, 1007);
    assert_eq!(parsed[7].channel, 5);
    assert_eq!(
        TraceCmd::parse_line(" 1, 2, 3, RDA, 4, 5 ", 1)
            .unwrap()
            .kind,
        CmdKind::Rda
    );
}

#[test]
fn trace_parse_errors_name_the_line() {
    let cases = [
        ("1,0,0,ACT,1", "expected 6"),
        ("1,0,0,NOP,1,0", "unknown command `NOP`"),
        ("x,0,0,ACT,1,0", "cycle `x`"),
        ("1,0,0,ACT,4294967296,0", "row 4294967296 does not fit"),
        ("1,0,-1,ACT,1,0", "bank `-1`"),
        ("1,0,0,act,1,0", "unknown command"),
    ];
    for (line, want) in cases {
        let text = format!("0,0,0,ACT,1,0\n\n{line}\n");
        let e = parse_trace(&text).unwrap_err();
        assert_eq!(e.line, 3, "{line}");
        let msg = e.to_string();
        assert!(msg.starts_with("command trace line 3: "), "{msg}");
        assert!(msg.contains(want), "{msg}");
    }
}
