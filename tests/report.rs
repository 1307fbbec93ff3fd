//! `warpforge report`: the HTML page carries the same figures as its JSON (parsed back cell by
//! cell), its charts have one bar per figure, it renders in a real headless browser, and bad
//! report files are refused with one line.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

fn warpforge(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_warpforge"))
        .args(args)
        .output()
        .expect("run warpforge")
}

const SMALL: &str = r#"
[[unit]]
label = "RAM <256 x 16>"
unit = "ram"
params = { depth = 256, width = 16, ports = 1 }

[[unit]]
label = "warp-sched MOTRR+Recency, 4 warps"
unit = "warp-sched"
params = { warps = 4, schedulers = 1, policy = "motrr-recency" }
over = { policy = "gto" }
"#;

/// One report run shared by the tests: (directory, html, json).
fn report() -> &'static (PathBuf, String, Value) {
    static R: OnceLock<(PathBuf, String, Value)> = OnceLock::new();
    R.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("warpforge-report-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let cfg = dir.join("small.toml");
        std::fs::write(&cfg, SMALL).unwrap();
        let out = dir.join("out");
        let o = warpforge(&[
            "report",
            "--config",
            cfg.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let html = std::fs::read_to_string(out.join("report.html")).unwrap();
        let json: Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap())
                .unwrap();
        (out, html, json)
    })
}

/// The `<tr data-module="…">` row of table `id`, as (data-key, text) pairs.
fn row(html: &str, table: &str, module: &str) -> Vec<(String, String)> {
    let t = &html[html
        .find(&format!("<table id=\"{table}\">"))
        .expect("table")..];
    let t = &t[..t.find("</table>").unwrap()];
    let r = &t[t
        .find(&format!("<tr data-module=\"{module}\">"))
        .unwrap_or_else(|| panic!("no row for {module} in {table}"))..];
    let r = &r[..r.find("</tr>").unwrap()];
    r.split("<td data-key=\"")
        .skip(1)
        .map(|c| {
            let (key, rest) = c.split_once('"').unwrap();
            let text = &rest[rest.find('>').unwrap() + 1..rest.find("</td>").unwrap()];
            (key.to_string(), text.to_string())
        })
        .collect()
}

fn cell<'a>(r: &'a [(String, String)], key: &str) -> &'a str {
    &r.iter()
        .find(|(k, _)| k == key)
        .unwrap_or_else(|| panic!("no {key}"))
        .1
}

#[test]
fn the_page_carries_the_json_figures_cell_by_cell() {
    let (_, html, json) = report();
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    for r in rows {
        let a = &r["area"];
        let m = a["module"].as_str().unwrap();
        let u = row(html, "units", m);
        let n = |v: &Value| v.as_u64().unwrap().to_string();
        assert_eq!(cell(&u, "cells"), n(&a["yosys"]["total_cells"]), "{m}");
        assert_eq!(cell(&u, "flip_flops"), n(&a["yosys"]["flip_flops"]));
        assert_eq!(cell(&u, "total_bits"), n(&a["storage_bits"]["total"]));
        assert_eq!(
            cell(&u, "counted_bits"),
            n(&a["storage_bits"]["classes"]["counted_bits"])
        );
        for fam in ["ice40", "ecp5", "xilinx"] {
            assert_eq!(cell(&u, &format!("{fam}_luts")), n(&a["fpga"][fam]["luts"]));
            assert_eq!(
                cell(&u, &format!("{fam}_brams")),
                n(&a["fpga"][fam]["brams"])
            );
        }
        // CACTI's figure, or the flip-flop fallback for tables below its 64 bytes.
        let mm2 = a["cacti"]["total_mm2"][0]["mm2"].as_f64().unwrap();
        let want = match m {
            "ram_d256_w16_p1" => format!("{mm2:.4}"),
            _ => "— (flip-flops)".to_string(),
        };
        assert_eq!(cell(&u, "cacti_90nm_mm2"), want, "{m}");
    }
    // The RAM primitive is a block RAM on iCE40 and ECP5 (Xilinx maps 4 Kbit to LUT RAM).
    let ram = row(html, "units", "ram_d256_w16_p1");
    for fam in ["ice40", "ecp5"] {
        assert_ne!(cell(&ram, &format!("{fam}_brams")), "0", "{fam}");
    }
    // The overhead row holds the difference to the baseline the JSON names.
    let ws = rows.iter().find(|r| r["unit"] == "warp-sched").unwrap();
    let o = &ws["area"]["overhead"];
    assert!(o["baseline_module"]
        .as_str()
        .unwrap()
        .starts_with("warp_sched_gto"));
    let orow = row(html, "overheads", ws["area"]["module"].as_str().unwrap());
    let cells = cell(&orow, "cells");
    assert!(
        cells.starts_with(&format!("{:+}", o["cells"].as_i64().unwrap())),
        "{cells}"
    );
    assert!(
        o["cells"].as_i64().unwrap() > 0,
        "MOTRR+Recency adds logic over GTO"
    );
    // Labels are escaped.
    assert!(html.contains("RAM &lt;256 x 16&gt;") && !html.contains("RAM <256"));
    // One bar per figure: storage (2 series) and logic (2 series) per unit, and the overhead
    // chart (3 series) for the one unit with a baseline.
    assert_eq!(
        html.matches("<rect class=\"bar\"").count(),
        2 * 2 + 2 * 2 + 3
    );
    // Self-contained: nothing loaded from elsewhere.
    assert!(!html.contains("<script") && !html.contains("<link"));
    assert!(!html.contains(" src=") && !html.contains(" href="));
}

fn chromium() -> &'static str {
    let p = "/usr/bin/chromium";
    assert!(
        Path::new(p).exists(),
        "Chromium is not installed: scripts/install-tools.sh installs Debian's chromium"
    );
    p
}

/// Headless Chromium loads the page: the rendered DOM has both tables, every chart and every
/// unit, and the screenshot is a real PNG of the page.
#[test]
fn the_page_renders_in_a_headless_browser() {
    let (out, _, json) = report();
    let url = format!("file://{}", out.join("report.html").display());
    let profile = out.join("chromium-profile");
    let flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ];
    let run = |extra: &[String]| {
        let o = Command::new(chromium())
            .args(flags)
            .arg(format!("--user-data-dir={}", profile.display()))
            .args(extra)
            .arg(&url)
            .output()
            .expect("start chromium");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).to_string()
    };
    let dom = run(&["--dump-dom".to_string()]);
    assert!(dom.contains("<table id=\"units\">") && dom.contains("<table id=\"overheads\">"));
    assert_eq!(dom.matches("<svg").count(), 3);
    for r in json["rows"].as_array().unwrap() {
        assert!(dom.contains(r["area"]["module"].as_str().unwrap()));
    }
    let shot = out.join("shot.png");
    run(&[
        format!("--screenshot={}", shot.display()),
        "--window-size=1300,1400".to_string(),
    ]);
    let png = std::fs::read(&shot).expect("the screenshot");
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
    // A blank page compresses to a few kilobytes; tables, text and bars do not.
    assert!(png.len() > 40_000, "{} bytes", png.len());
}

#[test]
fn bad_report_files_are_refused_with_one_line() {
    let dir = std::env::temp_dir().join(format!("warpforge-report-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        (
            "[[unit]]\nunit = \"ram\"\ncolour = 3\n",
            "unknown key `colour`",
        ),
        ("[[unit]]\nunit = \"no-such-unit\"\n", "no-such-unit"),
        (
            "[[unit]]\nunit = \"ram\"\nparams = { depth = 3 }\n",
            "depth",
        ),
        (
            "[[unit]]\nunit = \"warp-sched\"\nover = { policy = \"fastest\" }\n",
            "fastest",
        ),
    ];
    for (i, (text, want)) in cases.iter().enumerate() {
        let cfg = dir.join(format!("bad{i}.toml"));
        std::fs::write(&cfg, text).unwrap();
        let o = warpforge(&[
            "report",
            "--config",
            cfg.to_str().unwrap(),
            "--out",
            dir.join("o").to_str().unwrap(),
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{text}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("error: ") && err.contains(want), "{err}");
    }
    let o = warpforge(&[
        "report",
        "--config",
        dir.join("missing.toml").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--config"));
}

/// The shipped report file parses, and every unit and baseline in it resolves.
#[test]
fn the_shipped_report_file_names_real_configurations() {
    use warpforge_cosim::registry::Unit;
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/report.toml");
    let entries =
        warpforge_cosim::report::parse_spec(path, &std::fs::read_to_string(path).unwrap()).unwrap();
    assert!(entries.len() >= 10);
    for e in &entries {
        Unit::resolve(&e.target, &e.sets).unwrap_or_else(|m| panic!("{}: {m}", e.label));
        let base: Vec<String> = e.sets.iter().chain(&e.over).cloned().collect();
        Unit::resolve(&e.target, &base).unwrap_or_else(|m| panic!("{} baseline: {m}", e.label));
    }
}

/// `flow` ends with its own area report: the units it measured as rows of the page, and a
/// unit whose synthesis outlasts `--area-limit` listed as not measured (the flow goes on and
/// passes).
#[test]
fn the_flow_ends_with_its_report_and_lists_units_past_the_area_limit() {
    let dir = tempfile::tempdir().unwrap();
    let run = |unit: &str, limit: &str, out: &Path| {
        let o = warpforge(&[
            "flow",
            unit,
            "--cycles",
            "1000",
            "--area-limit",
            limit,
            "--out",
            out.to_str().unwrap(),
        ]);
        let stdout = String::from_utf8_lossy(&o.stdout).to_string();
        assert!(
            o.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let last = stdout.trim_end().lines().last().unwrap().to_string();
        let html = std::fs::read_to_string(out.join("report.html")).unwrap();
        (last, html)
    };
    let measured = dir.path().join("measured");
    let (last, html) = run("l1d-bypass", "600", &measured);
    let page = measured.join("report.html");
    assert_eq!(
        last,
        format!("report: {} (1 units measured, 0 not)", page.display())
    );
    let module = "l1d_bypass_c8_e1024_f90_p60_ra_0b00";
    let r = row(&html, "units", module);
    assert!(cell(&r, "cells").parse::<u64>().unwrap() > 0);
    assert!(!html.contains("not-measured"));

    let late = dir.path().join("late");
    let (last, html) = run("ram", "1", &late);
    assert!(last.ends_with("(0 units measured, 1 not)"), "{last}");
    let t = &html[html.find("<table id=\"not-measured\">").expect("the list")..];
    assert!(
        t.contains("ram_d512_w90_p2") && t.contains("--area-limit of 1 s"),
        "{t}"
    );
}
