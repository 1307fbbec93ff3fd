//! The kernel suite: assembly sources (`testbench/kernels/*.s`), a deterministic input
//! generator per kernel (size as a parameter) and a host-side Rust reference that computes the
//! expected output from the inputs without the interpreter.
//!
//! Classes, as the papers measure them: divergence-heavy (bfs, nqueens, mandelbrot,
//! strmatch), barrier-heavy (reduce, scan, matmul, histogram, bitonic, pathfinder, stencil),
//! memory-bound (vecadd, saxpy, transpose).

use super::interp::Machine;
use super::launch::{Launch, ParamValue};
use crate::rng::Rng;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Divergence,
    Barrier,
    Memory,
}

impl Class {
    pub fn name(self) -> &'static str {
        match self {
            Class::Divergence => "divergence",
            Class::Barrier => "barrier",
            Class::Memory => "memory",
        }
    }
}

/// One kernel of the suite.
pub struct Kernel {
    pub name: &'static str,
    pub class: Class,
    pub source: &'static str,
    /// What `size` means for this kernel.
    pub size_means: &'static str,
    /// The sizes `make` accepts (what `run --list` and errors show).
    pub size_range: &'static str,
    /// The small and large default sizes.
    pub sizes: [u32; 2],
    /// Builds a launch of the given size; Err when the size is out of this kernel's range.
    pub make: fn(size: u32, seed: u64) -> Result<Launch, String>,
    /// Compares the machine's buffers with the host reference computed from the launch.
    pub check: fn(&Launch, &Machine) -> Result<(), String>,
}

/// The suite, in a fixed order.
pub const SUITE: &[Kernel] = &[
    Kernel {
        name: "vecadd",
        class: Class::Memory,
        source: include_str!("../../kernels/vecadd.s"),
        size_means: "elements",
        size_range: "1..=4194304",
        sizes: [1000, 200_000],
        make: vecadd_make,
        check: vecadd_check,
    },
    Kernel {
        name: "saxpy",
        class: Class::Memory,
        source: include_str!("../../kernels/saxpy.s"),
        size_means: "elements",
        size_range: "1..=4194304",
        sizes: [1000, 200_000],
        make: saxpy_make,
        check: saxpy_check,
    },
    Kernel {
        name: "transpose",
        class: Class::Memory,
        source: include_str!("../../kernels/transpose.s"),
        size_means: "rows (columns = 1.5 x rows + 3)",
        size_range: "1..=4000",
        sizes: [20, 300],
        make: transpose_make,
        check: transpose_check,
    },
    Kernel {
        name: "reduce",
        class: Class::Barrier,
        source: include_str!("../../kernels/reduce.s"),
        size_means: "elements",
        size_range: "1..=4194304",
        sizes: [1000, 200_000],
        make: reduce_make,
        check: reduce_check,
    },
    Kernel {
        name: "scan",
        class: Class::Barrier,
        source: include_str!("../../kernels/scan.s"),
        size_means: "elements",
        size_range: "1..=4194304",
        sizes: [700, 100_000],
        make: scan_make,
        check: scan_check,
    },
    Kernel {
        name: "matmul",
        class: Class::Barrier,
        source: include_str!("../../kernels/matmul.s"),
        size_means: "M (N = M + 3, K = M + 5)",
        size_range: "1..=1000",
        sizes: [13, 100],
        make: matmul_make,
        check: matmul_check,
    },
    Kernel {
        name: "histogram",
        class: Class::Barrier,
        source: include_str!("../../kernels/histogram.s"),
        size_means: "elements",
        size_range: "1..=4194304",
        sizes: [2000, 200_000],
        make: histogram_make,
        check: histogram_check,
    },
    Kernel {
        name: "bitonic",
        class: Class::Barrier,
        source: include_str!("../../kernels/bitonic.s"),
        size_means: "elements per block (a power of two, 2..=1024; 4 blocks)",
        size_range: "powers of two 2..=1024",
        sizes: [64, 1024],
        make: bitonic_make,
        check: bitonic_check,
    },
    Kernel {
        name: "pathfinder",
        class: Class::Barrier,
        source: include_str!("../../kernels/pathfinder.s"),
        size_means: "columns (1..=2048; rows = 8 + columns / 10)",
        size_range: "1..=2048",
        sizes: [100, 2000],
        make: pathfinder_make,
        check: pathfinder_check,
    },
    Kernel {
        name: "stencil",
        class: Class::Barrier,
        source: include_str!("../../kernels/stencil.s"),
        size_means: "height (width = height + 5)",
        size_range: "1..=2000",
        sizes: [20, 400],
        make: stencil_make,
        check: stencil_check,
    },
    Kernel {
        name: "bfs",
        class: Class::Divergence,
        source: include_str!("../../kernels/bfs.s"),
        size_means: "vertices",
        size_range: "1..=1048576",
        sizes: [300, 20_000],
        make: bfs_make,
        check: bfs_check,
    },
    Kernel {
        name: "nqueens",
        class: Class::Divergence,
        source: include_str!("../../kernels/nqueens.s"),
        size_means: "board size N (4..=16)",
        size_range: "4..=14",
        sizes: [6, 10],
        make: nqueens_make,
        check: nqueens_check,
    },
    Kernel {
        name: "mandelbrot",
        class: Class::Divergence,
        source: include_str!("../../kernels/mandelbrot.s"),
        size_means: "image width (height = 3/4 width)",
        size_range: "2..=4000",
        sizes: [24, 400],
        make: mandelbrot_make,
        check: mandelbrot_check,
    },
    Kernel {
        name: "strmatch",
        class: Class::Divergence,
        source: include_str!("../../kernels/strmatch.s"),
        size_means: "text length",
        size_range: "5..=4194304",
        sizes: [500, 200_000],
        make: strmatch_make,
        check: strmatch_check,
    },
];

/// The Fig 2-3 example of spec/crown.md §2.7 (not part of the suite: it has no global output).
pub const CROWN_FIG2_3: &str = include_str!("../../kernels/crown_fig2_3.s");
/// spec/crown.md §3.11 C2 (two warps with complementary paths; launch warp size 12).
pub const CROWN_C2: &str = include_str!("../../kernels/crown_c2.s");
/// spec/crown.md §7.2.11, a one-sided branch (8 threads).
pub const CROWN_ONE_SIDED: &str = include_str!("../../kernels/crown_one_sided.s");

pub fn find(name: &str) -> Option<&'static Kernel> {
    SUITE.iter().find(|k| k.name == name)
}

// ---- helpers ---------------------------------------------------------------------------

fn input<'a>(l: &'a Launch, name: &str) -> &'a [u32] {
    l.buffers
        .iter()
        .find(|b| b.name == name)
        .map(|b| b.data.as_slice())
        .unwrap_or(&[])
}

fn word(l: &Launch, name: &str) -> u32 {
    l.params
        .iter()
        .find_map(|(n, v)| match v {
            ParamValue::Word(w) if n == name => Some(*w),
            _ => None,
        })
        .unwrap_or(0)
}

fn output<'a>(m: &'a Machine, name: &str) -> Result<&'a [u32], String> {
    m.buffer(name)
        .ok_or_else(|| format!("no buffer `{name}` in the machine"))
}

/// Compares a whole buffer; the error names the first differing word.
fn compare(name: &str, expected: &[u32], got: &[u32]) -> Result<(), String> {
    if expected.len() != got.len() {
        return Err(format!(
            "buffer `{name}`: expected {} words, the machine has {}",
            expected.len(),
            got.len()
        ));
    }
    match expected.iter().zip(got).position(|(e, g)| e != g) {
        None => Ok(()),
        Some(i) => Err(format!(
            "buffer `{name}` word {i}: expected {:#x}, got {:#x} ({} of {} words differ)",
            expected[i],
            got[i],
            expected.iter().zip(got).filter(|(e, g)| e != g).count(),
            expected.len()
        )),
    }
}

/// Largest element count of the one-dimensional kernels: keeps a run's buffers under about
/// 50 MB (vecadd holds three words per element).
pub const MAX_ELEMENTS: u32 = 1 << 22;

/// `min..=MAX_ELEMENTS` elements, or the error naming the kernel and the range.
fn elements(kernel: &str, n: u32, min: u32) -> Result<(), String> {
    need((min..=MAX_ELEMENTS).contains(&n), || {
        format!("{kernel} size must be {min}..={MAX_ELEMENTS} elements")
    })
}

fn words(rng: &mut Rng, n: usize) -> Vec<u32> {
    (0..n).map(|_| rng.next_u64() as u32).collect()
}

fn blocks(n: u32, per: u32) -> u32 {
    n.div_ceil(per).max(1)
}

fn need(ok: bool, msg: impl FnOnce() -> String) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(msg())
    }
}

/// The FP32 rule "subnormals read and written as zero", for host references whose data can
/// reach the subnormal range.
fn ftz(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// A float in [-1, 1) with a random 23-bit fraction.
fn unit_f32(rng: &mut Rng) -> f32 {
    (rng.below(1 << 24) as f32) / (1 << 23) as f32 - 1.0
}

// ---- memory-bound -------------------------------------------------------------------------

fn vecadd_make(n: u32, seed: u64) -> Result<Launch, String> {
    elements("vecadd", n, 1)?;
    let mut rng = Rng::new(seed);
    Ok(Launch::new([blocks(n, 256), 1, 1], [256, 1, 1])
        .buffer("a", words(&mut rng, n as usize))
        .buffer("b", words(&mut rng, n as usize))
        .buffer("c", vec![0; n as usize])
        .param("n", n))
}

fn vecadd_check(l: &Launch, m: &Machine) -> Result<(), String> {
    let (a, b) = (input(l, "a"), input(l, "b"));
    let want: Vec<u32> = a.iter().zip(b).map(|(x, y)| x.wrapping_add(*y)).collect();
    compare("c", &want, output(m, "c")?)
}

fn saxpy_make(n: u32, seed: u64) -> Result<Launch, String> {
    elements("saxpy", n, 1)?;
    let mut rng = Rng::new(seed);
    let x = (0..n).map(|_| unit_f32(&mut rng).to_bits()).collect();
    let y = (0..n).map(|_| unit_f32(&mut rng).to_bits()).collect();
    let alpha = 1.0 + unit_f32(&mut rng) * 3.0;
    Ok(Launch::new([blocks(n, 256), 1, 1], [256, 1, 1])
        .buffer("x", x)
        .buffer("y", y)
        .param("alpha", alpha.to_bits())
        .param("n", n))
}

fn saxpy_check(l: &Launch, m: &Machine) -> Result<(), String> {
    let alpha = ftz(f32::from_bits(word(l, "alpha")));
    let want: Vec<u32> = input(l, "x")
        .iter()
        .zip(input(l, "y"))
        .map(|(&x, &y)| {
            ftz(alpha.mul_add(ftz(f32::from_bits(x)), ftz(f32::from_bits(y)))).to_bits()
        })
        .collect();
    compare("y", &want, output(m, "y")?)
}

fn transpose_make(rows: u32, seed: u64) -> Result<Launch, String> {
    need((1..=4000).contains(&rows), || {
        "transpose rows must be 1..=4000".into()
    })?;
    let cols = rows + rows / 2 + 3;
    let mut rng = Rng::new(seed);
    Ok(
        Launch::new([blocks(cols, 16), blocks(rows, 16), 1], [16, 16, 1])
            .buffer("in", words(&mut rng, (rows * cols) as usize))
            .buffer("out", vec![0; (rows * cols) as usize])
            .param("rows", rows)
            .param("cols", cols),
    )
}

fn transpose_check(l: &Launch, m: &Machine) -> Result<(), String> {
    let (rows, cols) = (word(l, "rows") as usize, word(l, "cols") as usize);
    let a = input(l, "in");
    let mut want = vec![0; rows * cols];
    for r in 0..rows {
        for c in 0..cols {
            want[c * rows + r] = a[r * cols + c];
        }
    }
    compare("out", &want, output(m, "out")?)
}

// ---- barrier-heavy --------------------------------------------------------------------------

fn reduce_make(n: u32, seed: u64) -> Result<Launch, String> {
    elements("reduce", n, 1)?;
    let mut rng = Rng::new(seed);
    let g = blocks(n, 256);
    Ok(Launch::new([g, 1, 1], [128, 1, 1])
        .buffer("in", words(&mut rng, n as usize))
        .buffer("out", vec![0; g as usize])
        .param("n", n))
}

fn reduce_check(l: &Launch, m: &Machine) -> Result<(), String> {
    let want: Vec<u32> = input(l, "in")
        .chunks(256)
        .map(|c| c.iter().fold(0u32, |s, &x| s.wrapping_add(x)))
        .collect();
    compare("out", &want, output(m, "out")?)
}

fn scan_make(n: u32, seed: u64) -> Result<Launch, String> {
    elements("scan", n, 1)?;
    let mut rng = Rng::new(seed);
    let data = (0..n).map(|_| rng.below(1000) as u32).collect();
    Ok(Launch::new([blocks(n, 256), 1, 1], [256, 1, 1])
        .buffer("in", data)
        .buffer("out", vec![0; n as usize])
        .param("n", n))
}

fn scan_check(l: &Launch, m: &Machine) -> Result<(), String> {
    let mut want = Vec::new();
    for chunk in input(l, "in").chunks(256) {
        let mut s = 0u32;
        for &x in chunk {
            s = s.wrapping_add(x);
            want.push(s);
        }
    }
    compare("out", &want, output(m, "out")?)
}

fn matmul_make(mm: u32, seed: u64) -> Result<Launch, String> {
    need((1..=1000).contains(&mm), || {
        "matmul M must be 1..=1000".into()
    })?;
    let (n, k) = (mm + 3, mm + 5);
    let mut rng = Rng::new(seed);
    let mut mat = |len: u32| -> Vec<u32> {
        (0..len)
            .map(|_| ((rng.below(2001) as f32 - 1000.0) / 256.0).to_bits())
            .collect()
    };
    let (a, b) = (mat(mm * k), mat(k * n));
    Ok(Launch::new([blocks(n, 8), blocks(mm, 8), 1], [8, 8, 1])
        .buffer("a", a)
        .buffer("b", b)
        .buffer("c", vec![0; (mm * n) as usize])
        .param("m", mm)
        .param("n", n)
        .param("k", k))
}

fn matmul_check(l: &Launch, m: &Machine) -> Result<(), String> {
    let (mm, n, k) = (
        word(l, "m") as usize,
        word(l, "n") as usize,
        word(l, "k") as usize,
    );
    let f = |x: u32| ftz(f32::from_bits(x));
    let (a, b) = (input(l, "a"), input(l, "b"));
    let mut want = vec![0u32; mm * n];
    for r in 0..mm {
        for c in 0..n {
            let mut acc = 0.0f32;
            for i in 0..k {
                acc = ftz(f(a[r * k + i]).mul_add(f(b[i * n + c]), acc));
            }
            want[r * n + c] = acc.to_bits();
        }
    }
    compare("c", &want, output(m, "c")?)
}

fn histogram_make(n: u32, seed: u64) -> Result<Launch, String> {
    elements("histogram", n, 1)?;
    let mut rng = Rng::new(seed);
    // Skewed: a third of the values land in bin 7, so atomics contend.
    let data = (0..n)
        .map(|_| {
            if rng.chance(1, 3) {
                7 + 64 * rng.below(1000) as u32
            } else {
                rng.next_u64() as u32
            }
        })
        .collect();
    Ok(Launch::new([blocks(n, 128).min(8), 1, 1], [128, 1, 1])
        .buffer("data", data)
        .buffer("hist", vec![0; 64])
        .param("n", n))
}

fn histogram_check(l: &Launch, m: &Machine) -> Result<(), String> {
    let mut want = vec![0u32; 64];
    for &x in input(l, "data") {
        want[(x & 63) as usize] += 1;
    }
    compare("hist", &want, output(m, "hist")?)
}

fn bitonic_make(chunk: u32, seed: u64) -> Result<Launch, String> {
    need(
        chunk.is_power_of_two() && (2..=1024).contains(&chunk),
        || "bitonic size must be a power of two in 2..=1024".into(),
    )?;
    let mut rng = Rng::new(seed);
    let data = (0..4 * chunk).map(|_| rng.below(1000) as u32).collect();
    Ok(Launch::new([4, 1, 1], [chunk, 1, 1]).buffer("data", data))
}

fn bitonic_check(l: &Launch, m: &Machine) -> Result<(), String> {
    let chunk = l.block[0] as usize;
    let mut want = input(l, "data").to_vec();
    for c in want.chunks_mut(chunk) {
        c.sort_unstable();
    }
    compare("data", &want, output(m, "data")?)
}

fn pathfinder_make(cols: u32, seed: u64) -> Result<Launch, String> {
    need((1..=2048).contains(&cols), || {
        "pathfinder columns must be 1..=2048".into()
    })?;
    let rows = 8 + cols / 10;
    let mut rng = Rng::new(seed);
    let wall = (0..rows * cols).map(|_| rng.below(10) as u32).collect();
    Ok(Launch::new([1, 1, 1], [128, 1, 1])
        .buffer("wall", wall)
        .buffer("out", vec![0; cols as usize])
        .param("rows", rows)
        .param("cols", cols))
}

fn pathfinder_check(l: &Launch, m: &Machine) -> Result<(), String> {
    let (rows, cols) = (word(l, "rows") as usize, word(l, "cols") as usize);
    let wall = input(l, "wall");
    let mut prev: Vec<u32> = wall[..cols].to_vec();
    for r in 1..rows {
        let next: Vec<u32> = (0..cols)
            .map(|c| {
                let lo = c.saturating_sub(1);
                let hi = (c + 1).min(cols - 1);
                let best = prev[lo..=hi].iter().copied().min().unwrap();
                wall[r * cols + c].wrapping_add(best)
            })
            .collect();
        prev = next;
    }
    compare("out", &prev, output(m, "out")?)
}

fn stencil_make(h: u32, seed: u64) -> Result<Launch, String> {
    need((1..=2000).contains(&h), || {
        "stencil height must be 1..=2000".into()
    })?;
    let w = h + 5;
    let mut rng = Rng::new(seed);
    let data = (0..w * h)
        .map(|_| ((rng.below(1000) + 1) as f32 / 1000.0).to_bits())
        .collect();
    Ok(Launch::new([blocks(w, 16), blocks(h, 16), 1], [16, 16, 1])
        .buffer("in", data)
        .buffer("out", vec![0; (w * h) as usize])
        .param("width", w)
        .param("height", h))
}

fn stencil_check(l: &Launch, m: &Machine) -> Result<(), String> {
    let (w, h) = (word(l, "width") as usize, word(l, "height") as usize);
    let a = input(l, "in");
    let f = |i: usize| ftz(f32::from_bits(a[i]));
    let mut want = vec![0u32; w * h];
    for y in 0..h {
        for x in 0..w {
            let i = y * w + x;
            want[i] = if x == 0 || y == 0 || x == w - 1 || y == h - 1 {
                a[i]
            } else {
                let mut s = ftz(f(i) + f(i - w));
                s = ftz(s + f(i + w));
                s = ftz(s + f(i - 1));
                s = ftz(s + f(i + 1));
                ftz(s * 0.2f32).to_bits()
            };
        }
    }
    compare("out", &want, output(m, "out")?)
}

// ---- divergence-heavy -----------------------------------------------------------------------

fn bfs_make(n: u32, seed: u64) -> Result<Launch, String> {
    need((1..=1 << 20).contains(&n), || {
        "bfs vertices must be 1..=1048576".into()
    })?;
    let mut rng = Rng::new(seed);
    let mut rowptr = vec![0u32];
    let mut cols = Vec::new();
    for v in 0..n {
        // Mostly short, some long adjacency lists; a few vertices left unreachable.
        let deg = if rng.chance(1, 16) {
            8 + rng.below(24)
        } else {
            rng.below(4)
        };
        for _ in 0..deg {
            let u = if v + 1 < n && rng.chance(1, 4) {
                v + 1
            } else {
                rng.below(n as u64) as u32
            };
            cols.push(u);
        }
        rowptr.push(cols.len() as u32);
    }
    let mut cost = vec![u32::MAX; n as usize];
    cost[0] = 0;
    Ok(Launch::new([1, 1, 1], [256, 1, 1])
        .buffer("rowptr", rowptr)
        .buffer("cols", cols)
        .buffer("cost", cost)
        .param("n", n))
}

fn bfs_check(l: &Launch, m: &Machine) -> Result<(), String> {
    let n = word(l, "n") as usize;
    let (rowptr, cols) = (input(l, "rowptr"), input(l, "cols"));
    let mut cost = vec![u32::MAX; n];
    cost[0] = 0;
    let mut queue = std::collections::VecDeque::from([0usize]);
    while let Some(v) = queue.pop_front() {
        for &u in &cols[rowptr[v] as usize..rowptr[v + 1] as usize] {
            if cost[u as usize] == u32::MAX {
                cost[u as usize] = cost[v] + 1;
                queue.push_back(u as usize);
            }
        }
    }
    compare("cost", &cost, output(m, "cost")?)
}

fn nqueens_make(n: u32, _seed: u64) -> Result<Launch, String> {
    // 15 and 16 exceed the default step limit (2^24 instructions per thread).
    need((4..=14).contains(&n), || {
        "nqueens board size must be 4..=14".into()
    })?;
    Ok(Launch::new([n, 1, 1], [n, 1, 1])
        .buffer("counts", vec![u32::MAX; (n * n) as usize])
        .param("n", n))
}

/// Solutions with the queens of rows `0..queens.len()` fixed, by plain recursion over rows
/// with an attack test on coordinates (not bitmasks, so it shares nothing with the kernel).
fn queens_from(n: usize, queens: &mut Vec<usize>) -> u32 {
    let row = queens.len();
    if row == n {
        return 1;
    }
    let mut total = 0;
    for c in 0..n {
        let safe = queens
            .iter()
            .enumerate()
            .all(|(r, &qc)| qc != c && row - r != c.abs_diff(qc));
        if safe {
            queens.push(c);
            total += queens_from(n, queens);
            queens.pop();
        }
    }
    total
}

/// Host reference: solutions per placement of the first two rows.
pub fn nqueens_counts(n: usize) -> Vec<u32> {
    let mut out = Vec::with_capacity(n * n);
    for c0 in 0..n {
        for c1 in 0..n {
            let ok = c0 != c1 && c0.abs_diff(c1) != 1;
            out.push(if ok {
                queens_from(n, &mut vec![c0, c1])
            } else {
                0
            });
        }
    }
    out
}

fn nqueens_check(l: &Launch, m: &Machine) -> Result<(), String> {
    compare(
        "counts",
        &nqueens_counts(word(l, "n") as usize),
        output(m, "counts")?,
    )
}

fn mandelbrot_make(w: u32, _seed: u64) -> Result<Launch, String> {
    need((2..=4000).contains(&w), || {
        "mandelbrot width must be 2..=4000".into()
    })?;
    let h = (w * 3 / 4).max(1);
    let (x0, y0) = (-2.0f32, -1.125f32);
    let (dx, dy) = (3.0f32 / w as f32, 2.25f32 / h as f32);
    Ok(Launch::new([blocks(w, 16), blocks(h, 8), 1], [16, 8, 1])
        .buffer("out", vec![u32::MAX; (w * h) as usize])
        .param("width", w)
        .param("height", h)
        .param("x0", x0.to_bits())
        .param("y0", y0.to_bits())
        .param("dx", dx.to_bits())
        .param("dy", dy.to_bits())
        .param("maxit", 64))
}

fn mandelbrot_check(l: &Launch, m: &Machine) -> Result<(), String> {
    let (w, h) = (word(l, "width") as usize, word(l, "height") as usize);
    let p = |n| ftz(f32::from_bits(word(l, n)));
    let (x0, y0, dx, dy) = (p("x0"), p("y0"), p("dx"), p("dy"));
    let maxit = word(l, "maxit");
    let add = |a: f32, b: f32| ftz(a + b);
    let mul = |a: f32, b: f32| ftz(a * b);
    let mut want = vec![0u32; w * h];
    for y in 0..h {
        for x in 0..w {
            let cr = add(mul(x as f32, dx), x0);
            let ci = add(mul(y as f32, dy), y0);
            let (mut zr, mut zi) = (0.0f32, 0.0f32);
            let mut it = 0;
            while it < maxit {
                let (zr2, zi2) = (mul(zr, zr), mul(zi, zi));
                if add(zr2, zi2) > 4.0 {
                    break;
                }
                let t = mul(zr, zi);
                zi = add(add(t, t), ci);
                zr = add(ftz(zr2 - zi2), cr);
                it += 1;
            }
            want[y * w + x] = it;
        }
    }
    compare("out", &want, output(m, "out")?)
}

fn strmatch_make(n: u32, seed: u64) -> Result<Launch, String> {
    const M: u32 = 5;
    elements("strmatch", n, M)?;
    let mut rng = Rng::new(seed);
    let letter = |rng: &mut Rng| b'a' as u32 + rng.below(3) as u32;
    let pat: Vec<u32> = (0..M).map(|_| letter(&mut rng)).collect();
    let mut text: Vec<u32> = (0..n).map(|_| letter(&mut rng)).collect();
    // Plant some occurrences.
    for _ in 0..(n / 50).max(1) {
        let at = rng.below((n - M + 1) as u64) as usize;
        text[at..at + M as usize].copy_from_slice(&pat);
    }
    Ok(Launch::new([blocks(n - M + 1, 128), 1, 1], [128, 1, 1])
        .buffer("text", text)
        .buffer("pat", pat)
        .buffer("matches", vec![u32::MAX; n as usize])
        .buffer("count", vec![0])
        .param("n", n)
        .param("m", M))
}

fn strmatch_check(l: &Launch, m: &Machine) -> Result<(), String> {
    let (text, pat) = (input(l, "text"), input(l, "pat"));
    let k = pat.len();
    let mut want = vec![u32::MAX; text.len()];
    for i in 0..=text.len() - k {
        want[i] = (text[i..i + k] == *pat) as u32;
    }
    compare("matches", &want, output(m, "matches")?)?;
    let count = want.iter().filter(|&&x| x == 1).count() as u32;
    compare("count", &[count], output(m, "count")?)
}
