//! The SRAM view of a unit's storage tables: CACTI 7 (built by `scripts/install-tools.sh` from
//! the sources inside the PyPI package `hwcomponents-cacti`), each table as a plain RAM of its
//! rows × bits with one read and one write port, at 90 nm (the CROWN thesis used CACTI 6.5 at
//! 90 nm) and 22 nm. CACTI refuses arrays below 64 bytes and some shapes (too few rows for any
//! organisation); those tables fall back to flip-flops, costed by the Yosys CMOS estimate of one
//! flip-flop, and are labelled as such.

use crate::tools::{self, FlowError};
use serde::Serialize;
use std::ffi::OsStr;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use warpforge_contract::Manifest;

/// Technology nodes, nanometres.
pub const NODES_NM: [u32; 2] = [90, 22];
/// CACTI's smallest array.
pub const MIN_BYTES: usize = 64;
/// Time limit of one CACTI run (they take well under a second).
const LIMIT: Duration = Duration::from_secs(120);

#[derive(Clone, Debug, Serialize)]
pub struct CactiReport {
    /// How every table is modelled.
    pub model: String,
    pub tables: Vec<TableSram>,
    /// Sum of the CACTI areas per node (flip-flop fallbacks not included: they have no area
    /// figure, only transistors).
    pub total_mm2: Vec<NodeTotal>,
    /// Transistors of one flip-flop in the Yosys CMOS estimate, used for the fallbacks.
    pub transistors_per_flip_flop: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct NodeTotal {
    pub node_nm: u32,
    pub mm2: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct TableSram {
    pub name: String,
    pub entries: usize,
    pub bits: usize,
    /// "cacti" for every node, or "flip-flops" when CACTI refused the table.
    pub method: String,
    /// Why CACTI was not used.
    pub fallback_reason: Option<String>,
    /// Per node (CACTI only).
    pub nodes: Vec<NodeSram>,
    /// entries × bits × transistors per flip-flop (fallback only).
    pub flip_flop_transistors: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NodeSram {
    pub node_nm: u32,
    pub area_mm2: f64,
    pub access_ns: f64,
    pub read_nj: f64,
    pub write_nj: f64,
}

/// Find CACTI: `cacti` on the search path, next to its `tech_params/` (it reads them from its
/// working directory).
pub fn find(search_path: &OsStr) -> Result<(PathBuf, PathBuf), FlowError> {
    let bin = tools::require_in("cacti", search_path).map_err(|_| FlowError::MissingBuild {
        tool: "cacti".into(),
        hint: "build it with: bash scripts/install-tools.sh (CACTI 7 from the sources in the \
               PyPI package hwcomponents-cacti)"
            .into(),
    })?;
    let real = std::fs::canonicalize(&bin).unwrap_or(bin);
    let home = real.parent().map(Path::to_path_buf).unwrap_or_default();
    if !home.join("tech_params").is_dir() {
        return Err(FlowError::BadInput(format!(
            "{} has no tech_params/ beside it; rebuild it with: bash scripts/install-tools.sh",
            real.display()
        )));
    }
    Ok((real, home))
}

/// The CACTI input for a RAM of `size` bytes in rows of `row_bytes`, one read and one write
/// port, at `node_nm`. Values not about the array (the off-chip I/O model) are CACTI's
/// defaults; CACTI reads them even for a RAM and divides by some of them.
pub fn config(size: usize, row_bytes: usize, node_nm: u32) -> String {
    let mut c = String::new();
    let mut line = |s: &str| {
        c.push_str(s);
        c.push('\n');
    };
    line(&format!("-size (bytes) {size}"));
    line(&format!("-block size (bytes) {row_bytes}"));
    line("-associativity 1");
    line("-read-write port 0");
    line("-exclusive read port 1");
    line("-exclusive write port 1");
    line("-single ended read ports 0");
    line("-UCA bank count 1");
    line(&format!("-technology (u) {:.3}", node_nm as f64 / 1000.0));
    line("-page size (bits) 8192");
    line("-burst length 8");
    line("-internal prefetch width 8");
    for array in ["Data", "Tag"] {
        line(&format!("-{array} array cell type - \"itrs-hp\""));
        line(&format!("-{array} array peripheral type - \"itrs-hp\""));
    }
    line(&format!("-output/input bus width {}", row_bytes * 8));
    line("-operating temperature (K) 360");
    line("-cache type \"ram\"");
    line("-tag size (b) \"default\"");
    line("-access mode (normal, sequential, fast) - \"normal\"");
    line("-design objective (weight delay, dynamic power, leakage power, cycle time, area) 0:0:0:100:0");
    line("-deviate (delay, dynamic power, leakage power, cycle time, area) 20:100000:100000:100000:100000");
    line("-NUCAdesign objective (weight delay, dynamic power, leakage power, cycle time, area) 100:100:0:0:100");
    line("-NUCAdeviate (delay, dynamic power, leakage power, cycle time, area) 10:10000:10000:10000:10000");
    line("-Optimize ED or ED^2 (ED, ED^2, NONE): \"ED^2\"");
    line("-Cache model (NUCA, UCA)  - \"UCA\"");
    line("-NUCA bank count 0");
    line("-Wire signaling (fullswing, lowswing, default) - \"Global_30\"");
    line("-Wire inside mat - \"semi-global\"");
    line("-Wire outside mat - \"semi-global\"");
    line("-Interconnect projection - \"conservative\"");
    line("-Core count 8");
    line("-Cache level (L2/L3) - \"L3\"");
    line("-Add ECC - \"false\"");
    line("-Print level (DETAILED, CONCISE) - \"DETAILED\"");
    line("-Print input parameters - \"false\"");
    line("-Force cache config - \"false\"");
    for n in [
        "Ndwl 1", "Ndbl 1", "Nspd 0", "Ndcm 1", "Ndsam1 0", "Ndsam2 0",
    ] {
        line(&format!("-{n}"));
    }
    for g in ["Array", "WL", "CL", "Interconnect"] {
        line(&format!("-{g} Power Gating - \"false\""));
    }
    line("-Bitline floating - \"false\"");
    line("-Power Gating Performance Loss 0.01");
    // The off-chip I/O model (unused for an on-chip RAM, but read).
    for io in [
        "dram_type \"DDR3\"",
        "io state \"WRITE\"",
        "addr_timing 1.0",
        "mem_density 4 Gb",
        "bus_freq 800 MHz",
        "duty_cycle 1.0",
        "activity_dq 1.0",
        "activity_ca 0.5",
        "num_dq 72",
        "num_dqs 18",
        "num_ca 25",
        "num_clk 2",
        "num_mem_dq 2",
        "mem_data_width 8",
        "rtt_value 10000",
        "ron_value 34",
        "tflight_value",
        "num_bobs 1",
        "capacity 80",
        "num_channels_per_bob 1",
        "first metric \"Cost\"",
        "second metric \"Bandwidth\"",
        "third metric \"Energy\"",
        "DIMM model \"ALL\"",
        "mirror_in_bob \"F\"",
    ] {
        line(&format!("-{io}"));
    }
    c
}

/// Read the figures of one CACTI run: data-array area, access time, read and write energy.
pub fn parse_output(text: &str) -> Result<(f64, f64, f64, f64), String> {
    let find = |key: &str| -> Result<f64, String> {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(key))
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| format!("no `{key}` in CACTI's output"))
    };
    if let Some(e) = text.lines().find(|l| l.contains("ERROR")) {
        return Err(e.trim().to_string());
    }
    Ok((
        find("Data array: Area (mm2):")?,
        find("Access time (ns):")?,
        find("Total dynamic read energy per access (nJ):")?,
        find("Total dynamic write energy per access (nJ):")?,
    ))
}

/// One table at one node, or why CACTI refused it.
fn run_one(
    bin: &Path,
    home: &Path,
    dir: &Path,
    size: usize,
    row_bytes: usize,
    node: u32,
) -> Result<Result<NodeSram, String>, FlowError> {
    let cfg = dir.join(format!("t{size}x{row_bytes}_{node}nm.cfg"));
    std::fs::write(&cfg, config(size, row_bytes, node)).map_err(|e| FlowError::Io {
        what: format!("could not write {}", cfg.display()),
        error: e.to_string(),
    })?;
    let out = tools::run(
        Command::new(bin).arg("-infile").arg(&cfg).current_dir(home),
        LIMIT,
    )?;
    let text = out.combined();
    if !out.success() {
        let why = text
            .lines()
            .find(|l| l.contains("ERROR"))
            .map(str::trim)
            .map(str::to_string)
            .unwrap_or_else(|| format!("cacti exited with {}", out.status));
        return Ok(Err(why));
    }
    Ok(
        parse_output(&text).map(|(area_mm2, access_ns, read_nj, write_nj)| NodeSram {
            node_nm: node,
            area_mm2,
            access_ns,
            read_nj,
            write_nj,
        }),
    )
}

/// Model every table of `manifest`; `ff_transistors` is the Yosys CMOS estimate of one
/// flip-flop.
pub fn tables(
    manifest: &Manifest,
    ff_transistors: u64,
    search_path: &OsStr,
) -> Result<CactiReport, FlowError> {
    let (bin, home) = find(search_path)?;
    let dir = tempfile::Builder::new()
        .prefix("warpforge-cacti-")
        .tempdir()
        .map_err(|e| FlowError::Io {
            what: "could not create a temporary directory".into(),
            error: e.to_string(),
        })?;
    let mut out = vec![];
    for t in &manifest.tables {
        let row_bytes = t.bits.div_ceil(8);
        let size = t.entries * row_bytes;
        let mut nodes = vec![];
        let mut refused = None;
        if size < MIN_BYTES {
            refused = Some(format!(
                "{size} bytes; CACTI models arrays of {MIN_BYTES} bytes or more"
            ));
        } else {
            for node in NODES_NM {
                match run_one(&bin, &home, dir.path(), size, row_bytes, node)? {
                    Ok(n) => nodes.push(n),
                    Err(why) => {
                        refused = Some(format!("CACTI at {node} nm: {why}"));
                        break;
                    }
                }
            }
        }
        let fallback = refused.is_some();
        out.push(TableSram {
            name: t.name.clone(),
            entries: t.entries,
            bits: t.bits,
            method: if fallback { "flip-flops" } else { "cacti" }.into(),
            fallback_reason: refused,
            nodes: if fallback { vec![] } else { nodes },
            flip_flop_transistors: fallback.then(|| (t.entries * t.bits) as u64 * ff_transistors),
        });
    }
    let total_mm2 = NODES_NM
        .iter()
        .map(|&node| NodeTotal {
            node_nm: node,
            mm2: out
                .iter()
                .flat_map(|t| &t.nodes)
                .filter(|n| n.node_nm == node)
                .map(|n| n.area_mm2)
                // Not `sum()`: an empty f64 sum is -0.0.
                .fold(0.0, |a, b| a + b),
        })
        .collect();
    Ok(CactiReport {
        model: "CACTI 7 RAM, 1 read + 1 write port, itrs-hp cells and periphery, no ECC, \
                cycle-time objective; rows × ceil(bits/8) bytes"
            .into(),
        tables: out,
        total_mm2,
        transistors_per_flip_flop: ff_transistors,
    })
}

impl CactiReport {
    /// Text lines for the area report.
    pub fn render(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "  {:<18} {} (flip-flop fallback: {} transistors each, Yosys CMOS estimate)",
            "cacti", self.model, self.transistors_per_flip_flop
        );
        for t in &self.tables {
            if t.nodes.is_empty() {
                let _ = writeln!(
                    s,
                    "    {:<16} flip-flops: ~{} transistors ({})",
                    t.name,
                    t.flip_flop_transistors.unwrap_or(0),
                    t.fallback_reason.as_deref().unwrap_or("")
                );
            } else {
                let per: Vec<String> = t
                    .nodes
                    .iter()
                    .map(|n| {
                        format!(
                            "{} nm {:.4} mm2 {:.3} ns {:.4}/{:.4} nJ r/w",
                            n.node_nm, n.area_mm2, n.access_ns, n.read_nj, n.write_nj
                        )
                    })
                    .collect();
                let _ = writeln!(s, "    {:<16} {}", t.name, per.join("; "));
            }
        }
        let totals: Vec<String> = self
            .total_mm2
            .iter()
            .map(|t| format!("{} nm {:.4} mm2", t.node_nm, t.mm2))
            .collect();
        let _ = writeln!(s, "    {:<16} {}", "total (CACTI)", totals.join("; "));
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_figures_are_read_and_errors_kept() {
        let text = "  Data array: Area (mm2): 0.17762\n    Access time (ns): 0.746298\n\
                    Total dynamic read energy per access (nJ): 0.0187753\n\
                    Total dynamic write energy per access (nJ): 0.0377\n";
        assert_eq!(
            parse_output(text).unwrap(),
            (0.17762, 0.746298, 0.0187753, 0.0377)
        );
        assert_eq!(
            parse_output("ERROR: no valid data array organizations found\n").unwrap_err(),
            "ERROR: no valid data array organizations found"
        );
        assert!(parse_output("Access time (ns): 1\n").is_err());
    }

    #[test]
    fn config_names_the_array() {
        let c = config(5760, 12, 90);
        for l in [
            "-size (bytes) 5760\n",
            "-block size (bytes) 12\n",
            "-technology (u) 0.090\n",
            "-output/input bus width 96\n",
            "-cache type \"ram\"\n",
            "-exclusive read port 1\n",
            "-Add ECC - \"false\"\n",
        ] {
            assert!(c.contains(l), "{l}");
        }
        assert!(config(64, 8, 22).contains("-technology (u) 0.022\n"));
    }
}
