//! Seeded, dependency-free fuzzing of the input readers: the TOML config loader, the stimulus
//! JSON-lines reader, the assembler and the `.wfk` image decoder. Each execution feeds one
//! random or mutated input (mutations of a corpus of valid inputs, token soups, raw bytes);
//! the reader must return a value or a one-line error — a panic, or an error spanning several
//! lines, is a failure reported with the seed and the input. `warpforge fuzz <target> --iters
//! N --seed S` runs it; the test suite runs a short share.

use crate::registry::Unit;
use serde::Serialize;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;
use warpforge_testbench::isa::kernels::SUITE;
use warpforge_testbench::isa::{assemble, disassemble, AsmOptions, Program};
use warpforge_testbench::rng::Rng;

pub const TARGETS: &[&str] = &["config", "stimulus", "asm", "wfk"];

#[derive(Clone, Debug, Serialize)]
pub struct FuzzReport {
    pub target: String,
    pub seed: u64,
    pub executions: u64,
    /// Inputs the reader accepted.
    pub accepted: u64,
    /// Inputs refused with a one-line error.
    pub refused: u64,
    pub seconds: f64,
    /// The first failure: what went wrong and the input (escaped, at most 300 characters).
    pub failure: Option<String>,
}

impl FuzzReport {
    pub fn render(&self) -> String {
        let head = format!(
            "fuzz {}: {} executions (seed {}), {} accepted, {} refused with a one-line error, {:.1} s",
            self.target, self.executions, self.seed, self.accepted, self.refused, self.seconds
        );
        match &self.failure {
            None => format!("{head}: no failure"),
            Some(f) => format!("{head}: FAILED: {f}"),
        }
    }
}

/// Pieces the mutators splice in: the syntax of all four formats.
const TOKENS: &[&str] = &[
    "\n",
    " ",
    "=",
    "\"",
    "'",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    "#",
    ".",
    "-",
    "+",
    "0",
    "1",
    "-1",
    "0x",
    "0xffffffffffffffffffff",
    "99999999999999999999",
    "1e999",
    "true",
    "false",
    "null",
    "nan",
    "inf",
    "unit",
    "params",
    "[params]",
    "warps",
    "policy",
    "gto",
    "warp-sched",
    "simt-stack",
    "\"reset\"",
    "\"inputs\"",
    "has_inst",
    ".kernel",
    ".regs",
    ".shared",
    ".param",
    "%r0",
    "%r63",
    "%r64",
    "%p7",
    "%tid.x",
    "add.s32",
    "bra",
    "exit",
    "bar.sync",
    "ld.global.u32",
    "st.shared.u32",
    "L:",
    "@%p0",
    "@!%p1",
    "0f3F800000",
    "\u{0}",
    "\u{feff}",
    "é",
    "\\",
    "\\u0000",
    "\r\n",
    "\t",
];

fn seed_inputs(target: &str) -> Vec<Vec<u8>> {
    let b = |s: &str| s.as_bytes().to_vec();
    match target {
        "config" => vec![
            b(include_str!("../../configs/warp-sched.toml")),
            b(include_str!("../../configs/simt-stack.toml")),
            b("unit = \"dwr\"\n[params]\nthreads = 64\ngroup_size = 8\n"),
            b("unit = \"l1d-bypass\"\n[params]\nepoch = 10\nbypass_en = false\n"),
            b("unit = \"warp-sched\"\n[params]\nsplit_ptr = true\npolicy = \"motrr\"\n"),
        ],
        "stimulus" => vec![
            b("{\"reset\": 1}\n{\"reset\": 0, \"has_inst\": \"0xff\", \"ready\": 3}\n"),
            b("{\"cycle\": 0, \"inputs\": {\"reset\": 1}, \"model\": {}, \"rtl\": {}}\n"),
            b("{\"launch\": 1, \"exit\": \"12\"}\n\n{\"unit_free\": 1}\n"),
        ],
        "asm" | "wfk" => {
            let mut v: Vec<Vec<u8>> = SUITE.iter().map(|k| b(k.source)).collect();
            v.push(b(include_str!("../../testbench/kernels/crown_fig2_3.s")));
            if target == "wfk" {
                v = v
                    .iter()
                    .filter_map(|src| {
                        let text = String::from_utf8_lossy(src);
                        assemble(&text, "seed.s", &AsmOptions::default())
                            .ok()
                            .map(|p| p.to_bytes())
                    })
                    .collect();
            }
            v
        }
        _ => vec![],
    }
}

/// One input: a mutated corpus entry (most of the time), a token soup or raw bytes.
fn next_input(rng: &mut Rng, corpus: &[Vec<u8>]) -> Vec<u8> {
    let pick = rng.below(10);
    let mut v: Vec<u8> = if pick < 7 && !corpus.is_empty() {
        corpus[rng.below(corpus.len() as u64) as usize].clone()
    } else if pick < 9 {
        let n = rng.below(40);
        (0..n)
            .flat_map(|_| TOKENS[rng.below(TOKENS.len() as u64) as usize].bytes())
            .collect()
    } else {
        let n = rng.below(200);
        (0..n).map(|_| rng.next_u64() as u8).collect()
    };
    let mutations = 1 + rng.below(4);
    for _ in 0..mutations {
        let len = v.len() as u64;
        match rng.below(7) {
            0 if len > 0 => {
                let i = rng.below(len) as usize;
                v[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len) as usize;
                v[i] = rng.next_u64() as u8;
            }
            2 => {
                let i = rng.below(len + 1) as usize;
                let t = TOKENS[rng.below(TOKENS.len() as u64) as usize];
                v.splice(i..i, t.bytes());
            }
            3 if len > 0 => {
                let i = rng.below(len) as usize;
                let n = (1 + rng.below(16)) as usize;
                v.drain(i..(i + n).min(v.len()));
            }
            4 if len > 0 => {
                v.truncate(rng.below(len) as usize);
            }
            5 if len > 1 => {
                // Duplicate a slice (repeated lines, repeated keys).
                let i = rng.below(len) as usize;
                let n = (1 + rng.below(64)) as usize;
                let piece: Vec<u8> = v[i..(i + n).min(v.len())].to_vec();
                let at = rng.below(len) as usize;
                v.splice(at..at, piece);
            }
            _ if !corpus.is_empty() => {
                // Splice in part of another corpus entry.
                let o = &corpus[rng.below(corpus.len() as u64) as usize];
                if !o.is_empty() {
                    let i = rng.below(o.len() as u64) as usize;
                    let n = (rng.below(64) as usize).min(o.len() - i);
                    let at = rng.below(len + 1) as usize;
                    v.splice(at..at, o[i..i + n].iter().copied());
                }
            }
            _ => {}
        }
    }
    v
}

/// What one execution gave: accepted, or refused with this error.
type Outcome = Result<(), String>;

/// A reader under test.
struct Harness {
    run: Box<dyn FnMut(&[u8]) -> Outcome>,
    _dir: Option<tempfile::TempDir>,
}

fn harness(target: &str) -> Result<Harness, String> {
    match target {
        "config" => Ok(Harness {
            run: Box::new(|bytes: &[u8]| {
                let text = String::from_utf8_lossy(bytes);
                Unit::from_toml("fuzz.toml", &text, &[]).map(|_| ())
            }),
            _dir: None,
        }),
        "stimulus" => {
            // The reader takes a path: a file in memory (/dev/shm) where there is one keeps
            // the disk out of the loop.
            let shm = std::path::Path::new("/dev/shm");
            let dir = if shm.is_dir() {
                tempfile::tempdir_in(shm).or_else(|_| tempfile::tempdir())
            } else {
                tempfile::tempdir()
            }
            .map_err(|e| format!("fuzz: temp dir: {e}"))?;
            let path = dir.path().join("fuzz.jsonl");
            let name = path.to_string_lossy().into_owned();
            let layouts: Vec<_> = ["warp-sched", "simt-stack", "dwr"]
                .iter()
                .map(|u| Unit::resolve(u, &[]).map(|u| u.manifest().layout()))
                .collect::<Result<_, _>>()?;
            let mut k = 0usize;
            Ok(Harness {
                run: Box::new(move |bytes: &[u8]| {
                    std::fs::write(&path, bytes).map_err(|e| format!("fuzz: {e}"))?;
                    k += 1;
                    let layout = &layouts[k % layouts.len()];
                    crate::lockstep::parse_stimulus(&name, layout).map(|_| ())
                }),
                _dir: Some(dir),
            })
        }
        "asm" => Ok(Harness {
            run: Box::new(|bytes: &[u8]| {
                let text = String::from_utf8_lossy(bytes);
                let p =
                    assemble(&text, "fuzz.s", &AsmOptions::default()).map_err(|e| e.to_string())?;
                // What the assembler accepts, the image round-trips.
                let q = Program::from_bytes(&p.to_bytes())
                    .map_err(|e| format!("BUG: an assembled program does not reload: {e}"))?;
                if q.code != p.code {
                    return Err("BUG: the image changed the code".into());
                }
                Ok(())
            }),
            _dir: None,
        }),
        "wfk" => Ok(Harness {
            run: Box::new(|bytes: &[u8]| {
                // As given (mostly refused by the checksum), then with the checksum made to
                // match, so the mutations reach the decoder behind it.
                let decode = |b: &[u8]| -> Outcome {
                    let p = Program::from_bytes(b)?;
                    let _ = disassemble(&p);
                    if p.to_bytes() != b {
                        return Err("BUG: a decoded image does not re-encode to itself".into());
                    }
                    Ok(())
                };
                let first = decode(bytes);
                if bytes.len() < 4 {
                    return first;
                }
                let body = &bytes[..bytes.len() - 4];
                let mut sealed = body.to_vec();
                sealed.extend_from_slice(&warpforge_contract::checksum::crc32(body).to_le_bytes());
                match (first, decode(&sealed)) {
                    (Err(e), _) if e.starts_with("BUG:") || e.contains('\n') => Err(e),
                    (_, second) => second,
                }
            }),
            _dir: None,
        }),
        t => Err(format!(
            "fuzz target `{t}`: targets are {}",
            TARGETS.join(", ")
        )),
    }
}

fn escaped(bytes: &[u8]) -> String {
    let s: String = String::from_utf8_lossy(bytes).escape_debug().collect();
    if s.chars().count() > 300 {
        format!(
            "\"{}…\" ({} bytes)",
            s.chars().take(300).collect::<String>(),
            bytes.len()
        )
    } else {
        format!("\"{s}\"")
    }
}

/// Run `iters` executions of `target` from `seed`. Err only for an unknown target.
pub fn run(target: &str, iters: u64, seed: u64) -> Result<FuzzReport, String> {
    let mut h = harness(target)?;
    let corpus = seed_inputs(target);
    let mut rng = Rng::new(seed ^ warpforge_contract::checksum::crc32(target.as_bytes()) as u64);
    let mut r = FuzzReport {
        target: target.into(),
        seed,
        executions: 0,
        accepted: 0,
        refused: 0,
        seconds: 0.0,
        failure: None,
    };
    let t0 = Instant::now();
    // Panics are caught and reported here; silence the default report meanwhile.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for i in 0..iters {
        let input = if (i as usize) < corpus.len() {
            corpus[i as usize].clone()
        } else {
            next_input(&mut rng, &corpus)
        };
        r.executions += 1;
        match catch_unwind(AssertUnwindSafe(|| (h.run)(&input))) {
            Ok(Ok(())) => r.accepted += 1,
            Ok(Err(e)) if e.starts_with("BUG:") || e.contains('\n') || e.is_empty() => {
                r.failure = Some(format!(
                    "execution {i}: bad error {:?} for input {}",
                    e,
                    escaped(&input)
                ));
                break;
            }
            Ok(Err(_)) => r.refused += 1,
            Err(p) => {
                let msg = p
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| p.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                r.failure = Some(format!(
                    "execution {i}: panic `{msg}` for input {}",
                    escaped(&input)
                ));
                break;
            }
        }
    }
    std::panic::set_hook(hook);
    r.seconds = t0.elapsed().as_secs_f64();
    Ok(r)
}
