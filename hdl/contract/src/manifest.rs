//! What a generated design looks like from outside: module name, ports, parameters, storage
//! tables. Both the RTL and the model are checked against it; the Verilator bridge and the
//! lockstep runner use its [`Layout`] to pack port values into flat word vectors.

use crate::params::Params;
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Dir {
    In,
    Out,
}

/// One port. Every design also has a `clock` input, which is not listed: the bridge drives it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Port {
    pub name: String,
    pub dir: Dir,
    pub width: usize,
    /// For outputs: true when the value depends on this cycle's inputs (Mealy), false when
    /// it is a function of registered state only.
    pub combinational: bool,
    /// Debug/state-digest port: compared in lockstep, not part of the functional interface.
    pub debug: bool,
    pub doc: String,
}

impl Port {
    pub fn input(name: &str, width: usize, doc: &str) -> Port {
        Port {
            name: name.into(),
            dir: Dir::In,
            width,
            combinational: false,
            debug: false,
            doc: doc.into(),
        }
    }
    pub fn output(name: &str, width: usize, combinational: bool, doc: &str) -> Port {
        Port {
            name: name.into(),
            dir: Dir::Out,
            width,
            combinational,
            debug: false,
            doc: doc.into(),
        }
    }
    pub fn debug(name: &str, width: usize, doc: &str) -> Port {
        Port {
            name: name.into(),
            dir: Dir::Out,
            width,
            combinational: false,
            debug: true,
            doc: doc.into(),
        }
    }
    /// 64-bit words this port occupies in a flat vector.
    pub fn words(&self) -> usize {
        self.width.div_ceil(64)
    }
}

/// A storage structure of the unit: `entries` × `bits` of state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Table {
    pub name: String,
    pub entries: usize,
    pub bits: usize,
    pub doc: String,
}

impl Table {
    pub fn new(name: &str, entries: usize, bits: usize, doc: &str) -> Table {
        Table {
            name: name.into(),
            entries,
            bits,
            doc: doc.into(),
        }
    }
    pub fn total_bits(&self) -> usize {
        self.entries * self.bits
    }
}

/// The per-SM storage a unit's tables are compared against (the DWR thesis's §5 baseline,
/// a GTX480-class SM): 64 KB register file + 16 KB shared memory + 48 KB L1 data cache.
pub const SM_STORAGE_BASELINE_BYTES: usize = (64 + 16 + 48) * 1024;

/// Table-name prefix of a mechanism's state its paper's storage count leaves out.
pub const EXTRA_PREFIX: &str = "extra_";
/// Table-name prefix of state a baseline SM holds anyway (not the mechanism's overhead).
pub const BASE_PREFIX: &str = "base_";

/// Storage bits by class: the tables the paper counts (every table without a class prefix),
/// the mechanism's extras it leaves out (`extra_*`), baseline state (`base_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct StorageSplit {
    pub counted_bits: usize,
    pub extra_bits: usize,
    pub base_bits: usize,
}

impl StorageSplit {
    /// The counted tables as a fraction of [`SM_STORAGE_BASELINE_BYTES`].
    pub fn counted_share_of_sm(&self) -> f64 {
        self.counted_bits as f64 / (8 * SM_STORAGE_BASELINE_BYTES) as f64
    }
}

/// Classify tables by name: `extra_*`, `base_*`, anything else is counted.
pub fn split_storage(tables: &[Table]) -> StorageSplit {
    let mut s = StorageSplit {
        counted_bits: 0,
        extra_bits: 0,
        base_bits: 0,
    };
    for t in tables {
        if t.name.starts_with(EXTRA_PREFIX) {
            s.extra_bits += t.total_bits();
        } else if t.name.starts_with(BASE_PREFIX) {
            s.base_bits += t.total_bits();
        } else {
            s.counted_bits += t.total_bits();
        }
    }
    s
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Manifest {
    pub unit: String,
    /// Verilog name of the top module.
    pub module: String,
    pub params: Params,
    pub ports: Vec<Port>,
    pub tables: Vec<Table>,
}

impl Manifest {
    pub fn storage_bits(&self) -> usize {
        self.tables.iter().map(Table::total_bits).sum()
    }
    pub fn inputs(&self) -> impl Iterator<Item = &Port> {
        self.ports.iter().filter(|p| p.dir == Dir::In)
    }
    pub fn outputs(&self) -> impl Iterator<Item = &Port> {
        self.ports.iter().filter(|p| p.dir == Dir::Out)
    }
    pub fn layout(&self) -> Layout {
        Layout::new(&self.ports)
    }
}

/// Where each port lives in the flat input and output word vectors of one cycle.
/// Port values are little-endian 64-bit words; bits above the port's width are zero.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub inputs: Vec<Slot>,
    pub outputs: Vec<Slot>,
    pub in_words: usize,
    pub out_words: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot {
    pub name: String,
    pub width: usize,
    pub offset: usize,
    pub words: usize,
}

impl Slot {
    /// Mask of the valid bits in word `i` of this port.
    pub fn word_mask(&self, i: usize) -> u64 {
        let rem = self.width - 64 * i;
        if rem >= 64 {
            u64::MAX
        } else {
            (1u64 << rem) - 1
        }
    }
}

impl Layout {
    pub fn new(ports: &[Port]) -> Layout {
        let mut inputs = vec![];
        let mut outputs = vec![];
        let (mut ioff, mut ooff) = (0, 0);
        for p in ports {
            let (list, off) = match p.dir {
                Dir::In => (&mut inputs, &mut ioff),
                Dir::Out => (&mut outputs, &mut ooff),
            };
            list.push(Slot {
                name: p.name.clone(),
                width: p.width,
                offset: *off,
                words: p.words(),
            });
            *off += p.words();
        }
        Layout {
            inputs,
            outputs,
            in_words: ioff,
            out_words: ooff,
        }
    }
    pub fn input(&self, name: &str) -> Option<&Slot> {
        self.inputs.iter().find(|s| s.name == name)
    }
    pub fn output(&self, name: &str) -> Option<&Slot> {
        self.outputs.iter().find(|s| s.name == name)
    }
}

/// Format a port value as hex (`0x…`), most significant word first.
pub fn format_value(words: &[u64]) -> String {
    let mut s = String::from("0x");
    let mut started = false;
    for w in words.iter().rev() {
        if started {
            s.push_str(&format!("{w:016x}"));
        } else if *w != 0 {
            s.push_str(&format!("{w:x}"));
            started = true;
        }
    }
    if !started {
        s.push('0');
    }
    s
}

/// Parse a port value from a JSON value: a non-negative integer, or a string in hex (`0x…`)
/// or decimal. Returns `None` when it does not fit in `width` bits or is malformed.
pub fn parse_value(v: &serde_json::Value, width: usize, out: &mut [u64]) -> Option<()> {
    out.iter_mut().for_each(|w| *w = 0);
    match v {
        serde_json::Value::Number(n) => out[0] = n.as_u64()?,
        serde_json::Value::Bool(b) => out[0] = *b as u64,
        serde_json::Value::String(s) => {
            let s = s.trim();
            if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
                let h = h.replace('_', "");
                if h.is_empty() || h.len() > out.len() * 16 {
                    return None;
                }
                for (i, chunk) in h.as_bytes().rchunks(16).enumerate() {
                    out[i] = u64::from_str_radix(std::str::from_utf8(chunk).ok()?, 16).ok()?;
                }
            } else {
                out[0] = s.parse().ok()?;
            }
        }
        _ => return None,
    }
    // Reject bits above the width.
    for (i, w) in out.iter().enumerate() {
        let rem = width.saturating_sub(64 * i);
        let mask = if rem >= 64 {
            u64::MAX
        } else {
            (1u64 << rem) - 1
        };
        if w & !mask != 0 {
            return None;
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_packs_wide_ports() {
        let ports = vec![
            Port::input("reset", 1, ""),
            Port::input("wide", 130, ""),
            Port::output("o", 64, false, ""),
            Port::output("p", 65, true, ""),
        ];
        let l = Layout::new(&ports);
        assert_eq!(l.in_words, 4);
        assert_eq!(l.input("wide").unwrap().offset, 1);
        assert_eq!(l.out_words, 3);
        assert_eq!(l.output("p").unwrap().word_mask(1), 1);
    }

    #[test]
    fn value_round_trip() {
        let mut w = [0u64; 3];
        parse_value(&serde_json::json!("0x1_0000000000000002"), 130, &mut w).unwrap();
        assert_eq!(w, [2, 1, 0]);
        assert_eq!(format_value(&w), "0x10000000000000002");
        assert!(parse_value(&serde_json::json!(8), 3, &mut w).is_none());
        assert!(parse_value(&serde_json::json!("zz"), 8, &mut w).is_none());
        parse_value(&serde_json::json!(7), 3, &mut w).unwrap();
        assert_eq!(w[0], 7);
    }
}
