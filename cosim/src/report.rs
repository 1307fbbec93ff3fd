//! `warpforge report`: one self-contained HTML page comparing the units — storage bits, Yosys
//! cells, CACTI SRAM area, FPGA resources and (with `--fpga`) Fmax — with each unit's overhead
//! over the baseline it replaces and SVG bar charts of those overheads. The page has no
//! external references (inline CSS and SVG), so it can be mailed or archived as one file.
//!
//! What goes in the report is a TOML file (`configs/report.toml` by default):
//!
//! ```toml
//! [[unit]]
//! label = "warp-sched, MOTRR+Recency"   # optional; the unit name otherwise
//! unit = "warp-sched"                   # a unit name or a config file
//! params = { policy = "motrr-recency" } # optional overrides
//! over = { policy = "gto" }             # optional: the baseline is the same unit with these
//! ```

use crate::area::{self, AreaReport};
use crate::fpga::{self, FpgaReport};
use crate::registry::Unit;
use serde::Serialize;

/// One line of the report file.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub label: String,
    pub target: String,
    pub sets: Vec<String>,
    /// Baseline overrides (empty: no baseline; the whole unit is the overhead).
    pub over: Vec<String>,
}

/// Reads a report file; errors are one line naming `file` and what is allowed.
pub fn parse_spec(file: &str, text: &str) -> Result<Vec<Entry>, String> {
    let doc: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        format!(
            "{file}: malformed TOML: {}",
            e.message().lines().next().unwrap_or("").trim()
        )
    })?;
    if let Some(k) = doc.keys().find(|k| *k != "unit") {
        return Err(format!(
            "{file}: unknown key `{k}`; a report file is a list of [[unit]] tables"
        ));
    }
    let Some(list) = doc.get("unit").and_then(|u| u.as_array()) else {
        return Err(format!("{file}: no [[unit]] tables"));
    };
    let sets_of = |i: usize, key: &str, v: Option<&toml::Value>| -> Result<Vec<String>, String> {
        let Some(v) = v else { return Ok(vec![]) };
        let t = v.as_table().ok_or_else(|| {
            format!(
                "{file}: unit {}: `{key}` must be a table of parameter values",
                i + 1
            )
        })?;
        t.iter()
            .map(|(k, v)| match v {
                toml::Value::String(s) => Ok(format!("{k}={s}")),
                toml::Value::Integer(n) => Ok(format!("{k}={n}")),
                toml::Value::Boolean(b) => Ok(format!("{k}={b}")),
                _ => Err(format!(
                    "{file}: unit {}: {key}.{k}: a value is a string, an integer or a boolean",
                    i + 1
                )),
            })
            .collect()
    };
    let mut out = vec![];
    for (i, u) in list.iter().enumerate() {
        let t = u
            .as_table()
            .ok_or_else(|| format!("{file}: unit {}: not a table", i + 1))?;
        if let Some(k) = t
            .keys()
            .find(|k| !["label", "unit", "params", "over"].contains(&k.as_str()))
        {
            return Err(format!(
                "{file}: unit {}: unknown key `{k}`; keys are label, unit, params, over",
                i + 1
            ));
        }
        let target = t
            .get("unit")
            .and_then(|v| v.as_str())
            .ok_or_else(|| format!("{file}: unit {}: `unit = \"…\"` is missing", i + 1))?;
        let label = match t.get("label") {
            None => target.to_string(),
            Some(v) => v
                .as_str()
                .ok_or_else(|| format!("{file}: unit {}: `label` must be a string", i + 1))?
                .to_string(),
        };
        out.push(Entry {
            label,
            target: target.to_string(),
            sets: sets_of(i, "params", t.get("params"))?,
            over: sets_of(i, "over", t.get("over"))?,
        });
    }
    Ok(out)
}

/// One unit of the report.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub label: String,
    pub unit: String,
    pub sets: Vec<String>,
    pub over: Vec<String>,
    /// With the overhead over the baseline when the entry names one.
    pub area: AreaReport,
    pub fpga: Option<FpgaReport>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub rows: Vec<Row>,
    /// Units in the run whose area was not measured, and why (`flow --area-limit`).
    pub not_measured: Vec<NotMeasured>,
}

#[derive(Clone, Debug, Serialize)]
pub struct NotMeasured {
    pub label: String,
    pub module: String,
    pub why: String,
}

/// Resolves every entry first (bad input is reported before any synthesis), then runs the
/// area flow (and place and route when `fpga` is given) on each.
pub fn run(
    entries: &[Entry],
    fpga_opts: Option<&fpga::Options>,
    progress: &mut dyn FnMut(&str),
) -> Result<Report, String> {
    let mut units = vec![];
    for e in entries {
        let u = Unit::resolve(&e.target, &e.sets).map_err(|m| format!("{}: {m}", e.label))?;
        let base = if e.over.is_empty() {
            None
        } else {
            let sets: Vec<String> = e.sets.iter().chain(&e.over).cloned().collect();
            Some(
                Unit::resolve(&e.target, &sets)
                    .map_err(|m| format!("{} (baseline): {m}", e.label))?,
            )
        };
        units.push((e, u, base));
    }
    let n = units.len();
    let mut rows = vec![];
    for (i, (e, u, base)) in units.into_iter().enumerate() {
        progress(&format!("[{}/{n}] area {}", i + 1, e.label));
        let err = |m: String| format!("{}: {m}", e.label);
        let mut a = area::area(&u.design(), &u.manifest()).map_err(|x| err(x.to_string()))?;
        if let Some(b) = base {
            progress(&format!("[{}/{n}] area {} (baseline)", i + 1, e.label));
            let ba = area::area(&b.design(), &b.manifest()).map_err(|x| err(x.to_string()))?;
            a.set_overhead(&ba);
        }
        let f = match fpga_opts {
            Some(o) => {
                progress(&format!("[{}/{n}] place and route {}", i + 1, e.label));
                Some(
                    fpga::fpga(&u.design(), &u.manifest(), o, &mut |l| progress(l))
                        .map_err(|x| err(x.to_string()))?,
                )
            }
            None => None,
        };
        rows.push(Row {
            label: e.label.clone(),
            unit: u.name().to_string(),
            sets: e.sets.clone(),
            over: e.over.clone(),
            area: a,
            fpga: f,
        });
    }
    Ok(Report {
        rows,
        not_measured: vec![],
    })
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A table cell the tests (and scripts) can find by its `data-key`.
fn td(key: &str, v: impl std::fmt::Display) -> String {
    format!("<td data-key=\"{key}\">{v}</td>")
}

/// CACTI's area at `node` over the tables it modelled, and how many tables it refused (costed
/// as flip-flops instead, outside this figure).
fn cacti_cell(a: &AreaReport, node: u32) -> String {
    let Some(c) = &a.cacti else {
        return "— (no tables)".into();
    };
    let refused = c.tables.iter().filter(|t| t.method != "cacti").count();
    let modelled = c.tables.len() - refused;
    let mm2 = c
        .total_mm2
        .iter()
        .find(|t| t.node_nm == node)
        .map_or(0.0, |t| t.mm2);
    match (modelled, refused) {
        (0, _) => "— (flip-flops)".into(),
        (_, 0) => format!("{mm2:.4}"),
        (_, r) => format!("{mm2:.4} (+{r} as flip-flops)"),
    }
}

fn pct(delta: i64, base: u64) -> String {
    if base == 0 {
        "—".into()
    } else {
        format!("{:+.1} %", 100.0 * delta as f64 / base as f64)
    }
}

/// A horizontal bar chart: one group of bars per label, one bar per series.
fn bar_chart(title: &str, unit: &str, series: &[&str], data: &[(String, Vec<f64>)]) -> String {
    const COLOURS: [&str; 4] = ["#3b6ea5", "#d0823a", "#5a9a58", "#8e5ea2"];
    let (label_w, bar_h, gap, plot_w) = (260.0, 14.0, 10.0, 420.0);
    let max = data
        .iter()
        .flat_map(|(_, v)| v.iter().map(|x| x.abs()))
        .fold(0.0f64, f64::max)
        .max(1e-9);
    let group_h = bar_h * series.len() as f64 + gap;
    let height = 40.0 + group_h * data.len() as f64 + 20.0 * series.len() as f64;
    let mut s = format!(
        "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" width=\"{w}\" height=\"{height}\" viewBox=\"0 0 {w} {height}\">\n<title>{t}</title>\n<text x=\"0\" y=\"16\" class=\"ct\">{t} ({u})</text>\n",
        w = label_w + plot_w + 120.0,
        t = esc(title),
        u = esc(unit)
    );
    for (g, (label, vals)) in data.iter().enumerate() {
        let y0 = 30.0 + g as f64 * group_h;
        s += &format!(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
            label_w - 8.0,
            y0 + bar_h * series.len() as f64 / 2.0 + 4.0,
            esc(label)
        );
        for (k, v) in vals.iter().enumerate() {
            let w = plot_w * v.abs() / max;
            let y = y0 + k as f64 * bar_h;
            s += &format!(
                "<rect class=\"bar\" data-series=\"{}\" data-value=\"{v}\" x=\"{label_w}\" y=\"{y}\" width=\"{w:.1}\" height=\"{}\" fill=\"{}\"/>\n<text x=\"{}\" y=\"{}\" class=\"val\">{}</text>\n",
                esc(series[k]),
                bar_h - 2.0,
                COLOURS[k % COLOURS.len()],
                label_w + w + 4.0,
                y + bar_h - 4.0,
                if v.fract() == 0.0 { format!("{v}") } else { format!("{v:.1}") }
            );
        }
    }
    let ly = 30.0 + group_h * data.len() as f64;
    for (k, name) in series.iter().enumerate() {
        let y = ly + 20.0 * k as f64;
        s += &format!(
            "<rect x=\"{label_w}\" y=\"{y}\" width=\"12\" height=\"12\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text>\n",
            COLOURS[k % COLOURS.len()],
            label_w + 18.0,
            y + 10.0,
            esc(name)
        );
    }
    s + "</svg></figure>\n"
}

/// The page.
pub fn html(r: &Report) -> String {
    let parts: Vec<String> = {
        let mut p: Vec<String> = r
            .rows
            .iter()
            .filter_map(|x| x.fpga.as_ref())
            .flat_map(|f| f.parts.keys().cloned())
            .collect();
        p.sort();
        p.dedup();
        p
    };
    let mut s = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>warpforge area report</title>\n<style>\nbody{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:1em 0}\nth,td{border:1px solid #bbb;padding:3px 7px;text-align:right}th{background:#eee}td:first-child,th:first-child{text-align:left}\n.ct{font-weight:bold}svg text{font-size:12px}figure{margin:1.5em 0}\n</style></head><body>\n<h1>warpforge area report</h1>\n",
    );
    s += "<p>Storage bits come from each unit's manifest (counted: the paper's fields; extra: \
          valid bits, order state and other fields the paper does not count). Cells, flip-flops \
          and transistors are Yosys's generic synthesis and CMOS estimate; LUTs and block RAMs \
          are Yosys's iCE40, ECP5 and Xilinx 7 mappings; SRAM area is CACTI 7 summed over the \
          unit's tables (tables CACTI refuses are costed as flip-flops in the transistor count \
          and left out of the area). Fmax is nextpnr's, min / median over the placer seeds.</p>\n";
    s += "<h2>Units</h2>\n<table id=\"units\"><tr><th>unit</th><th>module</th><th>counted bits</th><th>extra bits</th><th>total bits</th><th>share of a 128 KB SM</th><th>cells</th><th>flip-flops</th><th>transistors</th><th>CACTI 90 nm mm²</th><th>CACTI 22 nm mm²</th><th>iCE40 LUTs</th><th>iCE40 BRAMs</th><th>ECP5 LUTs</th><th>ECP5 BRAMs</th><th>Xilinx LUTs</th><th>Xilinx BRAMs</th>";
    for p in &parts {
        s += &format!("<th>{} Fmax MHz (min / median)</th>", esc(p));
    }
    s += "</tr>\n";
    for row in &r.rows {
        let a = &row.area;
        let c = &a.storage_bits.classes;
        s += &format!(
            "<tr data-module=\"{}\"><td>{}</td><td>{}</td>",
            esc(&a.module),
            esc(&row.label),
            esc(&a.module)
        );
        s += &td("counted_bits", c.counted_bits);
        s += &td("extra_bits", c.extra_bits);
        s += &td("total_bits", a.storage_bits.total);
        s += &td(
            "share_of_sm",
            format!("{:.3} %", 100.0 * a.storage_bits.counted_share_of_sm),
        );
        s += &td("cells", a.yosys.total_cells);
        s += &td("flip_flops", a.yosys.flip_flops);
        s += &td("transistors", a.yosys.cmos.transistors);
        s += &td("cacti_90nm_mm2", cacti_cell(a, 90));
        s += &td("cacti_22nm_mm2", cacti_cell(a, 22));
        for (fam, f) in [
            ("ice40", &a.fpga.ice40),
            ("ecp5", &a.fpga.ecp5),
            ("xilinx", &a.fpga.xilinx),
        ] {
            s += &td(&format!("{fam}_luts"), f.luts);
            s += &td(&format!("{fam}_brams"), f.brams);
        }
        for p in &parts {
            let cell = row
                .fpga
                .as_ref()
                .and_then(|f| f.parts.get(p))
                .map(|pr| match (&pr.fmax_mhz, pr.fits) {
                    (Some(f), _) => format!("{:.1} / {:.1}", f.min, f.median),
                    (None, Some(false)) => "does not fit".into(),
                    (None, Some(true)) => "not routed".into(),
                    (None, None) => "synthesis did not finish".into(),
                })
                .unwrap_or_else(|| "—".into());
            s += &td(&format!("fmax_{p}"), esc(&cell));
        }
        s += "</tr>\n";
    }
    s += "</table>\n";

    s += "<h2>Overhead over the baseline each unit replaces</h2>\n<table id=\"overheads\"><tr><th>unit</th><th>baseline</th><th>storage bits</th><th>cells</th><th>flip-flops</th><th>iCE40 LUTs</th><th>ECP5 LUTs</th><th>Xilinx LUTs</th></tr>\n";
    let mut chart = vec![];
    for row in &r.rows {
        let a = &row.area;
        let (base, o) = match &a.overhead {
            Some(o) => (
                format!(
                    "{} ({})",
                    esc(&o.baseline_module),
                    esc(&row.over.join(", "))
                ),
                o,
            ),
            None => {
                s += &format!(
                    "<tr data-module=\"{}\"><td>{}</td><td>none: the whole unit is added</td><td data-key=\"storage_bits\">{}</td><td data-key=\"cells\">{}</td><td data-key=\"flip_flops\">{}</td><td data-key=\"ice40_luts\">{}</td><td data-key=\"ecp5_luts\">{}</td><td data-key=\"xilinx_luts\">{}</td></tr>\n",
                    esc(&a.module), esc(&row.label), a.storage_bits.total, a.yosys.total_cells,
                    a.yosys.flip_flops, a.fpga.ice40.luts, a.fpga.ecp5.luts, a.fpga.xilinx.luts
                );
                continue;
            }
        };
        let b = &o.baseline;
        let cell = |k: &str, d: i64, base: u64| {
            format!(
                "<td data-key=\"{k}\" data-delta=\"{d}\">{d:+} ({})</td>",
                pct(d, base)
            )
        };
        s += &format!(
            "<tr data-module=\"{}\"><td>{}</td><td>{base}</td>{}{}{}{}{}{}</tr>\n",
            esc(&a.module),
            esc(&row.label),
            cell("storage_bits", o.storage_bits, b.storage_bits),
            cell("cells", o.cells, b.cells),
            cell("flip_flops", o.flip_flops, b.flip_flops),
            cell("ice40_luts", o.ice40_luts, b.ice40_luts),
            cell("ecp5_luts", o.ecp5_luts, b.ecp5_luts),
            cell("xilinx_luts", o.xilinx_luts, b.xilinx_luts),
        );
        let p = |d: i64, base: u64| {
            if base == 0 {
                0.0
            } else {
                100.0 * d as f64 / base as f64
            }
        };
        chart.push((
            row.label.clone(),
            vec![
                p(o.storage_bits, b.storage_bits),
                p(o.cells, b.cells),
                p(o.ecp5_luts, b.ecp5_luts),
            ],
        ));
    }
    s += "</table>\n<h2>Charts</h2>\n";
    let storage: Vec<(String, Vec<f64>)> = r
        .rows
        .iter()
        .map(|x| {
            let c = &x.area.storage_bits.classes;
            (
                x.label.clone(),
                vec![c.counted_bits as f64, c.extra_bits as f64],
            )
        })
        .collect();
    s += &bar_chart(
        "Storage per unit",
        "bits",
        &["counted (paper)", "extra"],
        &storage,
    );
    let cost: Vec<(String, Vec<f64>)> = r
        .rows
        .iter()
        .map(|x| {
            let a = &x.area;
            (
                x.label.clone(),
                vec![a.yosys.total_cells as f64, a.fpga.ecp5.luts as f64],
            )
        })
        .collect();
    s += &bar_chart(
        "Logic per unit",
        "count",
        &["Yosys cells", "ECP5 LUTs"],
        &cost,
    );
    if !chart.is_empty() {
        s += &bar_chart(
            "Overhead over the baseline",
            "% of the baseline",
            &["storage bits", "cells", "ECP5 LUTs"],
            &chart,
        );
    }
    if !r.not_measured.is_empty() {
        s += "<h2>Not measured</h2>\n<table id=\"not-measured\"><tr><th>unit</th><th>module</th><th>why</th></tr>\n";
        for n in &r.not_measured {
            s += &format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                esc(&n.label),
                esc(&n.module),
                esc(&n.why)
            );
        }
        s += "</table>\n";
    }
    s + "</body></html>\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_files_parse_and_bad_ones_name_the_problem() {
        let ok = "[[unit]]\nunit = \"ram\"\nparams = { depth = 16, width = 8, byte_write = false }\n[[unit]]\nlabel = \"x\"\nunit = \"warp-sched\"\nover = { policy = \"lrr\" }\n";
        let e = parse_spec("r.toml", ok).unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].label, "ram");
        assert_eq!(e[0].sets, ["byte_write=false", "depth=16", "width=8"]);
        assert_eq!(
            (e[1].label.as_str(), e[1].over.clone()),
            ("x", vec!["policy=lrr".to_string()])
        );
        for (text, want) in [
            ("x = 1\n", "unknown key `x`"),
            ("[[unit]]\nparams = {}\n", "`unit = \"…\"` is missing"),
            (
                "[[unit]]\nunit = \"ram\"\ncolour = 1\n",
                "unknown key `colour`",
            ),
            (
                "[[unit]]\nunit = \"ram\"\nparams = { depth = 1.5 }\n",
                "params.depth",
            ),
            ("[[unit]\n", "malformed TOML"),
            ("", "no [[unit]] tables"),
        ] {
            let m = parse_spec("r.toml", text).unwrap_err();
            assert!(
                m.starts_with("r.toml: ") && m.contains(want) && !m.contains('\n'),
                "{m}"
            );
        }
    }

    #[test]
    fn labels_are_escaped_and_bars_scale_to_the_largest() {
        let svg = bar_chart(
            "t<",
            "u",
            &["a"],
            &[("<b>".into(), vec![10.0]), ("c".into(), vec![5.0])],
        );
        assert!(svg.contains("&lt;b&gt;") && !svg.contains("<b>"));
        assert!(
            svg.contains("width=\"420.0\"") && svg.contains("width=\"210.0\""),
            "{svg}"
        );
    }
}
