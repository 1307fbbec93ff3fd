//! The emitter's merge of identical modules (`primitives::merge_identical_modules`) on small
//! Verilog texts: identical leaves, parents that become identical once their children merge,
//! and bodies that differ in one constant.

use warpforge_hdl::primitives::{merge_identical_modules, separate_instance};

/// A register module `name` whose reset value is `init`.
fn leaf(name: &str, init: &str) -> String {
    format!(
        "\n\nmodule {name}(clock,d,q);\n    input wire  clock;\n    input wire  [3:0] d;\n    output reg  [3:0] q;\n    \
         always @(posedge clock) q <= d ^ 4'd{init};\nendmodule // {name}\n"
    )
}

/// A module `name` instantiating `children` (type, instance) with the leaf's ports.
fn parent(name: &str, children: &[(&str, &str)]) -> String {
    let mut s = format!("\n\nmodule {name}(clock,d,q);\n    input wire  clock;\n    input wire  [3:0] d;\n    output wire  [3:0] q;\n");
    for (_, inst) in children {
        s += &format!("    wire  [3:0] {inst}__q;\n");
    }
    s += "    // Sub module instances\n";
    for (ty, inst) in children {
        s += &format!("    {ty} {inst}(\n        .clock(clock),\n        .d(d),\n        .q({inst}__q)\n    );\n");
    }
    s += &format!(
        "    assign q = {};\nendmodule // {name}\n",
        children
            .iter()
            .map(|(_, i)| format!("{i}__q"))
            .collect::<Vec<_>>()
            .join(" ^ ")
    );
    s
}

fn modules(v: &str) -> Vec<String> {
    v.lines()
        .filter_map(|l| l.strip_prefix("module "))
        .map(|l| l.split('(').next().unwrap().to_string())
        .collect()
}

/// The type each instance `inst` is instantiated as.
fn type_of(v: &str, inst: &str) -> String {
    v.lines()
        .find_map(|l| {
            let mut w = l.split_whitespace();
            let (ty, i) = (w.next()?, w.next()?);
            (i == format!("{inst}(")).then(|| ty.to_string())
        })
        .unwrap_or_else(|| panic!("no instance {inst} in\n{v}"))
}

/// Two parents, each with two leaves of its own; all four leaves are identical, so the
/// parents differ only in their children's names.
fn two_parents_of_two_identical_leaves() -> String {
    parent("top", &[("top__p", "p"), ("top__r", "r")])
        + &parent("top__p", &[("top__p__x", "x"), ("top__p__y", "y")])
        + &leaf("top__p__x", "3")
        + &leaf("top__p__y", "3")
        + &parent("top__r", &[("top__r__x", "x"), ("top__r__y", "y")])
        + &leaf("top__r__x", "3")
        + &leaf("top__r__y", "3")
}

#[test]
fn two_identical_leaves_become_one_module() {
    let v = parent("top", &[("top__a", "a"), ("top__b", "b")])
        + &leaf("top__a", "5")
        + &leaf("top__b", "5");
    let m = merge_identical_modules(&v);
    assert_eq!(modules(&m), ["top", "top__a"]);
    assert_eq!(type_of(&m, "a"), "top__a");
    assert_eq!(type_of(&m, "b"), "top__a");
    // Everything but the dropped module and the renamed instantiation is unchanged.
    let expected = parent("top", &[("top__a", "a"), ("top__a", "b")]) + &leaf("top__a", "5");
    assert_eq!(m, expected);
}

#[test]
fn parents_merge_once_their_children_have() {
    // Two parents, each with two leaves of its own; all four leaves are identical, so the
    // parents differ only in their children's names and merge too.
    let v = two_parents_of_two_identical_leaves();
    let m = merge_identical_modules(&v);
    assert_eq!(modules(&m), ["top", "top__p", "top__p__x"]);
    assert_eq!(type_of(&m, "r"), "top__p");
    assert_eq!(type_of(&m, "y"), "top__p__x");
    // Merging is idempotent.
    assert_eq!(merge_identical_modules(&m), m);
}

#[test]
fn bodies_differing_in_one_constant_stay_apart() {
    let v = parent("top", &[("top__p", "p"), ("top__r", "r")])
        + &parent("top__p", &[("top__p__x", "x")])
        + &leaf("top__p__x", "3")
        + &parent("top__r", &[("top__r__x", "x")])
        + &leaf("top__r__x", "4");
    let m = merge_identical_modules(&v);
    // The leaves differ (3 vs 4), so their parents do too.
    assert_eq!(m, v);
    assert_eq!(modules(&m).len(), 5);
}

#[test]
fn the_top_keeps_its_name_and_a_lone_module_is_unchanged() {
    let v = leaf("top", "1");
    assert_eq!(merge_identical_modules(&v), v);
    // A child identical to another module that comes first keeps that one's name; the top,
    // whatever the others look like, stays first.
    let v = parent("top", &[("top__b", "b"), ("top__a", "a")])
        + &leaf("top__a", "2")
        + &leaf("top__b", "2");
    let m = merge_identical_modules(&v);
    assert_eq!(modules(&m), ["top", "top__b"]);
    assert_eq!(type_of(&m, "a"), "top__b");
}

#[test]
fn one_instance_can_be_given_its_own_modules_again() {
    // Tests plant a bug in one of several identical instances: `separate_instance` copies the
    // modules along the path so only that instance uses the copies.
    let v = two_parents_of_two_identical_leaves();
    let m = merge_identical_modules(&v);
    let (s, leaf_copy) = separate_instance(&m, "top", &["r", "y"]).unwrap();
    assert_eq!(leaf_copy, "top__p__x__only__r__y");
    assert_eq!(
        modules(&s),
        [
            "top",
            "top__p",
            "top__p__x",
            "top__p__only__r",
            "top__p__x__only__r__y"
        ]
    );
    assert_eq!(type_of(&s, "r"), "top__p__only__r");
    // The shared parent still uses the shared leaf for both of its instances.
    let shared = &s[s.find("module top__p(").unwrap()..s.find("endmodule // top__p\n").unwrap()];
    assert_eq!(shared.matches("top__p__x ").count(), 2);
    // The copies are the same logic: merging again gives the merged text back.
    assert_eq!(merge_identical_modules(&s), m);
    assert!(separate_instance(&m, "top", &["r", "z"]).is_none());
    assert!(separate_instance(&m, "top", &["q"]).is_none());
}
