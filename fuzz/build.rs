//! Compile hermes's own modules (every `mod x;` of src/main.rs) into this
//! crate's library, so the fuzz targets call the real decoders and a module
//! added to hermes needs no change here.

use std::path::Path;

fn main() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../src");
    let src = src.canonicalize().expect("hermes src/ next to fuzz/");
    let main_rs = src.join("main.rs");
    println!("cargo:rerun-if-changed={}", main_rs.display());
    let text = std::fs::read_to_string(&main_rs).expect("read src/main.rs");
    let mut out = String::new();
    for line in text.lines() {
        let Some(name) = line
            .trim()
            .strip_prefix("mod ")
            .and_then(|rest| rest.strip_suffix(';'))
        else {
            continue;
        };
        // lib.rs declares `output` itself: its #[macro_export] macros
        // (`crate::note!`) cannot come from a macro expansion.
        if name == "output" {
            continue;
        }
        let file = if src.join(format!("{name}.rs")).exists() {
            src.join(format!("{name}.rs"))
        } else {
            src.join(name).join("mod.rs")
        };
        out.push_str(&format!("#[path = {:?}]\npub mod {name};\n", file.display().to_string()));
    }
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("modules.rs");
    std::fs::write(dest, out).expect("write modules.rs");
}
