// The Verilator bridge compiles C++ with `cc` at run time, where cargo's TARGET/HOST
// variables are absent; record them here so the bridge can set them explicitly.
fn main() {
    let target = std::env::var("TARGET").unwrap_or_default();
    let host = std::env::var("HOST").unwrap_or_default();
    println!("cargo:rustc-env=WARPFORGE_TARGET={target}");
    println!("cargo:rustc-env=WARPFORGE_HOST={host}");
    println!("cargo:rerun-if-changed=build.rs");
}
