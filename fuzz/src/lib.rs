//! Helpers shared by the fuzz targets in `fuzz_targets/`.

use std::time::{Duration, Instant};

/// Fixed allowance of [`linear`]: start-up work such as compiling a cached regex on the first input.
const BASE: Duration = Duration::from_millis(50);

/// Allowance per input byte of [`linear`]. The parsers take well under a microsecond per byte even in
/// an instrumented build; a quadratic one takes seconds on a 64 KiB input.
const PER_BYTE: Duration = Duration::from_micros(10);

/// Runs `f` on an input of `len` bytes and fails (panics, which libFuzzer reports as a crash with the
/// input saved) when it took longer than a generous linear bound. A run over the bound is timed again
/// before failing, so one preempted run on a busy machine is not a failure. libFuzzer's `-timeout`
/// catches plain hangs; this catches super-linear work that still finishes.
pub fn linear<T>(what: &str, len: usize, mut f: impl FnMut() -> T) -> T {
    let bound = BASE + PER_BYTE * u32::try_from(len).unwrap_or(u32::MAX);
    let start = Instant::now();
    let out = f();
    let first = start.elapsed();
    if first > bound {
        let start = Instant::now();
        let _ = f();
        let again = start.elapsed();
        assert!(
            again <= bound,
            "{what}: {len} bytes took {first:?}, then {again:?}: over the linear bound of {bound:?}"
        );
    }
    out
}

/// The input as text, the way a host that decoded it would hand it over.
pub fn text(data: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(data)
}

/// Defines AddressSanitizer's default options in a fuzz target, so that `cargo fuzz run` needs no
/// `ASAN_OPTIONS`. The bundled SQLite is compiled by the C compiler with its own AddressSanitizer
/// instrumentation (gcc's, where that is `cc`), whose globals LLVM's runtime sees registered twice: a false
/// ODR report that would stop every target linking the store. Invoked in each target (a binary), not
/// defined here: the linker would leave this library's object out of a target that calls nothing in it.
#[macro_export]
macro_rules! asan_defaults {
    () => {
        #[unsafe(no_mangle)]
        pub extern "C" fn __asan_default_options() -> *const std::ffi::c_char {
            c"detect_odr_violation=0".as_ptr()
        }
    };
}
