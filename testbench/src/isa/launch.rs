//! A launch: grid and block dimensions, parameter values and input buffers, and the global
//! memory built from them.
//!
//! Global memory is one arena starting at [`GLOBAL_BASE`]. Buffers are laid out in order, each
//! at a 256-byte-aligned address, with at least 64 bytes of red zone between them: any access
//! to a red zone or outside the arena is an out-of-bounds fault.
//!
//! The JSON form (`warpforge run <kernel> --launch FILE`):
//!
//! ```json
//! { "grid": [2, 1, 1], "block": 64, "warp_size": 32, "max_steps": 1000000,
//!   "params": { "n": 100, "x": { "buffer": "a" }, "alpha": { "f32": 2.5 } },
//!   "buffers": [ { "name": "a", "words": [1, 2, 3] },
//!                { "name": "b", "f32": [1.0, -2.5] },
//!                { "name": "out", "zeros": 64 } ] }
//! ```
//!
//! `grid` and `block` take one number (x) or up to three; `warp_size` (default 32) sets
//! `%laneid`/`%warpid` in thread mode; `max_steps` is the per-thread instruction limit.

use serde_json::{Map, Value};

use super::Program;

/// Address of the first global-memory word.
pub const GLOBAL_BASE: u32 = 0x1000;
/// Threads per block, at most.
pub const MAX_BLOCK_THREADS: u32 = 1024;
/// Blocks per grid dimension, at most.
pub const MAX_GRID_DIM: u32 = 65535;
/// Global-memory arena size, at most (words).
pub const MAX_GLOBAL_WORDS: usize = 1 << 26;
/// Default per-thread instruction limit.
pub const DEFAULT_MAX_STEPS: u64 = 1 << 24;

const ALIGN_WORDS: usize = 64;
const RED_ZONE_WORDS: usize = 16;

#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue {
    Word(u32),
    /// The base address of the named buffer.
    Buffer(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Buffer {
    pub name: String,
    pub data: Vec<u32>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Warp size seen by `%laneid` and `%warpid` in thread mode (warp mode uses its own).
    pub warp_size: u32,
    /// Per-thread instruction limit (per-warp in warp mode): a runaway loop stops here.
    pub max_steps: u64,
    /// Parameter values by name.
    pub params: Vec<(String, ParamValue)>,
    pub buffers: Vec<Buffer>,
}

impl Launch {
    pub fn new(grid: [u32; 3], block: [u32; 3]) -> Launch {
        Launch {
            grid,
            block,
            warp_size: 32,
            max_steps: DEFAULT_MAX_STEPS,
            params: Vec::new(),
            buffers: Vec::new(),
        }
    }

    pub fn param(mut self, name: &str, v: u32) -> Launch {
        self.params.push((name.to_string(), ParamValue::Word(v)));
        self
    }

    /// Adds a buffer and a parameter of the same name holding its address.
    pub fn buffer(mut self, name: &str, data: Vec<u32>) -> Launch {
        self.params
            .push((name.to_string(), ParamValue::Buffer(name.to_string())));
        self.buffers.push(Buffer {
            name: name.to_string(),
            data,
        });
        self
    }

    pub fn threads_per_block(&self) -> u32 {
        self.block[0] * self.block[1] * self.block[2]
    }

    pub fn blocks(&self) -> u64 {
        self.grid.iter().map(|&g| g as u64).product()
    }

    /// Checks the launch against a program: sizes in range, every declared parameter given
    /// exactly once, buffers named uniquely. Errors are one sentence.
    pub fn check(&self, program: &Program) -> Result<(), String> {
        for (what, dims, max) in [
            ("grid", self.grid, MAX_GRID_DIM),
            ("block", self.block, MAX_BLOCK_THREADS),
        ] {
            if dims.iter().any(|&d| d == 0 || d > max) {
                return Err(format!(
                    "{what} dimensions {dims:?}: each must be 1..={max}"
                ));
            }
        }
        let tpb = self.block.iter().map(|&d| d as u64).product::<u64>();
        if tpb > MAX_BLOCK_THREADS as u64 {
            return Err(format!(
                "block {:?} has {tpb} threads; at most {MAX_BLOCK_THREADS} are allowed",
                self.block
            ));
        }
        if self.warp_size == 0 || self.warp_size > 64 {
            return Err(format!("warp size {} must be 1..=64", self.warp_size));
        }
        if self.max_steps == 0 {
            return Err("max_steps must be at least 1".into());
        }
        for (i, b) in self.buffers.iter().enumerate() {
            if self.buffers[..i].iter().any(|o| o.name == b.name) {
                return Err(format!("buffer `{}` is given twice", b.name));
            }
        }
        for (i, (n, v)) in self.params.iter().enumerate() {
            if self.params[..i].iter().any(|(o, _)| o == n) {
                return Err(format!("parameter `{n}` is given twice"));
            }
            if !program.params.contains(n) {
                return Err(format!(
                    "parameter `{n}` is not declared by kernel `{}` (it declares: {})",
                    program.name,
                    list(&program.params)
                ));
            }
            if let ParamValue::Buffer(b) = v {
                if !self.buffers.iter().any(|x| &x.name == b) {
                    return Err(format!(
                        "parameter `{n}` names buffer `{b}`, which is not given"
                    ));
                }
            }
        }
        for p in &program.params {
            if !self.params.iter().any(|(n, _)| n == p) {
                return Err(format!(
                    "kernel `{}` declares parameter `{p}` but the launch gives no value for it",
                    program.name
                ));
            }
        }
        Ok(())
    }

    /// Parses the JSON form; errors name the offending key.
    pub fn from_json(text: &str) -> Result<Launch, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("launch JSON: {e}"))?;
        let obj = v.as_object().ok_or("launch JSON: expected an object")?;
        const KEYS: &[&str] = &[
            "grid",
            "block",
            "warp_size",
            "max_steps",
            "params",
            "buffers",
        ];
        if let Some(k) = obj.keys().find(|k| !KEYS.contains(&k.as_str())) {
            return Err(format!(
                "launch JSON: unknown key `{k}` (allowed: {})",
                KEYS.join(", ")
            ));
        }
        let dims = |key: &str| -> Result<[u32; 3], String> {
            match obj.get(key) {
                None => Ok([1, 1, 1]),
                Some(Value::Number(_)) => Ok([u32_of(obj.get(key).unwrap(), key)?, 1, 1]),
                Some(Value::Array(a)) if (1..=3).contains(&a.len()) => {
                    let mut d = [1u32; 3];
                    for (i, x) in a.iter().enumerate() {
                        d[i] = u32_of(x, key)?;
                    }
                    Ok(d)
                }
                Some(_) => Err(format!(
                    "launch JSON: `{key}` must be a number or an array of 1 to 3 numbers"
                )),
            }
        };
        let mut l = Launch::new(dims("grid")?, dims("block")?);
        if let Some(w) = obj.get("warp_size") {
            l.warp_size = u32_of(w, "warp_size")?;
        }
        if let Some(m) = obj.get("max_steps") {
            l.max_steps = m
                .as_u64()
                .ok_or("launch JSON: `max_steps` must be a non-negative integer")?;
        }
        if let Some(bs) = obj.get("buffers") {
            let arr = bs
                .as_array()
                .ok_or("launch JSON: `buffers` must be an array")?;
            for (i, b) in arr.iter().enumerate() {
                l.buffers.push(parse_buffer(b, i)?);
            }
        }
        if let Some(ps) = obj.get("params") {
            let m: &Map<String, Value> = ps
                .as_object()
                .ok_or("launch JSON: `params` must be an object of name: value")?;
            for (name, v) in m {
                let pv = match v {
                    Value::Number(_) => ParamValue::Word(word_of(v, name)?),
                    Value::Object(o) if o.len() == 1 && o.contains_key("buffer") => {
                        match o.get("buffer") {
                            Some(Value::String(s)) => ParamValue::Buffer(s.clone()),
                            _ => return Err(format!("launch JSON: parameter `{name}`: `buffer` must be a buffer name")),
                        }
                    }
                    Value::Object(o) if o.len() == 1 && o.contains_key("f32") => {
                        let f = o["f32"].as_f64().ok_or_else(|| {
                            format!("launch JSON: parameter `{name}`: `f32` must be a number")
                        })?;
                        ParamValue::Word((f as f32).to_bits())
                    }
                    _ => {
                        return Err(format!(
                            "launch JSON: parameter `{name}` must be an integer, {{\"buffer\": NAME}} or {{\"f32\": X}}"
                        ))
                    }
                };
                l.params.push((name.clone(), pv));
            }
        }
        Ok(l)
    }

    /// The JSON form (buffers as words).
    pub fn to_json(&self) -> Value {
        let params: Map<String, Value> = self
            .params
            .iter()
            .map(|(n, v)| {
                let j = match v {
                    ParamValue::Word(w) => Value::from(*w),
                    ParamValue::Buffer(b) => serde_json::json!({ "buffer": b }),
                };
                (n.clone(), j)
            })
            .collect();
        serde_json::json!({
            "grid": self.grid,
            "block": self.block,
            "warp_size": self.warp_size,
            "max_steps": self.max_steps,
            "params": params,
            "buffers": self.buffers.iter().map(|b| serde_json::json!({"name": b.name, "words": b.data})).collect::<Vec<_>>(),
        })
    }
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

fn u32_of(v: &Value, key: &str) -> Result<u32, String> {
    v.as_u64()
        .filter(|&x| x <= u32::MAX as u64)
        .map(|x| x as u32)
        .ok_or_else(|| format!("launch JSON: `{key}` must hold integers 0..=4294967295"))
}

/// An integer word: 0..=2^32-1 or a negative i32.
fn word_of(v: &Value, key: &str) -> Result<u32, String> {
    if let Some(x) = v.as_u64() {
        if x <= u32::MAX as u64 {
            return Ok(x as u32);
        }
    }
    if let Some(x) = v.as_i64() {
        if x >= i32::MIN as i64 && x < 0 {
            return Ok(x as i32 as u32);
        }
    }
    Err(format!(
        "launch JSON: `{key}` must be a 32-bit integer (-2147483648..=4294967295)"
    ))
}

fn parse_buffer(b: &Value, i: usize) -> Result<Buffer, String> {
    let o = b
        .as_object()
        .ok_or_else(|| format!("launch JSON: buffers[{i}] must be an object"))?;
    let name = o
        .get("name")
        .and_then(|n| n.as_str())
        .ok_or_else(|| format!("launch JSON: buffers[{i}] needs a string `name`"))?
        .to_string();
    let kinds: Vec<&str> = ["words", "f32", "zeros"]
        .into_iter()
        .filter(|k| o.contains_key(*k))
        .collect();
    if kinds.len() != 1 || o.len() != 2 {
        return Err(format!(
            "launch JSON: buffer `{name}` needs `name` and exactly one of `words`, `f32`, `zeros`"
        ));
    }
    let data = match kinds[0] {
        "words" => o["words"]
            .as_array()
            .ok_or_else(|| format!("launch JSON: buffer `{name}`: `words` must be an array"))?
            .iter()
            .map(|w| word_of(w, &format!("{name}.words")))
            .collect::<Result<Vec<u32>, String>>()?,
        "f32" => o["f32"]
            .as_array()
            .ok_or_else(|| format!("launch JSON: buffer `{name}`: `f32` must be an array"))?
            .iter()
            .map(|w| {
                w.as_f64()
                    .map(|f| (f as f32).to_bits())
                    .ok_or_else(|| format!("launch JSON: buffer `{name}`: `f32` holds numbers"))
            })
            .collect::<Result<Vec<u32>, String>>()?,
        _ => {
            let n = o["zeros"]
                .as_u64()
                .filter(|&n| n as usize <= MAX_GLOBAL_WORDS)
                .ok_or_else(|| {
                    format!("launch JSON: buffer `{name}`: `zeros` must be a word count up to {MAX_GLOBAL_WORDS}")
                })?;
            vec![0; n as usize]
        }
    };
    Ok(Buffer { name, data })
}

/// Global memory: the arena, which words belong to a buffer, and where each buffer is.
#[derive(Clone, Debug)]
pub struct Memory {
    pub words: Vec<u32>,
    /// `valid[i]`: word i lies inside a buffer (not in a red zone).
    valid: Vec<bool>,
    /// (name, base address, length in words).
    pub layout: Vec<(String, u32, usize)>,
}

impl Memory {
    /// Lays out the launch's buffers.
    pub fn new(buffers: &[Buffer]) -> Result<Memory, String> {
        let mut words = Vec::new();
        let mut valid = Vec::new();
        let mut layout = Vec::new();
        for b in buffers {
            // Red zone, then align.
            let mut start = words.len() + if words.is_empty() { 0 } else { RED_ZONE_WORDS };
            start = start.div_ceil(ALIGN_WORDS) * ALIGN_WORDS;
            let end = start + b.data.len();
            if end > MAX_GLOBAL_WORDS {
                return Err(format!(
                    "buffers need more than {} MiB of global memory",
                    (MAX_GLOBAL_WORDS * 4) >> 20
                ));
            }
            words.resize(start, 0);
            valid.resize(start, false);
            words.extend_from_slice(&b.data);
            valid.resize(end, true);
            layout.push((b.name.clone(), GLOBAL_BASE + 4 * start as u32, b.data.len()));
        }
        Ok(Memory {
            words,
            valid,
            layout,
        })
    }

    /// Word index of a valid, aligned global address.
    #[inline(always)]
    pub fn index(&self, addr: u32) -> Result<usize, MemFault> {
        if addr & 3 != 0 {
            return Err(MemFault::Misaligned);
        }
        let i = (addr.wrapping_sub(GLOBAL_BASE) >> 2) as usize;
        if addr >= GLOBAL_BASE && i < self.valid.len() && self.valid[i] {
            Ok(i)
        } else {
            Err(MemFault::OutOfBounds)
        }
    }

    pub fn base_of(&self, name: &str) -> Option<u32> {
        self.layout.iter().find(|l| l.0 == name).map(|l| l.1)
    }

    pub fn buffer(&self, name: &str) -> Option<&[u32]> {
        let (_, base, len) = self.layout.iter().find(|l| l.0 == name)?;
        let s = ((base - GLOBAL_BASE) / 4) as usize;
        Some(&self.words[s..s + len])
    }

    /// A one-line description of the valid ranges, for fault messages.
    pub fn describe(&self) -> String {
        if self.layout.is_empty() {
            return "no global buffers".into();
        }
        self.layout
            .iter()
            .map(|(n, b, l)| format!("{n} {b:#x}..{:#x}", *b as u64 + 4 * *l as u64))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemFault {
    Misaligned,
    OutOfBounds,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_aligns_and_guards_buffers() {
        let m = Memory::new(&[
            Buffer {
                name: "a".into(),
                data: vec![1, 2, 3],
            },
            Buffer {
                name: "b".into(),
                data: vec![9; 70],
            },
        ])
        .unwrap();
        let a = m.base_of("a").unwrap();
        let b = m.base_of("b").unwrap();
        assert_eq!(a, GLOBAL_BASE);
        assert_eq!(b % 256, 0);
        assert!(b - a >= 3 * 4 + 64);
        assert_eq!(m.index(a + 8), Ok(2));
        assert_eq!(m.index(a + 12), Err(MemFault::OutOfBounds));
        assert_eq!(m.index(a + 2), Err(MemFault::Misaligned));
        assert_eq!(m.index(b - 4), Err(MemFault::OutOfBounds));
        assert_eq!(m.index(b + 69 * 4).map(|i| m.words[i]), Ok(9));
        assert_eq!(m.index(b + 70 * 4), Err(MemFault::OutOfBounds));
        assert_eq!(m.index(0), Err(MemFault::OutOfBounds));
        assert_eq!(m.buffer("b").unwrap().len(), 70);
    }

    #[test]
    fn json_round_trip_and_errors() {
        let l = Launch::from_json(
            r#"{"grid": 2, "block": [4, 2], "params": {"n": -1, "a": {"buffer": "a"}, "s": {"f32": 1.5}},
                "buffers": [{"name": "a", "zeros": 3}, {"name": "f", "f32": [2.0]}]}"#,
        )
        .unwrap();
        assert_eq!(l.grid, [2, 1, 1]);
        assert_eq!(l.block, [4, 2, 1]);
        assert!(l.params.contains(&("n".into(), ParamValue::Word(u32::MAX))));
        assert!(l
            .params
            .contains(&("s".into(), ParamValue::Word(1.5f32.to_bits()))));
        assert_eq!(l.buffers[1].data, vec![2.0f32.to_bits()]);
        let back = Launch::from_json(&l.to_json().to_string()).unwrap();
        assert_eq!(back.buffers, l.buffers);
        assert_eq!(back.grid, l.grid);
        assert!(Launch::from_json(r#"{"grd": 1}"#)
            .unwrap_err()
            .contains("unknown key `grd`"));
        assert!(Launch::from_json(r#"{"buffers": [{"name": "a"}]}"#)
            .unwrap_err()
            .contains("exactly one of"));
    }
}
