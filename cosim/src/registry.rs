//! The unit registry: from a unit name or a TOML config file to a validated configuration with
//! both implementations attached — the RTL (from `warpforge-hdl`) and the model and stimulus
//! (from `warpforge-testbench`). Adding a unit adds one arm to each `match` here.

use std::path::Path;
use warpforge_contract::units::l1d_bypass::L1dBypassConfig;
use warpforge_contract::units::ram::RamConfig;
use warpforge_contract::units::sm::SmConfig;
use warpforge_contract::units::sm_alu::SmAluConfig;
use warpforge_contract::units::{
    self, simt_stack::SimtStackConfig, warp_sched::WarpSchedConfig, UnitInfo,
};
use warpforge_contract::units::{
    dwr::DwrConfig, dwr_ilt::IltConfig, dwr_pst::PstConfig, dwr_sco::ScoConfig,
};
use warpforge_contract::{Manifest, Params};
use warpforge_hdl::Design;
use warpforge_testbench::{Model, SpecVector, Stimulus};

const KERNEL_LEVEL: &str =
    "the sm unit has no cycle model: it is checked per retired instruction (Unit::sm, sm_run)";

/// A unit with a validated configuration.
#[derive(Clone, Debug)]
pub struct Unit {
    pub info: &'static UnitInfo,
    pub params: Params,
    /// Where the configuration came from (a TOML path), for replay commands.
    pub config_file: Option<String>,
    kind: Kind,
}

#[derive(Clone, Debug)]
enum Kind {
    WarpSched(WarpSchedConfig),
    SimtStack(SimtStackConfig),
    L1dBypass(L1dBypassConfig),
    DwrPst(PstConfig),
    DwrIlt(IltConfig),
    DwrSco(ScoConfig),
    Dwr(DwrConfig),
    Ram(RamConfig),
    SmAlu(SmAluConfig),
    Sm(SmConfig),
}

fn unknown_unit(name: &str) -> String {
    format!(
        "unknown unit `{}`; known units: {} (or a .toml config file)",
        name.escape_debug(),
        names().join(", ")
    )
}

/// True for the units that have both implementations wired here. The contract catalogue may
/// declare a unit before its RTL and model exist.
pub fn implemented(name: &str) -> bool {
    matches!(
        name,
        units::warp_sched::NAME
            | units::simt_stack::NAME
            | units::l1d_bypass::NAME
            | units::dwr_pst::NAME
            | units::dwr_ilt::NAME
            | units::dwr_sco::NAME
            | units::dwr::NAME
            | units::ram::NAME
            | units::sm_alu::NAME
            | units::sm::NAME
    )
}

/// Units checked per retired instruction against the interpreter (running programs), not
/// cycle by cycle against a model: their regressions are program jobs, not random stimulus.
pub fn kernel_level(name: &str) -> bool {
    name == units::sm::NAME
}

/// The units that can be generated and co-simulated.
pub fn catalogue() -> impl Iterator<Item = &'static UnitInfo> {
    units::CATALOGUE.iter().filter(|u| implemented(u.name))
}

pub fn names() -> Vec<&'static str> {
    catalogue().map(|u| u.name).collect()
}

fn find(name: &str) -> Option<&'static UnitInfo> {
    catalogue().find(|u| u.name == name)
}

impl Unit {
    /// Resolve a unit name or a TOML config path, then apply `--set` overrides.
    /// Errors are one line naming the input and what is allowed.
    pub fn resolve(target: &str, sets: &[String]) -> Result<Unit, String> {
        let is_file = target.ends_with(".toml") || Path::new(target).is_file();
        if is_file {
            let text = std::fs::read_to_string(target)
                .map_err(|e| format!("{target}: cannot read config file: {e}"))?;
            Unit::from_toml(target, &text, sets)
        } else {
            let info = find(target).ok_or_else(|| unknown_unit(target))?;
            let params = Params::resolve(target, info.params, None, sets).map_err(|e| e.0)?;
            Unit::from_params(info, params)
        }
    }

    /// The unit a TOML config (the text of the file `target`) describes, with `--set`
    /// overrides. Errors are one line starting with `target`.
    pub fn from_toml(target: &str, text: &str, sets: &[String]) -> Result<Unit, String> {
        {
            let doc: toml::Table = text.parse().map_err(|e: toml::de::Error| {
                format!(
                    "{target}: malformed TOML: {}",
                    e.message().lines().next().unwrap_or("").trim()
                )
            })?;
            for key in doc.keys() {
                if key != "unit" && key != "params" {
                    return Err(format!(
                        "{target}: unknown key `{}`; a config has `unit = \"…\"` and a [params] table",
                        warpforge_contract::params::one_line(key)
                    ));
                }
            }
            let name = doc.get("unit").and_then(|v| v.as_str()).ok_or_else(|| {
                format!(
                    "{target}: missing `unit = \"…\"`; known units: {}",
                    names().join(", ")
                )
            })?;
            let info = find(name).ok_or_else(|| format!("{target}: {}", unknown_unit(name)))?;
            let empty = toml::Table::new();
            let table = match doc.get("params") {
                None => &empty,
                Some(toml::Value::Table(t)) => t,
                Some(_) => return Err(format!("{target}: `params` must be a table ([params])")),
            };
            let params =
                Params::resolve(name, info.params, Some((target, table)), sets).map_err(|e| e.0)?;
            let mut u = Unit::from_params(info, params).map_err(|e| format!("{target}: {e}"))?;
            u.config_file = Some(target.to_string());
            Ok(u)
        }
    }

    /// The unit with its default parameters.
    pub fn default_of(info: &'static UnitInfo) -> Unit {
        Unit::from_params(info, Params::defaults(info.params)).expect("defaults are valid")
    }

    fn from_params(info: &'static UnitInfo, params: Params) -> Result<Unit, String> {
        let kind = match info.name {
            units::warp_sched::NAME => {
                Kind::WarpSched(WarpSchedConfig::from_params(&params).map_err(|e| e.0)?)
            }
            units::simt_stack::NAME => {
                Kind::SimtStack(SimtStackConfig::from_params(&params).map_err(|e| e.0)?)
            }
            units::l1d_bypass::NAME => {
                Kind::L1dBypass(L1dBypassConfig::from_params(&params).map_err(|e| e.0)?)
            }
            units::dwr_pst::NAME => Kind::DwrPst(PstConfig::from_params(&params).map_err(|e| e.0)?),
            units::dwr_ilt::NAME => Kind::DwrIlt(IltConfig::from_params(&params).map_err(|e| e.0)?),
            units::dwr_sco::NAME => Kind::DwrSco(ScoConfig::from_params(&params).map_err(|e| e.0)?),
            units::dwr::NAME => Kind::Dwr(DwrConfig::from_params(&params).map_err(|e| e.0)?),
            units::ram::NAME => Kind::Ram(RamConfig::from_params(&params).map_err(|e| e.0)?),
            units::sm_alu::NAME => Kind::SmAlu(SmAluConfig::from_params(&params).map_err(|e| e.0)?),
            units::sm::NAME => Kind::Sm(SmConfig::from_params(&params).map_err(|e| e.0)?),
            other => return Err(unknown_unit(other)),
        };
        Ok(Unit {
            info,
            params,
            config_file: None,
            kind,
        })
    }

    pub fn name(&self) -> &'static str {
        self.info.name
    }

    pub fn manifest(&self) -> Manifest {
        match &self.kind {
            Kind::WarpSched(c) => c.manifest(&self.params),
            Kind::SimtStack(c) => c.manifest(&self.params),
            Kind::L1dBypass(c) => c.manifest(&self.params),
            Kind::DwrPst(c) => c.manifest(&self.params),
            Kind::DwrIlt(c) => c.manifest(&self.params),
            Kind::DwrSco(c) => c.manifest(&self.params),
            Kind::Dwr(c) => c.manifest(&self.params),
            Kind::Ram(c) => c.manifest(&self.params),
            Kind::SmAlu(c) => c.manifest(&self.params),
            Kind::Sm(c) => c.manifest(&self.params),
        }
    }

    /// The RTL, generated by rust-hdl.
    pub fn design(&self) -> Design {
        match &self.kind {
            Kind::WarpSched(c) => warpforge_hdl::warp_sched::generate(c),
            Kind::SimtStack(c) => warpforge_hdl::simt_stack::generate(c),
            Kind::L1dBypass(c) => warpforge_hdl::l1d_bypass::generate(c),
            Kind::DwrPst(c) => warpforge_hdl::dwr_pst::generate(c),
            Kind::DwrIlt(c) => warpforge_hdl::dwr_ilt::generate(c),
            Kind::DwrSco(c) => warpforge_hdl::dwr_sco::generate(c),
            Kind::Dwr(c) => warpforge_hdl::dwr::generate(c),
            Kind::Ram(c) => warpforge_hdl::ram::generate(c),
            Kind::SmAlu(c) => warpforge_hdl::sm::alu::generate(c),
            Kind::Sm(c) => warpforge_hdl::sm::generate(c),
        }
    }

    /// The independent reference model, in its reset state.
    pub fn model(&self) -> Box<dyn Model> {
        use warpforge_testbench::{dwr, dwr_ilt, dwr_pst, dwr_sco, simt_stack, warp_sched};
        match &self.kind {
            Kind::WarpSched(c) => Box::new(warp_sched::WarpSchedModel::new(c)),
            Kind::SimtStack(c) => Box::new(simt_stack::SimtStackModel::new(c)),
            Kind::L1dBypass(c) => Box::new(warpforge_testbench::l1d_bypass::L1dBypassModel::new(c)),
            Kind::DwrPst(c) => Box::new(dwr_pst::DwrPstModel::new(c)),
            Kind::DwrIlt(c) => Box::new(dwr_ilt::DwrIltModel::new(c)),
            Kind::DwrSco(c) => Box::new(dwr_sco::DwrScoModel::new(c)),
            Kind::Dwr(c) => Box::new(dwr::DwrModel::new(c)),
            Kind::Ram(c) => Box::new(warpforge_testbench::ram::RamModel::new(c)),
            Kind::SmAlu(c) => Box::new(warpforge_testbench::sm_alu::SmAluModel::new(c)),
            Kind::Sm(_) => panic!("{}", KERNEL_LEVEL),
        }
    }

    /// The constrained-random stimulus for `seed`.
    pub fn stimulus(&self, seed: u64) -> Box<dyn Stimulus> {
        use warpforge_testbench::{dwr, dwr_ilt, dwr_pst, dwr_sco, simt_stack, warp_sched};
        match &self.kind {
            Kind::WarpSched(c) => Box::new(warp_sched::WarpSchedStimulus::new(c, seed)),
            Kind::SimtStack(c) => Box::new(simt_stack::SimtStackStimulus::new(c, seed)),
            Kind::L1dBypass(c) => Box::new(
                warpforge_testbench::l1d_bypass::L1dBypassStimulus::new(c, seed),
            ),
            Kind::DwrPst(c) => Box::new(dwr_pst::DwrPstStimulus::new(c, seed)),
            Kind::DwrIlt(c) => Box::new(dwr_ilt::DwrIltStimulus::new(c, seed)),
            Kind::DwrSco(c) => Box::new(dwr_sco::DwrScoStimulus::new(c, seed)),
            Kind::Dwr(c) => Box::new(dwr::DwrStimulus::new(c, seed)),
            Kind::Ram(c) => Box::new(warpforge_testbench::ram::RamStimulus::new(c, seed)),
            Kind::SmAlu(c) => Box::new(warpforge_testbench::sm_alu::SmAluStimulus::new(c, seed)),
            Kind::Sm(_) => panic!("{}", KERNEL_LEVEL),
        }
    }

    /// The SM's configuration: the SM is checked per retired instruction against the
    /// interpreter (`sm_run`), not cycle by cycle against a model, so callers that run a
    /// unit's model (cosim, bench, flow, lint's replay) take this path for it instead.
    pub fn sm(&self) -> Option<&SmConfig> {
        match &self.kind {
            Kind::Sm(c) => Some(c),
            _ => None,
        }
    }

    /// The command-line arguments that select this exact configuration.
    pub fn cli_args(&self) -> Vec<String> {
        let mut args = vec![self
            .config_file
            .clone()
            .unwrap_or_else(|| self.name().to_string())];
        for (k, v) in self.params.iter() {
            args.push("--set".into());
            args.push(format!("{k}={v}"));
        }
        args
    }
}

/// Every unit's spec vectors.
pub fn spec_vectors(unit: &str) -> Vec<SpecVector> {
    use warpforge_testbench::{dwr, dwr_ilt, dwr_pst, dwr_sco, simt_stack, warp_sched};
    match unit {
        units::warp_sched::NAME => warp_sched::spec_vectors(),
        units::simt_stack::NAME => simt_stack::spec_vectors(),
        units::l1d_bypass::NAME => warpforge_testbench::l1d_bypass::spec_vectors(),
        units::dwr_pst::NAME => dwr_pst::spec_vectors(),
        units::dwr_ilt::NAME => dwr_ilt::spec_vectors(),
        units::dwr_sco::NAME => dwr_sco::spec_vectors(),
        units::dwr::NAME => dwr::spec_vectors(),
        units::ram::NAME => warpforge_testbench::ram::spec_vectors(),
        units::sm_alu::NAME => warpforge_testbench::sm_alu::spec_vectors(),
        _ => vec![],
    }
}

/// Every unit in its default configuration.
pub fn all_defaults() -> Vec<Unit> {
    catalogue().map(Unit::default_of).collect()
}
