//! The PDOM (SBR) reconvergence stack of one warp (spec/crown.md §2.6) as a plain type,
//! shared by the `simt-stack` unit model and the ISA interpreter's warp-level mode, so the
//! reconvergence rules live in exactly one place on the model side.

/// One stack entry: a path's next PC, its threads, and where it reconverges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub pc: u64,
    pub mask: u64,
    /// Reconvergence PC; `None` only for the bottom entry (the whole warp).
    pub rpc: Option<u64>,
}

/// What the committed instruction of the TOS path did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommitKind {
    /// A non-branch instruction: the path moves on to `next_pc`.
    Advance,
    /// A conditional branch: `taken` lanes go to `target`, the others to `next_pc`; the paths
    /// reconverge at `rpc` (the branch's immediate post-dominator).
    Branch { taken: u64, target: u64, rpc: u64 },
    /// `exit`: the active lanes finish.
    Exit,
}

/// One committed instruction of the TOS path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Commit {
    /// The fall-through PC (the PC after the instruction).
    pub next_pc: u64,
    pub kind: CommitKind,
}

/// A divergent commit whose pushes do not fit; the stack was left unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overflow;

/// A warp's reconvergence stack with a fixed capacity.
#[derive(Clone, Debug)]
pub struct Stack {
    /// Bottom first. Never grows past `capacity` (allocated once).
    entries: Vec<Entry>,
    capacity: usize,
    overflowed: bool,
    /// Entries popped by the last `commit` or `launch` (for coverage counters).
    last_pops: usize,
}

impl Stack {
    /// An empty stack of `depth` entries.
    pub fn new(depth: usize) -> Stack {
        Stack {
            entries: Vec::with_capacity(depth),
            capacity: depth,
            overflowed: false,
            last_pops: 0,
        }
    }

    /// Start a warp: one entry `{pc, mask}` without RPC. Clears the overflowed flag. A launch
    /// with an empty mask leaves the stack empty (nothing live).
    pub fn launch(&mut self, pc: u64, mask: u64) {
        self.entries.clear();
        self.overflowed = false;
        if self.capacity > 0 {
            self.entries.push(Entry {
                pc,
                mask,
                rpc: None,
            });
        }
        self.last_pops = self.pop_finished();
    }

    /// Empty the stack and clear the overflowed flag (the unit's reset).
    pub fn reset(&mut self) {
        self.entries.clear();
        self.overflowed = false;
        self.last_pops = 0;
    }

    /// Apply one committed instruction of the TOS path. No effect on an empty stack. A
    /// divergent branch whose pushes do not fit is refused: only the sticky overflowed flag
    /// changes.
    pub fn commit(&mut self, c: &Commit) -> Result<(), Overflow> {
        self.last_pops = 0;
        let Some(tos) = self.entries.last().copied() else {
            return Ok(());
        };
        let top = self.entries.len() - 1;
        match c.kind {
            CommitKind::Advance => self.entries[top].pc = c.next_pc,
            CommitKind::Branch { taken, target, rpc } => {
                let active_taken = taken & tos.mask;
                if active_taken == tos.mask {
                    self.entries[top].pc = target;
                } else if active_taken == 0 {
                    self.entries[top].pc = c.next_pc;
                } else {
                    // Divergent: a path that starts at the RPC needs no entry (one-sided).
                    let push_fall = c.next_pc != rpc;
                    let push_taken = target != rpc;
                    let pushes = push_fall as usize + push_taken as usize;
                    // A TOS that already reconverges at this rpc would only wait at its own
                    // RPC once rewritten (its parent holds those lanes), so the paths replace
                    // it: a loop whose exit diverges every iteration keeps a constant depth.
                    let replace = tos.rpc == Some(rpc);
                    if self.entries.len() - replace as usize + pushes > self.capacity {
                        self.overflowed = true;
                        return Err(Overflow);
                    }
                    if replace {
                        self.entries.pop();
                    } else {
                        self.entries[top].pc = rpc;
                    }
                    // Fall-through first, taken last: the taken path runs first (A17).
                    if push_fall {
                        self.entries.push(Entry {
                            pc: c.next_pc,
                            mask: tos.mask & !taken,
                            rpc: Some(rpc),
                        });
                    }
                    if push_taken {
                        self.entries.push(Entry {
                            pc: target,
                            mask: active_taken,
                            rpc: Some(rpc),
                        });
                    }
                }
            }
            CommitKind::Exit => {
                for e in self.entries.iter_mut() {
                    e.mask &= !tos.mask;
                }
            }
        }
        self.last_pops = self.pop_finished();
        Ok(())
    }

    /// Pop while the top has no threads left or has reached its reconvergence PC; returns how
    /// many entries went.
    fn pop_finished(&mut self) -> usize {
        let mut pops = 0;
        while let Some(t) = self.entries.last() {
            if t.mask == 0 || t.rpc == Some(t.pc) {
                self.entries.pop();
                pops += 1;
            } else {
                break;
            }
        }
        pops
    }

    /// Raw access for the model's fault injection (tests of the invariant checker).
    pub(crate) fn entries_mut(&mut self) -> &mut Vec<Entry> {
        &mut self.entries
    }

    pub fn top(&self) -> Option<&Entry> {
        self.entries.last()
    }

    /// Live entries, bottom first.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Entries in use.
    pub fn depth(&self) -> usize {
        self.entries.len()
    }

    /// Capacity in entries.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Sticky: a commit was refused since the last launch or reset.
    pub fn overflowed(&self) -> bool {
        self.overflowed
    }

    /// Entries popped by the last `commit` (or `launch`).
    pub fn last_pops(&self) -> usize {
        self.last_pops
    }

    /// Check the stack invariants of crown.md §7.1 item 9 plus the structural ones the
    /// rules guarantee; `Err` names the first one that fails.
    pub fn check(&self) -> Result<(), String> {
        let e = &self.entries;
        if e.len() > self.capacity {
            return Err(format!(
                "depth {} exceeds capacity {}",
                e.len(),
                self.capacity
            ));
        }
        let Some(bottom) = e.first() else {
            return Ok(());
        };
        if bottom.rpc.is_some() {
            return Err("the bottom entry has an RPC".into());
        }
        let top = e[e.len() - 1];
        if top.mask == 0 {
            return Err("the top entry has an empty mask (should have been popped)".into());
        }
        if top.rpc == Some(top.pc) {
            return Err("the top entry is at its RPC (should have been popped)".into());
        }
        // Per entry: the threads of its children seen so far (siblings must be disjoint).
        // Children of one parent all carry the parent's PC as RPC.
        let mut small = [0u64; 64];
        let mut large = Vec::new();
        let children: &mut [u64] = if e.len() <= small.len() {
            &mut small[..e.len()]
        } else {
            large.resize(e.len(), 0);
            &mut large
        };
        for i in 1..e.len() {
            let Some(rpc) = e[i].rpc else {
                return Err(format!("entry {i} (not the bottom) has no RPC"));
            };
            // The parent: nearest lower entry whose PC equals this entry's RPC.
            let p = (0..i).rev().find(|&j| e[j].pc == rpc).ok_or_else(|| {
                format!("entry {i}: no lower entry is at its RPC {rpc:#x} (no parent)")
            })?;
            if e[i].mask & !e[p].mask != 0 {
                return Err(format!(
                    "entry {i} mask {:#x} is not a subset of its parent {p} mask {:#x}",
                    e[i].mask, e[p].mask
                ));
            }
            if e[i].mask & !bottom.mask != 0 {
                return Err(format!(
                    "entry {i} mask {:#x} holds threads the bottom entry {:#x} lacks",
                    e[i].mask, bottom.mask
                ));
            }
            if children[p] & e[i].mask != 0 {
                return Err(format!(
                    "entry {i} shares threads {:#x} with a sibling (RPC {rpc:#x})",
                    children[p] & e[i].mask
                ));
            }
            children[p] |= e[i].mask;
        }
        Ok(())
    }
}

#[cfg(test)]
mod stack_tests {
    use super::*;

    fn br(next_pc: u64, taken: u64, target: u64, rpc: u64) -> Commit {
        Commit {
            next_pc,
            kind: CommitKind::Branch { taken, target, rpc },
        }
    }

    #[test]
    fn divergent_push_order_and_pop_at_rpc() {
        let mut s = Stack::new(4);
        s.launch(1, 0xff);
        s.commit(&br(2, 0x1f, 4, 5)).unwrap();
        let e = s.entries();
        assert_eq!(e.len(), 3);
        assert_eq!(
            e[0],
            Entry {
                pc: 5,
                mask: 0xff,
                rpc: None
            }
        );
        assert_eq!(
            e[1],
            Entry {
                pc: 2,
                mask: 0xe0,
                rpc: Some(5)
            }
        );
        assert_eq!(
            e[2],
            Entry {
                pc: 4,
                mask: 0x1f,
                rpc: Some(5)
            }
        );
        s.check().unwrap();
        s.commit(&Commit {
            next_pc: 5,
            kind: CommitKind::Advance,
        })
        .unwrap();
        assert_eq!(s.depth(), 2);
        assert_eq!(s.last_pops(), 1);
    }

    #[test]
    fn refused_commit_changes_only_the_flag() {
        let mut s = Stack::new(2);
        s.launch(0, 0xf);
        let before = s.entries().to_vec();
        assert_eq!(s.commit(&br(1, 0x3, 2, 3)), Err(Overflow));
        assert_eq!(s.entries(), &before[..]);
        assert!(s.overflowed());
        s.launch(0, 0xf);
        assert!(!s.overflowed());
    }

    #[test]
    fn empty_stack_ignores_commits_and_zero_mask_launch_is_empty() {
        let mut s = Stack::new(2);
        assert_eq!(s.commit(&br(1, 1, 2, 3)), Ok(()));
        s.launch(7, 0);
        assert!(s.is_empty());
    }
}
