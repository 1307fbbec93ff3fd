//! `warpforge noc` end to end on a 2×2 mesh: the RTL in lockstep with the model (the quick
//! suite's 2×2 build), and the model alone with the baseline beside it; the JSON report and
//! the SVG plot parsed.

mod common;
use common::warpforge;

fn json_of(args: &[&str]) -> serde_json::Value {
    let out = warpforge(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

/// `noc` on the 2×2 mesh in lockstep at a light (0.02) and a heavy (0.3) offered load, with
/// `extra` arguments.
fn two_load_sweep(extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "noc",
        "--mesh",
        "2x2",
        "--rates",
        "0.02,0.3",
        "--warmup",
        "200",
        "--measure",
        "400",
        "--drain",
        "3000",
        "--json",
    ];
    args.extend_from_slice(extra);
    json_of(&args)
}

/// The light load drains and is accepted as offered (within the Bernoulli noise); the heavy
/// load saturates the MCs.
fn light_accepted_heavy_saturates(s: &serde_json::Value) {
    assert!(s["lockstep_cycles"].as_u64().unwrap() > 600);
    let p = s["points"].as_array().unwrap();
    assert_eq!(p.len(), 2);
    assert_eq!(p[0]["drained"], true);
    assert!(
        (p[0]["accepted"].as_f64().unwrap() - 0.02).abs() < 0.015,
        "{}",
        p[0]
    );
    assert!(p[1]["accepted"].as_f64().unwrap() < 0.3);
}

#[test]
fn noc_sweep_in_lockstep_and_with_the_baseline() {
    let dir = std::env::temp_dir().join(format!("wf-noc-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("lat.svg");
    let j = two_load_sweep(&[
        "--set",
        "mc_place=corner",
        "--pl",
        "forced:7x1,0",
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(j["lockstep"], true);
    assert_eq!((j["sms"].as_u64(), j["mcs"].as_u64()), (Some(3), Some(1)));
    let s = &j["sweeps"][0];
    light_accepted_heavy_saturates(s);
    let p = s["points"].as_array().unwrap();
    assert_eq!(s["saturation"].as_f64(), Some(0.3));
    let classes: Vec<u64> = p[0]["classes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["pl"].as_u64().unwrap())
        .collect();
    assert!(classes.iter().all(|&c| c == 0 || c == 7), "{classes:?}");
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(
        text.starts_with("<svg")
            && text.contains("<polyline")
            && text.trim_end().ends_with("</svg>")
    );

    let j = json_of(&[
        "noc",
        "--mesh",
        "4x4",
        "--model-only",
        "--baseline",
        "--rates",
        "0.01,0.05",
        "--warmup",
        "300",
        "--measure",
        "600",
        "--pattern",
        "hotspot",
        "--pl",
        "forced:7x4,0",
        "--json",
    ]);
    assert_eq!(j["lockstep"], false);
    let sw = j["sweeps"].as_array().unwrap();
    assert_eq!(sw.len(), 2);
    assert_eq!(sw[1]["label"], "baseline");
    assert!(sw[1]["module"].as_str().unwrap().contains("_rr_"));
}

#[test]
fn noc_sweep_with_two_vcs_in_lockstep() {
    // V = 2 on the default 2x2 mesh (MCs at nodes 1 and 3), every cycle on the RTL too.
    let j = two_load_sweep(&["--set", "vcs=2", "--pl", "random"]);
    assert_eq!(j["lockstep"], true);
    let s = &j["sweeps"][0];
    assert!(
        s["module"].as_str().unwrap().ends_with("_v2"),
        "{}",
        s["module"]
    );
    light_accepted_heavy_saturates(s);
}

/// T-5 (I-8) as `warpforge noc` reports it: with one PL on every request the MSAP network's
/// trace digest (functional ports and every router link, every cycle) equals the baseline's;
/// with random PLs it does not, so the comparison can fail.
#[test]
fn one_pl_everywhere_gives_the_baseline_trace() {
    let digests = |pl: &str| -> (String, String) {
        let j = json_of(&[
            "noc",
            "--mesh",
            "4x4",
            "--model-only",
            "--baseline",
            "--rates",
            "0.02,0.2",
            "--warmup",
            "200",
            "--measure",
            "2000",
            "--pl",
            pl,
            "--json",
        ]);
        let sw = j["sweeps"].as_array().unwrap();
        let d = |k: usize| sw[k]["trace"].as_str().unwrap().to_string();
        (d(0), d(1))
    };
    for pl in ["forced:0", "forced:7"] {
        let (m, b) = digests(pl);
        assert_eq!(m, b, "--pl {pl}");
    }
    let (m, b) = digests("random");
    assert_ne!(m, b);
    // The text report says so.
    let out = warpforge(&[
        "noc",
        "--mesh",
        "2x2",
        "--model-only",
        "--baseline",
        "--rates",
        "0.05",
        "--pl",
        "forced:3",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("MSAP = baseline"), "{text}");
}

/// `bench --json` for the network carries the flit count and its three rates beside the
/// cycle rates (each rate = the count over the measurement's time); a unit without a count
/// has `events: null`.
#[test]
fn bench_reports_flits_per_second() {
    let r = json_of(&[
        "bench",
        "msap-noc",
        "--cycles",
        "3000",
        "--no-cold-build",
        "--json",
    ]);
    assert_eq!(r["cycles"], 3000);
    let e = &r["events"];
    assert_eq!(e["kind"], "flits", "{r}");
    assert!(e["counted"]
        .as_str()
        .unwrap()
        .contains("router output port"));
    let count = e["count"].as_u64().unwrap();
    // At most 5 ports × 4 routers × 2 meshes per cycle; the random traffic moves some.
    assert!(count > 100 && count < 3000 * 40, "{count}");
    for (cps, per_s) in [
        ("verilator_cps", "verilator_per_s"),
        ("model_cps", "model_per_s"),
        ("lockstep_cps", "lockstep_per_s"),
    ] {
        let want = count as f64 * r[cps].as_f64().unwrap() / 3000.0;
        let got = e[per_s].as_f64().unwrap();
        assert!(
            (got - want).abs() <= 1e-9 * want,
            "{per_s}: {got} vs {want}"
        );
    }
    for field in [
        "verilator_cps",
        "model_cps",
        "lockstep_ratio",
        "cached_start_s",
    ] {
        assert!(r[field].as_f64().unwrap() > 0.0, "{field}: {r}");
    }
    let mc = json_of(&[
        "bench",
        "msap-mc",
        "--cycles",
        "2000",
        "--no-cold-build",
        "--json",
    ]);
    assert!(mc["events"].is_null(), "{mc}");
    assert!(mc["verilator_cps"].as_f64().unwrap() > 0.0);
}
