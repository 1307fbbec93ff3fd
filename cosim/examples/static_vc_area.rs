//! The V > 1 router's area with `static_vc` on (a packet keeps its VC at every hop: how
//! `msap-noc` builds its routers). `static_vc` is not a parameter of `msap-router` alone, so
//! `warpforge area` cannot select it; this measures it through the same area flow:
//!
//! `cargo run --release -p warpforge-cosim --example static_vc_area -- [--set K=V]… [--over K=V]…`
//!
//! `--set`s choose the `msap-router` configuration (`vcs` > 1), measured with `static_vc` on;
//! with `--over`, the same configuration with those overrides, as the unit builds it (the
//! lowest free VC), is the baseline and the difference is reported, as `warpforge area
//! --over` does (`--over vcs=2`: against the router unit itself; `--over vcs=1`: against V = 1).

use std::process::exit;
use warpforge_contract::units::msap_router::{RouterConfig, NAME};
use warpforge_cosim::area::{self, Flow};
use warpforge_cosim::registry::Unit;

fn fail(msg: String) -> ! {
    eprintln!("error: {msg}");
    exit(2)
}

fn main() {
    let (mut sets, mut over) = (Vec::new(), Vec::new());
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let list = match a.as_str() {
            "--set" => &mut sets,
            "--over" => &mut over,
            _ => fail(format!(
                "argument `{a}`: only --set K=V and --over K=V are allowed"
            )),
        };
        list.push(
            args.next()
                .unwrap_or_else(|| fail(format!("{a} needs K=V"))),
        );
    }
    let unit = Unit::resolve(NAME, &sets).unwrap_or_else(|e| fail(e));
    let mut cfg = RouterConfig::from_params(&unit.params).unwrap_or_else(|e| fail(e.0));
    if cfg.vcs < 2 {
        fail(format!("vcs = {}: static_vc needs vcs = 2 or 4", cfg.vcs));
    }
    cfg.static_vc = true;
    let design = warpforge_hdl::msap_router::generate(&cfg);
    let manifest = cfg.manifest(&unit.params);
    let mut r = area::area_flow(&design, &manifest, Flow::Flat, area::LIMIT)
        .unwrap_or_else(|e| fail(e.to_string()));
    if !over.is_empty() {
        let all: Vec<String> = sets.iter().chain(&over).cloned().collect();
        let base = Unit::resolve(NAME, &all).unwrap_or_else(|e| fail(e));
        let br = area::area_flow(&base.design(), &base.manifest(), Flow::Flat, area::LIMIT)
            .unwrap_or_else(|e| fail(e.to_string()));
        r.set_overhead(&br);
    }
    println!("{r}");
}
