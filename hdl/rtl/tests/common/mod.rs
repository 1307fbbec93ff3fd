//! Shared checks for generated designs: the top module's port list and the three lint tools.

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
