//! `rtl-out/` holds the generated Verilog and manifest of every unit's default configuration;
//! this test fails when they are stale.

use warpforge_cosim::registry;

#[test]
fn rtl_out_is_current() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rtl-out");
    let mut stale = vec![];
    for u in registry::all_defaults() {
        let d = u.design();
        let m = serde_json::to_string_pretty(&u.manifest()).unwrap() + "\n";
        for (file, want) in [
            (format!("{}.v", d.module), d.verilog.clone()),
            (format!("{}.json", d.module), m),
        ] {
            let have = std::fs::read_to_string(dir.join(&file)).unwrap_or_default();
            if have != want {
                stale.push(file);
            }
        }
    }
    assert!(
        stale.is_empty(),
        "rtl-out is stale ({}); regenerate with: cargo run --release -- generate all --out rtl-out",
        stale.join(", ")
    );
}
