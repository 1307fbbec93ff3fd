//! Shared checks for generated designs: the top module's port list and the three lint tools.
#![allow(dead_code)] // each test binary uses a subset

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use warpforge_contract::{Dir, Port};
use warpforge_hdl::Design;

/// A port as declared in Verilog.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Declared {
    pub name: String,
    pub input: bool,
    pub width: usize,
}

/// `design`'s top module is `module` and declares exactly the contract's `ports` (plus the
/// clock); `what` names the configuration in a failure.
pub fn assert_contract_ports(design: &Design, module: &str, ports: &[Port], what: &str) {
    assert_eq!(design.module, module, "{what}");
    assert_eq!(
        declared_ports(&design.verilog, &design.module),
        expected_ports(ports),
        "{what}"
    );
}

/// The ports of `module` in `verilog`: its header list, each with its declaration.
pub fn declared_ports(verilog: &str, module: &str) -> Vec<Declared> {
    let start = verilog
        .find(&format!("\nmodule {module}("))
        .unwrap_or_else(|| panic!("module {module} not found"));
    let body = &verilog[start + 1..];
    let end = body.find("endmodule").expect("module without endmodule");
    let body = &body[..end];
    let header = &body[body.find('(').unwrap() + 1..body.find(");").unwrap()];
    let names: Vec<&str> = header.split(',').map(str::trim).collect();
    let mut ports = vec![];
    for line in body.lines().map(str::trim) {
        let input = line.starts_with("input ");
        if !(input || line.starts_with("output ")) {
            continue;
        }
        let decl = line.trim_end_matches(';');
        let name = decl.split_whitespace().last().unwrap().to_string();
        let width = match (decl.find('['), decl.find(':')) {
            (Some(a), Some(b)) => decl[a + 1..b].parse::<usize>().unwrap() + 1,
            _ => 1,
        };
        ports.push(Declared { name, input, width });
    }
    let mut listed: Vec<&str> = ports.iter().map(|p| p.name.as_str()).collect();
    let mut header_names = names.clone();
    listed.sort_unstable();
    header_names.sort_unstable();
    assert_eq!(
        listed, header_names,
        "header and declarations of {module} differ"
    );
    ports.sort();
    ports
}

/// What the contract says the top module must declare: its ports plus `clock`.
pub fn expected_ports(ports: &[Port]) -> Vec<Declared> {
    let mut v: Vec<Declared> = ports
        .iter()
        .map(|p| Declared {
            name: p.name.clone(),
            input: p.dir == Dir::In,
            width: p.width,
        })
        .collect();
    v.push(Declared {
        name: "clock".into(),
        input: true,
        width: 1,
    });
    v.sort();
    v
}

fn have(tool: &str) -> bool {
    Command::new(tool).arg("-V").output().is_ok()
}

fn scratch_file(design: &Design) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "warpforge-hdl-tests-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{}.v", design.module));
    std::fs::write(&path, &design.verilog).unwrap();
    path
}

/// Verilator lint (with the project's waivers), Icarus parse, and Yosys: no latch, no
/// combinational loop, no multiple or missing drivers. Panics with the tool's output on the
/// first failure; a missing tool is skipped with a message.
pub fn lint_all(design: &Design) {
    let path = scratch_file(design);
    let file = path.to_str().unwrap();
    let top = design.module.as_str();

    if have("verilator") {
        let out = Command::new("verilator")
            .args([
                "--lint-only",
                "-Wall",
                "-Wno-WIDTH",
                "-Wno-DECLFILENAME",
                "-Wno-UNUSEDSIGNAL",
                "-Wno-UNUSEDPARAM",
                "-Wno-VARHIDDEN",
                file,
                "--top-module",
                top,
            ])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stderr).to_string()
            + &String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && !text.contains("%Warning") && !text.contains("%Error"),
            "verilator lint of {top} failed:\n{text}"
        );
    } else {
        eprintln!("SKIPPED: verilator not installed, {top} not linted");
    }

    if have("iverilog") {
        let out = Command::new("iverilog")
            .args(["-g2005", "-o", "/dev/null", file])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(
            out.status.success() && text.trim().is_empty(),
            "iverilog of {top} failed:\n{text}"
        );
    } else {
        eprintln!("SKIPPED: iverilog not installed, {top} not parsed");
    }

    if have("yosys") {
        let script = format!(
            "read_verilog {file}; hierarchy -check -top {top}; proc; flatten; check -assert; \
             select -assert-none t:$dlatch t:$adlatch t:$dlatchsr"
        );
        let out = Command::new("yosys")
            .args(["-q", "-p", &script])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stderr).to_string()
            + &String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "yosys check of {top} failed:\n{text}");
    } else {
        eprintln!("SKIPPED: yosys not installed, {top} not checked for latches and loops");
    }
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

/// One cycle of stimulus: the inputs that are not zero.
pub type Step = Vec<(&'static str, u64)>;

/// Output values seen in one cycle, before its clock edge, as hex strings without leading
/// zeros (combinational outputs reflect this cycle's inputs, registered ones the state).
pub type Seen = std::collections::BTreeMap<String, String>;

/// Simulate `design` with Icarus Verilog: after one reset edge, each step drives its inputs
/// (others 0), lets them settle, samples every output, then clocks. `None` (with a message) when Icarus is missing.
pub fn simulate(design: &Design, ports: &[Port], steps: &[Step]) -> Option<Vec<Seen>> {
    if !have("iverilog") || !have("vvp") {
        eprintln!(
            "SKIPPED: iverilog/vvp not installed, {} not simulated",
            design.module
        );
        return None;
    }
    let decl = |p: &Port| {
        let kind = if p.dir == Dir::In { "reg" } else { "wire" };
        format!("  {kind} [{}:0] {};\n", p.width - 1, p.name)
    };
    let mut tb = String::from("module tb;\n  reg clock = 0;\n");
    ports.iter().for_each(|p| tb += &decl(p));
    let conns: Vec<String> = std::iter::once(".clock(clock)".to_string())
        .chain(ports.iter().map(|p| format!(".{0}({0})", p.name)))
        .collect();
    tb += &format!(
        "  {} dut({});\n  initial begin\n",
        design.module,
        conns.join(", ")
    );
    // One reset edge before the first step, all other inputs low.
    for p in ports.iter().filter(|p| p.dir == Dir::In) {
        let v = u64::from(p.name == "reset");
        tb += &format!("    {} = {}'h{:x};\n", p.name, p.width, v);
    }
    tb += "    #1; clock = 1; #1; clock = 0;\n";
    let outputs: Vec<&Port> = ports.iter().filter(|p| p.dir == Dir::Out).collect();
    let fmt: Vec<String> = outputs.iter().map(|p| format!("{}=%h", p.name)).collect();
    let args: Vec<&str> = outputs.iter().map(|p| p.name.as_str()).collect();
    for step in steps {
        for p in ports.iter().filter(|p| p.dir == Dir::In) {
            let v = step
                .iter()
                .find(|(n, _)| *n == p.name)
                .map_or(0, |&(_, v)| v);
            tb += &format!("    {} = {}'h{:x};\n", p.name, p.width, v);
        }
        for (n, _) in step {
            assert!(
                ports.iter().any(|p| p.name == *n && p.dir == Dir::In),
                "no input {n}"
            );
        }
        tb += &format!(
            "    #1; $display(\"SEEN {}\", {});\n    clock = 1; #1; clock = 0;\n",
            fmt.join(" "),
            args.join(", ")
        );
    }
    tb += "    $finish;\n  end\nendmodule\n";

    let dut = scratch_file(design);
    let dir = dut.parent().unwrap().to_path_buf();
    std::fs::write(dir.join("tb.v"), tb).unwrap();
    let out = Command::new("iverilog")
        .args(["-g2005", "-o"])
        .arg(dir.join("sim"))
        .arg(dir.join("tb.v"))
        .arg(&dut)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "iverilog failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new("vvp").arg(dir.join("sim")).output().unwrap();
    assert!(run.status.success(), "vvp failed");
    let text = String::from_utf8_lossy(&run.stdout).to_string();
    let _ = std::fs::remove_dir_all(&dir);
    let seen: Vec<Seen> = text
        .lines()
        .filter_map(|l| l.strip_prefix("SEEN "))
        .map(|l| {
            l.split_whitespace()
                .map(|kv| {
                    let (k, v) = kv.split_once('=').unwrap();
                    assert!(!v.contains(['x', 'z', 'X', 'Z']), "{k} is {v}");
                    let v = v.trim_start_matches('0');
                    (
                        k.to_string(),
                        if v.is_empty() { "0" } else { v }.to_string(),
                    )
                })
                .collect()
        })
        .collect();
    assert_eq!(seen.len(), steps.len(), "simulation output:\n{text}");
    Some(seen)
}

/// A sampled output as a number (ports up to 128 bits).
pub fn num(seen: &Seen, port: &str) -> u128 {
    u128::from_str_radix(&seen[port], 16).unwrap_or_else(|_| panic!("{port} = {}", seen[port]))
}
